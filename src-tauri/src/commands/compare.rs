//! The compare dialog: two leaves' contexts side by side, the read layer's `CompareReport` (as
//! `contextree compare --json` prints it) with each sent message's text.

use contextree_core::context::build;
use contextree_read::{CompareOptions, CompareReport};
use serde_json::value::RawValue;
use tauri::State;

use super::{blocking, leaf};
use crate::{AppState, CommandError};

/// Characters of message text sent per cell: the dialog shows a message's first line and the
/// rest on hover.
const TEXT_CHARS: usize = 2_000;

/// Leaf `leaf_a`'s context (A) beside `leaf_b`'s (B; `None`: the file's leaf), written to JSON
/// on the blocking thread (its rows are made while written, from the open session).
#[tauri::command]
pub async fn compare_view(
    state: State<'_, AppState>,
    leaf_a: Option<String>,
    leaf_b: Option<String>,
) -> Result<Box<RawValue>, CommandError> {
    blocking(state.session()?, move |open| {
        let (s, src, pack) = (&open.loaded.session, &open.loaded.source, &open.pack);
        let a = build(s, leaf(open, leaf_a.as_deref())?);
        let b = build(s, leaf(open, leaf_b.as_deref())?);
        let report = CompareReport::new(s, &a, &b, pack, src, CompareOptions { text_chars: Some(TEXT_CHARS) })?;
        let json = serde_json::value::to_raw_value(&report).map_err(CommandError::Report)?;
        report.finish()?;
        Ok(json)
    })
    .await
}
