//! The branch graph's export: the page draws the graph on its canvas and hands over the PNG's
//! bytes; the save dialog is opened here, so the page never names a path to write, and only a
//! PNG is written.

use std::path::Path;

use tauri::ipc::{InvokeBody, Request};
use tauri::{AppHandle, Runtime};
use tauri_plugin_dialog::DialogExt;

use crate::CommandError;

/// The first bytes of every PNG file.
const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Whether `bytes` look like a PNG picture (its signature); anything else is refused.
pub fn is_png(bytes: &[u8]) -> bool {
    bytes.starts_with(PNG_SIGNATURE)
}

/// Asks where to save the graph's picture (the request's raw body, a PNG) and writes it there.
/// `None` when the dialog is cancelled.
#[tauri::command]
pub async fn save_graph<R: Runtime>(app: AppHandle<R>, request: Request<'_>) -> Result<Option<String>, CommandError> {
    let InvokeBody::Raw(bytes) = request.body() else {
        return Err(CommandError::InvalidArgument("save_graph expects the PNG's bytes".into()));
    };
    if !is_png(bytes) {
        return Err(CommandError::InvalidArgument("save_graph expects a PNG picture".into()));
    }
    let png = bytes.clone();
    tauri::async_runtime::spawn_blocking(move || {
        let chosen = app
            .dialog()
            .file()
            .set_title("Save the graph")
            .set_file_name("contextree-graph.png")
            .add_filter("PNG picture", &["png"])
            .blocking_save_file();
        let Some(path) = chosen.and_then(|p| p.as_path().map(Path::to_path_buf)) else {
            return Ok(None);
        };
        contextree_host::atomic::write_whole(&path, &png, None).map_err(|source| CommandError::Save { path: path.clone(), source })?;
        Ok(Some(path.display().to_string()))
    })
    .await
    .map_err(super::join_error)?
}

#[cfg(test)]
mod tests {
    use super::is_png;

    #[test]
    fn only_a_png_is_written() {
        assert!(is_png(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"));
        assert!(!is_png(b"<svg></svg>"));
        assert!(!is_png(b""));
    }
}
