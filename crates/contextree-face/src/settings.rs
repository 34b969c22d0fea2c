//! The app's own settings: theme, tokenizer, default context window, library roots.
//!
//! They live in contextree's config file under `"app"`; reading, merging and the atomic write
//! are contextree-host's (`contextree_host::config`). Blocking: they read the file.

use std::path::Path;

pub use contextree_host::config::AppSettings;
use contextree_host::HostEnv;
use serde::Serialize;

use crate::CommandError;

/// The settings in `path` and, when they could not all be read, why (defaults are used then).
pub fn read(path: &Path) -> (AppSettings, Option<String>) {
    let (settings, warning) = contextree_host::config::read_app(path);
    (settings, warning.map(|w| w.to_string()))
}

/// The current settings (defaults when there is no config file or it cannot be read).
pub fn current(env: &HostEnv) -> AppSettings {
    env.config_path.as_deref().map(|p| contextree_host::config::read_app(p).0).unwrap_or_default()
}

/// Stores `settings` under `"app"` in `path`, keeping everything else in the file.
pub fn write(path: &Path, settings: &AppSettings) -> Result<(), CommandError> {
    Ok(contextree_host::config::write_app(path, settings)?)
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

/// The app's settings, read from the config file.
pub fn view(env: &HostEnv) -> SettingsView {
    let path = env.config_path.as_deref();
    let (settings, warning) = path.map(read).unwrap_or_default();
    SettingsView { path: path.map(|p| p.display().to_string()), settings, warning }
}

/// The home folder (`$HOME`, when set and absolute): the page shows paths inside it as `~/…`
/// (`ui/src/paths.js`), as the library folders are written.
pub fn home_dir(env: &HostEnv) -> Option<String> {
    env.home.clone().filter(|h| h.is_absolute() && h.as_os_str().len() > 1).map(|h| h.to_string_lossy().trim_end_matches('/').to_owned())
}

/// Validates and stores the app's settings; returns them as now stored.
pub fn save(env: &HostEnv, settings: &AppSettings) -> Result<SettingsView, CommandError> {
    let path = env.config_path.as_deref().ok_or(CommandError::NoConfigFolder)?;
    write(path, settings)?;
    Ok(view(env))
}
