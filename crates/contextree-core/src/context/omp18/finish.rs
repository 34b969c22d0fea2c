//! omp 18's post-processing of the message list (omp-18.md §2.4), in time linear in the list:
//! a leaf change under omp 18 builds the whole path's context, and removing aborted replies
//! and their results one `Vec::remove` at a time cost a scan of the rest of the list each.

use rustc_hash::{FxHashMap, FxHashSet};

use super::INTERRUPTED_THINKING;
use crate::context::build::Item;
use crate::session::{MessageMeta, NodeId, Role, Session};

/// The post-processing of §2.4: tool calls without a result anywhere in the
/// list are stripped from their assistant (recorded in `stripped` as a mask
/// of the `toolCall` blocks to drop; a message left empty is dropped), then
/// aborted and failed assistants go, with the results of their calls,
/// unless an `interrupted-thinking` note follows. Calls and results pair as
/// the agent's sets compare their ids (`session::call_key`): a call without
/// an `id` is answered by a result without a `toolCallId`.
///
/// The agent walks the list from its end, removing as it goes: an assistant's "next message"
/// is the next one the removals for the assistants after it left, and the results it takes
/// with it are those after it still there. Removals are marked instead, so the list is copied
/// once at the end.
pub(in crate::context) fn finish(session: &Session, mut items: Vec<Item>, stripped: &mut Vec<(NodeId, u64)>) -> Vec<Item> {
    let paired: FxHashSet<u64> = items.iter().filter_map(|i| role_meta(session, i, Role::ToolResult)?.turn.tool_call_id).collect();
    stripped.clear();
    items.retain(|i| {
        let Some(m) = role_meta(session, i, Role::Assistant) else { return true };
        let mask =
            m.turn
                .call_ids
                .iter()
                .enumerate()
                .filter(|(_, id)| !paired.contains(id))
                .fold(0u64, |mask, (k, _)| if k < 64 { mask | 1 << k } else { mask });
        if mask == 0 {
            return true;
        }
        let all_stripped = mask.count_ones() as usize == m.turn.call_ids.len();
        if all_stripped && m.turn.other_blocks == 0 {
            return false;
        }
        stripped.push((i.node(), mask));
        true
    });
    let mut removed = Removed::new(items.len());
    // Each call id's results, ascending. An assistant at `i` takes the results of its ids after
    // `i`; the walk goes down, so what an id has lost is always a suffix of its list: `standing`
    // counts the results still there, and every result is removed once.
    let mut results: FxHashMap<u64, (Vec<usize>, usize)> = FxHashMap::default();
    for (k, item) in items.iter().enumerate() {
        if let Some(id) = role_meta(session, item, Role::ToolResult).and_then(|m| m.turn.tool_call_id) {
            results.entry(id).or_default().0.push(k);
        }
    }
    for (positions, standing) in results.values_mut() {
        *standing = positions.len();
    }
    let mut gone_nodes = FxHashSet::default();
    for i in (0..items.len()).rev() {
        let Some(m) = role_meta(session, &items[i], Role::Assistant) else { continue };
        if !matches!(m.reply.stop_reason.as_deref(), Some("aborted" | "error")) {
            continue;
        }
        // Only the assistants after `i` have removed anything yet, as in the agent's walk.
        if items.get(removed.next_standing(i + 1)).is_some_and(|next| is_note(session, next)) {
            continue;
        }
        removed.remove(i);
        gone_nodes.insert(items[i].node());
        for id in m.turn.call_ids.iter() {
            let Some((positions, standing)) = results.get_mut(id) else { continue };
            while *standing > 0 && positions[*standing - 1] > i {
                *standing -= 1;
                removed.remove(positions[*standing]);
            }
        }
    }
    if !gone_nodes.is_empty() {
        stripped.retain(|(n, _)| !gone_nodes.contains(n));
    }
    items.into_iter().enumerate().filter(|&(k, _)| !removed.is_removed(k)).map(|(_, item)| item).collect()
}

/// The item's message metadata when it is an entry's message of `role`.
fn role_meta<'s>(session: &'s Session, item: &Item, role: Role) -> Option<&'s MessageMeta> {
    match item {
        Item::Entry(n) => session.entry(*n).message().filter(|m| m.role == role),
        _ => None,
    }
}

/// Whether the item is an `interrupted-thinking` note.
fn is_note(session: &Session, item: &Item) -> bool {
    let e = session.entry(item.node());
    &*e.entry_type == "custom_message" && e.str_field("customType") == Some(INTERRUPTED_THINKING)
}

/// The items removed so far, with a way to the first one standing from any position: each
/// removed item points further on (a union-find over runs of removed items, halving the paths
/// it walks), so looking past a long run of removed replies costs it once, not per look.
struct Removed {
    /// `ahead[k] == k`: item `k` stands (the last slot, one past the list, always does).
    ahead: Vec<usize>,
}

impl Removed {
    fn new(len: usize) -> Removed {
        Removed { ahead: (0..=len).collect() }
    }

    fn remove(&mut self, k: usize) {
        self.ahead[k] = k + 1;
    }

    fn is_removed(&self, k: usize) -> bool {
        self.ahead[k] != k
    }

    /// The first standing item at or after `k` (the list's length: none).
    fn next_standing(&mut self, mut k: usize) -> usize {
        while self.ahead[k] != k {
            let further = self.ahead[self.ahead[k]];
            self.ahead[k] = further;
            k = further;
        }
        k
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::context::{build, path_to, Leaf};
    use crate::RuleSet;

    /// The post-processing as it was first written, removing from the list as the agent does:
    /// what [`finish`] must answer, item for item.
    fn finish_by_removal(session: &Session, mut items: Vec<Item>, stripped: &mut Vec<(NodeId, u64)>) -> Vec<Item> {
        let meta = |i: &Item| match i {
            Item::Entry(n) => session.entry(*n).message(),
            _ => None,
        };
        let paired: HashSet<u64> =
            items.iter().filter_map(|i| meta(i).filter(|m| m.role == Role::ToolResult).and_then(|m| m.turn.tool_call_id)).collect();
        stripped.clear();
        items.retain(|i| {
            let Some(m) = meta(i).filter(|m| m.role == Role::Assistant) else { return true };
            let mask = m.turn.call_ids.iter().enumerate().filter(|(_, id)| !paired.contains(id)).fold(0u64, |mask, (k, _)| {
                if k < 64 {
                    mask | 1 << k
                } else {
                    mask
                }
            });
            if mask == 0 {
                return true;
            }
            if mask.count_ones() as usize == m.turn.call_ids.len() && m.turn.other_blocks == 0 {
                return false;
            }
            stripped.push((i.node(), mask));
            true
        });
        let mut i = items.len();
        while i > 0 {
            i -= 1;
            let Some(m) = meta(&items[i]).filter(|m| m.role == Role::Assistant) else { continue };
            if !matches!(m.reply.stop_reason.as_deref(), Some("aborted" | "error")) {
                continue;
            }
            if items.get(i + 1).is_some_and(|next| is_note(session, next)) {
                continue;
            }
            let calls: HashSet<u64> = m.turn.call_ids.iter().copied().collect();
            let node = items[i].node();
            items.remove(i);
            stripped.retain(|(n, _)| *n != node);
            if !calls.is_empty() {
                let mut j = items.len();
                while j > i {
                    j -= 1;
                    if meta(&items[j])
                        .is_some_and(|r| r.role == Role::ToolResult && r.turn.tool_call_id.is_some_and(|id| calls.contains(&id)))
                    {
                        items.remove(j);
                    }
                }
            }
        }
        items
    }

    /// What the two answer for `items`, checked equal; whether an aborted reply stayed for a
    /// note it reaches past removed messages, and whether a result went with its reply (so the
    /// tests can count what they exercised).
    fn same_answer(s: &Session, items: Vec<Item>, what: &str) -> (bool, bool) {
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        let want = finish_by_removal(s, items.clone(), &mut slow);
        let got = finish(s, items.clone(), &mut fast);
        assert_eq!(got, want, "{what}: {items:?}");
        assert_eq!(fast, slow, "{what}: the stripped calls of {items:?}");
        let aborted = |i: &Item| {
            role_meta(s, i, Role::Assistant).is_some_and(|m| matches!(m.reply.stop_reason.as_deref(), Some("aborted" | "error")))
        };
        let noted_past = items.windows(2).any(|w| aborted(&w[0]) && !is_note(s, &w[1]) && want.contains(&w[0]));
        let took_result = items.iter().any(|i| role_meta(s, i, Role::ToolResult).is_some() && !want.contains(i));
        (noted_past, took_result)
    }

    fn sessions() -> impl Iterator<Item = (String, Session)> {
        contextree_testkit::fixture_sessions().into_iter().flat_map(|path| {
            let file = std::fs::read(&path).unwrap();
            [RuleSet::Omp18, RuleSet::Omp183]
                .map(|rules| (format!("{} under {rules:?}", path.display()), Session::parse(&file, Some(rules))))
        })
    }

    #[test]
    fn every_fixture_leafs_list_is_finished_as_by_removal() {
        let (mut lists, mut took_results) = (0, 0);
        for (what, s) in sessions() {
            let step = s.entries().len().div_ceil(64).max(1);
            for leaf in (0..s.entries().len()).step_by(step).map(|i| NodeId(i as u32)) {
                let mut ctx = build(&s, Leaf::At(leaf));
                let path = path_to(&s, leaf);
                let compaction_at = path.iter().rposition(|&n| &*s.entry(n).entry_type == "compaction");
                let items = super::super::gather(&s, &mut ctx, &path, compaction_at);
                let (_, took) = same_answer(&s, items, &format!("{what} at {leaf:?}"));
                (lists, took_results) = (lists + 1, took_results + took as usize);
            }
        }
        // No agent's file has a note past removed messages: the random lists below do.
        assert!(lists > 4_000 && took_results > 100, "lists {lists}, took results {took_results}");
    }

    /// Lists no agent writes: a session's messages drawn at random, in any order, repeated, so
    /// results come before their calls, ids repeat and runs of removed replies meet notes. A
    /// fifth of the draws is a result of a call drawn before it, so that replies lose results.
    #[test]
    fn random_lists_of_a_sessions_messages_are_finished_as_by_removal() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |below: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % below as u64) as usize
        };
        let (mut lists, mut noted, mut took_results) = (0, 0, 0);
        for (what, s) in sessions() {
            let messages: Vec<Item> = (0..s.entries().len())
                .map(|i| NodeId(i as u32))
                .filter(|&n| s.entry(n).message().is_some() || &*s.entry(n).entry_type == "custom_message")
                .map(Item::Entry)
                .collect();
            // The kinds finish looks at, drawn more often than their share of a session.
            let aborted: Vec<Item> = messages
                .iter()
                .copied()
                .filter(|i| {
                    role_meta(&s, i, Role::Assistant).is_some_and(|m| matches!(m.reply.stop_reason.as_deref(), Some("aborted" | "error")))
                })
                .collect();
            let results: Vec<Item> = messages.iter().copied().filter(|i| role_meta(&s, i, Role::ToolResult).is_some()).collect();
            let notes: Vec<Item> = messages.iter().copied().filter(|i| is_note(&s, i)).collect();
            if messages.is_empty() {
                continue;
            }
            let mut answers: FxHashMap<u64, Vec<Item>> = FxHashMap::default();
            for &r in &results {
                answers.entry(role_meta(&s, &r, Role::ToolResult).and_then(|m| m.turn.tool_call_id).unwrap_or(0)).or_default().push(r);
            }
            for _ in 0..40 {
                let len = 1 + next(40);
                let mut items = Vec::with_capacity(len);
                // The call ids drawn so far: a result of one of them makes replies and results meet.
                let mut calls: Vec<u64> = Vec::new();
                for _ in 0..len {
                    let answer = (next(5) == 0 && !calls.is_empty()).then(|| answers.get(&calls[next(calls.len())])).flatten();
                    let pool = answer.unwrap_or([&messages, &aborted, &results, &notes][next(4)]);
                    let pool = if pool.is_empty() { &messages } else { pool };
                    let item = pool[next(pool.len())];
                    calls.extend(role_meta(&s, &item, Role::Assistant).map_or(&[][..], |m| &m.turn.call_ids));
                    items.push(item);
                }
                let (a, b) = same_answer(&s, items, &what);
                (lists, noted, took_results) = (lists + 1, noted + a as usize, took_results + b as usize);
            }
        }
        assert!(lists > 5_000 && noted > 50 && took_results > 100, "lists {lists}, noted {noted}, took results {took_results}");
    }
}
