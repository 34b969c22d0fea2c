//! The app's own settings (`contextree_face::settings`).

pub use contextree_face::settings::*;
use tauri::{AppHandle, Runtime, State};

use crate::{AppState, CommandError};

/// The home folder (`$HOME`, when set and absolute): the page shows paths inside it as `~/…`.
#[tauri::command]
pub fn home_dir(state: State<'_, AppState>) -> Option<String> {
    contextree_face::settings::home_dir(&state.env())
}

/// The app's settings, read from the config file.
#[tauri::command]
pub async fn settings<R: Runtime>(app: AppHandle<R>) -> Result<SettingsView, CommandError> {
    super::on_state(app, |state| Ok(view(&state.env()))).await
}

/// Validates and stores the app's settings; returns them as now stored.
#[tauri::command]
pub async fn save_settings<R: Runtime>(app: AppHandle<R>, settings: AppSettings) -> Result<SettingsView, CommandError> {
    super::on_state(app, move |state| save(&state.env(), &settings)).await
}

#[cfg(test)]
mod tests;
