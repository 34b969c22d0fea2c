//! `findCutPoint` (compaction.md §3): where the kept part of the history
//! starts. Works on path indices and the index's facts only, never on text.

use std::collections::HashSet;

use crate::context::materialize::item_role;
use crate::context::{Context, Projected};
use crate::session::{Entry, NodeId, Role, Session};
use crate::Dialect;

/// The result of `findCutPoint`, as indices into the path (root → leaf).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutPoint {
    /// Path index of the first kept entry.
    pub first_kept: usize,
    /// Path index of the entry that starts the turn the cut splits; `Some`
    /// exactly when the cut splits a turn (the agents' `turnStartIndex`, −1
    /// otherwise). Equal to `first_kept` when the cut itself is a turn start
    /// that is not a user message (E14): the prefix is then empty.
    pub turn_start: Option<usize>,
}

impl CutPoint {
    /// `isSplitTurn`.
    pub fn is_split_turn(&self) -> bool {
        self.turn_start.is_some()
    }
}

/// `findCutPoint(entries, start, end, keepRecentTokens)` over `path[start..end]`.
pub fn find_cut_point(session: &Session, path: &[NodeId], start: usize, end: usize, keep_recent_tokens: u64) -> CutPoint {
    let dialect = session.dialect();
    let entry = |i: usize| session.entry(path[i]);
    let valid_from = |from: usize| (from..end).find(|&i| is_valid_cut_point(entry(i), dialect));
    let Some(first_valid) = valid_from(start) else {
        return CutPoint { first_kept: start, turn_start: None };
    };
    let mut cut = first_valid;
    let mut acc = 0u64;
    for i in (start..end).rev() {
        let e = entry(i);
        // Only `message` entries count toward the budget; custom_message and
        // branch_summary entries are cut points but add nothing (E14).
        if &*e.entry_type != "message" {
            continue;
        }
        acc += e.message().map_or(0, |m| m.estimate(session.rules()));
        if acc >= keep_recent_tokens {
            // A tool result is never a cut point: move forward to the next one (E04).
            cut = valid_from(i).unwrap_or(cut);
            break;
        }
    }
    let cut = pull_back_metadata(session, path, start, cut);
    CutPoint { first_kept: cut, turn_start: turn_start(session, path, start, cut) }
}

/// Keeps the non-message entries just before the cut (model changes, labels,
/// custom_message, branch_summary, ...) with the kept part (E05).
fn pull_back_metadata(session: &Session, path: &[NodeId], start: usize, mut cut: usize) -> usize {
    while cut > start {
        match &*session.entry(path[cut - 1]).entry_type {
            "message" | "compaction" => break,
            _ => cut -= 1,
        }
    }
    cut
}

/// `findTurnStartIndex` when the cut entry is not a user message; None when
/// the cut is not a split turn.
fn turn_start(session: &Session, path: &[NodeId], start: usize, cut: usize) -> Option<usize> {
    let cut_entry = session.entry(path[cut]);
    if &*cut_entry.entry_type == "message" && cut_entry.message().is_some_and(|m| m.role == Role::User) {
        return None;
    }
    (start..=cut).rev().find(|&i| starts_turn(session.entry(path[i])))
}

/// `findValidCutPoints`: never a tool result; `custom` messages in pi,
/// `hookMessage` in omp (D11).
pub(crate) fn is_valid_cut_point(e: &Entry, dialect: Dialect) -> bool {
    match &*e.entry_type {
        "custom_message" | "branch_summary" => true,
        "message" => e.message().is_some_and(|m| match m.role {
            Role::User | Role::Assistant | Role::BashExecution | Role::BranchSummary | Role::CompactionSummary => true,
            Role::Custom => dialect == Dialect::Pi,
            Role::HookMessage => dialect == Dialect::Omp,
            _ => false,
        }),
        _ => false,
    }
}

/// `findTurnStartIndex`'s test: entries that begin a turn.
fn starts_turn(e: &Entry) -> bool {
    match &*e.entry_type {
        "custom_message" | "branch_summary" => true,
        "message" => e.message().is_some_and(|m| matches!(m.role, Role::User | Role::BashExecution)),
        _ => false,
    }
}

/// pi ≥ 0.87's `findProjectedCutPoint(P, start, end, keepRecentTokens)`
/// (pi-1.6.md §4.3) over the projected context entries `ctx.projected`; the
/// indices of the result are into that list. `estimates` are the context's
/// message estimates (`ctx.items` order).
///
/// Unlike [`find_cut_point`]: an entry's projected messages (edited content,
/// omissions, system messages, custom and branch-summary messages) decide
/// whether it is a cut point or a turn start and what it counts; a budget
/// reached without a cut point after it falls back to the last cut point; a
/// suffix that is only an omitted recovery attempt moves the cut past it; the
/// back-scan stops at any entry with messages.
pub(crate) fn find_projected_cut_point(
    session: &Session,
    ctx: &Context,
    estimates: &[u64],
    start: usize,
    end: usize,
    keep_recent_tokens: u64,
) -> CutPoint {
    let p = &ctx.projected;
    let roles = |i: usize| ctx.items[p[i].items.clone()].iter().map(|&item| item_role(session, item));
    let is_compaction = |i: usize| &*session.entry(p[i].node).entry_type == "compaction";
    let starts_turn = |i: usize| !is_compaction(i) && roles(i).any(is_turn_start_role);
    let cut_points: Vec<usize> =
        (start..end).filter(|&i| !is_compaction(i) && roles(i).any(|r| is_turn_start_role(r) || r == "assistant")).collect();
    let (Some(&first), Some(&last)) = (cut_points.first(), cut_points.last()) else {
        return CutPoint { first_kept: start, turn_start: None };
    };
    let mut cut = first;
    let mut exceeded = false;
    let mut acc = 0u64;
    for i in (start..end).rev() {
        let t: u64 = estimates[p[i].items.clone()].iter().sum();
        if t == 0 {
            continue;
        }
        acc += t;
        if acc >= keep_recent_tokens {
            exceeded = true;
            cut = cut_points.iter().copied().find(|&c| c >= i).unwrap_or(last);
            break;
        }
    }
    if exceeded && is_recovery_omission_suffix(session, ctx, cut + 1..end) {
        cut += 1;
    }
    while cut > start && !is_compaction(cut - 1) && p[cut - 1].items.is_empty() {
        cut -= 1;
    }
    let turn_start = if starts_turn(cut) { None } else { (start..=cut).rev().find(|&i| starts_turn(i)) };
    CutPoint { first_kept: cut, turn_start }
}

/// `user, bashExecution, custom, branchSummary, compactionSummary`: the
/// roles that begin a turn (with `assistant`, the cut-point roles).
fn is_turn_start_role(role: &str) -> bool {
    matches!(role, "user" | "bashExecution" | "custom" | "branchSummary" | "compactionSummary")
}

/// §4.3 step 4: the entries after the cut are a closed recovery attempt — an
/// omitted assistant message, nothing else that shows by itself except
/// omitted entries, no compaction, and no edit replacing anything outside
/// the omitted entries.
fn is_recovery_omission_suffix(session: &Session, ctx: &Context, suffix: std::ops::Range<usize>) -> bool {
    let p = &ctx.projected[suffix];
    let e = |x: &Projected| session.entry(x.node);
    // Shows messages by itself (`sessionEntryToContextMessages` is not empty).
    let visible = |x: &Projected| &*e(x).entry_type != "context_edit" && intrinsically_visible(e(x));
    let omitted = |x: &Projected| visible(x) && x.items.is_empty();
    let omitted_ids: HashSet<&str> = p.iter().filter(|x| omitted(x)).map(|x| &*e(x).id).collect();
    let external_replacement = p.iter().any(|x| {
        let edit = e(x);
        &*edit.entry_type == "context_edit"
            && !edit.object().and_then(|m| m.get("replacement")).is_some_and(serde_json::Value::is_null)
            && !edit.str_field("targetId").is_some_and(|t| omitted_ids.contains(t))
    });
    let omitted_assistant =
        p.iter().any(|x| omitted(x) && &*e(x).entry_type == "message" && e(x).message().is_some_and(|m| m.role == Role::Assistant));
    !external_replacement && omitted_assistant && p.iter().all(|x| &*e(x).entry_type != "compaction" && (!visible(x) || omitted(x)))
}

/// `sessionEntryToContextMessages(entry).length > 0`.
fn intrinsically_visible(e: &Entry) -> bool {
    &*e.entry_type == "compaction" || crate::context::build::emits_message(e)
}
