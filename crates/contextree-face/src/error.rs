//! [`CommandError`]: the only error type that reaches the UI, through the app's IPC or the
//! server's HTTP answers alike.
//!
//! On the wire it is `{ "kind": "...", "message": "..." }`; `ui/src/ipc.js` turns it into a JS
//! `CommandError` with the same two fields. The UI may branch on `kind`, never on `message`.

use std::path::PathBuf;

use contextree_host::ErrorKind;

/// An error returned by a command.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The session file could not be read or parsed.
    #[error(transparent)]
    Load(#[from] contextree_host::LoadError),
    /// The bundled demo session could not be written to the cache directory.
    #[error("cannot write the demo session to `{}`", path.display())]
    Demo {
        /// Where it was to be written.
        path: PathBuf,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
    /// A command that needs an open session ran before `open_session`.
    #[error("no session is open")]
    NoSession,
    /// No entry has this id in the open session.
    #[error("no entry with id `{0}`")]
    UnknownEntry(String),
    /// The leaf named with `--leaf` is not an entry of the session opened at startup.
    #[error("`--leaf {id}`: `{}` has no entry with this id; its own leaf is shown instead", file.display())]
    UnknownStartupLeaf {
        /// The id asked for.
        id: String,
        /// The session file opened.
        file: PathBuf,
    },
    /// An entry's bytes could not be read back from the session file.
    #[error(transparent)]
    ReadBack(#[from] contextree_core::context::ReadBackError),
    /// The compaction preview's prompts could not be built (a prompt pack text is missing or
    /// does not render).
    #[error("cannot build the compaction prompts: {0}")]
    Compaction(String),
    /// The face itself failed (the app's path resolution, a background task that panicked).
    #[error("{0}")]
    Internal(String),
    /// The app's settings are invalid or the config file cannot be read or written.
    #[error(transparent)]
    Config(#[from] contextree_host::config::ConfigError),
    /// There is no home folder to keep the config file in.
    #[error("no home folder to keep settings in")]
    NoConfigFolder,
    /// The rule set asked for (`open_session`'s dialect) does not exist.
    #[error(transparent)]
    UnknownDialect(#[from] contextree_core::dialect::UnknownDialect),
    /// A write flow failed; its kind says how (`changed`, `held`, `cancelled`, `provider`,
    /// `refused`, ...).
    #[error(transparent)]
    Write(#[from] contextree_ops::OpsError),
    /// A report could not be written as JSON.
    #[error("cannot write the report: {0}")]
    Report(#[source] serde_json::Error),
    /// Another write or summary is running.
    #[error("another write is running; wait for it or cancel it")]
    Busy,
    /// A command argument is not one of the accepted values (a tokenizer, an export format).
    #[error("{0}")]
    InvalidArgument(String),
    /// A search query could not be read, or the search index could not be read or written.
    #[error(transparent)]
    Search(#[from] contextree_search::SearchError),
    /// An exported context could not be written where the user chose.
    #[error("cannot write `{}`", path.display())]
    Save {
        /// The file chosen in the save dialog.
        path: PathBuf,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
}

impl CommandError {
    /// Stable identifier the UI may branch on (its name is [`ErrorKind::as_str`]); add a kind
    /// only when the UI uses it.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Load(_) => ErrorKind::Load,
            Self::Demo { .. } | Self::ReadBack(_) | Self::Save { .. } => ErrorKind::Io,
            Self::NoSession => ErrorKind::NoSession,
            Self::UnknownEntry(_) | Self::UnknownStartupLeaf { .. } => ErrorKind::UnknownEntry,
            Self::Compaction(_) => ErrorKind::Compaction,
            Self::Internal(_) | Self::Report(_) => ErrorKind::Internal,
            Self::Config(_) | Self::NoConfigFolder | Self::UnknownDialect(_) => ErrorKind::Settings,
            Self::Write(e) => e.kind(),
            Self::Busy => ErrorKind::Busy,
            Self::InvalidArgument(_) => ErrorKind::InvalidArgument,
            Self::Search(contextree_search::SearchError::Query(_)) => ErrorKind::InvalidArgument,
            Self::Search(_) => ErrorKind::Io,
        }
    }
}

impl serde::Serialize for CommandError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut s = serializer.serialize_struct("CommandError", 2)?;
        s.serialize_field("kind", &self.kind())?;
        s.serialize_field("message", &error_chain(self))?;
        s.end()
    }
}

/// `"a: b: c"` for an error and its sources, like anyhow's `{:#}`.
///
/// A cause whose text is already in the message is skipped: transparent variants and errors
/// written as `"{path}: {source}"` or `"{source}; not overwritten"` would otherwise repeat it.
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut res = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !res.contains(&text) {
            res.push_str(": ");
            res.push_str(&text);
        }
        source = cause.source();
    }
    res
}

impl From<contextree_core::compaction::PromptBuildError> for CommandError {
    fn from(e: contextree_core::compaction::PromptBuildError) -> Self {
        match e {
            contextree_core::compaction::PromptBuildError::ReadBack(e) => Self::ReadBack(e),
            other => Self::Compaction(other.to_string()),
        }
    }
}
