//! What a compaction drops: the user requests it summarizes, checked against its summary for
//! the paths, identifiers and quoted text they name, and the share of the summarized part's
//! file paths, shell commands and numbers the summary keeps ([`KeptFacts`]) (`contextree
//! drops`, the app's entry panel for a compaction and its plan preview).

use contextree_core::compaction::{plan, CompactionSettings};
use contextree_core::context::{Context, ReadBackError};
use contextree_core::dialect::RuleChoiceWire;
use contextree_core::drops::{is_request, requests, summarized_by, Request};
use contextree_core::session::{NodeId, Session, Source};
use contextree_core::RuleChoice;
use serde::Serialize;
use ts_rs::TS;

use crate::kept::KeptFacts;
use crate::rows::{ReadBackSlot, Rows};

/// The requests a compaction summarizes (an existing one, or the one compacting a leaf now
/// would make), each flagged when its summary names none of its terms. The requests are
/// checked and written one at a time; [`DropsReport::finish`] says whether all read back.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DropsReport<'a> {
    /// The agent whose rules ran.
    pub dialect: &'static str,
    /// The rule set that ran and why.
    #[ts(as = "RuleChoiceWire")]
    pub rule_set: &'a RuleChoice,
    /// Which compaction: `compaction ID`, or one of the leaf now.
    pub what: String,
    /// There is a summary to check against (an existing compaction).
    pub has_summary: bool,
    /// The user requests it summarizes, in order.
    #[ts(type = "Array<Request>")]
    pub requests: Rows<Box<dyn Iterator<Item = Request> + 'a>>,
    /// How many may be lost.
    pub may_be_lost: usize,
    /// The paths, commands and numbers of the summarized part, and the share the summary keeps.
    pub facts: KeptFacts,
    /// User requests summarized.
    #[serde(skip)]
    #[ts(skip)]
    pub count: usize,
    #[serde(skip)]
    #[ts(skip)]
    failed: ReadBackSlot,
}

/// The entries a compaction summarizes, and its summary.
pub struct Summarized {
    nodes: Vec<NodeId>,
    summary: Option<String>,
    what: String,
}

impl Summarized {
    /// Compaction `c` of `s`.
    pub fn compaction(s: &Session, c: NodeId) -> Self {
        let e = s.entry(c);
        Self { nodes: summarized_by(s, c), summary: e.str_field("summary").map(str::to_owned), what: format!("compaction {}", e.id) }
    }

    /// What compacting `ctx` now (default settings) would summarize: no summary yet, so the
    /// terms are what the summary should keep.
    pub fn plan(s: &Session, ctx: &Context, source: &dyn Source) -> Result<Self, ReadBackError> {
        let p = plan(s, ctx, &CompactionSettings::default(), source)?;
        let nodes = p.prepared().map(|pr| pr.messages_to_summarize.iter().chain(&pr.turn_prefix).copied().collect()).unwrap_or_default();
        Ok(Self { nodes, summary: None, what: "a compaction of the leaf now (no summary yet)".to_owned() })
    }
}

impl<'a> DropsReport<'a> {
    /// The report of what `of` summarizes. Without a summary none may be lost; with one, a
    /// first pass counts them (a million-message history is not held).
    pub fn new(s: &'a Session, of: &'a Summarized, source: &'a dyn Source) -> Result<Self, ReadBackError> {
        let summary = of.summary.as_deref();
        let count = of.nodes.iter().filter(|&&n| is_request(s, n)).count();
        let mut lost = 0;
        if summary.is_some() {
            for r in requests(s, &of.nodes, summary, source) {
                lost += usize::from(r?.may_be_lost);
            }
        }
        let facts = KeptFacts::new(s, &of.nodes, summary, source)?;
        let failed = ReadBackSlot::default();
        let each = failed.until_error(requests(s, &of.nodes, summary, source));
        Ok(Self {
            dialect: s.dialect().name(),
            rule_set: s.rule_choice(),
            what: of.what.clone(),
            has_summary: summary.is_some(),
            requests: Rows::new(Box::new(each)),
            may_be_lost: lost,
            facts,
            count,
            failed,
        })
    }

    /// Hands the requests to `render` (a text face), then [`DropsReport::finish`].
    pub fn finish_with(mut self, render: impl FnOnce(&mut dyn Iterator<Item = Request>)) -> Result<(), ReadBackError> {
        let rows = std::mem::replace(&mut self.requests, Rows::new(Box::new(std::iter::empty())));
        render(&mut rows.into_inner());
        self.finish()
    }

    /// After the report was written: the first request that could not be read back (the file
    /// changed); the list ended there.
    pub fn finish(self) -> Result<(), ReadBackError> {
        self.failed.finish()
    }
}
