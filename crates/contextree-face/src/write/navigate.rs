//! `navigate_preview` / `navigate`: move the file's leaf (D14), with or without a branch summary.

use contextree_host::HostEnv;
use contextree_ops::navigate::{self, NavigateOptions};
use contextree_ops::summarizer::ProviderFlags;
use contextree_read::NavigateReport;
use serde_json::value::RawValue;

use super::{apply_summarized, pack_of, Applied, PackFn, Report, SummarySource, WriteResult, WriteState};
use crate::state::OpenSession;
use crate::{node, AppState, CommandError};

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
pub fn navigate_preview(
    env: &HostEnv,
    open: &OpenSession,
    target_id: &str,
    summarize: bool,
    instructions: Option<String>,
) -> Result<Box<RawValue>, CommandError> {
    let pack = pack_of(open);
    let opts = options(open, target_id, summarize, instructions, ProviderFlags::default(), &pack, env)?;
    let report = NavigateReport::new(&open.loaded.session, navigate::preview(&open.loaded, &opts)?);
    crate::raw(&report)
}

/// What `navigate` is asked (the UI's arguments).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NavigateArgs {
    /// The entry that becomes the leaf.
    pub target_id: String,
    /// A branch summary of what is left, instead of the marker.
    pub summarize: bool,
    /// The summary's custom instructions.
    pub instructions: Option<String>,
    /// Where the summary comes from.
    pub source: Option<SummarySource>,
}

/// Moves the file's leaf to `args.target_id`: a branch summary (`summarize`, text streamed to
/// `progress`) or the `contextree-continue` marker. Hooks run as in `contextree navigate`.
pub fn navigate(state: &AppState, writes: &WriteState, args: NavigateArgs, progress: Report<'_>) -> Result<WriteResult, CommandError> {
    let NavigateArgs { target_id, summarize, instructions, source } = args;
    apply_summarized(state, writes, source, move |open, flags, pack, env, cancel| {
        let opts = options(open, &target_id, summarize, instructions, flags, pack, env)?;
        let done = navigate::run(&open.loaded, &opts, progress, cancel)?;
        let action = done.action();
        let Some(w) = done.written else {
            return Err(contextree_ops::OpsError::Refused("the target is the leaf already; nothing was written".to_owned()).into());
        };
        Ok(Applied::appended(action, w.lines, w.summarizer, done.warnings))
    })
}
