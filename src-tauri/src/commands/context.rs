//! Saving the context through the native save dialog (the panel's own commands are
//! `contextree_face::calls`'s).

use contextree_face::context::{self, export};
use std::path::Path;

use tauri::{AppHandle, Runtime, State};
use tauri_plugin_dialog::DialogExt;

use super::join_error;
use crate::{AppState, CommandError};

/// Asks where to save the context of `leaf_id` (the native save dialog, opened here so that the
/// page never names a path to write) and writes it there: Markdown for `.md`, a self-contained
/// page for `.html`, else JSON.
/// `None` when the dialog is cancelled.
#[tauri::command]
pub async fn save_context<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    leaf_id: Option<String>,
) -> Result<Option<String>, CommandError> {
    let open = state.session()?;
    tauri::async_runtime::spawn_blocking(move || {
        let leaf = leaf_id.clone().or_else(|| {
            let s = &open.loaded.session;
            s.leaf().map(|n| s.entry(n).id.to_string())
        });
        let chosen = app
            .dialog()
            .file()
            .set_title("Save the context")
            .set_file_name(format!("context-{}.md", leaf.as_deref().unwrap_or("empty")))
            .add_filter("Markdown", &["md"])
            .add_filter("HTML page", &["html"])
            .add_filter("JSON", &["json"])
            .blocking_save_file();
        let Some(path) = chosen.and_then(|p| p.as_path().map(Path::to_path_buf)) else {
            return Ok(None);
        };
        let format = match path.extension().and_then(|e| e.to_str()) {
            Some("md" | "markdown") => export::Format::Markdown,
            Some("html" | "htm") => export::Format::Html,
            _ => export::Format::Json,
        };
        let text = context::export_text(&open, leaf_id.as_deref(), format)?;
        contextree_host::atomic::write_whole(&path, text.as_bytes(), None)
            .map_err(|source| CommandError::Save { path: path.clone(), source })?;
        Ok(Some(path.display().to_string()))
    })
    .await
    .map_err(join_error)?
}
