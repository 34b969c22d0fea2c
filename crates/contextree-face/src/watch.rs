//! Live reload: a background thread polls the open session file's length and modification
//! time every [`POLL`]; when they differ from the open session's stamp (taken when it was read:
//! a write's own re-read is not read again), the session is read again, replaces the open one,
//! and the face is told (the app emits [`SESSION_CHANGED`], the server sends it as an event)
//! with the new `SessionReport`. Opening another session ends the previous watcher (its
//! generation is no longer the current one).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use contextree_read::SessionReport;

use crate::state::{stamp, OpenSession};
use crate::AppState;

/// The event the UI listens to; its payload is the reloaded session's `SessionReport`.
pub const SESSION_CHANGED: &str = "session-changed";

/// How often the file is looked at.
pub const POLL: Duration = Duration::from_millis(500);

/// What a watcher works for: the state whose open session it watches, and where news of a
/// reload goes. The app's is its `AppHandle` (the state is managed there), the server's one
/// client's state and event stream.
pub trait Watched: Send + 'static {
    /// The state the watched session is open in.
    fn state(&self) -> &AppState;
    /// The open file was read again; `report` is the new reading's.
    fn session_changed(&self, report: SessionReport);
}

/// Starts watching the file of `open`, which is the session of `generation` in `to`'s state.
pub fn start(to: impl Watched, open: &OpenSession, generation: u64) {
    let path: PathBuf = open.loaded.path.clone();
    let spawned = std::thread::Builder::new().name("contextree-watch".into()).spawn(move || loop {
        std::thread::sleep(POLL);
        let state = to.state();
        if state.generation() != generation {
            return;
        }
        // The open session carries the stamp its file had when it was read (by the open,
        // a write's re-read or this watcher), so a write's own re-read is not read again.
        let Ok(current) = state.session() else {
            return;
        };
        if stamp(&path) == current.stamp {
            continue;
        }
        // A file that vanished or cannot be read keeps the session shown; the next change
        // is tried again.
        let Ok(open) = current.reload(&state.env()) else {
            continue;
        };
        let view = open.report();
        if !state.replace_session(generation, Arc::new(open)) {
            return;
        }
        to.session_changed(view);
    });
    if let Err(err) = spawned {
        eprintln!("contextree: cannot watch {}: {err}", open.loaded.path.display());
    }
}
