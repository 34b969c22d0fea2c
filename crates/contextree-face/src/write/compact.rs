//! `compact`: summarize and append a compaction entry for a leaf.

use contextree_ops::compact::{self, CompactOptions};

use super::{apply_summarized, Applied, Report, SummarySource, WriteResult, WriteState};
use crate::{leaf, AppState, CommandError};

/// What `compact` is asked (the UI's arguments).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CompactArgs {
    /// The leaf to compact (the new entry's parent); the file's leaf when `None`.
    pub leaf_id: Option<String>,
    /// `/compact TEXT`'s custom instructions.
    pub instructions: Option<String>,
    /// Overrides `keepRecentTokens`.
    pub keep_recent: Option<u64>,
    /// Where the summary comes from.
    pub source: Option<SummarySource>,
    /// The summary itself (stored as a hook's), instead of asking for one.
    pub summary: Option<String>,
}

/// Compacts `args.leaf_id` with the agent's settings and appends the entry; the summary's text
/// streams to `progress`. Hooks run as in `contextree compact`.
pub fn compact(state: &AppState, writes: &WriteState, args: CompactArgs, progress: Report<'_>) -> Result<WriteResult, CommandError> {
    let CompactArgs { leaf_id, instructions, keep_recent, source, summary } = args;
    apply_summarized(state, writes, source, move |open, flags, pack, env, cancel| {
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
        let done = compact::run(&open.loaded, &opts, progress, cancel)?;
        Ok(Applied::appended("compact", vec![done.line], Some(done.summarizer), done.warnings))
    })
}
