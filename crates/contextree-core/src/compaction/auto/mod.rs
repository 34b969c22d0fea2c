//! The automatic compaction check (compaction.md §1.2): would the agent
//! auto-compact after its last run, and what would the overflow path do?
//!
//! Follows omp 13.19's `#checkCompaction` and pi 0.73.1's `_checkCompaction`
//! step by step for the last assistant message `A` of the leaf's context (the
//! agents' in-memory messages), in the post-run variant (aborted messages are
//! skipped; the check before the next prompt would not skip them).
//!
//! `isContextOverflow` ([`context_overflow`]) reproduces both agents'
//! pi-ai patterns exactly: the JS regexes (`/…/i`, no `u` flag) are applied
//! to the ASCII-lowercased message with their JS meaning of `.` (no line
//! terminators), `\d`, `\s` and `\b` spelled out (tests/golden-overflow).
//!
//! What a file cannot tell, and the report says so: the user's current model
//! (`current_model`; assumed to be A's own model when not given), the model
//! config behind omp's context promotion, and pi's in-memory "one overflow
//! recovery per prompt" flag (inferred from the path).
//!
//! One file per job, so each agent's decision can be read (and checked against
//! its source) on its own:
//! - `check.rs`: the entry point, shared by every rule set, and the assistant message it reads;
//! - `report.rs`: [`AutoCheck`] and its vocabulary;
//! - `patterns.rs` and `overflow.rs`: `isContextOverflow` of each agent's pi-ai;
//! - `threshold.rs`: the threshold comparison both agents end with;
//! - `omp.rs`, `omp18.rs`, `pi.rs`: each agent's own order of steps;
//! - `method.rs`: omp 18's `methodOrder` walk.

mod check;
mod method;
mod omp;
mod omp18;
mod overflow;
mod patterns;
mod pi;
mod report;
mod threshold;

pub use check::{auto_check, auto_check_with};
pub use method::{MethodChoice, Usable};
pub use overflow::{
    context_overflow, omp18_overflow, omp18_overflow_pattern, omp18_payload_pattern, overflow_pattern, pi16_overflow_pattern,
};
pub use report::{AutoCheck, AutoDecision, CheckInputs, Overflow, Skip};

#[cfg(test)]
mod tests;
