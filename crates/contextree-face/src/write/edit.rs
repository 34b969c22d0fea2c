//! Edit a summary and undo a compaction: both append-only, both previewed.

use contextree_ops::edit_summary::{self, EditPreview};
use contextree_ops::undo_compaction::{self, UndoPreview};

use super::{apply, Applied, WriteResult, WriteState};
use crate::state::OpenSession;
use crate::{node, AppState, CommandError};

/// What `edit_summary` would write for `compaction_id` (refused unless it is the compaction in
/// effect for the file's leaf).
pub fn edit_summary_preview(open: &OpenSession, compaction_id: &str) -> Result<EditPreview, CommandError> {
    Ok(edit_summary::preview(&open.loaded, node(open, compaction_id)?)?)
}

/// Appends a corrected copy of `compaction_id` with `summary`, marked as supplied by the user.
pub fn edit_summary(state: &AppState, writes: &WriteState, compaction_id: &str, summary: &str) -> Result<WriteResult, CommandError> {
    apply(state, writes, move |open, _| {
        let done = edit_summary::run(&open.loaded, node(open, compaction_id)?, summary)?;
        Ok(Applied::appended("edit-summary", vec![done.line], Some(contextree_ops::Summarizer::Supplied), done.warnings))
    })
}

/// What `undo_compaction` would write: the D14 marker under the compaction's parent.
pub fn undo_compaction_preview(open: &OpenSession, compaction_id: &str) -> Result<UndoPreview, CommandError> {
    Ok(undo_compaction::preview(&open.loaded, node(open, compaction_id)?)?)
}

/// Continues from the entry before `compaction_id` (no summary, the full history).
pub fn undo_compaction(state: &AppState, writes: &WriteState, compaction_id: &str) -> Result<WriteResult, CommandError> {
    apply(state, writes, move |open, _| {
        let done = undo_compaction::run(&open.loaded, node(open, compaction_id)?)?;
        Ok(Applied::appended("undo-compaction", vec![done.line], None, done.warnings))
    })
}
