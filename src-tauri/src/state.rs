//! State shared by the commands, managed once with `Builder::manage`.

use std::path::{Path, PathBuf};

/// What the app knows before the UI asks for anything.
#[derive(Debug)]
pub struct AppState {
    startup: Option<PathBuf>,
}

impl AppState {
    /// `startup` is the session file named on the command line; `None` opens the demo.
    pub fn new(startup: Option<PathBuf>) -> Self {
        Self { startup }
    }

    /// The session file named on the command line, if any.
    pub fn startup(&self) -> Option<&Path> {
        self.startup.as_deref()
    }
}
