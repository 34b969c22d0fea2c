//! Live reload: a background thread polls the open session file's length and modification
//! time every [`POLL`]; when they change, the session is read again, replaces the open one,
//! and the app emits [`SESSION_CHANGED`] with the new `SessionView`. Opening another session
//! ends the previous watcher (its generation is no longer the current one).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tauri::{AppHandle, Emitter as _, Manager as _, Runtime};

use crate::dto::SessionView;
use crate::state::OpenSession;
use crate::AppState;

/// The event the UI listens to; its payload is the reloaded session's `SessionView`.
pub const SESSION_CHANGED: &str = "session-changed";

/// How often the file is looked at.
pub const POLL: Duration = Duration::from_millis(500);

/// What is compared between polls.
type Stamp = Option<(u64, Option<SystemTime>)>;

fn stamp(path: &std::path::Path) -> Stamp {
    std::fs::metadata(path)
        .ok()
        .map(|m| (m.len(), m.modified().ok()))
}

/// Starts watching the file of `open`, which is the session of `generation`.
pub fn start<R: Runtime>(app: AppHandle<R>, open: &OpenSession, generation: u64) {
    let path: PathBuf = open.loaded.path.clone();
    let pack = open.pack.clone();
    // A dialect that differs from the detected one was forced by the user: keep it.
    let session = &open.loaded.session;
    let forced = (session.dialect() != session.detection().detected).then(|| session.dialect());
    let mut last = stamp(&path);
    let spawned = std::thread::Builder::new()
        .name("contextree-watch".into())
        .spawn(move || loop {
            std::thread::sleep(POLL);
            let state = app.state::<AppState>();
            if state.generation() != generation {
                return;
            }
            let now = stamp(&path);
            if now == last {
                continue;
            }
            last = now;
            // A file that vanished or cannot be read keeps the session shown; the next change
            // is tried again.
            let Ok(loaded) = contextree_host::load_session(&path, forced) else {
                continue;
            };
            let open = OpenSession {
                loaded,
                pack: pack.clone(),
            };
            let view = SessionView::new(&open);
            if !state.replace_session(generation, Arc::new(open)) {
                return;
            }
            let _ = app.emit(SESSION_CHANGED, view);
        });
    if let Err(err) = spawned {
        eprintln!(
            "contextree: cannot watch {}: {err}",
            open.loaded.path.display()
        );
    }
}
