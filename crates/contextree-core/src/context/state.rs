//! What each entry is for a given leaf: the colors of the tree view.

use super::build::{Context, Item};
use crate::session::{EntryKind, NodeId, Role, Session};
use crate::{Dialect, RuleSet};

/// The state of one entry for the selected leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryState {
    /// Not on the leaf's path: another branch.
    OffPath,
    /// On the path and sent to the model as it is.
    Kept,
    /// Sent, but its tool output was replaced by the truncation notice (omp pruning).
    Pruned,
    /// On the path before the active compaction's kept region: only its summary is sent.
    Summarized,
    /// The compaction whose summary opens the context.
    Compaction,
    /// An earlier compaction on the path (it sends nothing itself).
    OldCompaction,
    /// A branch summary on the path.
    BranchSummary,
    /// On the path, but a message `convertToLlm` drops (`excludeFromContext`,
    /// roles the dialect does not send).
    Excluded,
    /// On the path, not a message: model/thinking changes, labels, custom state.
    Metadata,
    /// pi ≥ 0.87: on the path, but a `context_edit` left its message out.
    Hidden,
    /// pi ≥ 0.87: sent with the content a `context_edit` gave it.
    Replaced,
}

impl EntryState {
    /// Every state, in declaration order: `ALL[s as usize] == s` (the tree table's state codes).
    pub const ALL: [EntryState; 11] = [
        EntryState::OffPath,
        EntryState::Kept,
        EntryState::Pruned,
        EntryState::Summarized,
        EntryState::Compaction,
        EntryState::OldCompaction,
        EntryState::BranchSummary,
        EntryState::Excluded,
        EntryState::Metadata,
        EntryState::Hidden,
        EntryState::Replaced,
    ];

    /// Name used in JSON and in the UI legend.
    pub fn name(self) -> &'static str {
        match self {
            EntryState::OffPath => "off-path",
            EntryState::Kept => "kept",
            EntryState::Pruned => "pruned",
            EntryState::Summarized => "summarized",
            EntryState::Compaction => "compaction",
            EntryState::OldCompaction => "old-compaction",
            EntryState::BranchSummary => "branch-summary",
            EntryState::Excluded => "excluded",
            EntryState::Metadata => "metadata",
            EntryState::Hidden => "hidden",
            EntryState::Replaced => "replaced",
        }
    }
}

/// The state of every entry (file order) for the context's leaf.
pub fn entry_states(session: &Session, ctx: &Context) -> Vec<EntryState> {
    states_from_path(session.entries().len(), &path_states(session, ctx))
}

/// The state of each of `entries` entries from a leaf's [`path_states`] (the rest off the
/// path): [`entry_states`]'s answer, for a caller that keeps the path's states.
pub fn states_from_path(entries: usize, path: &[(NodeId, EntryState)]) -> Vec<EntryState> {
    let mut res = vec![EntryState::OffPath; entries];
    for &(n, st) in path {
        res[n.index()] = st;
    }
    res
}

/// The entries whose state is not `OffPath` for the context's leaf, with their states: only
/// the path and what the context holds, so it costs the path's length, not the session's. A
/// node may come more than once; the last state given is its state ([`entry_states`] applies
/// them in order).
pub fn path_states(session: &Session, ctx: &Context) -> Vec<(NodeId, EntryState)> {
    let mut res = Vec::with_capacity(ctx.path.len() + ctx.omitted.len() + ctx.items.len());
    // Behind the active compaction: everything before its kept region (all of
    // the path before it when the kept entry is not there, or when omp replays
    // an OpenAI-native history instead).
    let summarized_until = ctx.compaction.and_then(|c| ctx.path.iter().position(|&n| n == c)).map(|k| match ctx.kept_from {
        Some(s) if !ctx.provider_replay => s,
        _ => k,
    });
    for (i, &n) in ctx.path.iter().enumerate() {
        let behind = summarized_until.is_some_and(|s| i < s);
        // Emitted messages are overwritten below (the items).
        res.push((n, unsent_state(session, n, behind)));
    }
    res.extend(ctx.omitted.iter().map(|&n| (n, EntryState::Hidden)));
    for &item in &ctx.items {
        let n = item.node();
        let st = match item {
            Item::CompactionSummary(_) | Item::SystemCheckpoint(_) => EntryState::Compaction,
            Item::Replaced { .. } => EntryState::Replaced,
            Item::Entry(_) => sent_state(session, n, ctx.rules),
        };
        res.push((n, st));
    }
    res
}

/// The state of path entry `n` if the context sends no message of it: `behind` the active
/// compaction's kept region, or not.
pub(crate) fn unsent_state(session: &Session, n: NodeId, behind: bool) -> EntryState {
    // The type's bytes, without a UTF-8 check per entry.
    match (session.entry(n).entry_type.as_bytes(), behind) {
        (b"compaction", _) => EntryState::OldCompaction,
        (b"message" | b"custom_message" | b"branch_summary", true) => EntryState::Summarized,
        (b"message" | b"custom_message", false) => EntryState::Excluded,
        (b"branch_summary", false) => EntryState::BranchSummary,
        _ => EntryState::Metadata,
    }
}

pub(crate) fn sent_state(session: &Session, n: NodeId, rules: RuleSet) -> EntryState {
    let e = session.entry(n);
    match &e.kind {
        EntryKind::Message(m) => match (&m.role, rules.dialect()) {
            (Role::System, _) if rules.projects_context_edits() => EntryState::Kept,
            (Role::ToolResult, Dialect::Omp) if m.pruned => EntryState::Pruned,
            (Role::BashExecution | Role::PythonExecution, _) if m.exclude_from_context => EntryState::Excluded,
            (Role::Developer | Role::HookMessage | Role::FileMention | Role::PythonExecution, Dialect::Pi)
            | (Role::System | Role::Other(_), _) => EntryState::Excluded,
            _ => EntryState::Kept,
        },
        EntryKind::Other(_) if e.entry_type == "branch_summary" => EntryState::BranchSummary,
        EntryKind::Other(_) => EntryState::Kept,
    }
}
