//! `compact`: summarize and append a compaction entry for a leaf.

use contextree_ops::compact::{self, CompactOptions};
use contextree_ops::Progress;
use tauri::ipc::Channel;
use tauri::State;

use super::{apply_summarized, reporter, Applied, SummarySource, WriteResult, WriteState};
use crate::commands::leaf;
use crate::{AppState, CommandError};

/// Compacts `leaf_id` (the file's leaf when `None`; the new entry's parent) with the agent's
/// settings, `keep_recent` overriding `keepRecentTokens`, and appends the entry. The summary is
/// `summary` when given (stored as a hook's), else from `source`; its text streams to
/// `on_event`. Hooks run as in `contextree compact`.
// The IPC contract's arguments, one per field (Tauri maps each to a camelCase key).
#[allow(clippy::too_many_arguments)]
#[tauri::command]
pub async fn compact(
    state: State<'_, AppState>,
    writes: State<'_, WriteState>,
    leaf_id: Option<String>,
    instructions: Option<String>,
    keep_recent: Option<u64>,
    source: Option<SummarySource>,
    summary: Option<String>,
    on_event: Channel<Progress>,
) -> Result<WriteResult, CommandError> {
    apply_summarized(&state, &writes, source, move |open, flags, pack, env, cancel| {
        let opts = CompactOptions {
            leaf: leaf(open, leaf_id.as_deref())?,
            pack,
            instructions: instructions.filter(|t| !t.trim().is_empty()),
            keep_recent,
            reserve: None,
            model_reasons: false,
            context: Vec::new(),
            summary: summary.filter(|t| !t.trim().is_empty()),
            provider: flags,
            env,
        };
        let done = compact::run(&open.loaded, &opts, &mut reporter(on_event), cancel)?;
        Ok(Applied::appended("compact", vec![done.line], Some(done.summarizer), done.warnings))
    })
    .await
}
