//! A leaf's path states from those of the leaf held before, without building its context from
//! the root: the tree's answer to a leaf change then costs the two paths' own parts (what
//! follows their common ancestor) and a copy of the shared prefix, not a build of the path.
//!
//! It holds only where nothing past the common ancestor reaches back: neither path's own part
//! holds a compaction (the active one, its kept region and what is summarized stay those of the
//! prefix) and, under pi ≥ 0.87, the session holds no `context_edit` (an edit names its target
//! by id, wherever that is). Then every entry of the prefix keeps its state, and each entry of
//! the new part has the state its own type and message give it, as it would after the active
//! compaction.
//!
//! omp ≥ 18 reaches back further: a `reset_boundary` ends what the context sees before it, tool
//! calls pair with results over the whole message list, and an aborted reply goes with its
//! results unless the next message left is an `interrupted-thinking` note (`omp18::finish`).
//! So under those rules the states are kept only up to a cut in the shared prefix, and the rest
//! is worked out again ([`omp18_cut`]): no own part nor what follows the cut holds a compaction
//! or a `reset_boundary`, no call id of an entry after the cut is carried by one before it, and
//! the entry just before the cut is a user message, which the post-processing never removes.
//! Then the list splits there into two that the post-processing treats apart: the part before
//! the cut is finished as it was for the held leaf, and what follows is finished on its own.
//! The path must be the tree's (`Session::parent_ids_follow_tree`), else it takes the full build.

use rustc_hash::{FxHashMap, FxHashSet};

use super::build::{emits_message, Context};
use super::omp18;
use super::state::{path_states, sent_state, states_from_path, unsent_state, EntryState};
use crate::session::{NodeId, Role, Session};

/// What deriving needs of a session, made once per reading (one pass over the entries).
#[derive(Debug, Clone)]
pub struct StatesIndex {
    /// Each entry's depth in the tree: its index on any path that holds it.
    depth: Vec<u32>,
    /// Whether the rule set and the session allow deriving at all.
    derivable: bool,
    /// omp ≥ 18: the entries that carry each call id (an assistant's calls, a tool result's
    /// `toolCallId`), in file order; empty under other rules.
    carriers: FxHashMap<u64, Vec<NodeId>>,
}

impl StatesIndex {
    /// The index of `session`.
    pub fn new(session: &Session) -> StatesIndex {
        let rules = session.rules();
        let edits = rules.projects_context_edits() && session.entries().iter().any(|e| e.entry_type.as_bytes() == b"context_edit");
        let omp18 = rules.honours_reset_boundary();
        let mut carriers: FxHashMap<u64, Vec<NodeId>> = FxHashMap::default();
        if omp18 {
            for i in 0..session.entries().len() {
                let n = NodeId(i as u32);
                for &id in call_ids(session, n) {
                    carriers.entry(id).or_default().push(n);
                }
            }
        }
        // Under omp ≥ 18 a path follows the stored parent ids; depths are the tree's.
        let derivable = !edits && (!omp18 || session.parent_ids_follow_tree());
        StatesIndex { depth: depths(session), derivable, carriers }
    }
}

/// The call ids an entry carries: an assistant's calls, a tool result's `toolCallId`.
fn call_ids(session: &Session, n: NodeId) -> &[u64] {
    match session.entry(n).message() {
        Some(m) if m.role == Role::Assistant => &m.turn.call_ids,
        Some(m) if m.role == Role::ToolResult => m.turn.tool_call_id.as_slice(),
        _ => &[],
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
    let rules = session.rules();
    let omp18 = rules.honours_reset_boundary();
    let reaches_back = |n: NodeId| match session.entry(n).entry_type.as_bytes() {
        b"compaction" | b"context_edit" => true,
        b"reset_boundary" => omp18,
        _ => false,
    };
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
    own.reverse();
    if omp18 {
        let cut = omp18_cut(session, index, held, shared, &own)?;
        let mut states = Vec::with_capacity(shared + own.len());
        states.extend_from_slice(&held[..cut]);
        let after: Vec<NodeId> = held[cut..shared].iter().map(|&(n, _)| n).chain(own).collect();
        states.extend(omp18_states(session, &after));
        return Some(states);
    }
    let mut states = Vec::with_capacity(shared + own.len());
    states.extend_from_slice(&held[..shared]);
    states.extend(own.iter().map(|&n| {
        // Past the active compaction, as `path_states` sets it: sent, or as if unsent.
        let st = if emits_message(session.entry(n)) { sent_state(session, n, rules) } else { unsent_state(session, n, false) };
        (n, st)
    }));
    Some(states)
}

/// omp ≥ 18: the path index in the shared prefix (`held[..shared]`) from which the states are
/// worked out again (see the module's text), or `None` when the cut would have to pass a
/// compaction or a `reset_boundary`. The held path's own part and the new one's (`own`, root
/// first) are past it; neither holds one of those.
fn omp18_cut(session: &Session, index: &StatesIndex, held: &[(NodeId, EntryState)], shared: usize, own: &[NodeId]) -> Option<usize> {
    let mut cut = shared;
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    let mut pending: Vec<u64> = Vec::new();
    let mut take = |n: NodeId, pending: &mut Vec<u64>| pending.extend(call_ids(session, n).iter().filter(|&&id| seen.insert(id)));
    for &n in own.iter().chain(held[shared..].iter().map(|(n, _)| n)) {
        take(n, &mut pending);
    }
    loop {
        // The earliest entry of the prefix before the cut that carries an id after it.
        let mut lowest = cut;
        for id in pending.drain(..) {
            for &c in index.carriers.get(&id).map_or(&[][..], Vec::as_slice) {
                let d = index.depth[c.index()] as usize;
                if d < lowest && held[d].0 == c {
                    lowest = d;
                }
            }
        }
        if lowest == cut {
            if cut == 0 || omp18::is_user_request(session, held[cut - 1].0) {
                return Some(cut);
            }
            // The cut follows a user message, which stays whatever the post-processing does.
            lowest = cut - 1;
        }
        for &(n, _) in &held[lowest..cut] {
            if matches!(session.entry(n).entry_type.as_bytes(), b"compaction" | b"reset_boundary") {
                return None;
            }
            take(n, &mut pending);
        }
        cut = lowest;
    }
}

/// omp ≥ 18: the states of the path entries `after` a cut ([`omp18_cut`]), from their messages
/// finished on their own; past the active compaction, as `path_states` sets them.
fn omp18_states(session: &Session, after: &[NodeId]) -> Vec<(NodeId, EntryState)> {
    let rules = session.rules();
    let items: Vec<_> = after.iter().filter_map(|&n| omp18::item_of(session, n)).collect();
    let sent = omp18::finish(session, items, &mut Vec::new());
    // `sent` keeps the order of `after`: one walk pairs them.
    let mut sent = sent.iter().map(|i| i.node()).peekable();
    after
        .iter()
        .map(|&n| match sent.next_if_eq(&n) {
            Some(_) => (n, sent_state(session, n, rules)),
            None => (n, unsent_state(session, n, false)),
        })
        .collect()
}
