//! The tree pane: flattened rows for a leaf, previews for the rows on screen.
//!
//! The UI asks for `tree_table` (binary columns, see `wire`).

pub mod wire;

use contextree_core::context::{build, entry_states};
use contextree_core::view;
use contextree_read::{row_previews as row_previews_of, RowPreview};

use crate::state::OpenSession;
use crate::{leaf, node, CommandError};

/// Characters of a row preview.
const PREVIEW_CHARS: usize = 120;

/// The tree for `leaf_id` (the file's leaf when `None`) as one binary buffer (the format is
/// described in `tree/wire.rs`): every row, or only the leaf's columns when `reading` (the
/// reading the caller's table came from) is still the open one.
pub fn table(open: &OpenSession, leaf_id: Option<&str>, reading: Option<u32>) -> Result<Vec<u8>, CommandError> {
    let started = std::time::Instant::now();
    let s = &open.loaded.session;
    let ctx = build(s, leaf(open, leaf_id)?);
    let states = entry_states(s, &ctx);
    let columns = wire::LeafColumns { states: &states, leaf: ctx.leaf };
    let elapsed = || u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX);
    if let Some(rows) = open.tree_rows.get().filter(|_| reading == Some(open.reading)) {
        let stamp = wire::Stamp { reading: open.reading, prepare_us: elapsed() };
        return Ok(wire::encode_leaf(s, rows, columns, stamp));
    }
    let layout = view::tree_layout(s);
    let stamp = wire::Stamp { reading: open.reading, prepare_us: elapsed() };
    let table = wire::encode(s, &layout, columns, stamp);
    let _ = open.tree_rows.set(layout.nodes);
    Ok(table)
}

/// One-line previews of `ids` (the rows on screen); unknown ids get an empty text.
pub fn row_previews(open: &OpenSession, ids: &[String]) -> Vec<RowPreview> {
    let nodes: Vec<_> = ids.iter().filter_map(|id| node(open, id).ok()).collect();
    row_previews_of(&open.loaded.session, &nodes, &open.loaded.source, PREVIEW_CHARS)
}
