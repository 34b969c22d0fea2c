//! Compaction (spec compaction.md §1.2–§7): when the agents compact, where
//! they cut, what they summarize and keep, the exact prompts they send, and
//! the entry they append, per dialect. Pure: no model is called and nothing
//! is written; the plan feeds the prompts, the model's answers (asked by the
//! caller) feed the entry, and the host appends its line.
//!
//! - [`CompactionSettings`] and the threshold rule ([`should_compact`], `shouldCompact`).
//! - [`find_cut_point`]: `findCutPoint` on path indices.
//! - [`FileOps`] / [`FileLists`]: read / written / edited files, carried across compactions.
//! - [`plan`]: `prepareCompaction` → [`CompactionPlan`].
//! - [`summary_requests`]: the exact summarizer calls of `compact()` for a plan.
//! - [`compaction_result`] / [`new_entry`]: the stored summary (merge, file tags) and the entry line.
//! - [`preview`]: sizes before and after, and the calls, before running.

mod auto;
mod cut;
pub(crate) mod entry;
pub(crate) mod file_ops;
mod plan;
mod prepare18;
mod preview;
pub(crate) mod prompt;
pub(crate) mod settings;
pub(crate) mod transcript;

pub use auto::{
    auto_check, auto_check_with, context_overflow, omp18_overflow, omp18_overflow_pattern, omp18_payload_pattern, overflow_pattern,
    pi16_overflow_pattern, AutoCheck, AutoDecision, CheckInputs, MethodChoice, Overflow, Skip, Usable,
};
pub use cut::{find_cut_point, CutPoint};
pub use entry::{
    compaction_result, details_value, entry_line, new_entry, new_entry_id, strip_file_tags, supplied_result, system_checkpoint, Answers,
    CompactionResult, EntryError, NewEntry, SuppliedCompaction,
};
pub use file_ops::{FileLists, FileOps, PathSet};
pub use plan::{plan, CompactionPlan, KeepRecent, NothingToCompact, Prepared, PreviousCompaction};
pub use preview::{preview, preview_numbers, CompactionPreview, SHORT_PREVIEW_MARKER};
pub use prompt::{
    pi_reasoning, summary_requests, CallKind, CompactingHook, Fit, HistoryStep, PromptBuildError, PromptOptions, SummarizerCall,
    SummaryModel, SummaryRequests, TranscriptFormat,
};
pub use settings::{
    recorded_threshold, should_compact, should_compact_under, threshold_tokens, threshold_tokens_under, CompactionSettings, Method,
    MethodOrder, Strategy,
};
pub use transcript::{preferred_dialect, SummaryDialect};

#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod tests;
