//! Reading the startup file while the window starts.
//!
//! The file named on the command line is read on a thread started before Tauri and the web
//! view (WebKit's own start is a few hundred milliseconds), so the page's first
//! `open_session` finds it read, or waits for that read instead of starting another. What the
//! page gets is what a normal open gives: the preload is used only for that first open (no path,
//! no forced rules), only when the file's stamp is still the one it had when read; a file
//! changed since, or a read that failed, is read again by the normal open, so its answer and
//! its errors are exactly the normal open's.

use std::sync::Mutex;
use std::thread::JoinHandle;

use contextree_face::state::{stamp, OpenSession};

use crate::AppState;

/// The startup file's reading, under way or done.
#[derive(Debug, Default)]
pub struct Preload(Mutex<Slot>);

#[derive(Debug, Default)]
enum Slot {
    /// No file was named, or the reading was used or given up.
    #[default]
    Empty,
    /// The reading is under way; `None` when it failed.
    Running(JoinHandle<Option<OpenSession>>),
    /// The reading is done and not used yet (only tests wait for it before the open).
    #[cfg(test)]
    Done(Option<Box<OpenSession>>),
}

impl Preload {
    /// Starts reading `state`'s startup file, if it has one, as the first open would read it.
    pub fn start(state: &AppState) -> Self {
        let Some(path) = state.startup().map(ToOwned::to_owned) else { return Self::default() };
        let env = state.env();
        let read = std::thread::Builder::new()
            .name("contextree-preload".into())
            .spawn(move || contextree_face::session::load(&env, path, None).ok());
        // A thread that cannot start leaves the read to the open.
        Self(Mutex::new(read.map_or(Slot::Empty, Slot::Running)))
    }

    /// The preloaded session, waiting for its reading if under way, when its file still has the
    /// stamp it had when read; `None` otherwise. Only the first call can answer: the slot is
    /// emptied, so the session is not held after the first open.
    pub fn take(&self) -> Option<OpenSession> {
        let slot = std::mem::take(&mut *self.0.lock().expect("preload lock poisoned"));
        let open = match slot {
            Slot::Empty => None,
            // A reading that panicked is the normal open's to repeat.
            Slot::Running(thread) => thread.join().ok().flatten(),
            #[cfg(test)]
            Slot::Done(open) => open.map(|open| *open),
        }?;
        (open.stamp.is_some() && open.stamp == stamp(&open.loaded.path)).then_some(open)
    }

    /// Gives the preload up without waiting for it (another file was opened first): a reading
    /// under way ends on its own and its session is dropped.
    pub fn discard(&self) {
        *self.0.lock().expect("preload lock poisoned") = Slot::Empty;
    }

    /// Waits until the reading is done, keeping its result for [`Preload::take`] (tests: to
    /// change the file after it was read).
    #[cfg(test)]
    pub(crate) fn settle(&self) {
        let mut slot = self.0.lock().expect("preload lock poisoned");
        if let Slot::Running(thread) = std::mem::take(&mut *slot) {
            *slot = Slot::Done(thread.join().ok().flatten().map(Box::new));
        }
    }

    /// Whether a reading is held, under way or done.
    #[cfg(test)]
    pub(crate) fn holds(&self) -> bool {
        !matches!(*self.0.lock().expect("preload lock poisoned"), Slot::Empty)
    }
}
