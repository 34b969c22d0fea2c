//! Edit a summary and undo a compaction: both append-only, both previewed.

use contextree_ops::edit_summary::{self, EditPreview};
use contextree_ops::undo_compaction::{self, UndoPreview};
use tauri::State;

use super::{apply, Applied, WriteResult, WriteState};
use crate::commands::{blocking, node};
use crate::{AppState, CommandError};

/// What `edit_summary` would write for `compaction_id` (refused unless it is the compaction in
/// effect for the file's leaf).
#[tauri::command]
pub async fn edit_summary_preview(state: State<'_, AppState>, compaction_id: String) -> Result<EditPreview, CommandError> {
    blocking(state.session()?, move |open| Ok(edit_summary::preview(&open.loaded, node(open, &compaction_id)?)?)).await
}

/// Appends a corrected copy of `compaction_id` with `summary`, marked as supplied by the user.
#[tauri::command]
pub async fn edit_summary(
    state: State<'_, AppState>,
    writes: State<'_, WriteState>,
    compaction_id: String,
    summary: String,
) -> Result<WriteResult, CommandError> {
    apply(&state, &writes, move |open, _| {
        let done = edit_summary::run(&open.loaded, node(open, &compaction_id)?, &summary)?;
        Ok(Applied::appended("edit-summary", vec![done.line], Some(contextree_ops::Summarizer::Supplied), done.warnings))
    })
    .await
}

/// What `undo_compaction` would write: the D14 marker under the compaction's parent.
#[tauri::command]
pub async fn undo_compaction_preview(state: State<'_, AppState>, compaction_id: String) -> Result<UndoPreview, CommandError> {
    blocking(state.session()?, move |open| Ok(undo_compaction::preview(&open.loaded, node(open, &compaction_id)?)?)).await
}

/// Continues from the entry before `compaction_id` (no summary, the full history).
#[tauri::command]
pub async fn undo_compaction(
    state: State<'_, AppState>,
    writes: State<'_, WriteState>,
    compaction_id: String,
) -> Result<WriteResult, CommandError> {
    apply(&state, &writes, move |open, _| {
        let done = undo_compaction::run(&open.loaded, node(open, &compaction_id)?)?;
        Ok(Applied::appended("undo-compaction", vec![done.line], None, done.warnings))
    })
    .await
}
