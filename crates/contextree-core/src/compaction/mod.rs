//! Compaction planning (spec compaction.md §1.2–§5): when the agents compact,
//! where they cut, what they summarize and keep, and the file lists, per
//! dialect. Pure: no model is called; the plan is what the summary prompts
//! and the new compaction entry are built from.
//!
//! - [`settings`]: `CompactionSettings` and the threshold rule (`shouldCompact`).
//! - [`cut`]: `findCutPoint` on path indices.
//! - [`file_ops`]: read / written / edited files, carried across compactions.
//! - [`plan`]: `prepareCompaction` → [`CompactionPlan`].

pub mod cut;
pub mod file_ops;
pub mod plan;
pub mod settings;

pub use cut::{find_cut_point, CutPoint};
pub use file_ops::{FileLists, FileOps};
pub use plan::{plan, CompactionPlan, KeepRecent, NothingToCompact, Prepared, PreviousCompaction};
pub use settings::{should_compact, threshold_tokens, CompactionSettings, Strategy};

#[cfg(test)]
mod tests;
