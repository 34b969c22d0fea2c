//! Opening a session file (`contextree_face::session`); the demo goes to the app's cache folder.

use tauri::{AppHandle, Manager as _, Runtime};

use super::join_error;
use crate::watch::AppWatch;
use crate::CommandError;
use contextree_read::SessionReport;

/// Opens `path`, else the file given on the command line, else the bundled demo session, and
/// makes it the session the other commands work on; the file is then watched (appends reload
/// it and emit `session-changed`). `dialect` forces the agent or one rule set.
#[tauri::command]
pub async fn open_session<R: Runtime>(
    app: AppHandle<R>,
    path: Option<String>,
    dialect: Option<String>,
) -> Result<SessionReport, CommandError> {
    tauri::async_runtime::spawn_blocking(move || {
        let demo_dir = app.path().app_cache_dir().map_err(join_error);
        contextree_face::session::open(AppWatch(app), path, dialect, || demo_dir)
    })
    .await
    .map_err(join_error)?
}
