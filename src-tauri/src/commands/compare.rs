//! The compare dialog (`contextree_face::compare`).

use serde_json::value::RawValue;
use tauri::State;

use super::blocking;
use crate::{AppState, CommandError};

/// Leaf `leaf_a`'s context (A) beside `leaf_b`'s (B; `None`: the file's leaf).
#[tauri::command]
pub async fn compare_view(
    state: State<'_, AppState>,
    leaf_a: Option<String>,
    leaf_b: Option<String>,
) -> Result<Box<RawValue>, CommandError> {
    blocking(state.session()?, move |open| contextree_face::compare::view(open, leaf_a.as_deref(), leaf_b.as_deref())).await
}
