//! What a session cost, from the usage the agents recorded: `contextree usage` and the app's
//! usage dialog (`$`).

use std::collections::BTreeMap;

use contextree_core::context::ReadBackError;
use contextree_core::dialect::RuleChoiceWire;
use contextree_core::session::{Session, Source};
use contextree_core::spend::{spend_report, BranchTotals, CompactionMark, ModelTotals, Record, SpendReport, Totals};
use contextree_core::RuleChoice;
use contextree_host::subagents::ChildFile;
use serde::Serialize;
use ts_rs::TS;

use crate::rows::Rows;
use crate::subagents::{subagent_sums, BranchSubagents, SubagentRow};

/// The usage of a session: sums per session, kind of call, model and branch, every record (each
/// reply's context size is the chart's point) and the compactions. The records are made while
/// they are written (a million replies are not held as values). With omp, the subagents and
/// advisors whose transcripts sit beside the session, summed apart and with the session's.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UsageReport<'a> {
    /// The agent whose rules ran.
    pub dialect: &'static str,
    /// The rule set that ran and why.
    #[ts(as = "RuleChoiceWire")]
    pub rule_set: &'a RuleChoice,
    /// The whole file.
    pub totals: &'a Totals,
    /// By kind of call (`assistant`, `sideCall`, `summary`, `tool`).
    #[ts(type = "Record<string, Totals>")]
    pub by_kind: &'a BTreeMap<&'static str, Totals>,
    /// By model, most expensive first.
    pub by_model: &'a [ModelTotals],
    /// Per leaf, in the tree's order of leaves.
    pub branches: &'a [BranchTotals],
    /// Every record, in file order.
    #[ts(type = "Array<UsageRecord>")]
    pub records: Rows<Box<dyn Iterator<Item = Record> + 'a>>,
    /// The compactions, in file order.
    pub compactions: &'a [CompactionMark],
    /// omp's subagents and advisors: the ones the session's `task` results name, in file
    /// order (each followed by its own subagents), then the transcripts no result names.
    pub subagents: Vec<SubagentRow>,
    /// What the subagents and advisors cost (each counted as its row's `counted` says).
    pub subagent_totals: Totals,
    /// The whole file and its subagents and advisors.
    pub with_subagents: Totals,
    /// Per leaf, as `branches`: the subagents started on its path.
    pub branch_subagents: Vec<BranchSubagents>,
}

/// Core's sums of a session, read once; [`UsageReport::new`] borrows them.
pub fn usage_sums(s: &Session, source: &dyn Source) -> Result<SpendReport, ReadBackError> {
    spend_report(s, source)
}

impl<'a> UsageReport<'a> {
    /// The report of `sums` ([`usage_sums`] of `s`) and of the transcripts found beside the
    /// session (host's `child_files`; none for pi).
    pub fn new(s: &'a Session, sums: &'a SpendReport, children: &[ChildFile]) -> Self {
        let sub = subagent_sums(sums, children);
        Self {
            dialect: s.dialect().name(),
            rule_set: s.rule_choice(),
            totals: &sums.totals,
            by_kind: &sums.by_kind,
            by_model: &sums.by_model,
            branches: &sums.branches,
            records: Rows::new(Box::new(sums.records(s))),
            compactions: &sums.compactions,
            subagents: sub.rows,
            subagent_totals: sub.totals,
            with_subagents: sub.with_subagents,
            branch_subagents: sub.branches,
        }
    }
}
