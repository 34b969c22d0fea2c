//! Which message of one leaf's context is which of the other's. Pure: two contexts of one
//! session and each leaf's entry states in, rows out, one at a time.
//!
//! A message is known by its entry and its slot (the entry's own message, as it is or as an
//! edit replaced it; a compaction's summary; its system checkpoint), so the same entry sent by
//! both sides lines up even when one side sends it differently. Both contexts come from paths
//! that share the root up to the common ancestor, so their common messages are in the same
//! order; the longest increasing run of them (patience alignment) is kept all the same, so an
//! unexpected order still puts every message on exactly one row of its side.

use contextree_core::context::{Context, EntryState, Item};
use contextree_core::session::NodeId;

/// What one side holds at a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cell {
    /// Its message `items[i]`.
    Sent(usize),
    /// Nothing: the entry is on this side's path too, but this side does not send it as the
    /// other does (summarized, hidden, an older compaction).
    Unsent(NodeId),
}

/// How the two sides relate at a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    /// Both send this message, alike.
    Same,
    /// One entry on both paths, treated differently: sent differently, or sent by one only.
    Changed,
    /// Past the common ancestor: each cell (either may be empty) is an entry only its own
    /// leaf's path has; the two branches' messages are put side by side as they come.
    Diverged,
}

impl Op {
    /// Its name in the report.
    pub(super) fn name(self) -> &'static str {
        match self {
            Op::Same => "same",
            Op::Changed => "changed",
            Op::Diverged => "diverged",
        }
    }
}

/// One aligned row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Row {
    pub(super) op: Op,
    pub(super) a: Option<Cell>,
    pub(super) b: Option<Cell>,
}

/// Two contexts of one session lined up: the messages both send, found once, and what each
/// leaf makes of every entry. Rows are made by a [`Cursor`], as often as asked.
pub(super) struct Alignment<'a> {
    pub(super) a: &'a Context,
    pub(super) b: &'a Context,
    /// Every entry's state for A's leaf, and for B's.
    pub(super) a_states: Vec<EntryState>,
    pub(super) b_states: Vec<EntryState>,
    /// `(i, j)`: `a.items[i]` and `b.items[j]` are one message slot, in order on both sides.
    pairs: Vec<(u32, u32)>,
}

/// Where a walk over an [`Alignment`]'s rows is.
#[derive(Debug, Default)]
pub(super) struct Cursor {
    i: usize,
    j: usize,
    k: usize,
}

const NONE: u32 = u32::MAX;

impl<'a> Alignment<'a> {
    /// `a` and `b` lined up (`a_states`, `b_states`: `entry_states` of each, one per entry).
    pub(super) fn new(a: &'a Context, b: &'a Context, a_states: Vec<EntryState>, b_states: Vec<EntryState>) -> Self {
        let pairs = longest_increasing(common_slots(&a.items, &b.items, b_states.len()));
        Self { a, b, a_states, b_states, pairs }
    }

    /// Whether `node` is on B's leaf's path (else only A's has it).
    fn on_b(&self, node: NodeId) -> bool {
        self.b_states[node.index()] != EntryState::OffPath
    }

    fn on_a(&self, node: NodeId) -> bool {
        self.a_states[node.index()] != EntryState::OffPath
    }

    /// The row after `at`'s, or `None` past the last.
    pub(super) fn next(&self, at: &mut Cursor) -> Option<Row> {
        let (until_i, until_j) = self.pairs.get(at.k).map_or((self.a.items.len(), self.b.items.len()), |&(i, j)| (i as usize, j as usize));
        let left = (at.i < until_i).then(|| (at.i, self.a.items[at.i].node()));
        let right = (at.j < until_j).then(|| (at.j, self.b.items[at.j].node()));
        let row = match (left, right) {
            (None, None) => {
                // The next message both send (none left: the end).
                let (i, j) = self.pairs.get(at.k).map(|&(i, j)| (i as usize, j as usize))?;
                at.k += 1;
                let (x, y) = (self.a.items[i], self.b.items[j]);
                let alike = x == y && self.a.stripped_calls(x) == self.b.stripped_calls(y);
                at.i += 1;
                at.j += 1;
                Row { op: if alike { Op::Same } else { Op::Changed }, a: Some(Cell::Sent(i)), b: Some(Cell::Sent(j)) }
            }
            // What the common path holds comes first (A's before B's), each side in its order…
            (Some((i, x)), _) if self.on_b(x) => {
                at.i += 1;
                Row { op: Op::Changed, a: Some(Cell::Sent(i)), b: Some(Cell::Unsent(x)) }
            }
            (_, Some((j, y))) if self.on_a(y) => {
                at.j += 1;
                Row { op: Op::Changed, a: Some(Cell::Unsent(y)), b: Some(Cell::Sent(j)) }
            }
            // … then the two branches' messages side by side.
            (Some((i, _)), Some((j, _))) => {
                at.i += 1;
                at.j += 1;
                Row { op: Op::Diverged, a: Some(Cell::Sent(i)), b: Some(Cell::Sent(j)) }
            }
            (Some((i, _)), None) => {
                at.i += 1;
                Row { op: Op::Diverged, a: Some(Cell::Sent(i)), b: None }
            }
            (None, Some((j, _))) => {
                at.j += 1;
                Row { op: Op::Diverged, a: None, b: Some(Cell::Sent(j)) }
            }
        };
        Some(row)
    }
}

/// The slot of an item: 0 an entry's message (as it is or replaced), 1 a compaction's summary,
/// 2 its system checkpoint.
fn slot(item: Item) -> usize {
    match item {
        Item::Entry(_) | Item::Replaced { .. } => 0,
        Item::CompactionSummary(_) => 1,
        Item::SystemCheckpoint(_) => 2,
    }
}

/// `(i, j)` for every item of `a` whose slot `b` has too (at `j`), in `a`'s order. A slot met
/// twice on one side is paired once.
fn common_slots(a: &[Item], b: &[Item], entries: usize) -> Vec<(u32, u32)> {
    // Where B has each entry's message (one u32 an entry); summaries and checkpoints are few.
    let mut messages = vec![NONE; entries];
    let mut others: Vec<(usize, NodeId, u32)> = Vec::new();
    for (j, &item) in b.iter().enumerate() {
        let n = item.node();
        match slot(item) {
            0 if messages[n.index()] == NONE => messages[n.index()] = j as u32,
            0 => {}
            s if !others.iter().any(|&(t, m, _)| t == s && m == n) => others.push((s, n, j as u32)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (i, &item) in a.iter().enumerate() {
        let n = item.node();
        let at = match slot(item) {
            0 => std::mem::replace(&mut messages[n.index()], NONE),
            s => others.iter_mut().find(|(t, m, _)| *t == s && *m == n).map_or(NONE, |o| std::mem::replace(&mut o.2, NONE)),
        };
        if at != NONE {
            out.push((i as u32, at));
        }
    }
    out
}

/// The longest run of `seq` (increasing in its first member) whose second member increases
/// too: the pairs that can stand on rows in both orders at once.
fn longest_increasing(seq: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    if seq.windows(2).all(|w| w[0].1 < w[1].1) {
        return seq; // the usual case: both contexts keep the common messages in one order
    }
    // tails[l]: the index in `seq` of the smallest last member of an increasing run of l + 1.
    let mut tails: Vec<u32> = Vec::new();
    let mut before = vec![NONE; seq.len()];
    for (k, &(_, j)) in seq.iter().enumerate() {
        let l = tails.partition_point(|&t| seq[t as usize].1 < j);
        if l > 0 {
            before[k] = tails[l - 1];
        }
        match tails.get_mut(l) {
            Some(t) => *t = k as u32,
            None => tails.push(k as u32),
        }
    }
    let mut run = Vec::with_capacity(tails.len());
    let mut k = tails.last().copied().unwrap_or(NONE);
    while k != NONE {
        run.push(seq[k as usize]);
        k = before[k as usize];
    }
    run.reverse();
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_run_keeps_what_both_orders_allow() {
        assert_eq!(longest_increasing(vec![(0, 0), (1, 1), (2, 2)]), [(0, 0), (1, 1), (2, 2)]);
        assert_eq!(longest_increasing(vec![(0, 2), (1, 0), (2, 1), (3, 3)]), [(1, 0), (2, 1), (3, 3)]);
        assert_eq!(longest_increasing(vec![(0, 1), (1, 0)]).len(), 1);
        assert!(longest_increasing(Vec::new()).is_empty());
    }

    #[test]
    fn a_slot_is_paired_once_and_summaries_pair_with_summaries() {
        let (n0, n1) = (NodeId(0), NodeId(1));
        let a = [Item::CompactionSummary(n1), Item::Entry(n0), Item::Entry(n0)];
        let b = [Item::Entry(n0), Item::Entry(n1), Item::CompactionSummary(n1)];
        assert_eq!(common_slots(&a, &b, 2), [(0, 2), (1, 0)]);
        // An edit's replacement is the entry's message slot.
        let a = [Item::Replaced { node: n0, edit: n1 }];
        assert_eq!(common_slots(&a, &[Item::Entry(n0)], 2), [(0, 0)]);
    }
}
