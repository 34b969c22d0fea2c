//! The compare dialog: two leaves' contexts side by side, the read layer's `CompareReport` (as
//! `contextree compare --json` prints it) with each sent message's text.

use contextree_core::context::build;
use contextree_read::{CompareOptions, CompareReport};
use serde_json::value::RawValue;

use crate::state::OpenSession;
use crate::{leaf, CommandError};

/// Characters of message text sent per cell: the dialog shows a message's first line and the
/// rest on hover.
const TEXT_CHARS: usize = 2_000;

/// Leaf `leaf_a`'s context (A) beside `leaf_b`'s (B; `None`: the file's leaf), written to JSON
/// (its rows are made while written, from the open session).
pub fn view(open: &OpenSession, leaf_a: Option<&str>, leaf_b: Option<&str>) -> Result<Box<RawValue>, CommandError> {
    let (s, src, pack) = (&open.loaded.session, &open.loaded.source, &open.pack);
    let a = build(s, leaf(open, leaf_a)?);
    let b = build(s, leaf(open, leaf_b)?);
    let report = CompareReport::new(s, &a, &b, pack, src, CompareOptions { text_chars: Some(TEXT_CHARS) })?;
    let json = crate::raw(&report)?;
    report.finish()?;
    Ok(json)
}
