//! oh-my-pi 18's `prepareCompaction` and `findCutPoint` (omp-18.md §5.3,
//! §5.4): the boundary after the last compaction or `reset_boundary` (a
//! local compaction's kept messages are summarized again), a working list of
//! the message-yielding entries only, and the cut that keeps the oldest
//! complete suffix that fits. Read and scheme paths of the file operations
//! follow §5.3 step 8.

use super::cut::CutPoint;
use super::file_ops::FileOps;
use super::plan::{CompactionPlan, KeepRecent, NothingToCompact, Prepared, PreviousCompaction};
use super::settings::CompactionSettings;
use crate::context::materialize::{agent_message, ReadBackError};
use crate::context::{entry_estimate, snapshot_replay_point, Context, Item};
use crate::session::{Entry, NodeId, Role, Session, Source};

/// `prepareCompaction(path of ctx.leaf, settings)` under omp 18, without an
/// active model (every compaction's payload counts as readable, as in the
/// oracle). `plan.boundary` is the path range the working list was taken
/// from; `plan.cut` holds path indices.
///
/// Long on purpose: omp 18's `prepareCompaction`, step for step in its order (omp-18.md
/// §5.3–5.4).
pub(super) fn plan(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    source: &dyn Source,
) -> Result<CompactionPlan, ReadBackError> {
    let path = &ctx.path;
    let entry = |i: usize| session.entry(path[i]);
    let is_type = |i: usize, t: &str| &*entry(i).entry_type == t;
    let reset = (0..path.len()).rev().find(|&i| is_type(i, "reset_boundary"));
    let mut prev_index = (0..path.len()).rev().find(|&i| is_type(i, "compaction"));
    if reset.is_some_and(|r| prev_index.is_none_or(|p| r > p)) {
        // A newer reset clears the previous summary.
        prev_index = None;
    }
    let after = |i: Option<usize>| i.map_or(0, |i| i + 1);
    let mut start = after(prev_index).max(after(reset));
    let previous = prev_index.map(|p| {
        let c = entry(p);
        let kept = c.str_field("firstKeptEntryId");
        let first_kept = kept.and_then(|id| path.iter().position(|&n| session.entry(n).id() == Some(id)));
        PreviousCompaction { node: path[p], path_index: p, first_kept }
    });
    if let Some(prev) = previous {
        let c = session.entry(prev.node);
        if has_native_replay(c) {
            // Native replay covers the snapshot, not what was appended while it ran.
            let through =
                c.str_field("providerReplayThroughEntryId").and_then(|id| path.iter().position(|&n| session.entry(n).id() == Some(id)));
            if let Some(t) = through.filter(|&t| t < prev.path_index) {
                start = (t + 1).max(after(reset));
            }
        } else if let Some(kept) = c.str_field("firstKeptEntryId") {
            // A local summary excludes its kept tail: summarize it again.
            if let Some(i) = (after(reset)..prev.path_index).find(|&i| entry(i).id() == Some(kept)) {
                start = i;
            } else if let Some(t) = snapshot_replay_point(session, path, prev.path_index) {
                // omp ≥ 18.3: an Anthropic snapshot compaction retained what followed its replay
                // point; that is summarized again, from right after the point even when a
                // `reset_boundary` lies later (omp-18.3.md §2.1).
                start = t + 1;
            }
        }
    }
    // The working list: message-yielding entries only, as path indices.
    let list: Vec<usize> = (start..path.len()).filter(|&i| yields_message(entry(i))).collect();
    let usage = path
        .iter()
        .rev()
        .filter(|&&n| &*session.entry(n).entry_type == "message")
        .find_map(|&n| session.entry(n).message()?.usable_usage());
    let tokens_before = usage.map_or(0.0, |u| u.context_tokens());
    let mut keep_recent = KeepRecent {
        configured: settings.keep_recent_tokens,
        used: settings.keep_recent_tokens,
        estimated_tokens: None,
        prompt_tokens: None,
    };
    if let Some(u) = usage {
        let estimated: u64 = list.iter().map(|&i| entry_estimate(entry(i), session.rules())).sum();
        let prompt = u.prompt_tokens();
        let ratio = if estimated > 0 { prompt / estimated as f64 } else { 0.0 };
        if ratio.is_finite() && ratio > 1.0 {
            keep_recent.used = ((settings.keep_recent_tokens as f64 / ratio).floor() as u64).max(1);
        }
        keep_recent.estimated_tokens = Some(estimated);
        keep_recent.prompt_tokens = Some(prompt);
    }
    let mut plan = CompactionPlan {
        dialect: session.dialect(),
        leaf: ctx.leaf,
        settings: *settings,
        previous,
        entries: path.to_vec(),
        boundary: start..path.len(),
        keep_recent,
        tokens_before,
        cut: None,
        outcome: Err(NothingToCompact::AlreadyCompacted),
        warnings: Vec::new(),
    };
    let last = path.last().map(|&n| session.entry(n));
    if last.is_some_and(|e| &*e.entry_type == "compaction" && e.str_field("providerReplayThroughEntryId").is_none_or(str::is_empty)) {
        return Ok(plan);
    }
    let cut = find_cut_point(session, path, &list, keep_recent.used);
    plan.cut = cut.map(|c| CutPoint { first_kept: list[c.first_kept], turn_start: c.turn_start.map(|t| list[t]) });
    let Some(cut) = cut else {
        plan.outcome = Err(NothingToCompact::NoFirstKeptId);
        return Ok(plan);
    };
    let nodes = |r: std::ops::Range<usize>| -> Vec<NodeId> { list[r].iter().map(|&i| path[i]).collect() };
    let first_kept = path[list[cut.first_kept]];
    if session.entry(first_kept).id().is_none() {
        plan.outcome = Err(NothingToCompact::NoFirstKeptId);
        return Ok(plan);
    }
    let history_end = cut.turn_start.unwrap_or(cut.first_kept);
    let messages_to_summarize = nodes(0..history_end);
    let turn_prefix = cut.turn_start.map_or_else(Vec::new, |t| nodes(t..cut.first_kept));
    if messages_to_summarize.is_empty() && turn_prefix.is_empty() {
        plan.outcome = Err(NothingToCompact::NothingToSummarize);
        return Ok(plan);
    }
    let mut file_ops = FileOps::default();
    if let Some(p) = prev_index {
        file_ops.add_previous_details_omp18(entry(p));
    }
    for &n in messages_to_summarize.iter().chain(&turn_prefix) {
        if session.entry(n).message().is_some_and(|m| m.role == Role::Assistant) {
            if let Some(msg) = agent_message(session, Item::Entry(n), source)?.as_object() {
                file_ops.add_tool_calls_omp18(msg);
            }
        }
    }
    plan.outcome = Ok(Prepared {
        first_kept,
        turn_start: cut.turn_start.map(|t| path[list[t]]),
        messages_to_summarize,
        turn_prefix,
        recent: nodes(cut.first_kept..list.len()),
        dropped: Vec::new(),
        file_ops,
        replaced: Vec::new(),
    });
    Ok(plan)
}

/// An OpenAI replacement history on a compaction: V2's (`provider` and
/// `replacementHistory`) or V1's (`replacementHistory` and a compaction item).
fn has_native_replay(c: &Entry) -> bool {
    if crate::context::build::has_openai_replay(c) {
        return true;
    }
    let Some(data) = c.object().and_then(|m| m.get("preserveData")).and_then(|p| p.get("openaiRemoteCompaction")) else { return false };
    let item = data.get("compactionItem");
    let ty = item.and_then(|i| i.get("type")).and_then(serde_json::Value::as_str);
    data.get("replacementHistory").is_some_and(serde_json::Value::is_array)
        && (ty == Some("compaction_summary")
            || (ty == Some("compaction") && item.and_then(|i| i.get("encrypted_content")).is_some_and(serde_json::Value::is_string)))
}

/// `getMessageFromEntry`: `message`, `custom_message` and `branch_summary`
/// entries (an empty branch summary too).
fn yields_message(e: &Entry) -> bool {
    match &*e.entry_type {
        "message" => e.message().is_some(),
        "custom_message" | "branch_summary" => true,
        _ => false,
    }
}

/// 18.2.1's `findCutPoint` over the working list (indices into `list`):
/// the newest group is always kept; older groups are added while the
/// accumulated count stays `<= keep`. `None` when the first kept entry
/// would be past the list (an empty list).
fn find_cut_point(session: &Session, path: &[NodeId], list: &[usize], keep: u64) -> Option<CutPoint> {
    let entry = |k: usize| session.entry(path[list[k]]);
    let cut_points: Vec<usize> = (0..list.len()).filter(|&k| is_cut_point(entry(k))).collect();
    let Some(&last) = cut_points.last() else {
        return (!list.is_empty()).then_some(CutPoint { first_kept: 0, turn_start: None });
    };
    let mut acc = 0u64;
    let mut next = cut_points.len() as isize - 1;
    let mut cut = last;
    for k in (0..list.len()).rev() {
        acc += entry_estimate(entry(k), session.rules());
        if next < 0 || k != cut_points[next as usize] {
            continue;
        }
        if acc > keep {
            break;
        }
        cut = k;
        next -= 1;
    }
    let turn_start = if starts_turn(entry(cut)) { None } else { (0..=cut).rev().find(|&k| starts_turn(entry(k))) };
    // Every entry of the list yields a message, so nothing is pulled back.
    Some(CutPoint { first_kept: cut, turn_start })
}

/// `findValidCutPoints`: user, assistant, bashExecution, hookMessage and
/// summary messages, custom messages and branch summaries.
fn is_cut_point(e: &Entry) -> bool {
    match &*e.entry_type {
        "custom_message" | "branch_summary" => true,
        "message" => e.message().is_some_and(|m| {
            matches!(
                m.role,
                Role::User | Role::Assistant | Role::BashExecution | Role::HookMessage | Role::BranchSummary | Role::CompactionSummary
            )
        }),
        _ => false,
    }
}

/// `isTurnStartEntry`.
fn starts_turn(e: &Entry) -> bool {
    match &*e.entry_type {
        "custom_message" | "branch_summary" => true,
        "message" => e.message().is_some_and(|m| matches!(m.role, Role::User | Role::BashExecution)),
        _ => false,
    }
}
