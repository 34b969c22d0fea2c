//! The app's side of live reload (`contextree_face::watch`): the state is the managed one, a
//! reload is emitted to the window as `session-changed`.

use contextree_face::watch::{Watched, SESSION_CHANGED};
use contextree_read::SessionReport;
use tauri::{AppHandle, Emitter as _, Manager as _, Runtime};

use crate::AppState;

/// The app as a watcher sees it.
pub struct AppWatch<R: Runtime>(pub AppHandle<R>);

impl<R: Runtime> Watched for AppWatch<R> {
    fn state(&self) -> &AppState {
        self.0.state::<AppState>().inner()
    }

    fn session_changed(&self, report: SessionReport) {
        let _ = self.0.emit(SESSION_CHANGED, report);
    }
}
