//! contextree's own config file (`~/.config/contextree/config.json`, the file that holds
//! `providers` and `hooks`): the app's settings in it, read and saved.
//!
//! The app's settings — theme, tokenizer, default context window, library roots — live under
//! one key, `"app"`, so the other readers of the file never see them (`contextree-llm` ignores
//! unknown top-level keys). Saving rewrites the file atomically ([`crate::atomic::write_whole`]:
//! temporary file in the same folder, fsync, rename, folder fsync) and keeps every other key,
//! unknown keys inside `"app"` included, in their order (serde_json `preserve_order`). A file
//! that is not valid JSON is never overwritten: saving refuses and says why.

use std::io;
use std::path::{Path, PathBuf};

use contextree_core::tokens::TokenizerKind;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::library::{expand_tilde, RootOverrides};

/// The key of the app's section in the config file.
pub const SECTION: &str = "app";

/// Largest context window accepted (tokens); above any model's.
pub const MAX_WINDOW: u64 = 100_000_000;

/// What the app's settings screen edits.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AppSettings {
    /// `system` (follow the desktop's light/dark preference), `light` or `dark`.
    pub theme: Theme,
    /// The tokenizer whose counts the context panel shows next to the dialect's estimate.
    pub tokenizer: Tokenizer,
    /// The budget bar's window when none is typed; `None`: the model table's.
    pub context_window: Option<u64>,
    /// Session folders instead of the agents' defaults.
    pub library: LibraryRoots,
}

/// The colour theme.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    /// `system`: follow the desktop's light/dark preference (the default).
    #[default]
    System,
    /// `light`: always light.
    Light,
    /// `dark`: always dark.
    Dark,
}

/// The tokenizer setting; the names are `TokenizerKind`'s, plus `none`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tokenizer {
    /// `o200k_base`: tiktoken's GPT-4o / o-series encoding (the default).
    #[default]
    #[serde(rename = "o200k_base")]
    O200k,
    /// `cl100k_base`: tiktoken's GPT-4 / GPT-3.5 encoding.
    #[serde(rename = "cl100k_base")]
    Cl100k,
    /// No tokenizer counts (they cost time on very large contexts).
    #[serde(rename = "none")]
    None,
}

/// Library folders; empty strings count as unset.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LibraryRoots {
    /// pi's sessions folder instead of `~/.pi/agent/sessions`.
    pub pi: Option<String>,
    /// omp's sessions folder instead of `~/.omp/agent/sessions`.
    pub omp: Option<String>,
    /// When not empty: only these folders, no defaults.
    pub only: Vec<String>,
}

/// Why settings cannot be saved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidSettings {
    /// The context window is 0 or above [`MAX_WINDOW`].
    #[error("the context window must be between 1 and {MAX_WINDOW} tokens")]
    ContextWindow,
    /// A library folder is neither absolute nor under `~/`.
    #[error("library folder `{0}` must be an absolute path (or start with ~/)")]
    RelativeFolder(String),
}

/// Why the config file could not be read or saved.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The settings are not valid; the file was not touched.
    #[error(transparent)]
    Invalid(#[from] InvalidSettings),
    /// The file (or its folder) could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The config file (also when it was creating its folder that failed).
        path: PathBuf,
        /// What the OS reported.
        #[source]
        source: io::Error,
    },
    /// The file is not JSON.
    #[error("{}: not valid JSON ({source})", path.display())]
    NotJson {
        /// The config file.
        path: PathBuf,
        /// serde_json's parse error (it gives line and column).
        #[source]
        source: serde_json::Error,
    },
    /// The file is JSON but not an object.
    #[error("{}: not a JSON object", path.display())]
    NotAnObject {
        /// The config file.
        path: PathBuf,
    },
    /// The `"app"` section does not read as settings.
    #[error("{}: `{SECTION}`: {source}", path.display())]
    Section {
        /// The config file.
        path: PathBuf,
        /// Why `"app"` does not deserialize as [`AppSettings`] (a wrong type or an unknown
        /// enum value).
        #[source]
        source: serde_json::Error,
    },
    /// Saving refused to replace a file it could not read as a JSON object: the file is left
    /// as it is.
    #[error("{0}; not overwritten")]
    NotOverwritten(#[source] Box<ConfigError>),
    /// The path has no folder to write in.
    #[error("{}: no parent folder", path.display())]
    NoFolder {
        /// The config file path that was given.
        path: PathBuf,
    },
}

impl AppSettings {
    /// The tokenizer to count with, `None` for no counts.
    pub fn tokenizer_kind(&self) -> Option<TokenizerKind> {
        match self.tokenizer {
            Tokenizer::O200k => Some(TokenizerKind::O200kBase),
            Tokenizer::Cl100k => Some(TokenizerKind::Cl100kBase),
            Tokenizer::None => None,
        }
    }

    /// The library roots as [`crate::library`]'s scanner takes them; `~` is `home`.
    pub fn root_overrides(&self, home: Option<&Path>) -> RootOverrides {
        let path = |p: &str| -> Option<PathBuf> {
            let p = p.trim();
            (!p.is_empty()).then(|| expand_tilde(p, home))
        };
        RootOverrides {
            pi: self.library.pi.as_deref().and_then(path),
            omp: self.library.omp.as_deref().and_then(path),
            only: self.library.only.iter().filter_map(|p| path(p)).collect(),
        }
    }

    /// Why these settings cannot be saved, if they cannot.
    pub fn validate(&self) -> Result<(), InvalidSettings> {
        if let Some(w) = self.context_window {
            if w == 0 || w > MAX_WINDOW {
                return Err(InvalidSettings::ContextWindow);
            }
        }
        let roots = [&self.library.pi, &self.library.omp].into_iter().flatten().chain(&self.library.only);
        for root in roots {
            let r = root.trim();
            let absolute = r.is_empty() || r.starts_with('/') || r == "~" || r.starts_with("~/");
            if !absolute {
                return Err(InvalidSettings::RelativeFolder(r.to_owned()));
            }
        }
        Ok(())
    }
}

/// The config file's top-level object and its permission bits (when they could be read).
type Top = (Map<String, Value>, Option<u32>);

/// The config file's [`Top`]; `None` when there is no file.
fn read_top(path: &Path) -> Result<Option<Top>, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(ConfigError::Io { path: path.to_owned(), source }),
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(top)) => Ok(Some((top, std::fs::metadata(path).ok().map(|m| file_mode(&m))))),
        Ok(_) => Err(ConfigError::NotAnObject { path: path.to_owned() }),
        Err(source) => Err(ConfigError::NotJson { path: path.to_owned(), source }),
    }
}

/// The app's settings in `path` and, when they could not all be read, why (defaults are used
/// then). A missing file is no problem: it means defaults.
pub fn read_app(path: &Path) -> (AppSettings, Option<ConfigError>) {
    let section = match read_top(path) {
        Ok(Some((mut top, _))) => top.remove(SECTION),
        Ok(None) => None,
        Err(e) => return (AppSettings::default(), Some(e)),
    };
    match section.map(serde_json::from_value::<AppSettings>) {
        None => (AppSettings::default(), None),
        Some(Ok(settings)) => (settings, None),
        Some(Err(source)) => (AppSettings::default(), Some(ConfigError::Section { path: path.to_owned(), source })),
    }
}

/// Stores `settings` under `"app"` in `path`, keeping everything else in the file; invalid
/// settings, or a file that is not a JSON object, leave the file untouched.
pub fn write_app(path: &Path, settings: &AppSettings) -> Result<(), ConfigError> {
    settings.validate()?;
    let (mut top, permissions) = match read_top(path) {
        Ok(found) => found.unwrap_or_default(),
        Err(e @ (ConfigError::NotJson { .. } | ConfigError::NotAnObject { .. })) => return Err(ConfigError::NotOverwritten(Box::new(e))),
        Err(e) => return Err(e),
    };
    let Ok(Value::Object(known)) = serde_json::to_value(settings) else { unreachable!("AppSettings serializes to an object") };
    // Known keys are replaced in place; keys a newer app wrote inside the section stay.
    // (Never `remove`: with `preserve_order` it moves the last key into the hole.)
    match top.get_mut(SECTION) {
        Some(Value::Object(section)) => section.extend(known),
        _ => {
            top.insert(SECTION.to_owned(), Value::Object(known));
        }
    }
    let Ok(mut text) = serde_json::to_string_pretty(&Value::Object(top)) else { unreachable!("a JSON value serializes") };
    text.push('\n');

    let io_error = |source| ConfigError::Io { path: path.to_owned(), source };
    let dir = path.parent().ok_or_else(|| ConfigError::NoFolder { path: path.to_owned() })?;
    std::fs::create_dir_all(dir).map_err(io_error)?;
    // The file may hold API keys: the new one gets the old one's permissions, a first one is
    // the owner's alone.
    crate::atomic::write_whole(path, text.as_bytes(), Some(permissions.unwrap_or(0o600))).map_err(io_error)
}

#[cfg(unix)]
fn file_mode(m: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    m.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn file_mode(_: &std::fs::Metadata) -> u32 {
    0o600
}

#[cfg(test)]
mod tests;
