//! Tool-output pruning (pruning.md): which old tool results oh-my-pi 13.19's
//! `pruneToolOutputs` would replace by a short notice, and the line omp writes
//! for a pruned entry. Under `omp@18` the same scan runs with 18's additions
//! (omp-18.md §6.1): useless results first, `keepBoundaryId`, the cache-warm
//! guard, `MIN_PRUNE_TOKENS` and skill-read protection.
//!
//! Only the decision and the rewritten line live here; applying a plan (the
//! whole-file rewrite of docs/decisions.md D15) is the caller's job. pi never
//! prunes: for pi files the same omp rule is offered as an explorer feature
//! (docs/decisions.md D20) and the plan says so.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::compaction::file_ops::split_read_selector;
use crate::context::materialize::{agent_message, ReadBackError};
use crate::context::{self, Context, Item, Leaf};
use crate::js;
use crate::session::Source;
use crate::session::{NodeId, Role, Session};
use crate::tokens::estimate::utf8_fragment_tokens;
use crate::{Dialect, RuleSet};

/// omp's `DEFAULT_PRUNE_CONFIG` (hard-coded; no setting exposes it), and
/// what omp 18 adds to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PruneConfig {
    /// Newest tool-output tokens that are never pruned.
    pub protect_tokens: u64,
    /// Prune only when the estimated saving reaches this.
    pub minimum_savings: u64,
    /// Tool names whose results are never pruned (exact, case-sensitive);
    /// [`SKILL_READ_MATCHER`] stands for omp 18's `isSkillReadToolResult`.
    pub protected_tools: Vec<String>,
    /// omp ≥ 18: results flagged `useless` are pruned at any age (`pruneUseless`).
    pub prune_useless: bool,
    /// omp ≥ 18: results whose later messages exceed this many tokens sit in
    /// the warm provider cache and are not touched (`cacheWarmSuffixTokens`;
    /// None: no guard).
    pub cache_warm_suffix_tokens: Option<u64>,
    /// omp ≥ 18: results before the latest compaction's first kept entry are
    /// not touched (`keepBoundaryId`), and smaller results than
    /// `MIN_PRUNE_TOKENS` (50) are not pruned by age.
    pub omp18_guards: bool,
}

/// The name omp 18's protected-tool matcher `isSkillReadToolResult` goes by
/// in [`PruneConfig::protected_tools`]: a `read` of a `skill://` path.
pub const SKILL_READ_MATCHER: &str = "isSkillReadToolResult";

/// omp 18's `PRUNE_CACHE_WARM_SUFFIX_TOKENS` (0 for models whose thinking
/// is prefix-bound).
pub const CACHE_WARM_SUFFIX_TOKENS: u64 = 8_000;

/// omp 18's `MIN_PRUNE_TOKENS`.
const MIN_PRUNE_TOKENS: u64 = 50;

/// omp 18's notice for a useless result.
pub const USELESS_NOTICE: &str = "[Uneventful result elided]";

impl Default for PruneConfig {
    fn default() -> Self {
        PruneConfig {
            protect_tokens: 40_000,
            minimum_savings: 20_000,
            protected_tools: vec!["skill".into(), "read".into()],
            prune_useless: false,
            cache_warm_suffix_tokens: None,
            omp18_guards: false,
        }
    }
}

impl PruneConfig {
    /// The configuration the agent of `rules` prunes with on its threshold
    /// path: omp 13's `DEFAULT_PRUNE_CONFIG`, or omp 18's with `pruneUseless`
    /// (`compaction.dropUseless`, default on), `keepBoundaryId` and the
    /// 8000-token cache-warm guard (omp-18.md §6.1; the active plan file's
    /// protection depends on the session's state, not on the file).
    pub fn agent(rules: RuleSet) -> PruneConfig {
        if !rules.prunes_with_cache_guard() {
            return PruneConfig::default();
        }
        PruneConfig {
            protected_tools: vec!["skill".into(), SKILL_READ_MATCHER.into()],
            prune_useless: true,
            cache_warm_suffix_tokens: Some(CACHE_WARM_SUFFIX_TOKENS),
            omp18_guards: true,
            ..PruneConfig::default()
        }
    }

    /// Whether this is the configuration omp itself uses (pruning.md §2: any
    /// other value must be labelled "not what omp does").
    pub fn is_agent_default(&self) -> bool {
        *self == PruneConfig::default() || *self == PruneConfig::agent(RuleSet::Omp18) || *self == PruneConfig::agent_prefix_bound()
    }

    /// omp 18's configuration for a model whose thinking is prefix-bound
    /// (cache-warm guard 0).
    pub fn agent_prefix_bound() -> PruneConfig {
        PruneConfig { cache_warm_suffix_tokens: Some(0), ..PruneConfig::agent(RuleSet::Omp18) }
    }
}

/// `createPrunedNotice`: the text a pruned result's content becomes.
pub fn notice(tokens: u64) -> String {
    format!("[Output truncated - {tokens} tokens]")
}

/// `estimatePrunedSavings`: the result's tokens minus the notice's own
/// estimate (the notice is ASCII, so bytes = UTF-16 units).
pub fn saving(tokens: u64) -> u64 {
    tokens.saturating_sub((notice(tokens).len() as u64).div_ceil(4))
}

/// What the scan decided for one tool result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Inside the protected window: fewer than `protect_tokens` newer tokens.
    Recent,
    /// Its tool is in `protected_tools`.
    ProtectedTool,
    /// Already pruned (`prunedAt` set): counted, never pruned again.
    AlreadyPruned,
    /// Would be pruned if the total saving reaches the minimum.
    Candidate,
    /// omp ≥ 18: its later messages exceed the cache-warm limit.
    WarmCache,
    /// omp ≥ 18: before the latest compaction's first kept entry.
    BeforeBoundary,
    /// omp ≥ 18: smaller than `MIN_PRUNE_TOKENS`.
    TooSmall,
}

/// One tool result on the leaf's path, with the numbers behind its decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The entry.
    pub node: NodeId,
    /// `toolName` (None when missing or not a string).
    pub tool_name: Option<String>,
    /// omp's `estimateTokens` of the message as stored.
    pub tokens: u64,
    /// Tool-output tokens newer than this one (the accumulator before it).
    pub newer_tokens: u64,
    /// The decision.
    pub decision: Decision,
    /// Whether the LLM sees it: results hidden behind a compaction are pruned
    /// too (they are on the path), which rewrites their lines but changes no
    /// context.
    pub in_context: bool,
    /// omp ≥ 18: flagged `useless` (and pruned with [`USELESS_NOTICE`]).
    pub useless: bool,
    /// omp ≥ 18: tokens of the `message` entries after it on the path.
    pub suffix_tokens: u64,
    /// Its path index.
    pub path_index: usize,
}

impl ToolResult {
    /// The notice it is pruned to.
    pub fn notice(&self) -> String {
        if self.useless {
            USELESS_NOTICE.to_owned()
        } else {
            notice(self.tokens)
        }
    }

    /// `estimatePrunedSavings` with its notice.
    pub fn saving(&self) -> u64 {
        self.tokens.saturating_sub((self.notice().len() as u64).div_ceil(4))
    }
}

/// The outcome of `pruneToolOutputs` for a leaf, without applying it.
#[derive(Debug, Clone, PartialEq)]
pub struct PrunePlan {
    /// Dialect of the session (the rule is omp's in both).
    pub dialect: Dialect,
    /// The configuration used.
    pub config: PruneConfig,
    /// The rule set whose scan ran.
    pub rules: RuleSet,
    /// omp ≥ 18: the latest compaction's `firstKeptEntryId` (`keepBoundaryId`).
    pub keep_boundary_id: Option<String>,
    /// The leaf whose path was scanned (None: empty session).
    pub leaf: Option<NodeId>,
    /// Entries on the path, root to leaf, including those behind compactions.
    pub path_len: usize,
    /// Every tool result on the path, in path order.
    pub tool_results: Vec<ToolResult>,
    /// Estimated saving of all candidates, before the minimum-saving gate.
    pub candidate_saving: u64,
}

impl PrunePlan {
    /// Candidates in path order, whether or not the gate lets them through.
    pub fn candidates(&self) -> impl Iterator<Item = &ToolResult> {
        self.tool_results.iter().filter(|r| r.decision == Decision::Candidate)
    }

    /// Whether omp would prune: some candidate and a saving at the minimum.
    pub fn applies(&self) -> bool {
        self.candidates().next().is_some() && self.candidate_saving >= self.config.minimum_savings
    }

    /// The results omp would prune, in path order (all candidates or none).
    pub fn pruned(&self) -> Vec<&ToolResult> {
        if self.applies() {
            self.candidates().collect()
        } else {
            Vec::new()
        }
    }

    /// `prunedCount` of omp's result.
    pub fn pruned_count(&self) -> usize {
        self.pruned().len()
    }

    /// `tokensSaved` of omp's result (0 when nothing is pruned).
    pub fn tokens_saved(&self) -> u64 {
        if self.applies() {
            self.candidate_saving
        } else {
            0
        }
    }

    /// Results that were pruned before (`prunedAt` set), in path order.
    pub fn already_pruned(&self) -> impl Iterator<Item = &ToolResult> {
        self.tool_results.iter().filter(|r| r.decision == Decision::AlreadyPruned)
    }

    /// When nothing is pruned and a minimum saving is set: what the scan would
    /// prune without that gate, as `(prunedCount, tokensSaved)` — the oracle's
    /// `belowMinimumSavings.result`. The candidates are [`Self::candidates`].
    pub fn below_minimum_savings(&self) -> Option<(usize, u64)> {
        if self.applies() || self.config.minimum_savings == 0 {
            return None;
        }
        let n = self.candidates().count();
        Some(if n == 0 { (0, 0) } else { (n, self.candidate_saving) })
    }

    /// Whether the dialect's agent prunes by itself (pi never does, D20).
    pub fn agent_prunes(&self) -> bool {
        match self.dialect {
            Dialect::Omp => true,
            Dialect::Pi => false,
        }
    }

    /// What the user must be told about this plan (D20, pruning.md §2).
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if !self.agent_prunes() {
            notes.push(
                "pi never prunes tool outputs by itself; this is oh-my-pi 13.19's rule, offered for pi files by contextree.".to_owned(),
            );
        }
        let prefix_bound = self.rules.prunes_with_cache_guard() && self.config == PruneConfig::agent_prefix_bound();
        if self.config != PruneConfig::agent(self.rules) && !prefix_bound {
            notes.push(match self.rules.prunes_with_cache_guard() {
                true => "non-default pruning configuration: not what oh-my-pi 18 does on its threshold path (protect 40000, minimum saving 20000, skill and skill:// reads protected, useless results first, cache-warm guard 8000 tokens).".to_owned(),
                false => "non-default pruning configuration: not what omp does (omp always uses protect 40000, minimum saving 20000, protected tools skill, read).".to_owned(),
            });
        }
        notes
    }
}

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
/// pass, [`plan_stale`]) rewrote the results in `before` to notices of the
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

/// omp 18's notice for a read superseded by a newer read of the same file.
pub const SUPERSEDED_NOTICE: &str = "[Superseded by a newer read of this file]";

/// omp 18's `PRUNE_IDLE_FLUSH_MS`: after this long without a message the
/// provider cache is cold and the stale pass drops its suffix limit.
pub const STALE_IDLE_FLUSH_MS: u64 = 90 * 60_000;

/// `pruneSupersededToolResults`' `DEFAULT_SUFFIX_TOKEN_LIMIT` (the agent
/// passes 0 for models whose thinking is prefix-bound).
pub const STALE_SUFFIX_TOKEN_LIMIT: u64 = 8_000;

/// What omp 18's per-turn stale pass is called with (omp-18.md §6.2,
/// `SessionMaintenance.#pruneStaleToolResults`).
#[derive(Debug, Clone, PartialEq)]
pub struct StaleConfig {
    /// `compaction.supersedeReads` (default on): older reads of a file are stale.
    pub supersede_reads: bool,
    /// `compaction.dropUseless` (default on): results their tool flagged useless.
    pub drop_useless: bool,
    /// A candidate is pruned while the cache is warm only when the messages
    /// after it total at most this many tokens (8000; 0 for prefix-bound models).
    pub suffix_token_limit: u64,
    /// The idle time after which every candidate at or after the boundary goes.
    pub idle_flush_ms: u64,
    /// The current time (ms since the epoch): `Date.now()` of the agent's turn.
    pub now_ms: f64,
}

impl StaleConfig {
    /// The agent's call: both settings on (their defaults), 8000 tokens (0 when
    /// the model's thinking is prefix-bound), 90 minutes.
    pub fn agent(prefix_bound: bool, now_ms: f64) -> StaleConfig {
        StaleConfig {
            supersede_reads: true,
            drop_useless: true,
            suffix_token_limit: if prefix_bound { 0 } else { STALE_SUFFIX_TOKEN_LIMIT },
            idle_flush_ms: STALE_IDLE_FLUSH_MS,
            now_ms,
        }
    }
}

/// Why a result is a stale-pass candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaleReason {
    /// A later `read` of the same file (same key, or the bare path of a selector read).
    Superseded,
    /// Flagged `useless` by its tool.
    Useless,
}

impl StaleReason {
    /// The name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            StaleReason::Superseded => "superseded",
            StaleReason::Useless => "useless",
        }
    }
}

/// What the stale pass does with a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaleDecision {
    /// Pruned now.
    Prune,
    /// Before the latest compaction's first kept entry: summarized away, left alone.
    BeforeBoundary,
    /// The messages after it exceed the suffix limit and the cache is warm.
    WarmCache,
}

impl StaleDecision {
    /// The name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            StaleDecision::Prune => "prune",
            StaleDecision::BeforeBoundary => "beforeBoundary",
            StaleDecision::WarmCache => "warmCache",
        }
    }
}

/// One candidate of the stale pass.
#[derive(Debug, Clone, PartialEq)]
pub struct StaleCandidate {
    /// The tool-result entry.
    pub node: NodeId,
    /// Its `toolName`.
    pub tool_name: Option<String>,
    /// omp's count of the message as stored.
    pub tokens: u64,
    /// Why it is stale.
    pub reason: StaleReason,
    /// A superseded read: the `path` argument of its call.
    pub read_path: Option<String>,
    /// Its path index.
    pub path_index: usize,
    /// Tokens of the `message` entries after it on the path.
    pub suffix_tokens: u64,
    /// Whether the LLM sees it (results behind a compaction are on the path too).
    pub in_context: bool,
    /// What the pass does with it.
    pub decision: StaleDecision,
}

impl StaleCandidate {
    /// The notice it is pruned to.
    pub fn notice(&self) -> &'static str {
        match self.reason {
            StaleReason::Superseded => SUPERSEDED_NOTICE,
            StaleReason::Useless => USELESS_NOTICE,
        }
    }

    /// `estimatePrunedSavings` with its notice.
    pub fn saving(&self) -> u64 {
        self.tokens.saturating_sub((self.notice().len() as u64).div_ceil(4))
    }

    /// omp 18's count of the pruned message (one text block with the notice).
    pub fn tokens_after(&self) -> u64 {
        utf8_fragment_tokens(self.notice().len() as u64)
    }
}

/// The outcome of omp 18's `pruneSupersededToolResults` for a leaf, without
/// applying it (no minimum saving: every candidate the gates let through goes).
#[derive(Debug, Clone, PartialEq)]
pub struct StalePlan {
    /// The rule set (the pass is omp 18's; other rule sets plan nothing).
    pub rules: RuleSet,
    /// The configuration used.
    pub config: StaleConfig,
    /// The leaf whose path was scanned.
    pub leaf: Option<NodeId>,
    /// Entries on the path.
    pub path_len: usize,
    /// The latest compaction's `firstKeptEntryId`.
    pub keep_boundary_id: Option<String>,
    /// `timestamp` of the last `message` entry's message (None: not a number).
    pub last_message_ms: Option<f64>,
    /// The last message is at least `idle_flush_ms` old: the suffix limit is dropped.
    pub idle: bool,
    /// Every candidate, in path order.
    pub candidates: Vec<StaleCandidate>,
}

impl StalePlan {
    /// The results the pass prunes, in path order.
    pub fn pruned(&self) -> Vec<&StaleCandidate> {
        self.candidates.iter().filter(|c| c.decision == StaleDecision::Prune).collect()
    }

    /// `prunedCount` of omp's result.
    pub fn pruned_count(&self) -> usize {
        self.pruned().len()
    }

    /// `tokensSaved` of omp's result.
    pub fn tokens_saved(&self) -> u64 {
        self.pruned().iter().map(|c| c.saving()).sum()
    }

    /// The pruned results with their token counts after the pass (what the
    /// overflow pass of the same turn sees, [`plan_prune_after`]).
    pub fn after(&self) -> HashMap<NodeId, u64> {
        self.pruned().iter().map(|c| (c.node, c.tokens_after())).collect()
    }

    /// What the file cannot tell about this pass.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.config != StaleConfig::agent(self.config.suffix_token_limit == 0, self.config.now_ms) {
            notes.push("non-default stale-pass configuration (omp 18: supersedeReads and dropUseless on, suffix limit 8000 or 0 for prefix-bound models, idle flush 90 minutes)".to_owned());
        }
        notes.push("the agent also protects reads of the active plan file, which the session file does not name".to_owned());
        notes
    }
}

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
    let results: Vec<(usize, NodeId, &crate::session::MessageMeta)> = ctx
        .path
        .iter()
        .enumerate()
        .skip(start)
        .filter_map(|(i, &n)| session.entry(n).message().filter(|m| m.role == Role::ToolResult).map(|m| (i, n, m)))
        .collect();
    // `collectToolCallsById` (a later id wins): newest assistant first, read back only when
    // it holds a call one of these results answers.
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
            let Some(id) = b.get("id").and_then(Value::as_str) else { continue };
            let h = crate::session::call_id_hash(id);
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
    // `isProtectedToolResult` with the agent's matchers: `skill`, reads of `skill://` paths.
    let protected = |tool_name: Option<&str>, call: Option<&Call>| {
        tool_name == Some("skill")
            || (tool_name == Some("read")
                && call.is_some_and(|c| {
                    c.name.as_deref() == Some("read")
                        && c.args.get("path").and_then(Value::as_str).is_some_and(|p| p.starts_with("skill://"))
                }))
    };
    let visible: HashSet<NodeId> = ctx.items.iter().filter_map(|i| if let Item::Entry(n) = i { Some(*n) } else { None }).collect();
    let candidate = |i: usize, n: NodeId, m: &crate::session::MessageMeta, reason, read_path| StaleCandidate {
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
            if protected(m.tool_name.as_deref(), Some(call)) {
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
        for &(i, n, m) in &results {
            if !m.turn.useless || m.pruned || taken.contains(&n) {
                continue;
            }
            let call = m.turn.tool_call_id.and_then(|id| calls.get(&id));
            if protected(m.tool_name.as_deref(), call) {
                continue;
            }
            let c = candidate(i, n, m, StaleReason::Useless, None);
            if c.saving() > 0 {
                candidates.push(c);
            }
        }
        candidates.sort_by_key(|c| c.path_index);
    }
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

/// A pruned line could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum PrunedLineError {
    /// The line is not JSON that JavaScript and serde_json read alike.
    #[error("the entry is not valid JSON: {0}")]
    Json(String),
    /// The entry has no `message` object to prune.
    #[error("the entry has no message object")]
    NoMessage,
}

/// The line omp 13.19 writes for a tool-result entry it pruned: the entry
/// parsed, its message's `content` replaced by one text block with the notice,
/// `prunedAt` set (a new key, so last in the message), then the persistence
/// transform of every omp rewrite ([`persist_transform`]) and `JSON.stringify`
/// (JS key order: integer-like keys first; numbers and escapes normalised).
/// Without the trailing newline.
pub fn pruned_line(original_line: &str, notice: &str, pruned_at_ms: u64) -> Result<String, PrunedLineError> {
    let mut entry: Value = serde_json::from_str(original_line).map_err(|e| PrunedLineError::Json(e.to_string()))?;
    let msg = entry.get_mut("message").and_then(Value::as_object_mut).ok_or(PrunedLineError::NoMessage)?;
    let mut block = Map::new();
    block.insert("type".into(), "text".into());
    block.insert("text".into(), notice.into());
    // Assigning to existing keys keeps their position, as JS property assignment does.
    msg.insert("content".into(), Value::Array(vec![Value::Object(block)]));
    msg.insert("prunedAt".into(), pruned_at_ms.into());
    persist_transform(&mut entry, None);
    Ok(js::stringify(&entry))
}

/// Strings longer than this many UTF-16 units are cut when omp persists.
const MAX_PERSIST_CHARS: usize = 500_000;
/// Appended to a cut string.
const TRUNCATION_NOTICE: &str = "\n\n[Session persistence truncated large content]";
/// Keys whose oversized values are cleared rather than cut (a cut signature is invalid).
const SIGNATURE_KEYS: [&str; 3] = ["thinkingSignature", "thoughtSignature", "textSignature"];

/// The pure part of omp's `truncateForPersistence` (session-format.md §9.2),
/// applied to every entry of a rewrite; returns whether anything changed.
///
/// Not done here: moving inline images (base64 ≥ 1024 chars under a `content`
/// array, `image_url` data URLs) to the blob store, which needs IO; such
/// values are left inline.
pub fn persist_transform(v: &mut Value, key: Option<&str>) -> bool {
    match v {
        Value::String(s) if js::utf16_len(s) > MAX_PERSIST_CHARS => {
            *s = if key.is_some_and(|k| SIGNATURE_KEYS.contains(&k)) { String::new() } else { cut_for_persistence(s) };
            true
        }
        // Items inherit the array's key, as in omp.
        Value::Array(items) => items.iter_mut().fold(false, |changed, item| persist_transform(item, key) | changed),
        Value::Object(map) => persist_object(map),
        _ => false,
    }
}

fn persist_object(map: &mut Map<String, Value>) -> bool {
    // Streaming leftovers omp never persists.
    let mut changed = map.shift_remove("partialJson").is_some() | map.shift_remove("jsonlEvents").is_some();
    for (k, child) in map.iter_mut() {
        changed |= persist_transform(child, Some(k));
    }
    if changed {
        if let (Some(Value::String(content)), Some(Value::Number(_))) = (map.get("content"), map.get("lineCount")) {
            let lines = content.split('\n').count();
            map.insert("lineCount".into(), lines.into());
        }
    }
    changed
}

/// `truncateString(s, 500000 - notice) + notice`: whole UTF-16 units, never
/// ending on half a surrogate pair (omp drops a trailing high surrogate).
fn cut_for_persistence(s: &str) -> String {
    let limit = MAX_PERSIST_CHARS - js::utf16_len(TRUNCATION_NOTICE);
    let mut units = 0;
    let mut end = 0;
    for (i, c) in s.char_indices() {
        if units + c.len_utf16() > limit {
            break;
        }
        units += c.len_utf16();
        end = i + c.len_utf8();
    }
    format!("{}{TRUNCATION_NOTICE}", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

    fn tool_result(id: &str, parent: &str, tool: &str, chars: usize, pruned: bool) -> String {
        let pruned_at = if pruned { r#","prunedAt":1"# } else { "" };
        format!(
            r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"toolResult","toolCallId":"c","toolName":"{tool}","content":[{{"type":"text","text":"{}"}}],"isError":false,"timestamp":1{pruned_at}}}}}"#,
            "x".repeat(chars)
        )
    }

    fn session(results: &[(&str, &str, usize, bool)]) -> Session {
        let mut lines = vec![HEADER.to_owned(), r#"{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"go","timestamp":1}}"#.to_owned()];
        let mut parent = "u".to_owned();
        for (id, tool, chars, pruned) in results {
            lines.push(tool_result(id, &parent, tool, *chars, *pruned));
            parent = (*id).to_owned();
        }
        Session::parse(lines.join("\n").as_bytes(), Some(crate::RuleSet::Omp13))
    }

    fn ids(s: &Session, rs: &[&ToolResult]) -> Vec<String> {
        rs.iter().map(|r| s.entry(r.node).id.to_string()).collect()
    }

    #[test]
    fn e13_scaled_configuration() {
        // E13: r1 bash 30, r2 read 30, r3 bash 20, r4 bash 10 (newest last).
        let s = session(&[("r1", "bash", 120, false), ("r2", "read", 120, false), ("r3", "bash", 80, false), ("r4", "bash", 40, false)]);
        let config = PruneConfig { protect_tokens: 30, minimum_savings: 10, ..PruneConfig::default() };
        let plan = plan_prune(&s, Leaf::Last, &config);
        let decisions: Vec<Decision> = plan.tool_results.iter().map(|r| r.decision).collect();
        assert_eq!(decisions, [Decision::Candidate, Decision::ProtectedTool, Decision::Recent, Decision::Recent]);
        assert_eq!(plan.tool_results[0].newer_tokens, 60);
        assert_eq!(ids(&s, &plan.pruned()), ["r1"]);
        assert_eq!((plan.pruned_count(), plan.tokens_saved()), (1, 22));
        assert!(!plan.config.is_agent_default());
        // E13-nosave: a minimum of 25 stops it.
        let nosave = plan_prune(&s, Leaf::Last, &PruneConfig { minimum_savings: 25, ..config });
        assert_eq!((nosave.pruned_count(), nosave.tokens_saved()), (0, 0));
        assert_eq!(nosave.below_minimum_savings(), Some((1, 22)));
    }

    #[test]
    fn e13b_default_configuration() {
        // pruning.md §5: four 25,000-token results, r2 a read.
        let s = session(&[
            ("r1", "bash", 100_000, false),
            ("r2", "read", 100_000, false),
            ("r3", "bash", 100_000, false),
            ("r4", "bash", 100_000, false),
        ]);
        let plan = plan_prune(&s, Leaf::Last, &PruneConfig::default());
        assert_eq!(ids(&s, &plan.pruned()), ["r1"]);
        assert_eq!(plan.tokens_saved(), 24_991);
        assert_eq!(notice(25_000), "[Output truncated - 25000 tokens]");
        assert!(plan.notes().is_empty());
        // 15,000 tokens would save 14,991 < 20,000: nothing changes.
        let small = session(&[
            ("r1", "bash", 60_000, false),
            ("r2", "read", 100_000, false),
            ("r3", "bash", 100_000, false),
            ("r4", "bash", 100_000, false),
        ]);
        let plan = plan_prune(&small, Leaf::Last, &PruneConfig::default());
        assert_eq!((plan.pruned_count(), plan.below_minimum_savings()), (0, Some((1, 14_991))));
    }

    #[test]
    fn the_result_that_crosses_the_window_is_still_protected() {
        // Three 10-token results: with a window of 15 the middle one crosses it
        // (10 < 15 before adding) and stays; with 10 it starts at the limit.
        let s = session(&[("r1", "bash", 40, false), ("r2", "bash", 40, false), ("r3", "bash", 40, false)]);
        let pruned = |protect| {
            let plan = plan_prune(&s, Leaf::Last, &PruneConfig { protect_tokens: protect, minimum_savings: 0, ..PruneConfig::default() });
            ids(&s, &plan.pruned())
        };
        assert_eq!(pruned(15), ["r1"]);
        assert_eq!(pruned(10), ["r1", "r2"]);
    }

    #[test]
    fn already_pruned_results_count_but_are_never_pruned_again() {
        let s = session(&[("r1", "bash", 100, false), ("r2", "bash", 100, true), ("r3", "bash", 8, false)]);
        let plan = plan_prune(&s, Leaf::Last, &PruneConfig { protect_tokens: 2, minimum_savings: 0, ..PruneConfig::default() });
        let decisions: Vec<Decision> = plan.tool_results.iter().map(|r| r.decision).collect();
        assert_eq!(decisions, [Decision::Candidate, Decision::AlreadyPruned, Decision::Recent]);
        assert_eq!(plan.already_pruned().count(), 1);
        assert_eq!(plan.below_minimum_savings(), None);
    }

    #[test]
    fn pi_files_get_the_same_decision_with_a_note() {
        let empty = Session::parse(HEADER.as_bytes(), None);
        assert!(plan_prune(&empty, Leaf::Last, &PruneConfig::default()).tool_results.is_empty());
        let text = [HEADER, &tool_result("r1", "x", "bash", 40, false)].join("\n");
        let pi = plan_prune(&Session::parse(text.as_bytes(), Some(crate::RuleSet::Pi073)), Leaf::Last, &PruneConfig::default());
        assert!(!pi.agent_prunes());
        assert_eq!(pi.notes().len(), 1);
    }

    #[test]
    fn read_supersede_keys() {
        let key = |name: &str, path: &str| read_supersede_key(name, &serde_json::json!({ "path": path }));
        assert_eq!(key("read", "src/a.ts"), Some("src/a.ts".into()));
        assert_eq!(key("read", "src/a.ts:10-20"), Some("src/a.ts\u{0}10-20".into()));
        assert_eq!(key("read", "src/a.ts:1-50:raw"), Some("src/a.ts\u{0}1-50:raw".into()));
        assert_eq!(key("read", "src/a.ts:RAW"), Some("src/a.ts\u{0}RAW".into()));
        assert_eq!(key("read", "skill://x"), None);
        assert_eq!(key("read", "notes.md:https://x"), None);
        assert_eq!(key("read", ""), None);
        assert_eq!(key("edit", "src/a.ts"), None);
        assert_eq!(read_supersede_key("read", &serde_json::json!({"path": 1})), None);
    }

    /// A v3 omp session: `read` calls of the given paths, each with its result of `chars`.
    fn reads(paths: &[(&str, usize)], last_ts: u64) -> Vec<u8> {
        let mut lines = vec![HEADER.to_owned(), r#"{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"go","timestamp":1}}"#.to_owned()];
        let mut parent = "u".to_owned();
        for (k, (path, chars)) in paths.iter().enumerate() {
            let a = format!(
                r#"{{"type":"message","id":"a{k}","parentId":"{parent}","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"c{k}","name":"read","arguments":{{"path":"{path}"}}}}],"stopReason":"toolUse","timestamp":2}}}}"#
            );
            let r = format!(
                r#"{{"type":"message","id":"r{k}","parentId":"a{k}","timestamp":"2026-01-01T00:00:03.000Z","message":{{"role":"toolResult","toolCallId":"c{k}","toolName":"read","content":[{{"type":"text","text":"{}"}}],"isError":false,"timestamp":{last_ts}}}}}"#,
                "x".repeat(*chars)
            );
            lines.extend([a, r]);
            parent = format!("r{k}");
        }
        lines.join("\n").into_bytes()
    }

    #[test]
    fn stale_pass_supersedes_and_respects_the_suffix_limit() {
        let bytes = reads(&[("a.ts", 400), ("a.ts:1-5", 400), ("a.ts", 400), ("b.ts", 40_000), ("b.ts:2-3", 40)], 1000);
        let s = Session::parse(&bytes, Some(RuleSet::Omp18));
        let ctx = context::build(&s, Leaf::Last);
        let plan = plan_stale(&s, &ctx, &StaleConfig::agent(false, 2000.0), &bytes).unwrap();
        // r0 (a.ts, superseded by r2) and r1 (a.ts:1-5, superseded by the bare r2); r3 is not
        // superseded by a later selector read. r0 and r1 have 10,000+ tokens after them.
        let got: Vec<(String, StaleDecision)> = plan.candidates.iter().map(|c| (s.entry(c.node).id.to_string(), c.decision)).collect();
        assert_eq!(got, [("r0".to_owned(), StaleDecision::WarmCache), ("r1".to_owned(), StaleDecision::WarmCache)]);
        assert!(!plan.idle);
        // Cold cache: 90 minutes after the last message, everything goes.
        let cold = plan_stale(&s, &ctx, &StaleConfig::agent(false, 1000.0 + STALE_IDLE_FLUSH_MS as f64), &bytes).unwrap();
        assert!(cold.idle);
        assert_eq!((cold.pruned_count(), cold.tokens_saved()), (2, 2 * (100 - 11)));
        assert_eq!(cold.pruned()[0].notice(), SUPERSEDED_NOTICE);
        // The overflow pass after it sees them as pruned, with the notice's count.
        let after = plan_prune_after(&s, &ctx, &PruneConfig::agent(RuleSet::Omp18), &cold.after());
        assert_eq!(after.already_pruned().map(|r| r.tokens).collect::<Vec<_>>(), [11, 11]);
        // The reachable scan prunes the same and lists only what it can reach.
        let reach = plan_stale_reachable(&s, &ctx, &StaleConfig::agent(false, 2000.0), &bytes).unwrap();
        assert!(reach.candidates.is_empty());
        let cold_reach = plan_stale_reachable(&s, &ctx, &StaleConfig::agent(false, 1000.0 + STALE_IDLE_FLUSH_MS as f64), &bytes).unwrap();
        assert_eq!(cold_reach.pruned(), cold.pruned());
        // Other rule sets have no stale pass.
        let s13 = Session::parse(&bytes, Some(RuleSet::Omp13));
        let ctx13 = context::build(&s13, Leaf::Last);
        assert!(plan_stale(&s13, &ctx13, &StaleConfig::agent(false, 1e13), &bytes).unwrap().candidates.is_empty());
    }

    #[test]
    fn pruned_line_matches_omp_e13() {
        // pruning.md §4, confirmed by running omp 13.19's pruneToolOutputs + rewriteEntries.
        let before = r#"{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"LLLL"}],"isError":false,"timestamp":1767225603000}}"#;
        let after = r#"{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"[Output truncated - 30 tokens]"}],"isError":false,"timestamp":1767225603000,"prunedAt":1796220690963}}"#;
        assert_eq!(pruned_line(before, &notice(30), 1_796_220_690_963).unwrap(), after);
    }

    #[test]
    fn pruned_line_normalises_like_omp() {
        // Odd but valid input, and the exact line omp 13.19 wrote for it: integer
        // keys first, numbers and escapes normalised, `partialJson` dropped,
        // duplicate keys keep their first position with the last value.
        let before = r#"{ "type" : "message", "id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","zz":1.50,"2":"two","message":{"content":[{"type":"image","data":"QUJD","mimeType":"image/png"}],"role":"toolResult","toolCallId":"c1","toolName":"bash","details":{"partialJson":"x","lineCount":3,"note":"caf\u00e9 \/ \ud83d\ude00 \u2028"},"isError":false,"timestamp":1767225603000.0,"10":true,"1":false,"extra":{"b":1,"a":[1e2,-0,0.1]},"toolName":"bash"}}"#;
        let after = "{\"2\":\"two\",\"type\":\"message\",\"id\":\"r1\",\"parentId\":\"a1\",\"timestamp\":\"2026-01-01T00:00:03.000Z\",\"zz\":1.5,\"message\":{\"1\":false,\"10\":true,\"content\":[{\"type\":\"text\",\"text\":\"[Output truncated - 1230 tokens]\"}],\"role\":\"toolResult\",\"toolCallId\":\"c1\",\"toolName\":\"bash\",\"details\":{\"lineCount\":3,\"note\":\"café / 😀 \u{2028}\"},\"isError\":false,\"timestamp\":1767225603000,\"extra\":{\"b\":1,\"a\":[100,0,0.1]},\"prunedAt\":1796220697122}}";
        assert_eq!(pruned_line(before, &notice(1230), 1_796_220_697_122).unwrap(), after);
    }

    #[test]
    fn persistence_transform_cuts_clears_and_recounts() {
        let big = format!("{}😀{}", "Z".repeat(499_952), "Q".repeat(100));
        let mut v = serde_json::json!({"big": big, "thinkingSignature": "S".repeat(500_001), "short": "ok",
            "sub": {"content": "a\nb\nc", "lineCount": 9, "jsonlEvents": [1]}, "sub2": {"content": "a\nb", "lineCount": 9}});
        assert!(persist_transform(&mut v, None));
        let cut = v["big"].as_str().unwrap();
        // The pair straddles the limit: it is dropped whole.
        assert_eq!(js::utf16_len(cut), 499_952 + TRUNCATION_NOTICE.len());
        assert!(cut.ends_with(TRUNCATION_NOTICE) && !cut.contains('😀'));
        assert_eq!(v["thinkingSignature"], "");
        assert_eq!(v["sub"], serde_json::json!({"content": "a\nb\nc", "lineCount": 3}));
        assert_eq!(v["sub2"]["lineCount"], 9, "unchanged objects keep a stale lineCount");
        assert!(pruned_line("[1]", "n", 1).is_err());
    }
}
