//! What the pruning scan is configured with: omp hard-codes it, so the
//! agent's own configurations are spelled out here and anything else is
//! labelled "not what omp does".

use crate::RuleSet;

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
pub(super) const MIN_PRUNE_TOKENS: u64 = 50;

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
