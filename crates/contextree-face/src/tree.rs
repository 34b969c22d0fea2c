//! The tree pane: flattened rows for a leaf, previews for the rows on screen.
//!
//! The UI asks for `tree_table` (binary columns, see `wire`).

pub mod sent;
pub mod wire;

use std::sync::Arc;

use contextree_core::context::{aligned_states, build, states_from_path, Leaf};
use contextree_core::view;
use contextree_read::{row_previews as row_previews_of, RowPreview};

use crate::state::OpenSession;
use crate::{leaf, node, CommandError};
use sent::changed_rows;

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
    let asked = leaf(open, leaf_id)?;
    let elapsed = || u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX);
    let Some(rows) = open.tree.rows.get().filter(|_| reading == Some(open.reading)) else {
        return Ok(whole(open, asked, started));
    };
    let to = asked.node(s);
    // The states alone, without the leaf's context (the context pane asks for that after the
    // tree is painted).
    let touched = open.tree.states_for(s, to);
    let held = held_leaf.and_then(|id| node(open, id).ok());
    if let (Some(held), Some(row_of)) = (held, open.tree.row_of(entries)) {
        let before = open.tree.states_of(s, held);
        let (changed, states) = changed_rows(entries, (Some(held), &before), (to, &touched), row_of);
        if changed.len() <= rows.len() / CHANGES_UP_TO {
            open.tree.remember(to, touched);
            let stamp = wire::Stamp { reading: open.reading, prepare_us: elapsed() };
            let columns = wire::LeafColumns { states: &states, leaf: to };
            return Ok(wire::encode_changes(s, rows, row_of, &changed, columns, Some(held), stamp));
        }
    }
    let states = states_from_path(entries, &touched);
    open.tree.remember(to, touched);
    let stamp = wire::Stamp { reading: open.reading, prepare_us: elapsed() };
    Ok(wire::encode_leaf(s, rows, wire::LeafColumns { states: &states, leaf: to }, stamp))
}

/// The whole table for `asked`: the first of a reading, the open's last step before the tree
/// is drawn. The rows do not depend on the leaf: they are laid out and encoded on a second
/// thread while the leaf's context is built on this one, and what later leaf changes need to
/// derive their states is made there too.
fn whole(open: &OpenSession, asked: Leaf, started: std::time::Instant) -> Vec<u8> {
    let s = &open.loaded.session;
    let (leaf, touched, states, (layout, structure)) = std::thread::scope(|scope| {
        let rows = scope.spawn(|| {
            let layout = view::tree_layout(s);
            let structure = wire::structure(s, &layout);
            open.tree.prepare(s);
            (layout, structure)
        });
        let ctx = build(s, asked);
        let touched = Arc::new(aligned_states(s, &ctx));
        let states = states_from_path(s.entries().len(), &touched);
        (ctx.leaf, touched, states, rows.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    });
    let prepare_us = u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX);
    let stamp = wire::Stamp { reading: open.reading, prepare_us };
    let table = wire::encode_whole(s, &structure, &layout.nodes, wire::LeafColumns { states: &states, leaf }, stamp);
    open.tree.remember(leaf, touched);
    let _ = open.tree.rows.set(layout.nodes);
    table
}

/// One-line previews of `ids` (the rows on screen); unknown ids get an empty text.
pub fn row_previews(open: &OpenSession, ids: &[String]) -> Vec<RowPreview> {
    let nodes: Vec<_> = ids.iter().filter_map(|id| node(open, id).ok()).collect();
    row_previews_of(&open.loaded.session, &nodes, &open.loaded.source, PREVIEW_CHARS)
}
