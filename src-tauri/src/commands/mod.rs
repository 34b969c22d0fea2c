//! IPC commands, one module per UI area; all registered in `lib.rs`'s `generate_handler!`.
//!
//! Command bodies are thin: resolve inputs, run the core off the async threads, convert.

pub mod budget;
pub mod compaction;
pub mod compare;
pub mod context;
pub mod entry;
pub mod graph;
pub mod library;
pub mod search;
pub mod session;
pub mod settings;
pub mod tree;
pub mod write;

use std::sync::Arc;

use contextree_core::context::Leaf;
use contextree_core::session::NodeId;

use crate::state::OpenSession;
use crate::CommandError;

/// The node with `id` in the open session.
fn node(open: &OpenSession, id: &str) -> Result<NodeId, CommandError> {
    open.loaded.session.node(id).ok_or_else(|| CommandError::UnknownEntry(id.to_owned()))
}

/// `Some(id)`: that entry; `None`: the file's leaf, as the agents resume it.
fn leaf(open: &OpenSession, id: Option<&str>) -> Result<Leaf, CommandError> {
    id.map_or(Ok(Leaf::Last), |id| node(open, id).map(Leaf::At))
}

/// Runs `work` on the open session on a blocking thread.
async fn blocking<T, F>(open: Arc<OpenSession>, work: F) -> Result<T, CommandError>
where
    T: Send + 'static,
    F: FnOnce(&OpenSession) -> Result<T, CommandError> + Send + 'static,
{
    tauri::async_runtime::spawn_blocking(move || work(&open)).await?
}
