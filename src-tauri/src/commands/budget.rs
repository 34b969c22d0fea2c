//! The budget bar: how full a leaf's context is against the window and the compaction rules.

use contextree_core::budget::budget as compute;
use contextree_core::context::build;
use contextree_core::context::materialize::context_tokens;
use contextree_core::context::usage::estimate_projected_context_tokens;
use tauri::State;

use super::{blocking, leaf};
use crate::dto::BudgetView;
use crate::{AppState, CommandError};

/// The budget of `leaf_id` (the file's leaf when `None`); `window` overrides the model table.
/// Compaction settings are the agent's own (its settings files), with the defaults.
#[tauri::command]
pub async fn budget(state: State<'_, AppState>, leaf_id: Option<String>, window: Option<u64>) -> Result<BudgetView, CommandError> {
    let env = state.env();
    blocking(state.session()?, move |open| {
        let (s, src, pack) = (&open.loaded.session, &open.loaded.source, &open.pack);
        let ctx = build(s, leaf(open, leaf_id.as_deref())?);
        let tokens = context_tokens(s, &ctx, pack, src)?;
        // What the agent shows (pi ≥ 0.86: the projected estimate, pi-1.6.md §3.4).
        let estimate = estimate_projected_context_tokens(s, &ctx, &tokens, src)?;
        let settings = env.agent_settings(s.dialect()).compaction;
        let per_message: Vec<u64> = tokens.messages.iter().map(|m| m.2).collect();
        let b = compute(s, &ctx, &estimate, &per_message, &settings, window, src)?;
        Ok(BudgetView::new(s, ctx.leaf, b))
    })
    .await
}
