//! The budget bar (`contextree_face::budget`).

use contextree_read::BudgetReport;
use tauri::State;

use super::blocking;
use crate::{AppState, CommandError};

/// The budget of `leaf_id` (the file's leaf when `None`); `window` overrides the model table.
#[tauri::command]
pub async fn budget(state: State<'_, AppState>, leaf_id: Option<String>, window: Option<u64>) -> Result<BudgetReport, CommandError> {
    let env = state.env();
    blocking(state.session()?, move |open| contextree_face::budget::budget(&env, open, leaf_id.as_deref(), window)).await
}
