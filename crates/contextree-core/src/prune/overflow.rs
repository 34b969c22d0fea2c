//! omp's `pruneToolOutputs` scan (pruning.md §3), the pass on the agent's
//! threshold and overflow paths: newest first, protecting a window of recent
//! output, with omp 18's guards. Runs from the index alone, so it stays cheap
//! on huge files.

use std::collections::{HashMap, HashSet};

use super::config::{PruneConfig, MIN_PRUNE_TOKENS, SKILL_READ_MATCHER};
use super::plan::{Decision, PrunePlan, ToolResult};
use crate::context::{self, Context, Item, Leaf};
use crate::session::{NodeId, Role, Session};

/// `pruneToolOutputs(getBranch(leaf), config)` as a decision (pruning.md §3).
///
/// Needs no message text: the index keeps each tool result's estimate, tool
/// name and whether it was pruned, so this stays cheap on huge files.
pub fn plan_prune(session: &Session, leaf: Leaf, config: &PruneConfig) -> PrunePlan {
    plan_prune_in(session, &context::build(session, leaf), config)
}

/// [`plan_prune`] over a context the caller already built for `session`
/// (the budget check has one; building it again costs a path walk per call).
///
/// Under `omp@18` the seed's default configuration stands for the agent's own
/// ([`PruneConfig::agent`]).
pub fn plan_prune_in(session: &Session, ctx: &Context, config: &PruneConfig) -> PrunePlan {
    plan_prune_after(session, ctx, config, &HashMap::new())
}

/// [`plan_prune_in`] after an earlier pass of the same turn (omp 18's stale
/// pass, [`plan_stale`](super::plan_stale)) rewrote the results in `before` to notices of the
/// given token counts: they count as already pruned, with those counts (in
/// the accumulator and in the later messages of the cache-warm guard).
pub fn plan_prune_after(session: &Session, ctx: &Context, config: &PruneConfig, before: &HashMap<NodeId, u64>) -> PrunePlan {
    let rules = session.rules();
    let config = if *config == PruneConfig::default() { PruneConfig::agent(rules) } else { config.clone() };
    let visible: HashSet<NodeId> = ctx.items.iter().filter_map(|i| if let Item::Entry(n) = i { Some(*n) } else { None }).collect();
    // Tokens of the `message` entries after each path index (omp 18's cache guard).
    let mut suffix = vec![0u64; ctx.path.len()];
    let mut acc = 0;
    for (i, &n) in ctx.path.iter().enumerate().rev() {
        suffix[i] = acc;
        acc += session.entry(n).message().map_or(0, |m| before.get(&n).copied().unwrap_or_else(|| m.estimate(rules)));
    }
    // `keepBoundaryId`: the latest compaction's first kept entry, its path index (0 when absent).
    let latest = ctx.path.iter().rev().map(|&n| session.entry(n)).find(|e| &*e.entry_type == "compaction");
    let keep_boundary_id = latest.and_then(|c| c.str_field("firstKeptEntryId")).map(str::to_owned).filter(|_| config.omp18_guards);
    let boundary = keep_boundary_id.as_deref().and_then(|id| ctx.path.iter().position(|&n| session.entry(n).id() == Some(id))).unwrap_or(0);
    let skill_reads = skill_read_calls(session, &ctx.path, &config);
    let mut results: Vec<ToolResult> = ctx
        .path
        .iter()
        .enumerate()
        .filter_map(|(path_index, &node)| {
            let m = session.entry(node).message().filter(|m| m.role == Role::ToolResult)?;
            let (tool_name, pruned) = (m.tool_name.as_deref().map(str::to_owned), m.pruned || before.contains_key(&node));
            // The rule is omp's in both dialects (D20); tool results estimate alike.
            let tokens = before.get(&node).copied().unwrap_or_else(|| m.estimate(rules));
            let decision = if pruned { Decision::AlreadyPruned } else { Decision::Candidate };
            let useless = config.prune_useless && m.turn.useless;
            Some(ToolResult {
                node,
                tool_name,
                tokens,
                newer_tokens: 0,
                decision,
                in_context: visible.contains(&node),
                useless,
                suffix_tokens: suffix[path_index],
                path_index,
            })
        })
        .collect();
    // `isSkillReadToolResult`: a `read` result whose call reads a `skill://` path.
    decide(&mut results, &config, boundary, &|r: &ToolResult| {
        let m = session.entry(r.node).message();
        r.tool_name.as_deref() == Some("read") && m.and_then(|m| m.turn.tool_call_id).is_some_and(|id| skill_reads.contains(&id))
    });
    let candidate_saving = results.iter().filter(|r| r.decision == Decision::Candidate).map(ToolResult::saving).sum();
    PrunePlan {
        dialect: session.dialect(),
        config,
        rules,
        keep_boundary_id,
        leaf: ctx.leaf,
        path_len: ctx.path.len(),
        tool_results: results,
        candidate_saving,
    }
}

/// The ids of the `read` tool calls on the path whose path starts with
/// `skill://` (omp 18's `isSkillReadToolResult`), when the configuration
/// protects them. From the index: assistants whose calls include one are
/// marked there.
fn skill_read_calls(session: &Session, path: &[NodeId], config: &PruneConfig) -> HashSet<u64> {
    if !config.protected_tools.iter().any(|t| t == SKILL_READ_MATCHER) {
        return HashSet::new();
    }
    let mut out = HashSet::new();
    for &n in path {
        let Some(m) = session.entry(n).message().filter(|m| m.role == Role::Assistant) else { continue };
        for (k, id) in m.turn.call_ids.iter().enumerate() {
            if k < 64 && m.turn.skill_reads & (1 << k) != 0 {
                out.insert(*id);
            }
        }
    }
    out
}

/// The newest-first scan. Every result adds to the accumulator, whatever its
/// decision, so protected and already-pruned outputs use up the window; the
/// test uses the value *before* adding (the result that crosses the limit is
/// still protected).
///
/// omp ≥ 18 (`omp18_guards`): results in the warm cache or before the
/// boundary are skipped first; useless results are candidates at any age;
/// results under `MIN_PRUNE_TOKENS` are not pruned by age.
fn decide(results: &mut [ToolResult], config: &PruneConfig, boundary: usize, skill_read: &dyn Fn(&ToolResult) -> bool) {
    let mut acc = 0u64;
    for r in results.iter_mut().rev() {
        r.newer_tokens = acc;
        if r.decision != Decision::AlreadyPruned {
            let protected_tool = r.tool_name.as_ref().is_some_and(|t| config.protected_tools.contains(t)) || skill_read(r);
            let warm = config.cache_warm_suffix_tokens.is_some_and(|limit| r.suffix_tokens > limit);
            // `collectUselessResults`: not protected, and the notice saves something.
            r.useless = r.useless && !protected_tool && r.saving() > 0;
            r.decision = if config.omp18_guards && warm {
                Decision::WarmCache
            } else if config.omp18_guards && r.path_index < boundary {
                Decision::BeforeBoundary
            } else if r.useless {
                Decision::Candidate
            } else if acc < config.protect_tokens {
                Decision::Recent
            } else if protected_tool {
                Decision::ProtectedTool
            } else if config.omp18_guards && r.tokens < MIN_PRUNE_TOKENS {
                Decision::TooSmall
            } else {
                Decision::Candidate
            };
            if r.decision != Decision::Candidate {
                r.useless = false;
            }
        }
        acc += r.tokens;
    }
}
