//! The PLAN panel, a compaction's requests and the usage dialog (`contextree_face::compaction`).

use contextree_face::compaction;
use serde_json::value::RawValue;
use tauri::State;

use super::blocking;
use crate::{AppState, CommandError};

/// The compaction plan of `leaf_id` (the file's leaf when `None`), read only.
#[tauri::command]
pub async fn compaction_preview(
    state: State<'_, AppState>,
    leaf_id: Option<String>,
    keep_recent: Option<u64>,
    instructions: Option<String>,
) -> Result<Box<RawValue>, CommandError> {
    let env = state.env();
    blocking(state.session()?, move |open| compaction::preview(&env, open, leaf_id.as_deref(), keep_recent, instructions)).await
}

/// The user requests compaction `compaction_id` summarized, checked against its summary.
#[tauri::command]
pub async fn compaction_requests(state: State<'_, AppState>, compaction_id: String) -> Result<Box<RawValue>, CommandError> {
    blocking(state.session()?, move |open| compaction::requests(open, &compaction_id)).await
}

/// What the open session cost, omp's subagents included.
#[tauri::command]
pub async fn usage_report(state: State<'_, AppState>) -> Result<Box<RawValue>, CommandError> {
    let env = state.env();
    blocking(state.session()?, move |open| compaction::usage(&env, open)).await
}

/// What made the context of `leaf_id` grow.
#[tauri::command]
pub async fn weight_report(state: State<'_, AppState>, leaf_id: Option<String>, top: Option<usize>) -> Result<Box<RawValue>, CommandError> {
    blocking(state.session()?, move |open| compaction::weight(open, leaf_id.as_deref(), top)).await
}
