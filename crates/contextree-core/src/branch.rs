//! Branch-summary preparation (branch-summary.md §2–4): which entries the
//! agents summarize when the leaf moves to another branch, and which of them
//! fit the summarizer's budget. Pure: no model is called.
//!
//! pi 0.73.1 and omp 13.19 share the algorithm; they differ only in the
//! dialect's token estimate and in the field that marks an extension-made
//! summary (`fromHook` / `fromExtension`). pi 1.6 (≥ 1.5.0, pi-1.6.md §5)
//! converts the collected entries with the latest `context_edit` per target
//! found among them: an omitted message is skipped, a replaced one counts and
//! reads with its new content; system messages count toward the budget (and
//! serialize to nothing).

use std::collections::HashMap;

use serde_json::Value;

use crate::compaction::FileOps;
use crate::context::materialize::{agent_message, ReadBackError};
use crate::context::projection::{is_omission, is_replacement, takes_replacement};
use crate::context::{entry_estimate, Item};
use crate::session::{Entry, NodeId, Role, Session, Source};
use crate::tokens::estimate::estimate_message;

/// `branchSummary.reserveTokens` default: room kept for prompt and answer.
pub const DEFAULT_RESERVE_TOKENS: u64 = 16_384;
/// Context window assumed when the model's is unknown (`|| 128000`).
pub const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;

/// The budget `generateBranchSummary` passes on: `(contextWindow || 128000) −
/// reserveTokens`. A result ≤ 0 means "no limit" to the agents (they test
/// `tokenBudget > 0`), returned as 0.
pub fn token_budget(context_window: Option<u64>, reserve_tokens: u64) -> u64 {
    let window = context_window.filter(|&w| w != 0).unwrap_or(DEFAULT_CONTEXT_WINDOW);
    window.saturating_sub(reserve_tokens)
}

/// `collectEntriesForBranchSummary`: what leaving `from` for `to` abandons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchEntries {
    /// Deepest entry on both paths (None: different trees, or no old leaf).
    pub common_ancestor: Option<NodeId>,
    /// From just below the common ancestor down to `from`, chronological.
    /// Every entry type is collected; compactions do not stop the walk.
    pub entries: Vec<NodeId>,
}

/// `collectEntriesForBranchSummary(from, to)` (§2). Both agents walk from the
/// old leaf up to the common ancestor; compaction boundaries do not stop the
/// walk (their summaries become messages in [`prepare_branch_entries`]). A
/// target below the old leaf (or equal to it) abandons nothing.
pub fn collect_entries_for_branch_summary(session: &Session, from: Option<NodeId>, to: NodeId) -> BranchEntries {
    let Some(from) = from else { return BranchEntries { common_ancestor: None, entries: Vec::new() } };
    let tree = session.tree();
    let common_ancestor = tree.common_ancestor(from, to);
    let mut entries = Vec::new();
    let mut cur = Some(from);
    // A missing parent ends the walk, as the agents' `getEntry` miss does.
    while let Some(node) = cur.filter(|&n| Some(n) != common_ancestor) {
        entries.push(node);
        cur = tree.parent(node);
    }
    entries.reverse();
    BranchEntries { common_ancestor, entries }
}

/// `prepareBranchEntries` (§3): the messages that fit the budget and the
/// file operations to list.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedBranch {
    /// Entries whose messages were selected, chronological.
    pub selected: Vec<NodeId>,
    /// The message of each selected entry, as the summarizer reads it: the
    /// entry's own, or (pi 1.6) the entry with an edit's replacement
    /// ([`Item::Replaced`]). Parallel to `selected`.
    pub items: Vec<Item>,
    /// The dialect's estimate of each selected message, parallel to `selected`.
    pub tokens: Vec<u64>,
    /// Sum of the dialect's estimates of the selected messages (may exceed
    /// the budget by one squeezed-in summary; omp ≥ 18 counts a tool result
    /// on its truncated text).
    pub total_tokens: u64,
    /// A compaction or branch summary added over the budget because less than
    /// 90% of it was used.
    pub squeezed: Option<NodeId>,
    /// The entry whose message did not fit; it and older ones are left out.
    pub stopped_at: Option<NodeId>,
    /// File operations: details of earlier branch summaries, then tool calls of
    /// the messages walked (older messages past the stop are lost, as in the agents).
    pub file_ops: FileOps,
}

/// `prepareBranchEntries(entries, tokenBudget)` (§3): a file-operation pass
/// over every entry, then newest to oldest until the budget (0 = no limit).
/// Reads assistant messages back through `source` for their tool calls.
pub fn prepare_branch_entries(
    session: &Session,
    entries: &[NodeId],
    budget: u64,
    source: &dyn Source,
) -> Result<PreparedBranch, ReadBackError> {
    let mut prep = PreparedBranch {
        selected: Vec::new(),
        items: Vec::new(),
        tokens: Vec::new(),
        total_tokens: 0,
        squeezed: None,
        stopped_at: None,
        file_ops: FileOps::default(),
    };
    let flag = session.dialect().extension_flag();
    let rules = session.rules();
    let omp18 = rules.summarizes_branch_tool_results();
    for &node in entries {
        let e = session.entry(node);
        if &*e.entry_type == "branch_summary" {
            match omp18 {
                true => prep.file_ops.add_previous_details_omp18(e),
                false => {
                    prep.file_ops.add_previous_details(e, flag);
                }
            }
        }
    }
    // pi 1.6: `edits.set(entry.targetId, entry)` over the collected entries.
    let mut edits: HashMap<&str, NodeId> = HashMap::new();
    if rules.projects_context_edits() {
        for &node in entries {
            let e = session.entry(node);
            if &*e.entry_type == "context_edit" {
                if let Some(target) = e.str_field("targetId") {
                    edits.insert(target, node);
                }
            }
        }
    }
    for &node in entries.iter().rev() {
        let e = session.entry(node);
        let Some(role) = message_role_under(e, rules) else { continue };
        // Only messages and custom messages take their edit (`getMessageFromEntry`).
        let edit = matches!(&*e.entry_type, "message" | "custom_message")
            .then(|| edits.get(&*e.id).filter(|_| !e.id.is_empty()))
            .flatten()
            .map(|&edit| (edit, session.entry(edit)));
        let item = match edit {
            // `projectContextEntry(entry, edit)[0]` is undefined: skipped.
            Some((_, ed)) if is_omission(ed) => continue,
            Some((edit, ed)) if is_replacement(ed) && takes_replacement(e) => Item::Replaced { node, edit },
            _ => Item::Entry(node),
        };
        let replaced = matches!(item, Item::Replaced { .. });
        let msg = if role == "assistant" || replaced { Some(agent_message(session, item, source)?) } else { None };
        if let Some(Value::Object(m)) = &msg {
            if role == "assistant" {
                match omp18 {
                    true => prep.file_ops.add_tool_calls_omp18(m),
                    false => prep.file_ops.add_tool_calls(m),
                }
            }
        }
        let tokens = match &msg {
            Some(Value::Object(m)) if replaced => estimate_message(m, rules),
            _ if role == "toolResult" && omp18 => truncated_result_tokens(session, node, source)?,
            _ => entry_estimate(e, rules),
        };
        if budget > 0 && prep.total_tokens + tokens > budget {
            // A summary is worth exceeding the budget while under 90% of it is used.
            let summary = matches!(&*e.entry_type, "compaction" | "branch_summary");
            if summary && (prep.total_tokens as f64) < budget as f64 * 0.9 {
                prep.selected.push(node);
                prep.items.push(item);
                prep.tokens.push(tokens);
                prep.total_tokens += tokens;
                prep.squeezed = Some(node);
            }
            prep.stopped_at = Some(node);
            break;
        }
        prep.selected.push(node);
        prep.items.push(item);
        prep.tokens.push(tokens);
        prep.total_tokens += tokens;
    }
    prep.selected.reverse();
    prep.items.reverse();
    prep.tokens.reverse();
    Ok(prep)
}

/// omp ≥ 18's `estimateBranchSummaryTokens` of a tool result: its text
/// blocks joined, cut to 2000 UTF-16 units like the summary input, counted
/// as one fragment (0 without text).
fn truncated_result_tokens(session: &Session, node: NodeId, source: &dyn Source) -> Result<u64, ReadBackError> {
    let msg = agent_message(session, Item::Entry(node), source)?;
    let text = crate::context::serialize::tool_result_summary_text(&msg);
    Ok(if text.is_empty() { 0 } else { crate::tokens::estimate::utf8_fragment_tokens(text.len() as u64) })
}

/// [`message_role`] under a rule set: omp ≥ 18 also summarizes tool results,
/// except those flagged useless (and not errors).
pub fn message_role_under(e: &Entry, rules: crate::RuleSet) -> Option<&str> {
    match e.message() {
        Some(m) if m.role == Role::ToolResult && rules.summarizes_branch_tool_results() => (!m.turn.useless).then_some("toolResult"),
        _ => message_role(e),
    }
}

/// The role of the message an entry contributes to a branch summary
/// (`getMessageFromEntry` of branch-summarization): tool results contribute
/// nothing (the assistant's tool call carries their context), compactions
/// contribute their summary, unknown types nothing.
pub fn message_role(e: &Entry) -> Option<&str> {
    match &*e.entry_type {
        "message" => e.message().filter(|m| m.role != Role::ToolResult).map(|m| m.role.as_str()),
        "custom_message" => Some("custom"),
        "branch_summary" => Some("branchSummary"),
        "compaction" => Some("compactionSummary"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Dialect;

    const USAGE: &str = r#""usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}"#;

    /// E11: `u1 a1 c1 u2 a2`, and `u3` a child of `a1`.
    fn e11(dialect: Dialect) -> (Vec<u8>, Session) {
        let s = "S".repeat(200);
        let lines = [
            r#"{"type":"session","version":3,"id":"sess-example","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/home/dev/proj"}"#.to_owned(),
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Start.","timestamp":1767225601000}}"#.to_owned(),
            format!(r#"{{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"Started."}}],"stopReason":"stop",{USAGE},"timestamp":1767225602000}}}}"#),
            format!(r#"{{"type":"compaction","id":"c1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","summary":"{s}","firstKeptEntryId":"a1","tokensBefore":900}}"#),
            format!(r#"{{"type":"message","id":"u2","parentId":"c1","timestamp":"2026-01-01T00:00:04.000Z","message":{{"role":"user","content":"{}","timestamp":1767225604000}}}}"#, "Q".repeat(40)),
            format!(r#"{{"type":"message","id":"a2","parentId":"u2","timestamp":"2026-01-01T00:00:05.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"{}"}}],"stopReason":"stop",{USAGE},"timestamp":1767225605000}}}}"#, "A".repeat(40)),
            r#"{"type":"message","id":"u3","parentId":"a1","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"user","content":"Other branch.","timestamp":1767225606000}}"#.to_owned(),
        ];
        let bytes = lines.join("\n").into_bytes();
        let session = Session::parse(&bytes, Some(crate::RuleSet::oldest(dialect)));
        (bytes, session)
    }

    fn ids(s: &Session, nodes: &[NodeId]) -> Vec<String> {
        nodes.iter().map(|&n| s.entry(n).id.to_string()).collect()
    }

    #[test]
    fn e11_common_ancestor_and_entries() {
        let (_, s) = e11(Dialect::Omp);
        let b = collect_entries_for_branch_summary(&s, s.node("a2"), s.node("u3").unwrap());
        assert_eq!(b.common_ancestor, s.node("a1"));
        assert_eq!(ids(&s, &b.entries), ["c1", "u2", "a2"]);
        // Target below the old leaf: nothing abandoned; above it: the entries below it.
        assert!(collect_entries_for_branch_summary(&s, s.node("u2"), s.node("a2").unwrap()).entries.is_empty());
        assert_eq!(ids(&s, &collect_entries_for_branch_summary(&s, s.node("a2"), s.node("u1").unwrap()).entries), ["a1", "c1", "u2", "a2"]);
        assert_eq!(
            collect_entries_for_branch_summary(&s, None, s.node("u1").unwrap()),
            BranchEntries { common_ancestor: None, entries: vec![] }
        );
    }

    #[test]
    fn e11_budgets_in_both_dialects() {
        for dialect in Dialect::ALL {
            let (bytes, s) = e11(dialect);
            let entries = collect_entries_for_branch_summary(&s, s.node("a2"), s.node("u3").unwrap()).entries;
            let prep = |budget| prepare_branch_entries(&s, &entries, budget, &bytes).unwrap();
            // Budget 25: u2 + a2 = 20 < 22.5, so the 50-token summary is squeezed in.
            let p = prep(25);
            assert_eq!((ids(&s, &p.selected), p.total_tokens, p.squeezed), (vec!["c1".into(), "u2".into(), "a2".into()], 70, s.node("c1")));
            // 22: 20 ≥ 19.8, refused.
            let p = prep(22);
            assert_eq!((ids(&s, &p.selected), p.total_tokens, p.stopped_at), (vec!["u2".into(), "a2".into()], 20, s.node("c1")));
            // 15: u2 does not fit and is no summary.
            assert_eq!(ids(&s, &prep(15).selected), ["a2"]);
            assert_eq!(prep(0).total_tokens, 70);
        }
    }

    #[test]
    fn e10_file_ops_and_dropped_tool_results() {
        let call = |id: &str, parent: &str, name: &str, path: &str| {
            format!(
                r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:06.000Z","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"x","name":"{name}","arguments":{{"path":"{path}"}}}}],"stopReason":"toolUse",{USAGE},"timestamp":1}}}}"#
            )
        };
        let result = |id: &str, parent: &str| {
            format!(
                r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:07.000Z","message":{{"role":"toolResult","toolCallId":"x","toolName":"read","content":[{{"type":"text","text":"export function lex() {{}}"}}],"isError":false,"timestamp":1}}}}"#
            )
        };
        let summary = |id: &str, parent: &str, flag: &str| {
            format!(
                r#"{{"type":"branch_summary","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:08.000Z","fromId":"u1","summary":"s","details":{{"readFiles":["{id}.md"],"modifiedFiles":[]}},"{flag}":true}}"#
            )
        };
        let lines = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#.to_owned(),
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Patch the parser.","timestamp":1}}"#.to_owned(),
            summary("bsx", "u1", "fromExtension"),
            summary("bsh", "bsx", "fromHook"),
            call("a2", "bsh", "read", "src/lexer.ts"),
            result("r2", "a2"),
            call("a3", "r2", "edit", "src/parser.ts"),
            result("r3", "a3"),
        ];
        let bytes = lines.join("\n").into_bytes();
        for (dialect, carried) in [(Dialect::Omp, "bsh.md"), (Dialect::Pi, "bsx.md")] {
            let s = Session::parse(&bytes, Some(crate::RuleSet::oldest(dialect)));
            let entries: Vec<NodeId> = (0..s.entries().len() as u32).map(NodeId).collect();
            let p = prepare_branch_entries(&s, &entries, 0, &bytes).unwrap();
            assert_eq!(ids(&s, &p.selected), ["u1", "bsx", "bsh", "a2", "a3"]);
            let lists = p.file_ops.lists();
            // Only the summary not marked by the dialect's own flag carries its details.
            assert_eq!(lists.read_files, [carried, "src/lexer.ts"]);
            assert_eq!(lists.modified_files, ["src/parser.ts"]);
        }
    }

    #[test]
    fn budget_from_window_and_reserve() {
        assert_eq!(token_budget(Some(200_000), DEFAULT_RESERVE_TOKENS), 183_616);
        assert_eq!(token_budget(None, DEFAULT_RESERVE_TOKENS), 111_616);
        assert_eq!(token_budget(Some(0), DEFAULT_RESERVE_TOKENS), 111_616);
        // A reserve above the window leaves no limit at all, as in the agents.
        assert_eq!(token_budget(Some(10_000), DEFAULT_RESERVE_TOKENS), 0);
    }
}
