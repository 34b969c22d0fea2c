//! What made a leaf's context grow (`contextree weight`): the context after each turn of the
//! leaf's path, the largest entries still in it, the files read more than once.
//!
//! A turn is a user message and what follows it up to the next one (entries before the first
//! user message belong to the first turn). "The context after a turn" is the context of the
//! turn's last entry taken as the leaf, in the agent's estimate of its messages: the
//! `messageTokens` `contextree context --leaf <that entry>` reports.
//!
//! The contexts are not built once per turn (a 38,000-entry path with thousands of turns would
//! be quadratic): a turn made only of messages that cannot change what came before (a user
//! message, replies whose tool calls are all answered in the turn, their results, entries
//! that put no message in any context) extends the previous context by its messages'
//! estimates; any other turn (a compaction, a context edit, omp's `/clear`, a dropped reply,
//! an extension message) builds its context again. A test checks both ways agree on every
//! turn of every fixture under every rule set.

use std::collections::{HashMap, HashSet};

use contextree_core::context::{agent_message, build, context_item_estimate, entry_estimate, path_to, Context, Leaf, ReadBackError};
use contextree_core::dialect::RuleChoiceWire;
use contextree_core::session::{NodeId, Role, Session, Source};
use contextree_core::RuleChoice;
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

/// The growth and weight of a leaf's context.
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WeightReport {
    /// The agent whose rules ran.
    pub dialect: &'static str,
    /// The rule set that ran and why.
    #[ts(as = "RuleChoiceWire")]
    pub rule_set: RuleChoice,
    /// The leaf.
    pub leaf_id: Option<String>,
    /// The leaf's context: its messages' estimate (`messageTokens`).
    pub context_tokens: u64,
    /// One per turn of the path, in order.
    pub turns: Vec<TurnRow>,
    /// The largest messages of the leaf's context, largest first.
    pub top: Vec<TopEntry>,
    /// Files the leaf's context holds more than one read of, costliest repeats first.
    pub repeated_reads: Vec<RepeatedRead>,
}

/// One turn and the context after it.
#[derive(Debug, Clone, Serialize, TS, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct TurnRow {
    /// Its number on the path, from 0.
    pub turn: usize,
    /// Its first entry (the user message, but for entries before the first one).
    pub first_entry_id: Option<String>,
    /// Its last entry: the leaf the context after it is taken from.
    pub last_entry_id: Option<String>,
    /// That entry's number in the file.
    pub last_entry_index: u32,
    /// Entries in the turn.
    pub entries: usize,
    /// The context after the turn: the messages' estimate from its last entry.
    pub tokens: u64,
    /// `tokens` less the previous turn's (negative after a compaction).
    pub delta: i64,
    /// The estimate of the turn's own messages in that context.
    pub added: u64,
    /// A compaction entry in the turn (the last one).
    pub compaction_id: Option<String>,
    /// Tool results of the turn whose output was pruned (omp's `prunedAt`).
    pub pruned: usize,
    /// pi ≥ 0.87: `context_edit` entries in the turn.
    pub context_edits: usize,
}

/// A message of the leaf's context, with its estimate.
#[derive(Debug, Clone, Serialize, TS, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct TopEntry {
    /// The entry behind it (a summary: its compaction).
    pub entry_id: Option<String>,
    /// That entry's number in the file.
    pub entry_index: u32,
    /// Its role.
    pub role: String,
    /// A tool result's tool.
    pub tool: Option<String>,
    /// The turn it belongs to.
    pub turn: Option<usize>,
    /// The agent's estimate of it.
    pub tokens: u64,
}

/// A file the context holds several reads of.
#[derive(Debug, Clone, Serialize, TS, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct RepeatedRead {
    /// The path the read calls name.
    pub path: String,
    /// Read results of it in the context.
    pub reads: usize,
    /// Their estimate.
    pub tokens: u64,
    /// The estimate of every read but the last: what the repeats cost.
    pub repeat_tokens: u64,
    /// The results' entries, in order.
    pub entry_ids: Vec<String>,
}

impl WeightReport {
    /// The weight report of `leaf` (`top`: how many of the largest messages to list).
    pub fn new(s: &Session, leaf: Leaf, top: usize, source: &dyn Source) -> Result<WeightReport, ReadBackError> {
        let leaf = leaf.node(s);
        let path = leaf.map(|l| path_to(s, l)).unwrap_or_default();
        let spans = turn_spans(s, &path);
        let turn_of: HashMap<NodeId, usize> =
            spans.iter().enumerate().flat_map(|(t, r)| path[r.clone()].iter().map(move |&n| (n, t))).collect();
        let turns = growth(s, &path, &spans, source)?;
        let ctx = build(s, leaf.map_or(Leaf::Reset, Leaf::At));
        let estimates = ctx.items.iter().map(|&i| context_item_estimate(s, &ctx, i, source)).collect::<Result<Vec<u64>, _>>()?;
        let id = |n: NodeId| s.entry(n).id().map(str::to_owned);
        let mut order: Vec<usize> = (0..ctx.items.len()).collect();
        // Largest first; the earlier of equals first.
        order.sort_by_key(|&k| (std::cmp::Reverse(estimates[k]), k));
        let top = order
            .into_iter()
            .take(top)
            .map(|k| {
                let item = ctx.items[k];
                let meta = s.entry(item.node()).message().filter(|_| matches!(item, contextree_core::context::Item::Entry(_)));
                TopEntry {
                    entry_id: id(item.node()),
                    entry_index: item.node().0,
                    role: contextree_core::context::item_role(s, item).to_owned(),
                    tool: meta.and_then(|m| m.tool_name.as_deref().map(str::to_owned)),
                    turn: turn_of.get(&item.node()).copied(),
                    tokens: estimates[k],
                }
            })
            .collect();
        Ok(WeightReport {
            dialect: s.dialect().name(),
            rule_set: s.rule_choice().clone(),
            leaf_id: leaf.and_then(id),
            context_tokens: estimates.iter().sum(),
            turns,
            top,
            repeated_reads: repeated_reads(s, &ctx, &estimates, source)?,
        })
    }
}

/// The path's turns as ranges of path indices: a new one at each user message.
fn turn_spans(s: &Session, path: &[NodeId]) -> Vec<std::ops::Range<usize>> {
    let mut starts: Vec<usize> =
        path.iter().enumerate().filter(|(_, &n)| s.entry(n).message().is_some_and(|m| m.role == Role::User)).map(|(k, _)| k).collect();
    if starts.first() != Some(&0) && !path.is_empty() {
        match starts.first_mut() {
            // What comes before the first request belongs to it.
            Some(first) => *first = 0,
            None => starts.push(0),
        }
    }
    starts.iter().enumerate().map(|(t, &a)| a..starts.get(t + 1).copied().unwrap_or(path.len())).collect()
}

/// The context after each turn, extended where the turn cannot change what came before and
/// built again where it can.
fn growth(s: &Session, path: &[NodeId], spans: &[std::ops::Range<usize>], source: &dyn Source) -> Result<Vec<TurnRow>, ReadBackError> {
    let rules = s.rules();
    let mut rows = Vec::with_capacity(spans.len());
    // The previous context's total, and whether it can be extended (omp 18: no stripped calls).
    let mut prev: Option<(u64, bool)> = None;
    for (t, span) in spans.iter().enumerate() {
        let entries = &path[span.clone()];
        let last = path[span.end - 1];
        let (tokens, added, extendable) = match prev {
            Some((total, true)) if plain_turn(s, entries) => {
                let added: u64 =
                    entries.iter().map(|&n| s.entry(n)).filter(|e| e.message().is_some()).map(|e| entry_estimate(e, rules)).sum();
                (total + added, added, true)
            }
            _ => {
                let ctx = build(s, Leaf::At(last));
                let own: HashSet<NodeId> = entries.iter().copied().collect();
                let (mut total, mut added) = (0, 0);
                for &item in &ctx.items {
                    let n = context_item_estimate(s, &ctx, item, source)?;
                    total += n;
                    if own.contains(&item.node()) {
                        added += n;
                    }
                }
                (total, added, ctx.stripped.is_empty())
            }
        };
        let before = prev.map_or(0, |p| p.0);
        prev = Some((tokens, extendable));
        let of_type = |ty: &'static str| entries.iter().filter(move |&&n| s.entry(n).entry_type == ty);
        rows.push(TurnRow {
            turn: t,
            first_entry_id: s.entry(entries[0]).id().map(str::to_owned),
            last_entry_id: s.entry(last).id().map(str::to_owned),
            last_entry_index: last.0,
            entries: entries.len(),
            tokens,
            delta: tokens as i64 - before as i64,
            added,
            compaction_id: of_type("compaction").next_back().and_then(|&n| s.entry(n).id().map(str::to_owned)),
            pruned: entries.iter().filter(|&&n| s.entry(n).message().is_some_and(|m| m.pruned)).count(),
            context_edits: of_type("context_edit").count(),
        });
    }
    Ok(rows)
}

/// Entry types that put no message in any rule set's context and change none of its messages.
const INERT: &[&str] = &["model_change", "thinking_level_change", "label", "session_info", "custom"];

/// Whether a turn only appends its messages, each counted as the index counts it: plain
/// messages (no system message, no dropped or failed reply) and inert entries, every tool
/// call answered within the turn.
fn plain_turn(s: &Session, entries: &[NodeId]) -> bool {
    let (mut calls, mut answers) = (HashSet::new(), HashSet::new());
    for &n in entries {
        let e = s.entry(n);
        if INERT.contains(&&*e.entry_type) {
            continue;
        }
        let Some(m) = e.message().filter(|_| e.entry_type == "message") else { return false };
        match m.role {
            Role::User | Role::BashExecution => {}
            Role::Assistant => {
                let failed = matches!(m.reply.stop_reason.as_deref(), Some("aborted" | "error"));
                if failed || m.turn.retry_recovery || m.turn.empty_error {
                    return false;
                }
                calls.extend(m.turn.call_ids.iter().copied());
            }
            Role::ToolResult => answers.extend(m.turn.tool_call_id),
            _ => return false,
        }
    }
    // omp 18 strips the calls no result answers (other rule sets record no ids: both empty).
    calls.is_subset(&answers)
}

/// The files read more than once in `ctx`: `read` calls of its assistants by their `path`,
/// paired with their results by call id.
fn repeated_reads(s: &Session, ctx: &Context, estimates: &[u64], source: &dyn Source) -> Result<Vec<RepeatedRead>, ReadBackError> {
    let mut path_of_call: HashMap<String, String> = HashMap::new();
    let mut reads: Vec<(String, u64, String)> = Vec::new();
    for (k, &item) in ctx.items.iter().enumerate() {
        let Some(m) = s.entry(item.node()).message().filter(|_| matches!(item, contextree_core::context::Item::Entry(_))) else {
            continue;
        };
        match m.role {
            Role::Assistant => {
                let msg = agent_message(s, item, source)?;
                for b in msg.get("content").and_then(Value::as_array).into_iter().flatten() {
                    let is_read =
                        b.get("type").and_then(Value::as_str) == Some("toolCall") && b.get("name").and_then(Value::as_str) == Some("read");
                    let args = b.get("arguments");
                    let file = args.and_then(|a| a.get("path").or_else(|| a.get("file_path"))).and_then(Value::as_str);
                    if let (true, Some(id), Some(file)) = (is_read, b.get("id").and_then(Value::as_str), file) {
                        path_of_call.insert(id.to_owned(), file.to_owned());
                    }
                }
            }
            Role::ToolResult if m.tool_name.as_deref() == Some("read") => {
                let msg = agent_message(s, item, source)?;
                let file = msg.get("toolCallId").and_then(Value::as_str).and_then(|id| path_of_call.get(id));
                if let Some(file) = file {
                    reads.push((file.clone(), estimates[k], s.entry(item.node()).id.to_string()));
                }
            }
            _ => {}
        }
    }
    let mut by_path: Vec<RepeatedRead> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for (file, tokens, id) in reads {
        let k = *at.entry(file.clone()).or_insert_with(|| {
            by_path.push(RepeatedRead { path: file, reads: 0, tokens: 0, repeat_tokens: 0, entry_ids: Vec::new() });
            by_path.len() - 1
        });
        let r = &mut by_path[k];
        // Every read but the latest is a repeat: the latest is what a model would keep.
        r.repeat_tokens = r.tokens;
        r.reads += 1;
        r.tokens += tokens;
        r.entry_ids.push(id);
    }
    by_path.retain(|r| r.reads > 1);
    by_path.sort_by_key(|r| std::cmp::Reverse(r.repeat_tokens));
    Ok(by_path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use contextree_core::RuleSet;

    /// The integration tests check every turn's size against its own context built from
    /// scratch; this checks that those turns are not all built again, under every rule set, so
    /// the extension is what they check.
    #[test]
    fn most_turns_extend_the_one_before() {
        let cases = [
            ("real/pi-compact-2025-12-24.jsonl", RuleSet::Pi073),
            ("pi16/g16-branchy-s97.jsonl", RuleSet::Pi16),
            ("real/pi-compact-2025-12-24.jsonl", RuleSet::Omp13),
            ("omp183/g183-main-s4.jsonl", RuleSet::Omp18),
            ("omp183/g183-main-s4.jsonl", RuleSet::Omp183),
        ];
        for (rel, rules) in cases {
            let bytes = std::fs::read(contextree_testkit::fixture(rel)).unwrap();
            let s = Session::parse(&bytes, Some(rules));
            let path = path_to(&s, s.leaf().unwrap());
            let spans = turn_spans(&s, &path);
            let plain = spans.iter().filter(|r| plain_turn(&s, &path[(*r).clone()])).count();
            assert!(spans.len() > 5 && plain * 2 > spans.len(), "{rel} under {rules}: {plain} of {} turns plain", spans.len());
        }
    }
}
