//! `navigate_preview` / `navigate`: move the file's leaf (D14), with or without a branch summary.

use contextree_host::HostEnv;
use contextree_ops::navigate::{self, NavigateOptions};
use contextree_ops::summarizer::ProviderFlags;
use contextree_ops::Progress;
use contextree_read::NavigateReport;
use serde_json::value::RawValue;
use tauri::ipc::Channel;
use tauri::State;

use super::{apply_summarized, pack_of, reporter, Applied, PackFn, SummarySource, WriteResult, WriteState};
use crate::commands::{blocking, node};
use crate::state::OpenSession;
use crate::{AppState, CommandError};

fn options<'a>(
    open: &OpenSession,
    target_id: &str,
    summarize: bool,
    instructions: Option<String>,
    provider: ProviderFlags,
    pack: &'a PackFn<'a>,
    env: &'a HostEnv,
) -> Result<NavigateOptions<'a>, CommandError> {
    Ok(NavigateOptions {
        target: node(open, target_id)?,
        from: None,
        summarize,
        instructions: instructions.filter(|t| !t.trim().is_empty()),
        replace_instructions: false,
        window: None,
        reserve: None,
        label: None,
        provider,
        // The app does not know whether the configured model reasons.
        model_reasons: false,
        pack,
        env,
    })
}

/// What `navigate` would write for `target_id`: placement, abandoned entries, the summary call.
#[tauri::command]
pub async fn navigate_preview(
    state: State<'_, AppState>,
    target_id: String,
    summarize: bool,
    instructions: Option<String>,
) -> Result<Box<RawValue>, CommandError> {
    let env = state.env();
    blocking(state.session()?, move |open| {
        let pack = pack_of(open);
        let opts = options(open, &target_id, summarize, instructions, ProviderFlags::default(), &pack, &env)?;
        let report = NavigateReport::new(&open.loaded.session, navigate::preview(&open.loaded, &opts)?);
        serde_json::value::to_raw_value(&report).map_err(CommandError::Report)
    })
    .await
}

/// Moves the file's leaf to `target_id`: a branch summary (`summarize`, text streamed to
/// `on_event`) or the `contextree-continue` marker. Hooks run as in `contextree navigate`.
#[tauri::command]
pub async fn navigate(
    state: State<'_, AppState>,
    writes: State<'_, WriteState>,
    target_id: String,
    summarize: bool,
    instructions: Option<String>,
    source: Option<SummarySource>,
    on_event: Channel<Progress>,
) -> Result<WriteResult, CommandError> {
    apply_summarized(&state, &writes, source, move |open, flags, pack, env, cancel| {
        let opts = options(open, &target_id, summarize, instructions, flags, pack, env)?;
        let done = navigate::run(&open.loaded, &opts, &mut reporter(on_event), cancel)?;
        let action = done.action();
        let Some(w) = done.written else {
            return Err(contextree_ops::OpsError::Refused("the target is the leaf already; nothing was written".to_owned()).into());
        };
        Ok(Applied::appended(action, w.lines, w.summarizer, done.warnings))
    })
    .await
}
