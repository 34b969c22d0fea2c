//! The `"hooks"` section of contextree's config file.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::{HookCommand, HookEvent, Hooks, DEFAULT_HOOK_TIMEOUT};

/// Why the hooks of a config file cannot be used. The messages name the event
/// and position, never a command (it could hold a secret).
#[derive(Debug, thiserror::Error)]
pub enum HookConfigError {
    /// The config file is not valid JSON.
    #[error("invalid JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// `"hooks"` is neither an object nor `null`.
    #[error("\"hooks\" must be an object of event name → list of hooks")]
    NotAnObject,
    /// A key of `"hooks"` is not one of [`HookEvent::ALL`]'s names.
    #[error("hooks: unknown event {name:?} (known: {known})")]
    UnknownEvent {
        /// The key as written.
        name: String,
        /// The known event names, comma-separated, for the message.
        known: String,
    },
    /// An event's value is not an array.
    #[error("hooks.{event}: expected a list of hooks")]
    NotAList {
        /// The event name as written.
        event: String,
    },
    /// An item of an event's list is not an object.
    #[error("{at}: expected an object with \"command\"")]
    NotAHook {
        /// The item's place: `hooks.<event>[<index>]`.
        at: String,
    },
    /// A hook object has a key other than `command` and `timeoutSecs`.
    #[error("{at}: unknown key {key:?}")]
    UnknownKey {
        /// The hook's place: `hooks.<event>[<index>]`.
        at: String,
        /// The unknown key.
        key: String,
    },
    /// `command` is missing, not an array of strings, or its program (first item) is empty.
    #[error("{at}.command: expected a non-empty list of strings [\"program\", \"arg\", ...]")]
    BadCommand {
        /// The hook's place: `hooks.<event>[<index>]`.
        at: String,
    },
    /// `timeoutSecs` is not a number of seconds above 0 and at most 86 400 (a day).
    #[error("{at}.timeoutSecs: expected a number of seconds > 0")]
    BadTimeout {
        /// The hook's place: `hooks.<event>[<index>]`.
        at: String,
    },
    /// The config file exists but could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The config file.
        path: PathBuf,
        /// What the OS reported.
        #[source]
        source: std::io::Error,
    },
    /// One of the errors above, in the file at `path`.
    #[error("{}: {source}", path.display())]
    InFile {
        /// The config file.
        path: PathBuf,
        /// The error in its text.
        #[source]
        source: Box<HookConfigError>,
    },
}

/// The `"hooks"` key of contextree's config file (the whole file's text).
/// A file without the key has no hooks; the rest of the file is not looked at.
pub fn parse_hooks(config_text: &str) -> Result<Hooks, HookConfigError> {
    let doc: Value = serde_json::from_str(config_text).map_err(HookConfigError::Json)?;
    let Some(section) = doc.get("hooks").filter(|v| !v.is_null()) else {
        return Ok(Hooks::default());
    };
    let section = section.as_object().ok_or(HookConfigError::NotAnObject)?;
    let mut hooks = Hooks::default();
    for (name, list) in section {
        let event = HookEvent::from_name(name).ok_or_else(|| HookConfigError::UnknownEvent {
            name: name.clone(),
            known: HookEvent::ALL.iter().map(|e| e.name()).collect::<Vec<_>>().join(", "),
        })?;
        let list = list.as_array().ok_or_else(|| HookConfigError::NotAList { event: name.clone() })?;
        for (i, item) in list.iter().enumerate() {
            let at = format!("hooks.{name}[{i}]");
            let obj = item.as_object().ok_or_else(|| HookConfigError::NotAHook { at: at.clone() })?;
            if let Some(key) = obj.keys().find(|k| !matches!(k.as_str(), "command" | "timeoutSecs")) {
                return Err(HookConfigError::UnknownKey { at, key: key.clone() });
            }
            let command: Vec<String> = obj
                .get("command")
                .and_then(Value::as_array)
                .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_owned)).collect::<Option<_>>())
                .filter(|c: &Vec<String>| c.first().is_some_and(|p| !p.is_empty()))
                .ok_or_else(|| HookConfigError::BadCommand { at: at.clone() })?;
            let timeout = match obj.get("timeoutSecs") {
                None => DEFAULT_HOOK_TIMEOUT,
                Some(v) => v
                    .as_f64()
                    .filter(|s| s.is_finite() && *s > 0.0 && *s <= 86_400.0)
                    .map(Duration::from_secs_f64)
                    .ok_or_else(|| HookConfigError::BadTimeout { at: at.clone() })?,
            };
            hooks.push(event, HookCommand { command, timeout });
        }
    }
    Ok(hooks)
}

/// The hooks in the config file at `path`; none when the file does not exist.
pub fn load_hooks(path: &Path) -> Result<Hooks, HookConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse_hooks(&text).map_err(|e| HookConfigError::InFile { path: path.to_owned(), source: Box::new(e) }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Hooks::default()),
        Err(e) => Err(HookConfigError::Read { path: path.to_owned(), source: e }),
    }
}
