//! IPC commands, one module per UI area; all registered in `lib.rs`'s `generate_handler!`.
//!
//! Command bodies are thin: each runs its `contextree-face` function off the async threads.

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

use tauri::{AppHandle, Manager as _, Runtime};

use crate::state::OpenSession;
use crate::{AppState, CommandError};

/// A background task that failed (it panicked): an internal error.
fn join_error(e: tauri::Error) -> CommandError {
    CommandError::Internal(e.to_string())
}

/// Runs `work` on the open session on a blocking thread.
async fn blocking<T, F>(open: Arc<OpenSession>, work: F) -> Result<T, CommandError>
where
    T: Send + 'static,
    F: FnOnce(&OpenSession) -> Result<T, CommandError> + Send + 'static,
{
    tauri::async_runtime::spawn_blocking(move || work(&open)).await.map_err(join_error)?
}

/// Runs `work` on the app's state on a blocking thread.
async fn on_state<R, T, F>(app: AppHandle<R>, work: F) -> Result<T, CommandError>
where
    R: Runtime,
    T: Send + 'static,
    F: FnOnce(&AppState) -> Result<T, CommandError> + Send + 'static,
{
    tauri::async_runtime::spawn_blocking(move || work(app.state::<AppState>().inner())).await.map_err(join_error)?
}
