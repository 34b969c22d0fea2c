//! `navigate_preview` / `navigate` (`contextree_face::write::navigate`).

use contextree_face::write::navigate::{self, NavigateArgs};
use contextree_ops::Progress;
use serde_json::value::RawValue;
use tauri::ipc::Channel;
use tauri::{AppHandle, Runtime, State};

use super::{on_writes, reporter, SummarySource, WriteResult};
use crate::commands::blocking;
use crate::{AppState, CommandError};

/// What `navigate` would write for `target_id`: placement, abandoned entries, the summary call.
#[tauri::command]
pub async fn navigate_preview(
    state: State<'_, AppState>,
    target_id: String,
    summarize: bool,
    instructions: Option<String>,
) -> Result<Box<RawValue>, CommandError> {
    let env = state.env();
    blocking(state.session()?, move |open| navigate::navigate_preview(&env, open, &target_id, summarize, instructions)).await
}

/// Moves the file's leaf to `target_id`: a branch summary (`summarize`, text streamed to
/// `on_event`) or the `contextree-continue` marker. Hooks run as in `contextree navigate`.
#[tauri::command]
pub async fn navigate<R: Runtime>(
    app: AppHandle<R>,
    target_id: String,
    summarize: bool,
    instructions: Option<String>,
    source: Option<SummarySource>,
    on_event: Channel<Progress>,
) -> Result<WriteResult, CommandError> {
    let args = NavigateArgs { target_id, summarize, instructions, source };
    on_writes(app, move |state, writes| navigate::navigate(state, writes, args, &mut reporter(on_event))).await
}
