//! `prepareCompaction` (compaction.md §2): what a compaction of the current
//! path would summarize and keep, per dialect, without calling any model.

use std::fmt;
use std::ops::Range;

use super::cut::{find_cut_point, find_projected_cut_point, CutPoint};
use super::file_ops::FileOps;
use super::settings::CompactionSettings;
use crate::context::materialize::{agent_message, message_estimates, ReadBackError};
use crate::context::system::is_system_item;
use crate::context::usage::estimate_projected_context_tokens_of;
use crate::context::{entry_estimate, Context, Item};
use crate::session::{Entry, NodeId, Role, Session, Source};
use crate::Dialect;

/// The previous compaction on the path (the last one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreviousCompaction {
    /// The compaction entry; its `summary` (and omp's `preserveData`) feed the
    /// update prompt.
    pub node: NodeId,
    /// Its index in the plan's [`CompactionPlan::entries`] (the path; pi ≥
    /// 0.87: the projected context entries, where it is the first).
    pub path_index: usize,
    /// Path index of its first kept entry, when that is on the path (pi ≥
    /// 0.87: None, the projection already starts the kept range after it).
    pub first_kept: Option<usize>,
}

/// The `keepRecentTokens` the cut used (docs/decisions.md D4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeepRecent {
    /// As configured.
    pub configured: u64,
    /// As used by `findCutPoint`: omp divides by the usage/estimate ratio.
    pub used: u64,
    /// omp with usage: the estimate of the boundary region.
    pub estimated_tokens: Option<u64>,
    /// omp with usage: `calculatePromptTokens` of the last usable usage.
    pub prompt_tokens: Option<f64>,
}

/// Why the agent would not compact (its `prepareCompaction` returns nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NothingToCompact {
    /// The last path entry is a compaction.
    AlreadyCompacted,
    /// The first kept entry has no id (the path is empty or un-migrated).
    NoFirstKeptId,
    /// omp: neither history nor a turn prefix to summarize (D10).
    NothingToSummarize,
}

impl fmt::Display for NothingToCompact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The agents' own error texts for a manual `/compact`.
        f.write_str(match self {
            NothingToCompact::AlreadyCompacted => "Already compacted",
            NothingToCompact::NoFirstKeptId | NothingToCompact::NothingToSummarize => "Nothing to compact (session too small)",
        })
    }
}

/// What a compaction would do. Every list holds entries in path order; each
/// entry yields one message (read it with `agent_message(session,
/// Item::Entry(node), source)`).
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// `firstKeptEntryId`'s entry: the kept part starts here.
    pub first_kept: NodeId,
    /// The entry starting the split turn (`Some` exactly for a split turn).
    pub turn_start: Option<NodeId>,
    /// `messagesToSummarize`: the history summary's input.
    pub messages_to_summarize: Vec<NodeId>,
    /// `turnPrefixMessages`: the split turn's part before the cut.
    pub turn_prefix: Vec<NodeId>,
    /// The kept messages (omp's `recentMessages`, input of its short summary).
    pub recent: Vec<NodeId>,
    /// omp (D2): messages the previous compaction kept verbatim that this one
    /// neither summarizes nor keeps; always empty in pi, which re-summarizes them.
    pub dropped: Vec<NodeId>,
    /// `fileOps`, cumulative with the previous compaction's details.
    pub file_ops: FileOps,
    /// pi ≥ 0.87: entries of the lists whose message a `context_edit`
    /// replaced, with that edit (see [`Prepared::item`]).
    pub replaced: Vec<(NodeId, NodeId)>,
}

impl Prepared {
    /// `isSplitTurn`.
    pub fn is_split_turn(&self) -> bool {
        self.turn_start.is_some()
    }

    /// The context item whose message a listed entry contributes: its own
    /// message, or (pi ≥ 0.87) the message with the edit's replacement.
    pub fn item(&self, node: NodeId) -> Item {
        self.replaced.iter().find(|(n, _)| *n == node).map_or(Item::Entry(node), |&(node, edit)| Item::Replaced { node, edit })
    }
}

/// The compaction plan for one leaf and settings.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionPlan {
    /// Whose rules decided.
    pub dialect: Dialect,
    /// The leaf whose path is compacted.
    pub leaf: Option<NodeId>,
    /// The settings used.
    pub settings: CompactionSettings,
    /// The last compaction on the path.
    pub previous: Option<PreviousCompaction>,
    /// The entries `boundary`, `cut` and `previous.path_index` index: the
    /// path, or under pi ≥ 0.87 the projected context entries
    /// (`buildSessionProjection(path).entries`, pi-1.6.md §4.2).
    pub entries: Vec<NodeId>,
    /// Indices of `entries` `findCutPoint` searched (after the previous
    /// compaction in omp and pi ≥ 0.87, from its first kept entry in pi ≤
    /// 0.85; D2).
    pub boundary: Range<usize>,
    /// The keepRecentTokens actually used.
    pub keep_recent: KeepRecent,
    /// `tokensBefore` (D3): omp the last usable usage, pi the context estimate.
    pub tokens_before: f64,
    /// The cut; None when the path ends with a compaction.
    pub cut: Option<CutPoint>,
    /// The preparation, or why the agent would not compact.
    pub outcome: Result<Prepared, NothingToCompact>,
    /// Things the user should know (omp dropping kept messages, pi summarizing
    /// nothing, details the plan could not carry over).
    pub warnings: Vec<String>,
}

impl CompactionPlan {
    /// The preparation, when the agent would compact.
    pub fn prepared(&self) -> Option<&Prepared> {
        self.outcome.as_ref().ok()
    }
}

/// `prepareCompaction(path of ctx.leaf, settings)` in the session's dialect.
/// `ctx` must be the session's context of that leaf (pi measures it for
/// `tokensBefore`). Only assistant messages in the summarized part are read
/// back through `source` (for their tool calls' paths; pi ≥ 0.87 also tool
/// results with nested calls, replaced messages and system checkpoints).
pub fn plan(session: &Session, ctx: &Context, settings: &CompactionSettings, source: &dyn Source) -> Result<CompactionPlan, ReadBackError> {
    if session.rules().cuts_oldest_fitting_suffix() {
        return super::prepare18::plan(session, ctx, settings, source);
    }
    let dialect = session.dialect();
    let path = &ctx.path;
    // pi ≥ 0.87 works on the projection: its entries, their messages' estimates.
    let projected = session.rules().cuts_projected_entries().then(|| message_estimates(session, ctx, source)).transpose()?;
    let (entries, previous, boundary, tokens_before) = match &projected {
        None => {
            let previous = previous_compaction(session, path);
            (path.clone(), previous, boundary(dialect, previous, path.len()), tokens_before(session, ctx))
        }
        Some(estimates) => {
            let previous = projected_previous_compaction(session, ctx);
            let start = previous.map_or(0, |p| p.path_index + 1);
            let before = estimate_projected_context_tokens_of(session, ctx, &|i| estimates[i], source)?.tokens as f64;
            (ctx.projected.iter().map(|p| p.node).collect(), previous, start..ctx.projected.len(), before)
        }
    };
    let keep_recent = keep_recent(session, path, &boundary, settings.keep_recent_tokens);
    let mut plan = CompactionPlan {
        dialect,
        leaf: ctx.leaf,
        settings: *settings,
        previous,
        entries,
        boundary: boundary.clone(),
        keep_recent,
        tokens_before,
        cut: None,
        outcome: Err(NothingToCompact::AlreadyCompacted),
        warnings: Vec::new(),
    };
    if path.last().is_some_and(|&n| &*session.entry(n).entry_type == "compaction") {
        return Ok(plan);
    }
    let cut = match &projected {
        None => find_cut_point(session, path, boundary.start, boundary.end, keep_recent.used),
        Some(estimates) => find_projected_cut_point(session, ctx, estimates, boundary.start, boundary.end, keep_recent.used),
    };
    plan.cut = Some(cut);
    plan.outcome = prepare(session, ctx, &plan, cut, source)?;
    plan.warnings = warnings(session, &plan);
    Ok(plan)
}

/// pi ≥ 0.87: the first projected entry that is a compaction with messages
/// (the latest compaction, unless an edit omitted it).
fn projected_previous_compaction(session: &Session, ctx: &Context) -> Option<PreviousCompaction> {
    let path_index = ctx.projected.iter().position(|p| &*session.entry(p.node).entry_type == "compaction" && !p.items.is_empty())?;
    Some(PreviousCompaction { node: ctx.projected[path_index].node, path_index, first_kept: None })
}

/// The last compaction on the path.
fn previous_compaction(session: &Session, path: &[NodeId]) -> Option<PreviousCompaction> {
    let path_index = path.iter().rposition(|&n| &*session.entry(n).entry_type == "compaction")?;
    let node = path[path_index];
    let kept_id = session.entry(node).str_field("firstKeptEntryId");
    // pi's `findIndex` searches the whole path, so the first match wins.
    let first_kept = kept_id.and_then(|id| path.iter().position(|&n| &*session.entry(n).id == id));
    Some(PreviousCompaction { node, path_index, first_kept })
}

/// Where the search for the cut starts (D2).
fn boundary(dialect: Dialect, previous: Option<PreviousCompaction>, len: usize) -> Range<usize> {
    let start = match (dialect, previous) {
        (_, None) => 0,
        (Dialect::Omp, Some(p)) => p.path_index + 1,
        (Dialect::Pi, Some(p)) => p.first_kept.unwrap_or(p.path_index + 1),
    };
    start..len
}

/// The last usable assistant usage on the path (not aborted, not an error).
fn last_usage(session: &Session, path: &[NodeId]) -> Option<crate::session::Usage> {
    path.iter().rev().filter(|&&n| &*session.entry(n).entry_type == "message").find_map(|&n| session.entry(n).message()?.usable_usage())
}

/// omp divides keepRecentTokens by prompt tokens / estimate when the model
/// counts more tokens than the estimate (E15); pi uses it as configured.
fn keep_recent(session: &Session, path: &[NodeId], boundary: &Range<usize>, configured: u64) -> KeepRecent {
    let mut k = KeepRecent { configured, used: configured, estimated_tokens: None, prompt_tokens: None };
    if session.dialect() != Dialect::Omp {
        return k;
    }
    let Some(usage) = last_usage(session, path) else { return k };
    let estimated: u64 = path[boundary.clone()]
        .iter()
        .map(|&n| session.entry(n))
        .filter(|e| yields_message(e))
        .map(|e| entry_estimate(e, session.rules()))
        .sum();
    let prompt = usage.prompt_tokens();
    let ratio = if estimated > 0 { prompt / estimated as f64 } else { 0.0 };
    if ratio.is_finite() && ratio > 1.0 {
        k.used = ((configured as f64 / ratio).floor() as u64).max(1);
    }
    k.estimated_tokens = Some(estimated);
    k.prompt_tokens = Some(prompt);
    k
}

/// `tokensBefore` (D3).
fn tokens_before(session: &Session, ctx: &Context) -> f64 {
    match session.dialect() {
        Dialect::Omp => last_usage(session, &ctx.path).map_or(0.0, |u| u.context_tokens()),
        Dialect::Pi => pi_context_estimate(session, ctx),
    }
}

/// pi's `estimateContextTokens(buildSessionContext(path).messages)`: the last
/// usable usage plus the estimate of every message after it.
fn pi_context_estimate(session: &Session, ctx: &Context) -> f64 {
    let usage_of = |item: &Item| match item {
        Item::Entry(n) | Item::Replaced { node: n, .. } => session.entry(*n).message().and_then(|m| m.usable_usage_under(session.rules())),
        Item::CompactionSummary(_) | Item::SystemCheckpoint(_) => None,
    };
    let last = ctx.items.iter().rposition(|i| usage_of(i).is_some());
    let estimate = |items: &[Item]| items.iter().map(|i| entry_estimate(session.entry(i.node()), session.rules())).sum::<u64>() as f64;
    match last {
        None => estimate(&ctx.items),
        Some(i) => usage_of(&ctx.items[i]).map_or(0.0, |u| u.context_tokens()) + estimate(&ctx.items[i + 1..]),
    }
}

/// compaction.md §4: entries that yield a message for compaction (never a
/// compaction entry; a branch summary even when empty).
fn yields_message(e: &Entry) -> bool {
    match &*e.entry_type {
        "message" => e.message().is_some(),
        "custom_message" | "branch_summary" => true,
        _ => false,
    }
}

/// Steps 7–11 of `prepareCompaction`: the message lists and file operations
/// for a cut (the outer `Result` is a read-back failure).
fn prepare(
    session: &Session,
    ctx: &Context,
    plan: &CompactionPlan,
    cut: CutPoint,
    source: &dyn Source,
) -> Result<Result<Prepared, NothingToCompact>, ReadBackError> {
    let rules = session.rules();
    let list = &plan.entries;
    let first_kept = list.get(cut.first_kept).copied().filter(|&n| session.entry(n).id().is_some());
    let Some(first_kept) = first_kept else { return Ok(Err(NothingToCompact::NoFirstKeptId)) };
    // pi ≥ 0.87 (`getMessagesFromProjectedEntryForCompaction`): the projected
    // messages without system messages, none from a compaction.
    let mut replaced = Vec::new();
    let mut messages = |r: Range<usize>| -> Vec<NodeId> {
        if !rules.cuts_projected_entries() {
            return list[r].iter().copied().filter(|&n| yields_message(session.entry(n))).collect();
        }
        let mut out = Vec::new();
        for p in &ctx.projected[r] {
            if &*session.entry(p.node).entry_type == "compaction" {
                continue;
            }
            for &item in ctx.items[p.items.clone()].iter().filter(|&&i| !is_system_item(session, i)) {
                if let Item::Replaced { node, edit } = item {
                    replaced.push((node, edit));
                }
                out.push(item.node());
            }
        }
        out
    };
    let history_end = cut.turn_start.unwrap_or(cut.first_kept);
    let messages_to_summarize = messages(plan.boundary.start..history_end);
    let turn_prefix = cut.turn_start.map_or_else(Vec::new, |t| messages(t..cut.first_kept));
    let recent = messages(cut.first_kept..plan.boundary.end);
    let refuses_empty = plan.dialect == Dialect::Omp || rules.refuses_empty_compaction();
    if refuses_empty && messages_to_summarize.is_empty() && turn_prefix.is_empty() {
        return Ok(Err(NothingToCompact::NothingToSummarize));
    }
    let mut prepared = Prepared {
        first_kept,
        turn_start: cut.turn_start.map(|t| list[t]),
        messages_to_summarize,
        turn_prefix,
        recent,
        dropped: plan.previous.map_or_else(Vec::new, |p| dropped_by_omp(session, &ctx.path, plan.dialect, p)),
        file_ops: FileOps::default(),
        replaced,
    };
    let summarized: Vec<Item> = prepared.messages_to_summarize.iter().chain(&prepared.turn_prefix).map(|&n| prepared.item(n)).collect();
    prepared.file_ops = file_ops(session, plan.dialect, plan.previous, summarized, source)?;
    Ok(Ok(prepared))
}

/// §5: the previous compaction's lists, then the tool calls of the summarized
/// assistant messages (the only messages read back from the file).
fn file_ops(
    session: &Session,
    dialect: Dialect,
    previous: Option<PreviousCompaction>,
    summarized: Vec<Item>,
    source: &dyn Source,
) -> Result<FileOps, ReadBackError> {
    let mut ops = FileOps::default();
    if let Some(prev) = previous {
        ops.add_previous_details(session.entry(prev.node), dialect.extension_flag());
    }
    let nested = session.rules().reads_nested_file_ops();
    for item in summarized {
        let e = session.entry(item.node());
        match e.message().map(|m| &m.role) {
            Some(Role::Assistant) => {}
            // Only a tool result that records nested calls is worth reading back.
            Some(Role::ToolResult) if nested && mentions(e, source, b"\"nestedCalls\"") => {}
            _ => continue,
        }
        if let Some(msg) = agent_message(session, item, source)?.as_object() {
            ops.add_tool_calls(msg);
            if nested {
                ops.add_nested_calls(msg);
            }
        }
    }
    Ok(ops)
}

/// Whether the entry's line contains `needle` (unreadable: assume it does,
/// so the read-back reports the error).
fn mentions(e: &Entry, source: &dyn Source, needle: &[u8]) -> bool {
    source.bytes(e.span).map_or(true, |b| b.windows(needle.len()).any(|w| w == needle))
}

fn warnings(session: &Session, plan: &CompactionPlan) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(prepared) = &plan.outcome else { return out };
    let id = |n: NodeId| session.entry(n).id.to_string();
    if let (Some(prev), Some(first), Some(last)) = (plan.previous, prepared.dropped.first(), prepared.dropped.last()) {
        out.push(format!(
            "omp drops {} message(s) that compaction `{}` kept verbatim ({} … {}): they are neither summarized again nor kept (pi would re-summarize them)",
            prepared.dropped.len(),
            id(prev.node),
            id(*first),
            id(*last),
        ));
    }
    if let Some(prev) = plan.previous {
        let skipped = FileOps::default().add_previous_details(session.entry(prev.node), plan.dialect.extension_flag());
        if skipped > 0 {
            out.push(format!("{skipped} non-string file name(s) in the details of compaction `{}` are left out of the file lists (the agents would carry them over as they are)", id(prev.node)));
        }
    }
    if plan.dialect == Dialect::Pi
        && !session.rules().refuses_empty_compaction()
        && prepared.messages_to_summarize.is_empty()
        && prepared.turn_prefix.is_empty()
    {
        out.push("nothing to summarize: pi would still ask the model to summarize an empty conversation (omp refuses with \"Nothing to compact\")".to_owned());
    }
    out
}

/// omp's boundary starts after the previous compaction, so the messages that
/// compaction kept are lost by the next one (D2, E06); none in pi.
fn dropped_by_omp(session: &Session, path: &[NodeId], dialect: Dialect, prev: PreviousCompaction) -> Vec<NodeId> {
    match prev.first_kept.filter(|&k| k < prev.path_index && dialect == Dialect::Omp) {
        Some(from) => path[from..prev.path_index].iter().copied().filter(|&n| yields_message(session.entry(n))).collect(),
        None => Vec::new(),
    }
}
