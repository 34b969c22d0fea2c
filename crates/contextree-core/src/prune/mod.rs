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
//!
//! One file per job, so each of omp's two passes reads on its own:
//! - `config.rs`: [`PruneConfig`], the agent's configurations and constants;
//! - `plan.rs` and `overflow.rs`: the pass of `pruneToolOutputs` (omp 13's only pass, omp 18's
//!   pass on its threshold and overflow paths) and the [`PrunePlan`] it makes;
//! - `stale_plan.rs` and `stale.rs`: omp 18's per-turn stale pass and its [`StalePlan`];
//! - `line.rs`: the line omp writes for a pruned entry.

mod config;
mod line;
mod overflow;
mod plan;
mod stale;
mod stale_plan;

pub use config::{PruneConfig, CACHE_WARM_SUFFIX_TOKENS, SKILL_READ_MATCHER, USELESS_NOTICE};
pub use line::{persist_transform, pruned_line, PrunedLineError};
pub use overflow::{plan_prune, plan_prune_after, plan_prune_in};
pub use plan::{notice, saving, Decision, PrunePlan, ToolResult};
pub use stale::{plan_stale, plan_stale_reachable, read_supersede_key};
pub use stale_plan::{
    StaleCandidate, StaleConfig, StaleDecision, StalePlan, StaleReason, STALE_IDLE_FLUSH_MS, STALE_SUFFIX_TOKEN_LIMIT, SUPERSEDED_NOTICE,
};

#[cfg(test)]
mod tests;
