//! The context panel: what the model sees from a leaf.

use contextree_core::context::build;
use contextree_core::context::materialize::context_tokens;
use contextree_core::context::usage::estimate_context_tokens;
use contextree_core::view::context_messages;
use tauri::State;

use super::{blocking, leaf};
use crate::dto::ContextView;
use crate::{AppState, CommandError};

/// Characters of message text sent to the UI per message (the rest is marked as cut).
const TEXT_CHARS: usize = 8_000;

/// The context of `leaf_id` (the file's leaf when `None`): messages, totals, prompt pack.
#[tauri::command]
pub async fn context_view(
    state: State<'_, AppState>,
    leaf_id: Option<String>,
) -> Result<ContextView, CommandError> {
    blocking(state.session()?, move |open| {
        let (s, src, pack) = (&open.loaded.session, &open.loaded.source, &open.pack);
        let ctx = build(s, leaf(open, leaf_id.as_deref())?);
        let tokens = context_tokens(s, &ctx, pack, src)?;
        let estimate = estimate_context_tokens(s, &ctx, &tokens);
        let messages = context_messages(s, &ctx, &tokens, pack, src, TEXT_CHARS)?;
        Ok(ContextView::new(
            s,
            ctx.leaf,
            &tokens,
            &estimate,
            pack.origin(),
            messages,
        ))
    })
    .await
}
