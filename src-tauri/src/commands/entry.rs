//! The entry panel: one entry's line as written in the file (the read layer's `EntryReport`,
//! as `contextree entry --json` prints it).

use contextree_read::EntryReport;
use tauri::State;

use super::{blocking, node};
use crate::{AppState, CommandError};

/// The raw JSON line of entry `id`, pretty-printed, and the diagnostics on its line.
#[tauri::command]
pub async fn entry_detail(state: State<'_, AppState>, id: String) -> Result<EntryReport, CommandError> {
    blocking(state.session()?, move |open| {
        let s = &open.loaded.session;
        Ok(EntryReport::new(s, node(open, &id)?, &open.loaded.source)?)
    })
    .await
}
