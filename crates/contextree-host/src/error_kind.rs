//! [`ErrorKind`]: what kind of failure an error is, the one classification behind the CLI's exit
//! codes and the app's `{kind, message}` errors.

/// What kind of failure an error is. The CLI exits with [`ErrorKind::exit_code`]; the app sends
/// [`ErrorKind::as_str`] as its error's `kind`, which the UI may branch on (`ui/src/ipc.js`).
///
/// Two pairs of kinds the CLI tells apart by exit code share the app's name: [`ErrorKind::Input`]
/// is `refused` there and [`ErrorKind::Config`] is `provider` (in the app there is no flag to
/// correct; the write dialog shows a refusal, or a summary source that cannot be used).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Bad input: a missing file, an unknown id, a bad flag value, a version-1 file, a hooks
    /// section that cannot be used (exit 2; the app's `refused`).
    Input,
    /// The summarizer configuration is wrong: provider flags, a broken config file, a candidate
    /// that is not listed (exit 2; the app's `provider`).
    Config,
    /// The agent itself would refuse ("Already compacted", "Nothing to compact"), a hook
    /// cancelled, or the file cannot be rewritten (read-only, hard links, another owner).
    Refused,
    /// The model call failed.
    Provider,
    /// The caller cancelled.
    Cancelled,
    /// The file changed since it was read (docs/decisions.md D15).
    Changed,
    /// Another process holds the file open for writing.
    Held,
    /// Reading or writing failed.
    Io,
    /// The app: the session file could not be read or parsed (exit 2 in the CLI's terms).
    Load,
    /// The app: a command that needs an open session ran before one was opened.
    NoSession,
    /// The app: no entry has the id given.
    UnknownEntry,
    /// The app: the compaction preview's prompts could not be built.
    Compaction,
    /// The app: Tauri itself failed.
    Internal,
    /// The app: its settings are invalid, the config file cannot be read or written, or a
    /// rule set asked for does not exist.
    Settings,
    /// The app: another write is running.
    Busy,
    /// The app: a command argument is not one of the accepted values.
    InvalidArgument,
}

impl ErrorKind {
    /// The exit code of `contextree` for this kind: 2 for bad input, else 1 (README, docs/reliability.md).
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::Input
            | ErrorKind::Config
            | ErrorKind::Load
            | ErrorKind::NoSession
            | ErrorKind::UnknownEntry
            | ErrorKind::Settings
            | ErrorKind::InvalidArgument => 2,
            ErrorKind::Refused
            | ErrorKind::Provider
            | ErrorKind::Cancelled
            | ErrorKind::Changed
            | ErrorKind::Held
            | ErrorKind::Io
            | ErrorKind::Compaction
            | ErrorKind::Internal
            | ErrorKind::Busy => 1,
        }
    }

    /// The app's name for it, the `kind` of its errors (stable: the UI branches on it).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Input | ErrorKind::Refused => "refused",
            ErrorKind::Config | ErrorKind::Provider => "provider",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Changed => "changed",
            ErrorKind::Held => "held",
            ErrorKind::Io => "io",
            ErrorKind::Load => "load",
            ErrorKind::NoSession => "no-session",
            ErrorKind::UnknownEntry => "unknown-entry",
            ErrorKind::Compaction => "compaction",
            ErrorKind::Internal => "internal",
            ErrorKind::Settings => "settings",
            ErrorKind::Busy => "busy",
            ErrorKind::InvalidArgument => "invalid-argument",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ErrorKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl PartialEq<str> for ErrorKind {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ErrorKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}
