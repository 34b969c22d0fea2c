//! The budget bar: how full a leaf's context is against the window and the compaction rules
//! (the read layer's `BudgetReport`, as `contextree budget --json` prints it).

use contextree_core::context::build;
use contextree_read::BudgetReport;
use tauri::State;

use super::{blocking, leaf};
use crate::{AppState, CommandError};

/// The budget of `leaf_id` (the file's leaf when `None`); `window` overrides the model table.
/// Compaction settings are the agent's own (its settings files), with the defaults.
#[tauri::command]
pub async fn budget(state: State<'_, AppState>, leaf_id: Option<String>, window: Option<u64>) -> Result<BudgetReport, CommandError> {
    let env = state.env();
    blocking(state.session()?, move |open| {
        let (s, src, pack) = (&open.loaded.session, &open.loaded.source, &open.pack);
        let ctx = build(s, leaf(open, leaf_id.as_deref())?);
        let settings = env.agent_settings(s.dialect()).compaction;
        Ok(BudgetReport::new(s, &ctx, pack, src, &settings, window)?)
    })
    .await
}
