//! Opening a session file (`contextree_face::session`); the demo goes to the app's cache folder.

use tauri::{AppHandle, Manager as _, Runtime};

use super::join_error;
use crate::preload::Preload;
use crate::watch::AppWatch;
use crate::CommandError;
use contextree_read::SessionReport;

/// Opens `path`, else the file given on the command line (read while the window started:
/// `crate::preload`), else the bundled demo session, and
/// makes it the session the other commands work on; the file is then watched (appends reload
/// it and emit `session-changed`). `dialect` forces the agent or one rule set.
#[tauri::command]
pub async fn open_session<R: Runtime>(
    app: AppHandle<R>,
    path: Option<String>,
    dialect: Option<String>,
) -> Result<SessionReport, CommandError> {
    tauri::async_runtime::spawn_blocking(move || {
        // The page's first open (the startup file, its own rules) takes the file read while
        // the window started; any other open gives that reading up.
        let preload = app.state::<Preload>();
        let startup = path.is_none() && dialect.as_deref().is_none_or(str::is_empty);
        let read = if startup {
            preload.take()
        } else {
            preload.discard();
            None
        };
        if let Some(open) = read {
            return Ok(contextree_face::session::open_read(AppWatch(app.clone()), open));
        }
        let demo_dir = app.path().app_cache_dir().map_err(join_error);
        contextree_face::session::open(AppWatch(app.clone()), path, dialect, || demo_dir)
    })
    .await
    .map_err(join_error)?
}
