//! The app's IPC. The UI's commands are `contextree_face::calls`'s, reached by name (the same
//! table `contextree serve` routes its HTTP calls to); the app adds only what needs the window:
//! opening a file (watched through Tauri, the demo in the app's cache folder) and the native
//! save dialogs.

pub mod context;
pub mod graph;
pub mod session;

use contextree_face::calls::{self, Answer};
use contextree_face::write::WriteState;
use serde_json::Value;
use tauri::ipc::{Channel, Invoke, InvokeBody, InvokeError, InvokeResponseBody, JavaScriptChannelId};
use tauri::{Manager as _, Runtime};

use crate::{AppState, CommandError};

/// The invoke handler: a face command goes to [`face_call`], the app's own commands to their
/// `#[tauri::command]`s.
// `Invoke` is what `generate_handler!`'s own handlers take; Tauri marks its fields as not
// stable, and Cargo.lock pins the version (a change would fail to compile, not misbehave).
pub fn handler<R: Runtime>() -> impl Fn(Invoke<R>) -> bool + Send + Sync + 'static {
    let own: fn(Invoke<R>) -> bool = tauri::generate_handler![session::open_session, context::save_context, graph::save_graph];
    move |invoke: Invoke<R>| {
        if calls::COMMANDS.contains(&invoke.message.command()) {
            face_call(invoke);
            true
        } else {
            own(invoke)
        }
    }
}

/// Runs a face command off the async threads. Its progress goes to the channel the page passed
/// as `onEvent` or `onProgress`.
fn face_call<R: Runtime>(invoke: Invoke<R>) {
    let Invoke { message, resolver, .. } = invoke;
    let command = message.command().to_owned();
    let args = match message.payload() {
        InvokeBody::Json(args) => args.clone(),
        InvokeBody::Raw(_) => {
            resolver.reject(CommandError::InvalidArgument(format!("`{command}` takes JSON arguments")));
            return;
        }
    };
    let webview = message.webview();
    let channel: Option<Channel<InvokeResponseBody>> = ["onEvent", "onProgress"]
        .iter()
        .find_map(|key| args.get(*key).and_then(Value::as_str))
        .and_then(|id| id.parse::<JavaScriptChannelId>().ok())
        .map(|id| id.channel_on(webview.clone()));
    let app = webview.app_handle().clone();
    resolver.respond_async_serialized(async move {
        let work = move || {
            let progress = |event: String| {
                if let Some(channel) = &channel {
                    // A closed channel (the window went away) is not the command's failure.
                    let _ = channel.send(InvokeResponseBody::Json(event));
                }
            };
            calls::call(app.state::<AppState>().inner(), app.state::<WriteState>().inner(), &command, &args, &progress)
        };
        match tauri::async_runtime::spawn_blocking(work).await {
            Ok(Some(Ok(Answer::Json(json)))) => Ok(InvokeResponseBody::Json(Box::<str>::from(json).into_string())),
            Ok(Some(Ok(Answer::Bytes(bytes)))) => Ok(InvokeResponseBody::Raw(bytes)),
            Ok(Some(Err(e))) => Err(InvokeError::from(e)),
            Ok(None) => Err(InvokeError::from(CommandError::Internal("not a face command".into()))),
            Err(e) => Err(InvokeError::from(join_error(e))),
        }
    });
}

/// A background task that failed (it panicked): an internal error.
fn join_error(e: tauri::Error) -> CommandError {
    CommandError::Internal(e.to_string())
}
