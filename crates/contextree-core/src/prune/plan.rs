//! The outcome of `pruneToolOutputs` for a leaf, before anything is applied:
//! per tool result the decision and the numbers behind it, so previews can
//! show why a result stays as well as what goes.

use super::config::{PruneConfig, USELESS_NOTICE};
use crate::session::NodeId;
use crate::{Dialect, RuleSet};

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
