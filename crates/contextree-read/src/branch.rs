//! The branch-summary preparation for moving the leaf from one entry to another (spec
//! branch-summary.md §2–3): `contextree branch`. No model is called and the file is not touched.

use contextree_core::branch::{message_role_under, BranchEntries, PreparedBranch};
use contextree_core::context::{entry_estimate, Item};
use contextree_core::dialect::RuleChoiceWire;
use contextree_core::session::{NodeId, Session};
use contextree_core::RuleChoice;
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crate::rows::{FileOpsReport, Ids, Rows};

/// What a branch summary of the entries left behind would read: the entries collected, those
/// the budget selects with their roles and estimates, the file lists; with a summary model, the
/// call. Its lists are written one element at a time.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BranchReport<'a> {
    /// The agent whose rules ran.
    pub dialect: &'static str,
    /// The rule set that ran and why.
    #[ts(as = "RuleChoiceWire")]
    pub rule_set: &'a RuleChoice,
    /// The old leaf.
    pub from_id: Option<String>,
    /// The navigation target.
    pub to_id: Option<String>,
    /// The selection's token budget (0: none).
    pub budget: u64,
    /// Where the two paths meet.
    pub common_ancestor_id: Option<String>,
    /// The entries left behind (collected).
    pub entry_ids: Ids<'a>,
    /// Those the budget selects.
    pub selected_ids: Ids<'a>,
    /// The selected messages with the role and estimate the summarizer sees.
    #[ts(type = "Array<BranchMessage>")]
    pub messages: Rows<Box<dyn Iterator<Item = BranchMessage<'a>> + 'a>>,
    /// Their estimate.
    pub total_tokens: u64,
    /// A summary squeezed in over the budget.
    pub squeezed_id: Option<String>,
    /// Where the selection stopped.
    pub stopped_at_id: Option<String>,
    /// The file operations of the selection.
    pub file_ops: FileOpsReport,
    /// With a summary model: the summarizer call and its transcript format (flattened; left
    /// out of the UI's type, as ts-rs cannot flatten an Option).
    #[serde(flatten)]
    #[ts(skip)]
    pub call: Option<BranchCall>,
}

/// The summarizer call of a branch summary.
#[derive(Serialize, TS)]
pub struct BranchCall {
    /// The call as sent.
    #[ts(type = "unknown")]
    pub call: Option<Value>,
    /// omp 18: the transcript format.
    pub transcript: Option<&'static str>,
}

/// A selected message with the role and estimate the summarizer sees.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BranchMessage<'a> {
    /// Its entry.
    pub entry_id: String,
    /// Its role under the rule set.
    pub role: Option<&'a str>,
    /// Its estimate.
    pub tokens: u64,
    /// pi 1.6: the context_edit whose replacement it reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub edited_by: Option<String>,
}

impl<'a> BranchReport<'a> {
    /// The report of moving from `from` to `to` over `collected` and its preparation `prep`.
    pub fn new(
        s: &'a Session,
        [from, to]: [Option<NodeId>; 2],
        budget: u64,
        collected: &'a BranchEntries,
        prep: &'a PreparedBranch,
    ) -> Self {
        let id = |n: NodeId| s.entry(n).id().map(str::to_owned);
        Self {
            dialect: s.dialect().name(),
            rule_set: s.rule_choice(),
            from_id: from.and_then(id),
            to_id: to.and_then(id),
            budget,
            common_ancestor_id: collected.common_ancestor.and_then(id),
            entry_ids: Ids(s, &collected.entries),
            selected_ids: Ids(s, &prep.selected),
            messages: Rows::new(Box::new(messages(s, prep))),
            total_tokens: prep.total_tokens,
            squeezed_id: prep.squeezed.and_then(id),
            stopped_at_id: prep.stopped_at.and_then(id),
            file_ops: FileOpsReport::new(&prep.file_ops),
            call: None,
        }
    }
}

/// The selected messages with the role and estimate the summarizer sees
/// (pi 1.6: `editedBy` names the context_edit whose replacement it reads).
fn messages<'a>(s: &'a Session, prep: &'a PreparedBranch) -> impl Iterator<Item = BranchMessage<'a>> + 'a {
    let row = |((&n, item), &tokens): ((&NodeId, &Item), &u64)| {
        let e = s.entry(n);
        // The message's own estimate; a replaced one (pi 1.6) is measured on its replacement.
        // (The selection's budget may count less: omp 18 counts tool results cut to 2000 units.)
        let tokens = if matches!(item, Item::Replaced { .. }) { tokens } else { entry_estimate(e, s.rules()) };
        let edited_by = match item {
            Item::Replaced { edit, .. } => Some(s.entry(*edit).id.to_string()),
            _ => None,
        };
        BranchMessage { entry_id: e.id.to_string(), role: message_role_under(e, s.rules()), tokens, edited_by }
    };
    prep.selected.iter().zip(&prep.items).zip(&prep.tokens).map(row)
}
