//! `findCutPoint` (compaction.md §3): where the kept part of the history
//! starts. Works on path indices and the index's facts only, never on text.

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
pub fn is_valid_cut_point(e: &Entry, dialect: Dialect) -> bool {
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
