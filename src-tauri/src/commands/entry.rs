//! The entry panel: one entry's line as written in the file.

use contextree_core::context::materialize::ReadBackError;
use contextree_core::session::Source as _;
use tauri::State;

use super::{blocking, node};
use crate::dto::EntryDetailView;
use crate::{AppState, CommandError};

/// The raw JSON line of entry `id`, pretty-printed, and the diagnostics on its line.
#[tauri::command]
pub async fn entry_detail(state: State<'_, AppState>, id: String) -> Result<EntryDetailView, CommandError> {
    blocking(state.session()?, move |open| {
        let s = &open.loaded.session;
        let e = s.entry(node(open, &id)?);
        let bytes = open.loaded.source.bytes(e.span).map_err(|x| ReadBackError::at(e.line, x))?;
        let raw = String::from_utf8_lossy(&bytes);
        let json = serde_json::from_str::<serde_json::Value>(&raw)
            .and_then(|v| serde_json::to_string_pretty(&v))
            .unwrap_or_else(|_| raw.clone().into_owned());
        Ok(EntryDetailView {
            id: e.id.to_string(),
            line: e.line,
            entry_type: e.entry_type.to_string(),
            json,
            migrated: e.migrated,
            diagnostics: s.diagnostics().iter().filter(|d| d.line == e.line).cloned().collect(),
        })
    })
    .await
}
