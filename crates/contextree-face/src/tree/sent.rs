//! What the UI holds of a reading's tree: the rows (they do not depend on the leaf) and the
//! states of the leaf last sent. With them a leaf change costs the two paths' own parts, not
//! the session: the new leaf's states are derived from the last leaf's where nothing past their
//! common ancestor reaches back (`context::derive_states`), the states that differ are found
//! from what follows the two leaves' common prefix of states, and only their rows are sent
//! (`wire::encode_changes`).

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use contextree_core::context::{aligned_states, build, derive_states, states_from_path, EntryState, Leaf, StatesIndex};
use contextree_core::session::{NodeId, Session};
use contextree_core::view::NO_ROW;

/// A leaf's `aligned_states`: one pair per entry of its path, root first, with its state.
pub type PathStates = Arc<Vec<(NodeId, EntryState)>>;

/// The tree of one reading as sent to the UI.
#[derive(Debug, Default)]
pub struct Sent {
    /// The entry of each row, once the whole table was sent.
    pub rows: OnceLock<Vec<NodeId>>,
    /// The row of each entry (file order; `NO_ROW` for an entry without one), made from `rows`
    /// the first time a leaf change needs it.
    row_of: OnceLock<Vec<u32>>,
    /// What deriving a leaf's states needs (one pass over the entries), made on the open's
    /// second thread ([`Sent::prepare`]), else at the first leaf change.
    index: OnceLock<StatesIndex>,
    /// The leaf last sent and its states: the next leaf change is most likely from it.
    last: Mutex<Option<(Option<NodeId>, PathStates)>>,
}

impl Sent {
    /// The row of each entry, once `rows` is known.
    pub fn row_of(&self, entries: usize) -> Option<&[u32]> {
        let rows = self.rows.get()?;
        Some(self.row_of.get_or_init(|| {
            let mut row_of = vec![NO_ROW; entries];
            for (row, node) in rows.iter().enumerate() {
                row_of[node.index()] = row as u32;
            }
            row_of
        }))
    }

    /// Remembers that `leaf`'s states were sent.
    pub fn remember(&self, leaf: Option<NodeId>, states: PathStates) {
        *self.last.lock().unwrap_or_else(PoisonError::into_inner) = Some((leaf, states));
    }

    /// The states of `leaf`: the ones remembered when it was the last sent, else worked out.
    pub fn states_of(&self, s: &Session, leaf: NodeId) -> PathStates {
        match self.last() {
            Some((Some(l), states)) if l == leaf => states,
            _ => Arc::new(aligned_states(s, &build(s, Leaf::At(leaf)))),
        }
    }

    /// The states of the leaf a change goes to (`None`: before the first entry): derived from
    /// the last leaf's when they can be, else from its context built from the root. Only the
    /// tree needs them; the context pane builds its context when it asks for it.
    pub fn states_for(&self, s: &Session, leaf: Option<NodeId>) -> PathStates {
        let Some(to) = leaf else { return Arc::new(Vec::new()) };
        let derived = self.last().and_then(|(_, held)| derive_states(s, self.index.get_or_init(|| StatesIndex::new(s)), &held, to));
        Arc::new(derived.unwrap_or_else(|| aligned_states(s, &build(s, Leaf::At(to)))))
    }

    /// Makes what deriving needs ahead of the first leaf change (the open's second thread
    /// does, while the file leaf's context is built).
    pub fn prepare(&self, s: &Session) {
        self.index.get_or_init(|| StatesIndex::new(s));
    }

    fn last(&self) -> Option<(Option<NodeId>, PathStates)> {
        self.last.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

/// The rows whose state or leaf flags differ between the leaf `before` and the leaf `after`
/// (each with its aligned states: one pair per path entry, root first), ascending, with
/// `after`'s full states. A path holds an entry once, so the entries of the two lists' common
/// prefix keep their states: only what follows it in either list is compared.
pub fn changed_rows(
    entries: usize,
    before: (Option<NodeId>, &[(NodeId, EntryState)]),
    after: (Option<NodeId>, &[(NodeId, EntryState)]),
    row_of: &[u32],
) -> (Vec<u32>, Vec<EntryState>) {
    let same = before.1.iter().zip(after.1).take_while(|(a, b)| a == b).count();
    let (gone, came) = (&before.1[same..], &after.1[same..]);
    // Off the path unless in `before`'s own part: no entry of `came` is in the common prefix.
    let old = states_from_path(entries, gone);
    let new = states_from_path(entries, after.1);
    let mut rows: Vec<u32> = gone
        .iter()
        .chain(came)
        .map(|&(n, _)| n)
        .filter(|n| old[n.index()] != new[n.index()])
        .chain(before.0.filter(|_| before.0 != after.0))
        .chain(after.0.filter(|_| before.0 != after.0))
        .map(|n| row_of[n.index()])
        .filter(|&row| row != NO_ROW)
        .collect();
    rows.sort_unstable();
    rows.dedup();
    (rows, new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use contextree_core::context::{entry_states, path_states};
    use contextree_core::view::tree_layout;

    /// A leaf checked: the leaf, its path states and its full states.
    type Checked = (Option<NodeId>, Vec<(NodeId, EntryState)>, Vec<EntryState>);

    /// Applies `changed` (rows, with `states` the new leaf's) to `before`'s full states.
    fn apply(mut states: Vec<EntryState>, changed: &[u32], rows: &[NodeId], new: &[EntryState]) -> Vec<EntryState> {
        for &row in changed {
            let n = rows[row as usize];
            states[n.index()] = new[n.index()];
        }
        states
    }

    #[test]
    fn the_changed_rows_turn_one_leafs_states_into_the_next_ones() {
        let files = contextree_testkit::fixture_sessions();
        assert!(files.len() > 50, "the fixtures: {}", files.len());
        let mut checked = 0;
        for path in files {
            let s = Session::parse(&std::fs::read(&path).unwrap(), None);
            let entries = s.entries().len();
            let rows = tree_layout(&s).nodes;
            let mut row_of = vec![NO_ROW; entries];
            for (row, n) in rows.iter().enumerate() {
                row_of[n.index()] = row as u32;
            }
            // Every leaf of the file, each from the one before (the big files: 400 of them,
            // spread over the file), starting from the file's leaf and ending with none.
            let step = entries.div_ceil(400).max(1);
            let mut leaves: Vec<Leaf> = (0..entries).step_by(step).map(|i| Leaf::At(NodeId(i as u32))).collect();
            leaves.insert(0, Leaf::Last);
            leaves.push(Leaf::Reset);
            let mut before: Option<Checked> = None;
            // The states a leaf change sends: derived from the leaf before where they can be.
            let sent = Sent::default();
            for leaf in leaves {
                let ctx = build(&s, leaf);
                let full = entry_states(&s, &ctx);
                let touched = aligned_states(&s, &ctx);
                assert_eq!(states_from_path(entries, &path_states(&s, &ctx)), full, "{}", path.display());
                assert_eq!(states_from_path(entries, &touched), full, "{}", path.display());
                let answered = sent.states_for(&s, ctx.leaf);
                assert_eq!(*answered, touched, "{} at {leaf:?}", path.display());
                sent.remember(ctx.leaf, answered);
                if let Some((old_leaf, old_touched, old_full)) = before {
                    let (changed, new) = changed_rows(entries, (old_leaf, &old_touched), (ctx.leaf, &touched), &row_of);
                    assert_eq!(new, full);
                    assert!(changed.windows(2).all(|w| w[0] < w[1]), "ascending, once each");
                    // Every row whose state differs is listed; those not listed are the same.
                    assert_eq!(apply(old_full.clone(), &changed, &rows, &new), full, "{} at {leaf:?}", path.display());
                    for (row, &n) in rows.iter().enumerate() {
                        let leaf_moved = old_leaf != ctx.leaf && (Some(n) == old_leaf || Some(n) == ctx.leaf);
                        let differs = old_full[n.index()] != full[n.index()] || leaf_moved;
                        assert_eq!(changed.binary_search(&(row as u32)).is_ok(), differs, "{} row {row}", path.display());
                    }
                    checked += 1;
                }
                before = Some((ctx.leaf, touched, full));
            }
        }
        assert!(checked > 1000, "leaf changes checked: {checked}");
    }
}
