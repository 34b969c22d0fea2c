//! The app's own settings: theme, tokenizer, default context window, library roots.
//!
//! They live in contextree's config file (`~/.config/contextree/config.json`, the file that
//! already holds `providers` and `hooks`) under one key, `"app"`, so the other readers of the
//! file never see them (`contextree-llm` ignores unknown top-level keys). Saving rewrites the
//! file atomically (temporary file in the same folder, fsync, rename) and keeps every other
//! key, unknown keys inside `"app"` included, in their order (serde_json `preserve_order`).
//! A file that is not valid JSON is never overwritten: saving refuses and says why.

use std::path::{Path, PathBuf};

use contextree_core::tokens::tokenizer::TokenizerKind;
use contextree_host::library::{expand_tilde, RootOverrides};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::CommandError;

/// The key of the app's section in the config file.
pub const SECTION: &str = "app";

/// Largest context window accepted (tokens); above any model's.
pub const MAX_WINDOW: u64 = 100_000_000;

/// What the settings screen edits.
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
    #[default]
    System,
    Light,
    Dark,
}

/// The tokenizer setting; the names are `TokenizerKind`'s, plus `none`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tokenizer {
    #[default]
    #[serde(rename = "o200k_base")]
    O200k,
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

impl AppSettings {
    /// The tokenizer to count with, `None` for no counts.
    pub fn tokenizer_kind(&self) -> Option<TokenizerKind> {
        match self.tokenizer {
            Tokenizer::O200k => Some(TokenizerKind::O200kBase),
            Tokenizer::Cl100k => Some(TokenizerKind::Cl100kBase),
            Tokenizer::None => None,
        }
    }

    /// The library roots as the host's scanner takes them; `~` is the home folder.
    pub fn root_overrides(&self) -> RootOverrides {
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
        let home = home.as_deref().map(Path::new);
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
    pub fn validate(&self) -> Result<(), String> {
        if let Some(w) = self.context_window {
            if w == 0 || w > MAX_WINDOW {
                return Err(format!("the context window must be between 1 and {MAX_WINDOW} tokens"));
            }
        }
        let roots = [&self.library.pi, &self.library.omp].into_iter().flatten().chain(&self.library.only);
        for root in roots {
            let r = root.trim();
            let absolute = r.is_empty() || r.starts_with('/') || r == "~" || r.starts_with("~/");
            if !absolute {
                return Err(format!("library folder `{r}` must be an absolute path (or start with ~/)"));
            }
        }
        Ok(())
    }
}

/// contextree's config file (`contextree_ops::summarizer::config_path`: the one the
/// providers and hooks are read from).
pub fn config_path() -> Option<PathBuf> {
    // Tests point the commands at a scratch file without changing the process's environment,
    // which the other tests (and their config readers) share.
    #[cfg(test)]
    if let Some(path) = tests::CONFIG_PATH.lock().unwrap().clone() {
        return Some(path);
    }
    contextree_ops::summarizer::config_path()
}

/// The settings in `path` and, when they could not all be read, why (defaults are used then).
/// A missing file is no problem: it means defaults.
pub fn read(path: &Path) -> (AppSettings, Option<String>) {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (AppSettings::default(), None),
        Err(e) => return (AppSettings::default(), Some(format!("{}: {e}", path.display()))),
    };
    let section = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(mut top)) => top.remove(SECTION),
        Ok(_) => return (AppSettings::default(), Some(format!("{}: not a JSON object", path.display()))),
        Err(e) => return (AppSettings::default(), Some(format!("{}: {e}", path.display()))),
    };
    match section.map(serde_json::from_value::<AppSettings>) {
        None => (AppSettings::default(), None),
        Some(Ok(settings)) => (settings, None),
        Some(Err(e)) => (AppSettings::default(), Some(format!("{}: `{SECTION}`: {e}", path.display()))),
    }
}

/// The current settings (defaults when there is no config file or it cannot be read).
pub fn current() -> AppSettings {
    config_path().map(|p| read(&p).0).unwrap_or_default()
}

/// Stores `settings` under `"app"` in `path`, keeping everything else in the file.
pub fn write(path: &Path, settings: &AppSettings) -> Result<(), CommandError> {
    let fail = |why: String| CommandError::Settings(format!("{}: {why}", path.display()));
    settings.validate().map_err(CommandError::Settings)?;
    let (mut top, permissions) = match std::fs::read_to_string(path) {
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(top)) => (top, std::fs::metadata(path).ok().map(|m| file_mode(&m))),
            Ok(_) => return Err(fail("not a JSON object; not overwritten".into())),
            Err(e) => return Err(fail(format!("not valid JSON ({e}); not overwritten"))),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Map::new(), None),
        Err(e) => return Err(fail(e.to_string())),
    };
    let Value::Object(known) = serde_json::to_value(settings).map_err(|e| fail(e.to_string()))? else {
        unreachable!("AppSettings serializes to an object")
    };
    // Known keys are replaced in place; keys a newer app wrote inside the section stay.
    // (Never `remove`: with `preserve_order` it moves the last key into the hole.)
    match top.get_mut(SECTION) {
        Some(Value::Object(section)) => section.extend(known),
        _ => {
            top.insert(SECTION.to_owned(), Value::Object(known));
        }
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(top)).map_err(|e| fail(e.to_string()))?;
    text.push('\n');

    let dir = path.parent().ok_or_else(|| fail("no parent folder".into()))?;
    std::fs::create_dir_all(dir).map_err(|e| fail(e.to_string()))?;
    // The file may hold API keys: the new one gets the old one's permissions, a first one is
    // the owner's alone.
    contextree_host::atomic::write_whole(path, text.as_bytes(), Some(permissions.unwrap_or(0o600))).map_err(|e| fail(e.to_string()))
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

/// What the `settings` command returns.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    /// The config file (it may not exist yet); null when there is no home folder.
    pub path: Option<String>,
    pub settings: AppSettings,
    /// Why the stored settings could not be read (defaults are shown instead).
    pub warning: Option<String>,
}

fn view() -> SettingsView {
    let path = config_path();
    let (settings, warning) = path.as_deref().map(read).unwrap_or_default();
    SettingsView { path: path.map(|p| p.display().to_string()), settings, warning }
}

/// The app's settings, read from the config file.
/// The home folder (`$HOME`, when set and absolute): the page shows paths inside it as `~/…`
/// (`ui/src/paths.js`), as the library folders are written.
#[tauri::command]
pub fn home_dir() -> Option<String> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute() && h.as_os_str().len() > 1)
        .map(|h| h.to_string_lossy().trim_end_matches('/').to_owned())
}

#[tauri::command]
pub async fn settings() -> Result<SettingsView, CommandError> {
    Ok(tauri::async_runtime::spawn_blocking(view).await?)
}

/// Validates and stores the app's settings; returns them as now stored.
#[tauri::command]
pub async fn save_settings(settings: AppSettings) -> Result<SettingsView, CommandError> {
    tauri::async_runtime::spawn_blocking(move || {
        let path = config_path().ok_or_else(|| CommandError::Settings("no home folder to keep settings in".into()))?;
        write(&path, &settings)?;
        Ok(view())
    })
    .await?
}

#[cfg(test)]
mod tests;
