//! `prune_preview` / `prune` (`contextree_face::write::prune`).

use contextree_face::write::prune;
use serde_json::value::RawValue;
use tauri::{AppHandle, Runtime, State};

use super::{on_writes, WriteResult};
use crate::commands::blocking;
use crate::{AppState, CommandError};

/// The plan for `leaf_id` (the file's leaf when `None`), with the agent's defaults. Writes nothing.
#[tauri::command]
pub async fn prune_preview(state: State<'_, AppState>, leaf_id: Option<String>) -> Result<Box<RawValue>, CommandError> {
    blocking(state.session()?, move |open| prune::prune_preview(open, leaf_id.as_deref())).await
}

/// Prunes `leaf_id`'s path as the agent would in a turn (a backup is kept).
#[tauri::command]
pub async fn prune<R: Runtime>(app: AppHandle<R>, leaf_id: Option<String>) -> Result<WriteResult, CommandError> {
    on_writes(app, move |state, writes| prune::prune(state, writes, leaf_id.as_deref())).await
}
