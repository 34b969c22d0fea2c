//! What omp 18's per-turn stale pass is called with and what it decides,
//! kept apart from the scan so callers (the check, previews) read the plan
//! without the read-back machinery.

use std::collections::HashMap;

use super::config::USELESS_NOTICE;
use crate::session::NodeId;
use crate::tokens::estimate::utf8_fragment_tokens;
use crate::RuleSet;

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
    /// overflow pass of the same turn sees, [`plan_prune_after`](super::plan_prune_after)).
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
