//! [`OpsError`]: why a flow wrote nothing (or failed after deciding to write).

use std::fmt;

use contextree_core::context::materialize::ReadBackError;
use contextree_host::rewrite::RewriteError;
use contextree_host::write::WriteError;
use contextree_host::LoadedSession;

/// A failure of a write flow. Every variant but [`OpsError::Failed`] means nothing was written.
#[derive(Debug)]
pub enum OpsError {
    /// Bad input: an unknown id, a version-1 file, an option the file cannot take.
    Input(String),
    /// The summarizer configuration is wrong (bad provider flags, a broken config file).
    Config(String),
    /// The agent itself would refuse ("Already compacted", "Nothing to compact", ...).
    Refused(String),
    /// A hook cancelled the flow (`Compaction cancelled`, `Navigation cancelled`); the hooks'
    /// warnings so far come along, since the caller sees nothing else.
    HookCancelled {
        /// The agents' own wording.
        message: String,
        /// Warnings of the hooks that ran.
        warnings: Vec<String>,
    },
    /// The caller's [`crate::CancelToken`] was cancelled.
    Cancelled,
    /// The model call failed (keys are redacted by contextree-llm).
    Provider(String),
    /// The file changed since it was read (D15).
    Changed(String),
    /// Another process holds the file open for writing, so a rewrite would lose its later
    /// entries (oh-my-pi keeps its session file open while it runs); the message names it.
    Held(String),
    /// Anything else: reading back, IO, a prompt that does not render.
    Failed(String),
}

impl OpsError {
    /// The exit code of `contextree` for this failure: 2 for bad input, else 1.
    pub fn exit_code(&self) -> u8 {
        match self {
            OpsError::Input(_) | OpsError::Config(_) => 2,
            _ => 1,
        }
    }

    /// The app's error kind (ipc-writes contract).
    pub fn kind(&self) -> &'static str {
        match self {
            OpsError::Input(_) | OpsError::Refused(_) | OpsError::HookCancelled { .. } => "refused",
            OpsError::Config(_) | OpsError::Provider(_) => "provider",
            OpsError::Cancelled => "cancelled",
            OpsError::Changed(_) => "changed",
            OpsError::Held(_) => "held",
            OpsError::Failed(_) => "io",
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

impl fmt::Display for OpsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpsError::Input(m) | OpsError::Config(m) | OpsError::Refused(m) | OpsError::Provider(m) | OpsError::Changed(m) | OpsError::Held(m) | OpsError::Failed(m) => f.write_str(m),
            OpsError::HookCancelled { message, .. } => f.write_str(message),
            OpsError::Cancelled => f.write_str("cancelled: nothing was written"),
        }
    }
}

impl std::error::Error for OpsError {}

impl From<ReadBackError> for OpsError {
    fn from(e: ReadBackError) -> Self {
        OpsError::Failed(e.to_string())
    }
}

/// An append's failure; `hint` follows a `Changed` message (what the caller should do).
pub(crate) fn write_error(e: WriteError, hint: &str) -> OpsError {
    match e {
        WriteError::Changed { .. } => OpsError::Changed(format!("{e} ({hint})")),
        WriteError::Replaced { .. } => OpsError::Changed(e.to_string()),
        other => OpsError::Failed(other.to_string()),
    }
}

/// A rewrite's failure.
pub(crate) fn rewrite_error(e: RewriteError) -> OpsError {
    match e {
        RewriteError::Write(WriteError::Changed { .. }) => OpsError::Changed(format!("{e} (nothing was written; the plan was made from the old contents)")),
        RewriteError::Migrated { .. } | RewriteError::NotASession { .. } => OpsError::Input(e.to_string()),
        RewriteError::HeldOpen { .. } => OpsError::Held(e.to_string()),
        RewriteError::ReadOnly { .. } | RewriteError::HardLinks { .. } | RewriteError::Owner { .. } => OpsError::Refused(e.to_string()),
        other => OpsError::Failed(other.to_string()),
    }
}

/// Refuses a version-1 file: its entries have no ids in the file, so the ids a new entry
/// would point at exist only in memory (the agents rewrite such a file on open).
pub(crate) fn require_entry_ids(loaded: &LoadedSession) -> Result<(), OpsError> {
    if loaded.session.original_version() < 2 {
        return Err(OpsError::Input(format!("{}: a version-1 file has no entry ids to point at; let an agent upgrade it first", loaded.path.display())));
    }
    Ok(())
}
