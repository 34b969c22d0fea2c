//! omp 18's per-turn stale pass (`pruneSupersededToolResults`, omp-18.md
//! §6.2): unlike the overflow pass it needs the tool calls' arguments, which
//! the index does not keep, so it reads assistant messages back.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::stale_plan::{StaleCandidate, StaleConfig, StaleDecision, StalePlan, StaleReason};
use crate::compaction::file_ops::split_read_selector;
use crate::context::materialize::{agent_message, ReadBackError};
use crate::context::{Context, Item};
use crate::session::{MessageMeta, NodeId, Role, Session, Source};
use crate::RuleSet;

/// omp 18's `readToolSupersedeKey`: a `read` call's path with its selector
/// as `path\0selector`; `scheme://` paths and other tools have none.
pub fn read_supersede_key(tool_name: &str, args: &Value) -> Option<String> {
    if tool_name != "read" {
        return None;
    }
    let path = args.get("path").and_then(Value::as_str).filter(|p| !p.is_empty())?;
    if path.contains("://") {
        return None;
    }
    Some(match split_read_selector(path) {
        (base, None) => base.to_owned(),
        (base, Some(sel)) => format!("{base}\0{sel}"),
    })
}

/// A tool call as `collectToolCallsById` keeps it.
struct Call {
    name: Option<String>,
    args: Value,
}

/// omp 18's per-turn `pruneSupersededToolResults(getBranch(leaf), …)` as a
/// decision (omp-18.md §6.2). Reads the path's assistant messages back
/// (the calls' arguments are not in the index) and the last message's
/// timestamp. Under other rule sets the plan has no candidates.
pub fn plan_stale(session: &Session, ctx: &Context, config: &StaleConfig, source: &dyn Source) -> Result<StalePlan, ReadBackError> {
    plan_stale_in(session, ctx, config, source, false)
}

/// [`plan_stale`] restricted to the results the pass can prune now (at or after
/// the boundary and, with a warm cache, inside the suffix limit): the same
/// pruned results, fewer candidates listed, and only the calls of those
/// results read back (the automatic check runs it on every budget).
pub fn plan_stale_reachable(
    session: &Session,
    ctx: &Context,
    config: &StaleConfig,
    source: &dyn Source,
) -> Result<StalePlan, ReadBackError> {
    plan_stale_in(session, ctx, config, source, true)
}

fn plan_stale_in(
    session: &Session,
    ctx: &Context,
    config: &StaleConfig,
    source: &dyn Source,
    reachable_only: bool,
) -> Result<StalePlan, ReadBackError> {
    let rules = session.rules();
    let latest = ctx.path.iter().rev().map(|&n| session.entry(n)).find(|e| &*e.entry_type == "compaction");
    let keep_boundary_id = latest.and_then(|c| c.str_field("firstKeptEntryId")).map(str::to_owned);
    let mut plan = StalePlan {
        rules,
        config: config.clone(),
        leaf: ctx.leaf,
        path_len: ctx.path.len(),
        keep_boundary_id,
        last_message_ms: None,
        idle: false,
        candidates: Vec::new(),
    };
    if !rules.prunes_stale_results() {
        return Ok(plan);
    }
    // The last `message` entry's message timestamp (a number, else none).
    if let Some(&last) = ctx.path.iter().rev().find(|&&n| session.entry(n).message().is_some()) {
        plan.last_message_ms = agent_message(session, Item::Entry(last), source)?.get("timestamp").and_then(Value::as_f64);
    }
    plan.idle = plan.last_message_ms.is_some_and(|t| config.now_ms - t >= config.idle_flush_ms as f64);
    if !(config.supersede_reads || config.drop_useless) {
        return Ok(plan);
    }
    let boundary =
        plan.keep_boundary_id.as_deref().and_then(|id| ctx.path.iter().position(|&n| session.entry(n).id() == Some(id))).unwrap_or(0);
    // Tokens of the `message` entries after each path index.
    let mut suffix = vec![0u64; ctx.path.len()];
    let mut acc = 0;
    for (i, &n) in ctx.path.iter().enumerate().rev() {
        suffix[i] = acc;
        acc += session.entry(n).message().map_or(0, |m| m.estimate(rules));
    }
    // Earlier results never supersede later ones, so results before `start` change nothing
    // the pass prunes.
    let start = match reachable_only {
        false => 0,
        true if plan.idle => boundary,
        true => boundary.max(suffix.iter().position(|&t| t <= config.suffix_token_limit).unwrap_or(ctx.path.len())),
    };
    let results: Vec<ResultAt> = ctx
        .path
        .iter()
        .enumerate()
        .skip(start)
        .filter_map(|(i, &n)| session.entry(n).message().filter(|m| m.role == Role::ToolResult).map(|m| (i, n, m)))
        .collect();
    let calls = tool_calls_by_id(session, ctx, &results, source)?;
    let mut candidates = stale_candidates(ctx, config, rules, &results, &calls);
    if candidates.is_empty() {
        return Ok(plan);
    }
    for c in &mut candidates {
        c.suffix_tokens = suffix[c.path_index];
        c.decision = if c.path_index < boundary {
            StaleDecision::BeforeBoundary
        } else if !plan.idle && c.suffix_tokens > config.suffix_token_limit {
            StaleDecision::WarmCache
        } else {
            StaleDecision::Prune
        };
    }
    plan.candidates = candidates;
    Ok(plan)
}

/// A tool result on the path: its path index, entry and index record.
type ResultAt<'a> = (usize, NodeId, &'a MessageMeta);

/// `collectToolCallsById` (a later id wins): newest assistant first, read back only when
/// it holds a call one of these results answers.
fn tool_calls_by_id(
    session: &Session,
    ctx: &Context,
    results: &[ResultAt],
    source: &dyn Source,
) -> Result<HashMap<u64, Call>, ReadBackError> {
    let mut wanted: HashSet<u64> = results.iter().filter_map(|(_, _, m)| m.turn.tool_call_id).collect();
    let mut calls: HashMap<u64, Call> = HashMap::new();
    for &n in ctx.path.iter().rev() {
        if wanted.is_empty() {
            break;
        }
        if !session.entry(n).message().is_some_and(|m| m.role == Role::Assistant && m.turn.call_ids.iter().any(|id| wanted.contains(id))) {
            continue;
        }
        let msg = agent_message(session, Item::Entry(n), source)?;
        let mut found = Vec::new();
        for b in msg.get("content").and_then(Value::as_array).into_iter().flatten() {
            if b.get("type").and_then(Value::as_str) != Some("toolCall") {
                continue;
            }
            let h = crate::session::call_block_key(b);
            if wanted.contains(&h) {
                // The last block with this id in the message wins, as Map.set does.
                let name = b.get("name").and_then(Value::as_str).map(str::to_owned);
                calls.insert(h, Call { name, args: b.get("arguments").cloned().unwrap_or(Value::Null) });
                found.push(h);
            }
        }
        for h in found {
            wanted.remove(&h);
        }
    }
    Ok(calls)
}

/// `isProtectedToolResult` with the agent's matchers: `skill`, reads of `skill://` paths.
fn is_protected(tool_name: Option<&str>, call: Option<&Call>) -> bool {
    tool_name == Some("skill")
        || (tool_name == Some("read")
            && call.is_some_and(|c| {
                c.name.as_deref() == Some("read") && c.args.get("path").and_then(Value::as_str).is_some_and(|p| p.starts_with("skill://"))
            }))
}

/// The pass's candidates in path order, each still marked [`StaleDecision::Prune`]: the
/// superseded reads, then the useless results that are not among them.
fn stale_candidates(
    ctx: &Context,
    config: &StaleConfig,
    rules: RuleSet,
    results: &[ResultAt],
    calls: &HashMap<u64, Call>,
) -> Vec<StaleCandidate> {
    let visible: HashSet<NodeId> = ctx.items.iter().filter_map(|i| if let Item::Entry(n) = i { Some(*n) } else { None }).collect();
    let candidate = |i: usize, n: NodeId, m: &MessageMeta, reason, read_path| StaleCandidate {
        node: n,
        tool_name: m.tool_name.as_deref().map(str::to_owned),
        tokens: m.estimate(rules),
        reason,
        read_path,
        path_index: i,
        suffix_tokens: 0,
        in_context: visible.contains(&n),
        decision: StaleDecision::Prune,
    };
    // `collectSupersededResults`: newest first, a key seen later (or its bare path) supersedes.
    let mut superseded = Vec::new();
    if config.supersede_reads {
        let mut seen: HashSet<String> = HashSet::new();
        for &(i, n, m) in results.iter().rev() {
            if m.pruned {
                continue;
            }
            let Some(call) = m.turn.tool_call_id.and_then(|id| calls.get(&id)) else { continue };
            if is_protected(m.tool_name.as_deref(), Some(call)) {
                continue;
            }
            let Some(key) = call.name.as_deref().and_then(|name| read_supersede_key(name, &call.args)) else { continue };
            let stale = seen.contains(&key) || key.find('\0').is_some_and(|sep| seen.contains(&key[..sep]));
            if stale {
                let path = call.args.get("path").and_then(Value::as_str).map(str::to_owned);
                superseded.push(candidate(i, n, m, StaleReason::Superseded, path));
            }
            seen.insert(key);
        }
        superseded.reverse();
    }
    let mut candidates = superseded;
    // `collectUselessResults`: in order, not already a superseded candidate.
    if config.drop_useless {
        let taken: HashSet<NodeId> = candidates.iter().map(|c| c.node).collect();
        for &(i, n, m) in results {
            if !m.turn.useless || m.pruned || taken.contains(&n) {
                continue;
            }
            let call = m.turn.tool_call_id.and_then(|id| calls.get(&id));
            if is_protected(m.tool_name.as_deref(), call) {
                continue;
            }
            let c = candidate(i, n, m, StaleReason::Useless, None);
            if c.saving() > 0 {
                candidates.push(c);
            }
        }
        candidates.sort_by_key(|c| c.path_index);
    }
    candidates
}
