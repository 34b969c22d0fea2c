//! The tree pane: flattened rows for a leaf, previews for the rows on screen.
//!
//! The UI asks for `tree_table` (binary columns, see `wire`).

pub(crate) mod wire;

use contextree_core::context::{build, entry_states};
use contextree_core::view;
use tauri::ipc::Response;
use tauri::State;

use super::{blocking, leaf, node};
use crate::{AppState, CommandError};
use contextree_read::{row_previews as row_previews_of, RowPreview};

/// Characters of a row preview.
const PREVIEW_CHARS: usize = 120;

/// Every row of the tree for `leaf_id` (the file's leaf when `None`) as one binary buffer of
/// columns (an `ArrayBuffer` in the UI): the format is described in `tree/wire.rs`.
#[tauri::command]
pub async fn tree_table(state: State<'_, AppState>, leaf_id: Option<String>) -> Result<Response, CommandError> {
    blocking(state.session()?, move |open| {
        let started = std::time::Instant::now();
        let s = &open.loaded.session;
        let ctx = build(s, leaf(open, leaf_id.as_deref())?);
        let states = entry_states(s, &ctx);
        let layout = view::tree_layout(s);
        let prepare_us = u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX);
        Ok(Response::new(wire::encode(s, &layout, &states, ctx.leaf, prepare_us)))
    })
    .await
}

/// One-line previews of `ids` (the rows on screen); unknown ids get an empty text.
#[tauri::command]
pub async fn row_previews(state: State<'_, AppState>, ids: Vec<String>) -> Result<Vec<RowPreview>, CommandError> {
    blocking(state.session()?, move |open| {
        let nodes: Vec<_> = ids.iter().filter_map(|id| node(open, id).ok()).collect();
        Ok(row_previews_of(&open.loaded.session, &nodes, &open.loaded.source, PREVIEW_CHARS))
    })
    .await
}
