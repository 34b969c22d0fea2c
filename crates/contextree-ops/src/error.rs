//! [`OpsError`]: why a flow wrote nothing (or failed after deciding to write).

use contextree_core::branch_summary::BranchSummaryError;
use contextree_core::compaction::{EntryError, PromptBuildError};
use contextree_core::context::ReadBackError;
use contextree_core::prompts::PromptError;
use contextree_host::hooks::HookConfigError;
use contextree_host::rewrite::RewriteError;
use contextree_host::write::WriteError;
use contextree_host::ErrorKind;
use contextree_host::LoadedSession;

use crate::summarizer::PickError;

/// A failure of a write flow. Every variant but an [`OpsError::Append`] or [`OpsError::Rewrite`]
/// whose source says so, and [`OpsError::Json`] for an entry just written, means nothing was
/// written.
#[derive(Debug, thiserror::Error)]
pub enum OpsError {
    /// Bad input: an unknown id, a version-1 file, an option the file cannot take.
    #[error("{0}")]
    Input(String),
    /// The summarizer configuration is wrong (bad provider flags, a broken config file).
    #[error("{0}")]
    Config(String),
    /// contextree's config file names providers that cannot be read.
    #[error(transparent)]
    Providers(contextree_llm::LlmError),
    /// The summarizer named (`--candidate`, the app's pick) is not one that can be asked.
    #[error(transparent)]
    Pick(#[from] PickError),
    /// contextree's config file has a hooks section that cannot be used: a hook the user
    /// relies on (to cancel, say) must not be skipped silently.
    #[error(transparent)]
    Hooks(#[from] HookConfigError),
    /// The agent itself would refuse ("Already compacted", "Nothing to compact", ...).
    #[error("{0}")]
    Refused(String),
    /// A hook cancelled the flow (`Compaction cancelled`, `Navigation cancelled`); the hooks'
    /// warnings so far come along, since the caller sees nothing else.
    #[error("{message}")]
    HookCancelled {
        /// The agents' own wording.
        message: String,
        /// Warnings of the hooks that ran.
        warnings: Vec<String>,
    },
    /// The caller's [`crate::CancelToken`] was cancelled.
    #[error("cancelled: nothing was written")]
    Cancelled,
    /// The model call failed (keys are redacted by contextree-llm).
    #[error("{message}")]
    Provider {
        /// In the agents' words ("Compaction failed: …").
        message: String,
        /// The model call's own error, when one failed (none for an answer cut at the token cap).
        #[source]
        source: Option<contextree_llm::LlmError>,
    },
    /// An append failed; `hint` (what the caller should do) follows a file that changed.
    #[error("{source}{}", changed_hint(source, hint))]
    Append {
        /// Why the append failed (see its variants for whether anything was written).
        #[source]
        source: WriteError,
        /// What the caller should do, shown after a [`WriteError::Changed`] only (`nothing was
        /// written; reload and navigate again`, …).
        hint: &'static str,
    },
    /// A rewrite (prune) failed or was refused before writing.
    #[error("{}{}", .0, rewrite_hint(.0))]
    Rewrite(#[source] RewriteError),
    /// The file could not be read back where the plan points.
    #[error(transparent)]
    ReadBack(#[from] ReadBackError),
    /// A compaction's requests could not be built (a text of the pack that does not render,
    /// an entry that does not read back).
    #[error(transparent)]
    Requests(#[from] PromptBuildError),
    /// A branch summary's request could not be built.
    #[error(transparent)]
    BranchRequest(#[from] BranchSummaryError),
    /// A summary could not be wrapped in the pack's texts.
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// The entry could not be made from the answers or the supplied summary.
    #[error(transparent)]
    Entry(#[from] EntryError),
    /// JSON that could not be kept: an entry just written that does not read back, a hook's
    /// details that cannot be stored, the old entry of an edit.
    #[error("{what}: {source}")]
    Json {
        /// Which value.
        what: &'static str,
        /// serde_json's error.
        #[source]
        source: serde_json::Error,
    },
    /// The old entry of an edit could not be read from the file.
    #[error("{}: {source}", path.display())]
    OldEntry {
        /// The session file.
        path: std::path::PathBuf,
        /// Where and why (as any entry that does not read back).
        #[source]
        source: ReadBackError,
    },
    /// The model call's runtime could not be started.
    #[error("cannot start the model call: {0}")]
    Runtime(#[source] std::io::Error),
}

fn rewrite_hint(e: &RewriteError) -> &'static str {
    match e {
        RewriteError::Write(WriteError::Changed { .. }) => " (nothing was written; the plan was made from the old contents)",
        _ => "",
    }
}

fn changed_hint(e: &WriteError, hint: &str) -> String {
    match e {
        WriteError::Changed { .. } => format!(" ({hint})"),
        _ => String::new(),
    }
}

impl OpsError {
    /// The exit code of `contextree` for this failure: its kind's (2 for bad input, else 1).
    pub fn exit_code(&self) -> u8 {
        self.kind().exit_code()
    }

    /// What kind of failure it is: the CLI's exit code, the app's error kind (ipc-writes
    /// contract).
    pub fn kind(&self) -> ErrorKind {
        match self {
            OpsError::Input(_) | OpsError::Hooks(_) => ErrorKind::Input,
            OpsError::Config(_) | OpsError::Providers(_) | OpsError::Pick(_) => ErrorKind::Config,
            OpsError::Refused(_) | OpsError::HookCancelled { .. } => ErrorKind::Refused,
            OpsError::Provider { .. } => ErrorKind::Provider,
            OpsError::Cancelled => ErrorKind::Cancelled,
            OpsError::Append { source, .. } => match source {
                WriteError::Changed { .. } | WriteError::Replaced { .. } => ErrorKind::Changed,
                _ => ErrorKind::Io,
            },
            OpsError::Rewrite(e) => match e {
                RewriteError::Write(WriteError::Changed { .. }) => ErrorKind::Changed,
                RewriteError::Migrated { .. } | RewriteError::NotASession { .. } => ErrorKind::Input,
                RewriteError::HeldOpen { .. } => ErrorKind::Held,
                RewriteError::ReadOnly { .. } | RewriteError::HardLinks { .. } | RewriteError::Owner { .. } => ErrorKind::Refused,
                _ => ErrorKind::Io,
            },
            // The agent itself would throw here.
            OpsError::Entry(EntryError::Nothing(_) | EntryError::BadPreserveData(_)) => ErrorKind::Refused,
            OpsError::ReadBack(_)
            | OpsError::Requests(_)
            | OpsError::BranchRequest(_)
            | OpsError::Prompt(_)
            | OpsError::Entry(_)
            | OpsError::Json { .. }
            | OpsError::OldEntry { .. }
            | OpsError::Runtime(_) => ErrorKind::Io,
        }
    }

    /// The warnings that came with the failure (only a hook's cancel has any).
    pub fn warnings(&self) -> &[String] {
        match self {
            OpsError::HookCancelled { warnings, .. } => warnings,
            _ => &[],
        }
    }
}

/// An append's failure; `hint` follows a `Changed` message (what the caller should do).
pub(crate) fn write_error(e: WriteError, hint: &'static str) -> OpsError {
    OpsError::Append { source: e, hint }
}

/// A rewrite's failure.
pub(crate) fn rewrite_error(e: RewriteError) -> OpsError {
    OpsError::Rewrite(e)
}

/// Refuses a version-1 file: its entries have no ids in the file, so the ids a new entry
/// would point at exist only in memory (the agents rewrite such a file on open).
pub(crate) fn require_entry_ids(loaded: &LoadedSession) -> Result<(), OpsError> {
    if loaded.session.original_version() < 2 {
        return Err(OpsError::Input(format!(
            "{}: a version-1 file has no entry ids to point at; let an agent upgrade it first",
            loaded.path.display()
        )));
    }
    Ok(())
}
