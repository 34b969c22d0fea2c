//! Search across every session (`contextree_face::search`); the index's progress goes to a
//! `Channel`.

use contextree_face::search::{self, IndexProgress};
use contextree_read::{IndexedReport, SearchReport};
use tauri::ipc::Channel;
use tauri::{AppHandle, Runtime};

use crate::CommandError;

/// Brings the index of every session up to date, reporting `{ done, total }` files on
/// `on_progress`.
#[tauri::command]
pub async fn search_index<R: Runtime>(app: AppHandle<R>, on_progress: Channel<IndexProgress>) -> Result<IndexedReport, CommandError> {
    super::on_state(app, move |state| {
        search::bring_up_to_date(state, &|p| {
            let _ = on_progress.send(p);
        })
    })
    .await
}

/// Searches every session for `query`, best first, after bringing the index up to date.
#[tauri::command]
pub async fn search_sessions<R: Runtime>(app: AppHandle<R>, query: String, limit: Option<usize>) -> Result<SearchReport, CommandError> {
    super::on_state(app, move |state| search::search(state, &query, limit)).await
}
