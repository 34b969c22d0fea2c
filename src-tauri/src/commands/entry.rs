//! The entry panel (`contextree_face::entry`).

use contextree_read::EntryReport;
use tauri::State;

use super::blocking;
use crate::{AppState, CommandError};

/// The raw JSON line of entry `id`, pretty-printed, and the diagnostics on its line.
#[tauri::command]
pub async fn entry_detail(state: State<'_, AppState>, id: String) -> Result<EntryReport, CommandError> {
    blocking(state.session()?, move |open| contextree_face::entry::detail(open, &id)).await
}
