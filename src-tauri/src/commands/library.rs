//! The session library (`contextree_face::library`).

use contextree_read::LibraryReport;
use tauri::{AppHandle, Runtime};

use crate::CommandError;

/// Every pi / omp session of the library's folders, grouped by project, newest first; with
/// `search`, only the sessions containing every word.
#[tauri::command]
pub async fn list_sessions<R: Runtime>(app: AppHandle<R>, search: Option<String>) -> Result<LibraryReport, CommandError> {
    super::on_state(app, move |state| Ok(contextree_face::library::list(state, search.as_deref()))).await
}
