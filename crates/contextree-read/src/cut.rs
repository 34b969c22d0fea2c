//! What compaction would do now: `contextree cut` (spec cli-contract.md), per rule set, without
//! calling any model: the cut, the entries summarized and kept, the file lists, the raw
//! `findCutPoint` facts; with a window, the threshold test and the agent's own check.

use contextree_core::compaction::{should_compact_under, threshold_tokens_under, CompactionPlan, FileOps, Prepared};
use contextree_core::dialect::RuleChoiceWire;
use contextree_core::js::JsNumber;
use contextree_core::session::{NodeId, Session};
use contextree_core::RuleChoice;
use contextree_ops::auto_check::AutoCheckReport;
use serde::Serialize;
use ts_rs::TS;

use crate::rows::{FileOpsReport, Ids};

/// The contract's fields plus the cut's details.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CutReport<'a> {
    /// The agent whose rules ran.
    pub dialect: &'static str,
    /// The rule set that ran and why.
    #[ts(as = "RuleChoiceWire")]
    pub rule_set: &'a RuleChoice,
    /// The leaf whose path is cut.
    pub leaf_id: Option<String>,
    /// The settings the plan used.
    pub settings: SettingsDoc,
    /// The agent would not compact.
    pub nothing_to_compact: bool,
    /// Why not, in the agent's words.
    pub reason: Option<String>,
    /// The first entry kept verbatim.
    pub first_kept_entry_id: Option<String>,
    /// Its entry number.
    pub first_kept_entry_index: Option<u32>,
    /// The cut falls inside a turn.
    pub is_split_turn: Option<bool>,
    /// The split turn's first entry (none when the cut is the turn start).
    pub turn_start_entry_id: Option<String>,
    /// `tokensBefore` as the rule set computes it.
    pub tokens_before: JsNumber,
    /// `keepRecentTokens` as used (omp scales it).
    pub keep_recent_tokens_used: u64,
    /// The compaction this one follows.
    pub previous_compaction_id: Option<String>,
    /// Entries the history summary covers.
    pub messages_to_summarize_ids: Ids<'a>,
    /// The split turn's entries before the cut.
    pub turn_prefix_ids: Ids<'a>,
    /// Entries kept verbatim.
    pub recent_messages_ids: Ids<'a>,
    /// omp: entries the previous compaction kept that this one drops.
    pub dropped_ids: Ids<'a>,
    /// The raw sets sorted and the agents' lists.
    pub file_ops: FileOpsReport,
    /// The raw `findCutPoint` facts.
    pub find_cut_point: FindCutPoint,
    /// Everything worth telling about the plan.
    pub warnings: Vec<String>,
    /// `--window`: the dialect's threshold rule (flattened; ts-rs cannot flatten an Option, so
    /// the UI's type leaves it out: no UI reads it).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    #[ts(skip)]
    pub threshold: Option<Threshold>,
    /// `--window`: the agent's own check after its last run.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub auto_check: Option<AutoCheckReport>,
}

/// The compaction settings the plan used.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SettingsDoc {
    /// `keepRecentTokens`.
    pub keep_recent_tokens: u64,
    /// `reserveTokens`.
    pub reserve_tokens: u64,
}

/// The number the agents test after a run (omp's last usage, pi's context estimate, which is
/// what `tokensBefore` holds) against the window.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Threshold {
    /// The window given.
    pub window: u64,
    /// The threshold (`None`: the rule never fires).
    pub threshold_tokens: Option<JsNumber>,
    /// `shouldCompact`: over the threshold.
    pub should_compact: bool,
}

/// Raw `findCutPoint` facts (see [`find_cut_point`]).
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FindCutPoint {
    /// `path`, or pi ≥ 0.87 `contextEntries`.
    pub index_space: &'static str,
    /// Where the range searched starts.
    pub boundary_start: usize,
    /// Where it ends.
    pub boundary_end: usize,
    /// omp: the estimate that scales keepRecentTokens.
    pub estimated_tokens: Option<u64>,
    /// omp: the usage that scales keepRecentTokens.
    pub prompt_tokens: Option<JsNumber>,
    /// `keepRecentTokens` as used.
    pub keep_recent_tokens_used: u64,
    /// Where it cut (flattened; left out of the UI's type, as `threshold`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    #[ts(skip)]
    pub cut: Option<CutAt>,
}

/// Where `findCutPoint` cut.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CutAt {
    /// Index of the first kept entry.
    pub first_kept_entry_index: usize,
    /// -1: none.
    pub turn_start_index: i64,
    /// The cut falls inside a turn.
    pub is_split_turn: bool,
    /// The first kept entry.
    pub first_kept_entry_id: Option<String>,
    /// The split turn's start.
    pub turn_start_entry_id: Option<String>,
}

impl<'a> CutReport<'a> {
    /// What `plan` cuts; with `window`, the rule set's threshold test (the automatic check is
    /// the caller's to add: it needs the current model and the clock).
    pub fn new(s: &'a Session, plan: &'a CompactionPlan, window: Option<u64>) -> Self {
        document(s, plan, window)
    }
}

fn document<'a>(s: &'a Session, plan: &'a CompactionPlan, window: Option<u64>) -> CutReport<'a> {
    let id = |n: NodeId| s.entry(n).id().map(str::to_owned);
    let prepared = plan.prepared();
    let ids = |list: fn(&Prepared) -> &[NodeId]| Ids(s, prepared.map_or(&[][..], list));
    CutReport {
        dialect: s.dialect().name(),
        rule_set: s.rule_choice(),
        leaf_id: plan.leaf.and_then(id),
        settings: SettingsDoc { keep_recent_tokens: plan.settings.keep_recent_tokens, reserve_tokens: plan.settings.reserve_tokens },
        nothing_to_compact: prepared.is_none(),
        reason: plan.outcome.as_ref().err().map(|r| r.to_string()),
        first_kept_entry_id: prepared.and_then(|p| id(p.first_kept)),
        first_kept_entry_index: prepared.map(|p| p.first_kept.0),
        is_split_turn: prepared.map(Prepared::is_split_turn),
        turn_start_entry_id: prepared.and_then(turn_start_with_prefix).and_then(id),
        tokens_before: JsNumber(plan.tokens_before),
        keep_recent_tokens_used: plan.keep_recent.used,
        previous_compaction_id: plan.previous.and_then(|p| id(p.node)),
        messages_to_summarize_ids: ids(|p| &p.messages_to_summarize),
        turn_prefix_ids: ids(|p| &p.turn_prefix),
        recent_messages_ids: ids(|p| &p.recent),
        dropped_ids: ids(|p| &p.dropped),
        file_ops: prepared.map_or_else(|| FileOpsReport::new(&FileOps::default()), |p| FileOpsReport::new(&p.file_ops)),
        find_cut_point: find_cut_point(s, &plan.entries, plan),
        warnings: plan.warnings.clone(),
        threshold: window.map(|w| Threshold {
            window: w,
            threshold_tokens: threshold_tokens_under(w, &plan.settings.for_session(s), s.rules()).map(JsNumber),
            should_compact: should_compact_under(plan.tokens_before, w, &plan.settings.for_session(s), s.rules()),
        }),
        auto_check: None,
    }
}

/// The oracle's `turnStartEntryId`: the first turn-prefix message's entry, so
/// none when the cut is itself the turn start (E14).
fn turn_start_with_prefix(p: &Prepared) -> Option<NodeId> {
    p.turn_start.filter(|_| !p.turn_prefix.is_empty())
}

/// Raw `findCutPoint` facts with indices into the plan's entries (the path;
/// pi ≥ 0.87 the projected context entries, `indexSpace: "contextEntries"`),
/// also when the agent would not compact (as the oracle's `findCutPoint`).
fn find_cut_point(s: &Session, path: &[NodeId], plan: &CompactionPlan) -> FindCutPoint {
    let k = &plan.keep_recent;
    let id = |i: usize| path.get(i).and_then(|&n| s.entry(n).id().map(str::to_owned));
    FindCutPoint {
        index_space: if s.rules().cuts_projected_entries() { "contextEntries" } else { "path" },
        boundary_start: plan.boundary.start,
        boundary_end: plan.boundary.end,
        estimated_tokens: k.estimated_tokens,
        prompt_tokens: k.prompt_tokens.map(JsNumber),
        keep_recent_tokens_used: k.used,
        cut: plan.cut.map(|cut| CutAt {
            first_kept_entry_index: cut.first_kept,
            turn_start_index: cut.turn_start.map_or(-1, |t| t as i64),
            is_split_turn: cut.is_split_turn(),
            first_kept_entry_id: id(cut.first_kept),
            turn_start_entry_id: cut.turn_start.and_then(id),
        }),
    }
}
