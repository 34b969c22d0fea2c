//! `compact` (`contextree_face::write::compact`).

use contextree_face::write::compact::{self, CompactArgs};
use contextree_ops::Progress;
use tauri::ipc::Channel;
use tauri::{AppHandle, Runtime};

use super::{on_writes, reporter, SummarySource, WriteResult};
use crate::CommandError;

/// Compacts `leaf_id` (the file's leaf when `None`; the new entry's parent) with the agent's
/// settings, `keep_recent` overriding `keepRecentTokens`, and appends the entry. The summary is
/// `summary` when given (stored as a hook's), else from `source`; its text streams to
/// `on_event`. Hooks run as in `contextree compact`.
// The IPC contract's arguments, one per field (Tauri maps each to a camelCase key).
#[allow(clippy::too_many_arguments)]
#[tauri::command]
pub async fn compact<R: Runtime>(
    app: AppHandle<R>,
    leaf_id: Option<String>,
    instructions: Option<String>,
    keep_recent: Option<u64>,
    source: Option<SummarySource>,
    summary: Option<String>,
    on_event: Channel<Progress>,
) -> Result<WriteResult, CommandError> {
    let args = CompactArgs { leaf_id, instructions, keep_recent, source, summary };
    on_writes(app, move |state, writes| compact::compact(state, writes, args, &mut reporter(on_event))).await
}
