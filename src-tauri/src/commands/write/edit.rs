//! Edit a summary and undo a compaction (`contextree_face::write::edit`).

use contextree_face::write::edit;
use contextree_ops::edit_summary::EditPreview;
use contextree_ops::undo_compaction::UndoPreview;
use tauri::{AppHandle, Runtime, State};

use super::{on_writes, WriteResult};
use crate::commands::blocking;
use crate::{AppState, CommandError};

/// What `edit_summary` would write for `compaction_id`.
#[tauri::command]
pub async fn edit_summary_preview(state: State<'_, AppState>, compaction_id: String) -> Result<EditPreview, CommandError> {
    blocking(state.session()?, move |open| edit::edit_summary_preview(open, &compaction_id)).await
}

/// Appends a corrected copy of `compaction_id` with `summary`, marked as supplied by the user.
#[tauri::command]
pub async fn edit_summary<R: Runtime>(app: AppHandle<R>, compaction_id: String, summary: String) -> Result<WriteResult, CommandError> {
    on_writes(app, move |state, writes| edit::edit_summary(state, writes, &compaction_id, &summary)).await
}

/// What `undo_compaction` would write: the D14 marker under the compaction's parent.
#[tauri::command]
pub async fn undo_compaction_preview(state: State<'_, AppState>, compaction_id: String) -> Result<UndoPreview, CommandError> {
    blocking(state.session()?, move |open| edit::undo_compaction_preview(open, &compaction_id)).await
}

/// Continues from the entry before `compaction_id` (no summary, the full history).
#[tauri::command]
pub async fn undo_compaction<R: Runtime>(app: AppHandle<R>, compaction_id: String) -> Result<WriteResult, CommandError> {
    on_writes(app, move |state, writes| edit::undo_compaction(state, writes, &compaction_id)).await
}
