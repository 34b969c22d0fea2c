//! What the UI's faces serve: the open session ([`AppState`]) and the commands the UI calls,
//! as plain synchronous functions, reached by name through [`calls::call`] (which reads each
//! command's arguments). The desktop app (`src-tauri`) routes its IPC there, `contextree serve`
//! (`contextree-serve`) its `POST /api/call/<command>`; both run it on a blocking thread, so
//! neither repeats what a command does or which arguments it takes.
//!
//! Nothing here knows Tauri or HTTP: progress goes to a callback, a reloaded session to a
//! [`watch::Watched`], failures are [`CommandError`] (`{kind, message}` on the wire). Native
//! dialogs stay in the app.

pub mod budget;
pub mod calls;
pub mod compaction;
pub mod compare;
pub mod context;
pub mod demo;
pub mod entry;
pub mod error;
pub mod library;
pub mod search;
pub mod session;
pub mod settings;
pub mod state;
pub mod tree;
pub mod watch;
pub mod write;

pub use error::CommandError;
pub use state::{AppState, OpenSession};

use contextree_core::context::Leaf;
use contextree_core::session::NodeId;

/// The node with `id` in the open session.
pub fn node(open: &OpenSession, id: &str) -> Result<NodeId, CommandError> {
    open.loaded.session.node(id).ok_or_else(|| CommandError::UnknownEntry(id.to_owned()))
}

/// `Some(id)`: that entry; `None`: the file's leaf, as the agents resume it.
pub fn leaf(open: &OpenSession, id: Option<&str>) -> Result<Leaf, CommandError> {
    id.map_or(Ok(Leaf::Last), |id| node(open, id).map(Leaf::At))
}

/// A report written to JSON (on the calling thread: its lists are made while it is written).
fn raw<T: serde::Serialize>(report: &T) -> Result<Box<serde_json::value::RawValue>, CommandError> {
    serde_json::value::to_raw_value(report).map_err(CommandError::Report)
}
