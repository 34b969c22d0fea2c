//! contextree's write flows, shared by the `contextree` CLI and the desktop app: compact,
//! navigate (with or without a branch summary), prune, edit a compaction's summary and undo a
//! compaction. Each flow is a read-only `preview` / `dry_run` and a `run` / `apply` that
//! writes under docs/decisions.md D15 (append only if the file is unchanged; prune rewrites with a
//! backup).
//!
//! Nothing here prints or knows about a UI: progress goes to a callback ([`Progress`]), results
//! come back as values, failures as [`OpsError`] (its [`OpsError::kind`] is what the app sends,
//! its [`OpsError::exit_code`] what the CLI exits with).

#![warn(missing_docs, unreachable_pub)]

pub mod auto_check;
pub mod compact;
pub mod edit_summary;
mod error;
pub mod navigate;
mod one_line;
mod progress;
pub mod prune;
mod report;
pub mod summarizer;
pub mod undo_compaction;

pub use contextree_llm::CancelToken;
pub use error::OpsError;
pub use one_line::OneLine;
pub use progress::{Call, Progress, ProgressFn};
pub use report::{CallView, IdList, JsNumber, ModelAnswer, PiCost, PiUsage, Summarizer};

/// The `details.summarizer` value of an entry whose summary no model wrote.
pub(crate) const OFFLINE_DETAILS: &str = "contextree-offline";

/// contextree's own `customType` for a persisted leaf move (docs/decisions.md D14).
pub(crate) const CONTINUE_TYPE: &str = "contextree-continue";
