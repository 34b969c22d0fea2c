//! A leaf's path states from those of the leaf held before, without building its context from
//! the root: the tree's answer to a leaf change then costs the two paths' own parts (what
//! follows their common ancestor) and a copy of the shared prefix, not a build of the path.
//!
//! It holds only where nothing past the common ancestor reaches back: neither path's own part
//! holds a compaction (the active one, its kept region and what is summarized stay those of the
//! prefix) and, under pi ≥ 0.87, the session holds no `context_edit` (an edit names its target
//! by id, wherever that is). Then every entry of the prefix keeps its state, and each entry of
//! the new part has the state its own type and message give it, as it would after the active
//! compaction. omp ≥ 18 pairs tool calls with results over the whole message list and drops
//! aborted replies with their results (`omp18::finish`): an entry past the ancestor can change
//! one before it, so those rules always take the full build.

use super::build::{emits_message, Context};
use super::state::{path_states, sent_state, states_from_path, unsent_state, EntryState};
use crate::session::{NodeId, Session};

/// What deriving needs of a session, made once per reading (one pass over the entries).
#[derive(Debug, Clone)]
pub struct StatesIndex {
    /// Each entry's depth in the tree: its index on any path that holds it.
    depth: Vec<u32>,
    /// Whether the rule set and the session allow deriving at all.
    derivable: bool,
}

impl StatesIndex {
    /// The index of `session`.
    pub fn new(session: &Session) -> StatesIndex {
        let rules = session.rules();
        let edits = rules.projects_context_edits() && session.entries().iter().any(|e| e.entry_type.as_bytes() == b"context_edit");
        StatesIndex { depth: depths(session), derivable: !rules.honours_reset_boundary() && !edits }
    }
}

/// Each entry's depth in the tree (roots 0). Iterative: a million-entry chain is fine.
fn depths(session: &Session) -> Vec<u32> {
    const UNKNOWN: u32 = u32::MAX;
    let tree = session.tree();
    let mut depth = vec![UNKNOWN; session.entries().len()];
    let mut walk = Vec::new();
    for start in 0..depth.len() {
        let mut cur = Some(NodeId(start as u32));
        while let Some(n) = cur.filter(|n| depth[n.index()] == UNKNOWN) {
            walk.push(n);
            cur = tree.parent(n);
        }
        // Topmost first, so each parent's depth is known when its child's is set.
        for &n in walk.iter().rev() {
            depth[n.index()] = tree.parent(n).map_or(0, |p| depth[p.index()] + 1);
        }
        walk.clear();
    }
    depth
}

/// A context's [`path_states`] as one pair per path entry, in path order, each with the state
/// it ends with: what [`derive_states`] takes and gives (the same [`states_from_path`]).
pub fn aligned_states(session: &Session, ctx: &Context) -> Vec<(NodeId, EntryState)> {
    let all = states_from_path(session.entries().len(), &path_states(session, ctx));
    ctx.path.iter().map(|&n| (n, all[n.index()])).collect()
}

/// The [`aligned_states`] of leaf `to` from `held`, the aligned states of another leaf of the
/// same session, when nothing past their common ancestor can change what comes before it (see
/// the module's text); `None` when the full build is needed.
pub fn derive_states(
    session: &Session,
    index: &StatesIndex,
    held: &[(NodeId, EntryState)],
    to: NodeId,
) -> Option<Vec<(NodeId, EntryState)>> {
    if !index.derivable {
        return None;
    }
    let reaches_back = |n: NodeId| matches!(session.entry(n).entry_type.as_bytes(), b"compaction" | b"context_edit");
    // Up from `to` until an entry the held path holds at its depth: the common ancestor.
    let mut own = Vec::new();
    let mut cur = Some(to);
    let shared = loop {
        let Some(n) = cur else { break 0 };
        let d = index.depth[n.index()] as usize;
        if held.get(d).is_some_and(|&(h, _)| h == n) {
            break d + 1;
        }
        if reaches_back(n) {
            return None;
        }
        own.push(n);
        cur = session.tree().parent(n);
    };
    if held[shared..].iter().any(|&(n, _)| reaches_back(n)) {
        return None;
    }
    let rules = session.rules();
    let mut states = Vec::with_capacity(shared + own.len());
    states.extend_from_slice(&held[..shared]);
    states.extend(own.iter().rev().map(|&n| {
        // Past the active compaction, as `path_states` sets it: sent, or as if unsent.
        let st = if emits_message(session.entry(n)) { sent_state(session, n, rules) } else { unsent_state(session, n, false) };
        (n, st)
    }));
    Some(states)
}
