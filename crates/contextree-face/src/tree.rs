//! The tree pane: flattened rows for a leaf, previews for the rows on screen.
//!
//! The UI asks for `tree_table` (binary columns, see `wire`).

pub mod sent;
pub mod wire;

use std::sync::Arc;

use contextree_core::context::{build, path_states};
use contextree_core::view;
use contextree_read::{row_previews as row_previews_of, RowPreview};

use crate::state::OpenSession;
use crate::{leaf, node, CommandError};
use sent::{changed_rows, full_states};

/// Characters of a row preview.
const PREVIEW_CHARS: usize = 120;

/// A leaf change sends the changed rows (6 bytes each) rather than every row's leaf columns
/// (2 bytes each) while they are at most this fraction of the rows.
const CHANGES_UP_TO: usize = 8;

/// The tree for `leaf_id` (the file's leaf when `None`) as one binary buffer (the format is
/// described in `tree/wire.rs`): every row; or, when `reading` (the reading the caller's table
/// came from) is still the open one, only the leaf's columns — of the rows whose columns
/// differ from those of `held_leaf` (the leaf of the caller's table) when they are few.
pub fn table(open: &OpenSession, leaf_id: Option<&str>, reading: Option<u32>, held_leaf: Option<&str>) -> Result<Vec<u8>, CommandError> {
    let started = std::time::Instant::now();
    let s = &open.loaded.session;
    let entries = s.entries().len();
    let ctx = build(s, leaf(open, leaf_id)?);
    let touched = Arc::new(path_states(s, &ctx));
    let elapsed = || u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX);
    if let Some(rows) = open.tree.rows.get().filter(|_| reading == Some(open.reading)) {
        let held = held_leaf.and_then(|id| node(open, id).ok());
        if let (Some(held), Some(row_of)) = (held, open.tree.row_of(entries)) {
            let before = open.tree.states_of(s, held);
            let (changed, states) = changed_rows(entries, (Some(held), &before), (ctx.leaf, &touched), row_of);
            if changed.len() <= rows.len() / CHANGES_UP_TO {
                open.tree.remember(ctx.leaf, touched);
                let stamp = wire::Stamp { reading: open.reading, prepare_us: elapsed() };
                let columns = wire::LeafColumns { states: &states, leaf: ctx.leaf };
                return Ok(wire::encode_changes(s, rows, row_of, &changed, columns, Some(held), stamp));
            }
        }
        let states = full_states(entries, &touched);
        open.tree.remember(ctx.leaf, touched);
        let stamp = wire::Stamp { reading: open.reading, prepare_us: elapsed() };
        return Ok(wire::encode_leaf(s, rows, wire::LeafColumns { states: &states, leaf: ctx.leaf }, stamp));
    }
    let states = full_states(entries, &touched);
    let layout = view::tree_layout(s);
    let stamp = wire::Stamp { reading: open.reading, prepare_us: elapsed() };
    let table = wire::encode(s, &layout, wire::LeafColumns { states: &states, leaf: ctx.leaf }, stamp);
    open.tree.remember(ctx.leaf, touched);
    let _ = open.tree.rows.set(layout.nodes);
    Ok(table)
}

/// One-line previews of `ids` (the rows on screen); unknown ids get an empty text.
pub fn row_previews(open: &OpenSession, ids: &[String]) -> Vec<RowPreview> {
    let nodes: Vec<_> = ids.iter().filter_map(|id| node(open, id).ok()).collect();
    row_previews_of(&open.loaded.session, &nodes, &open.loaded.source, PREVIEW_CHARS)
}
