//! Undo a compaction, append-only (docs/decisions.md D14): the `contextree-continue` marker under
//! the compaction's parent, i.e. a navigation without summary to the entry before it. Neither
//! agent puts the marker in the context, so the file's leaf then sees the context of the
//! compaction's parent: no summary, the full history (checked against the agents by the
//! oracle tests). The compaction stays in the file, on a branch of its own.

use contextree_core::compaction::new_entry_id;
use contextree_core::session::NodeId;
use contextree_host::write::{now_iso, random_u32};
use contextree_host::LoadedSession;

use crate::navigate::continue_line;
use crate::one_line::{self, OneLine};
use crate::{OpsError, CONTINUE_TYPE};

/// What an undo would write.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoPreview {
    /// The compaction undone.
    pub compaction_id: String,
    /// Its parent, where the marker goes.
    pub target_id: String,
    /// The entry written (`{type: 'custom', customType: 'contextree-continue'}`).
    pub entry: MarkerKind,
    /// What the write does, in words.
    pub note: String,
}

/// The kind of entry an undo writes: `{type: 'custom', customType: 'contextree-continue'}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MarkerKind {
    /// The entry's `type`: `custom`.
    #[serde(rename = "type")]
    pub entry_type: &'static str,
    /// Its `customType`: `contextree-continue`.
    pub custom_type: &'static str,
}

/// What an undo wrote.
pub type UndoOutcome = OneLine;

/// The compaction's parent.
fn target(loaded: &LoadedSession, compaction: NodeId) -> Result<NodeId, OpsError> {
    let e = one_line::compaction(loaded, compaction)?;
    loaded.session.tree().parent(compaction).ok_or_else(|| OpsError::Refused(format!("compaction {} has no parent to continue from", e.id)))
}

/// What [`run`] would write.
pub fn preview(loaded: &LoadedSession, compaction: NodeId) -> Result<UndoPreview, OpsError> {
    let s = &loaded.session;
    let parent = target(loaded, compaction)?;
    let (cid, pid) = (s.entry(compaction).id.to_string(), s.entry(parent).id.to_string());
    Ok(UndoPreview {
        compaction_id: cid.clone(),
        target_id: pid.clone(),
        entry: MarkerKind { entry_type: "custom", custom_type: CONTINUE_TYPE },
        note: format!("appends a {CONTINUE_TYPE} marker under {pid}, the entry before compaction {cid}: the agents continue from there with the full history and no summary; the compaction stays in the file on its own branch"),
    })
}

/// Appends the marker.
pub fn run(loaded: &LoadedSession, compaction: NodeId) -> Result<UndoOutcome, OpsError> {
    let s = &loaded.session;
    let parent = target(loaded, compaction)?;
    let mut draw = random_u32;
    let id = new_entry_id(s, &mut draw);
    let parent_id = s.entry(parent).id.to_string();
    let from = s.leaf().map(|n| s.entry(n).id.to_string());
    let line = continue_line(&id, &parent_id, from, &now_iso());
    one_line::append(loaded, id, parent_id, line, "nothing was written; reload and undo again", "the marker")
}
