//! The write flows (`contextree_face::write`): read-only previews and the apply commands; a
//! summary's progress goes to the UI's `Channel`.

pub mod compact;
pub mod edit;
pub mod navigate;
pub mod prune;

pub use contextree_face::write::{SummarySource, WriteResult, WriteState};
use contextree_ops::Progress;
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager as _, Runtime, State};

use super::join_error;
use crate::{AppState, CommandError};

/// Runs an apply command's `work` on a blocking thread with the app's state and write slot.
pub(crate) async fn on_writes<R, F>(app: AppHandle<R>, work: F) -> Result<WriteResult, CommandError>
where
    R: Runtime,
    F: FnOnce(&AppState, &WriteState) -> Result<WriteResult, CommandError> + Send + 'static,
{
    tauri::async_runtime::spawn_blocking(move || work(app.state::<AppState>().inner(), app.state::<WriteState>().inner()))
        .await
        .map_err(join_error)?
}

/// Sends progress to the UI; a closed channel (the window went away) is not an error.
pub(crate) fn reporter(channel: Channel<Progress>) -> impl FnMut(Progress) + Send {
    move |p| {
        let _ = channel.send(p);
    }
}

/// `providers()`: the configured summarizers, keys masked (read only).
#[tauri::command]
pub async fn providers<R: Runtime>(app: AppHandle<R>) -> Result<contextree_ops::summarizer::Providers, CommandError> {
    super::on_state(app, contextree_face::write::providers).await
}

/// `cancel_summary()`: stops the running summary; whether one was running. The apply command
/// then rejects with kind `cancelled` and nothing is written.
#[tauri::command]
pub fn cancel_summary(writes: State<'_, WriteState>) -> bool {
    writes.cancel()
}
