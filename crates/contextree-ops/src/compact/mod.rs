//! Compact now: plan, the exact summarizer prompts, the summaries, and one appended
//! `compaction` entry (docs/decisions.md D15: only if the file is unchanged).
//!
//! Settings: `keepRecentTokens`, `reserveTokens` (and omp's other `compaction.*` keys) start
//! from the agent's own settings files (contextree-host `settings`, read only); the options win.
//!
//! Hooks (contextree-host `hooks`, configured in contextree's config file) run as the agents run
//! their extensions (compaction.md §1.3 step 3): `session_before_compact` may cancel
//! (`Compaction cancelled`, nothing written) or supply the compaction; omp's
//! `session.compacting` may change the history prompt, add context lines and preserveData;
//! `session_compact` is told about the written entry. A failing hook is a warning, never a
//! failure. A dry run runs no hook (hooks are programs with effects of their own).
//!
//! Where the summaries come from, in order of precedence:
//! 1. [`CompactOptions::summary`]: stored as given, like a `session_before_compact` hook's
//!    result (`fromHook` / `fromExtension` true, no file tags);
//! 2. a `session_before_compact` hook's `compaction`, stored the same way;
//! 3. offline, or no provider given nor configured: contextree-llm's offline extractive
//!    summary, labelled in the entry's `details`;
//! 4. otherwise the candidates ([`crate::summarizer::candidates`]), through contextree-llm.
//!
//! One file per job: `start.rs` (the options, and the settings and plan every path starts
//! from), `preview.rs` ([`preview_plan`], the plan and its prompts, read only), `dry_run.rs`
//! ([`dry_run`], that preview as the `compact --dry-run` document), `run.rs` ([`run`], the
//! compaction itself), `run_hooks.rs` (the hooks it calls), `ask.rs` (the summarizer calls to
//! the models) and `offline.rs` (the summaries written without a model).

mod ask;
mod dry_run;
mod offline;
mod preview;
mod run;
mod run_hooks;
mod start;

pub(crate) use ask::{pi_usage, token_cap_failure};
pub use dry_run::{dry_run, ConfiguredHooks, DryRun, NothingDoc, PlanDoc};
pub use preview::{preview_plan, FileListsView, FitView, PlanPreview, Planned, PreviewNumbers, TranscriptView, FOLD_MARKER};
pub use run::{run, CompactOutcome};
pub use start::CompactOptions;
