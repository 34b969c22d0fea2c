//! What compacting a leaf would do, read only: `contextree compact --dry-run` and the app's
//! plan panel. The plan itself is contextree-ops' (the flow that would write it computes it);
//! this report adds the user requests it would summarize and the paths, commands and numbers
//! of the part it would summarize (the drops audit before the fact).

use contextree_core::context::ReadBackError;
use contextree_core::dialect::RuleChoiceWire;
use contextree_core::drops::{is_request, requests, Request};
use contextree_core::session::{NodeId, Session, Source};
use contextree_core::RuleChoice;
use contextree_ops::compact::DryRun;
use serde::Serialize;
use ts_rs::TS;

use crate::cost::{plan_cost, CostReport};
use crate::kept::KeptFacts;
use crate::rows::{ReadBackSlot, Rows};
use contextree_host::prices::ModelPrices;

/// The plan of a compaction and the exact summarizer calls (or why the agent would not
/// compact), the settings files, the hooks that would run, the agent's own automatic check,
/// and the requests it would summarize (checked one at a time while written).
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlanReport<'a> {
    /// The agent whose rules ran.
    pub dialect: &'static str,
    /// The rule set that ran and why.
    #[ts(as = "RuleChoiceWire")]
    pub rule_set: &'a RuleChoice,
    /// The plan (contextree-ops' dry run).
    #[serde(flatten)]
    pub plan: DryRun,
    /// The user requests it would summarize, with the paths, identifiers and quoted text they
    /// name: what the summary should keep (no summary yet, so none is flagged).
    #[ts(type = "Array<Request>")]
    pub requests: Rows<Box<dyn Iterator<Item = Request> + 'a>>,
    /// The file paths, shell commands and numbers of the part it would summarize: what the
    /// summary should keep (no summary yet, so none is counted kept).
    pub facts: KeptFacts,
    /// When asked ([`PlanReport::with_cost`]; `compact --dry-run --json` and the app always
    /// ask): what compacting now costs once and saves per later turn; absent when there is
    /// nothing to compact.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost: Option<CostReport>,
    #[serde(skip)]
    #[ts(skip)]
    failed: ReadBackSlot,
}

impl<'a> PlanReport<'a> {
    /// The report of `plan`, a dry run of `s`.
    pub fn new(s: &'a Session, source: &'a dyn Source, plan: DryRun) -> Self {
        let nodes: Vec<NodeId> = match &plan {
            DryRun::Plan(p) => p.planned.summarized.clone(),
            DryRun::Nothing(_) => Vec::new(),
        };
        let failed = ReadBackSlot::default();
        // A message that does not read back is reported by `finish`, as a request's would be.
        let facts = KeptFacts::new(s, &nodes, None, source).unwrap_or_else(|e| {
            failed.keep(e);
            KeptFacts::default()
        });
        // `requests` borrows its nodes: each is asked for on its own (the plan owns the list).
        let each = failed.until_error(
            nodes
                .into_iter()
                .filter(move |&n| is_request(s, n))
                .filter_map(move |n| requests(s, std::slice::from_ref(&n), None, source).next()),
        );
        Self {
            dialect: s.dialect().name(),
            rule_set: s.rule_choice(),
            plan,
            requests: Rows::new(Box::new(each)),
            facts,
            cost: None,
            failed,
        }
    }

    /// The report with its cost lines ([`crate::cost`]) for a session whose model is
    /// `session_model`, with `prices` telling a model's prices (contextree-host's
    /// `model_prices`).
    pub fn with_cost(mut self, session_model: Option<&str>, prices: &dyn Fn(&str) -> Option<ModelPrices>) -> Self {
        self.cost = plan_cost(&self.plan, session_model, prices);
        self
    }

    /// After the report was written: the first request that could not be read back (the file
    /// changed); the list ended there.
    pub fn finish(self) -> Result<(), ReadBackError> {
        self.failed.finish()
    }
}
