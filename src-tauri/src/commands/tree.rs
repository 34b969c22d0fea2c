//! The tree pane (`contextree_face::tree`): the table as binary columns, previews.

pub use contextree_face::tree::wire;
use contextree_read::RowPreview;
use tauri::ipc::Response;
use tauri::State;

use super::blocking;
use crate::{AppState, CommandError};

/// The tree for `leaf_id` (the file's leaf when `None`) as one binary buffer (an `ArrayBuffer`
/// in the UI; the format is described in `contextree_face::tree::wire`).
#[tauri::command]
pub async fn tree_table(state: State<'_, AppState>, leaf_id: Option<String>, reading: Option<u32>) -> Result<Response, CommandError> {
    blocking(state.session()?, move |open| contextree_face::tree::table(open, leaf_id.as_deref(), reading).map(Response::new)).await
}

/// One-line previews of `ids` (the rows on screen); unknown ids get an empty text.
#[tauri::command]
pub async fn row_previews(state: State<'_, AppState>, ids: Vec<String>) -> Result<Vec<RowPreview>, CommandError> {
    blocking(state.session()?, move |open| Ok(contextree_face::tree::row_previews(open, &ids))).await
}
