//! What the app's tests on the mock runtime share: scratch folders, the app, a webview to call
//! commands through IPC.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::Value;
use tauri::ipc::{CallbackFn, InvokeBody, InvokeResponseBody};
use tauri::test::{get_ipc_response, mock_builder, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{App, WebviewWindow};

use crate::{build, context, AppState};

/// A fresh directory under the system temp dir, removed when dropped; unique per call, so
/// tests running in parallel never share one.
pub(crate) struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> Self {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!("contextree-app-{name}-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The app as `run` builds it, on the mock runtime, with no session on the command line.
pub(crate) fn app() -> App<MockRuntime> {
    build(mock_builder(), AppState::new(None)).build(context()).expect("app builds with the mock runtime")
}

/// A window to send IPC through (`build()` runs no setup, so the config's window does not
/// exist yet).
pub(crate) fn webview(app: &App<MockRuntime>) -> WebviewWindow<MockRuntime> {
    tauri::WebviewWindowBuilder::new(app, "main", Default::default()).build().unwrap()
}

/// Calls `cmd` with `args` as the UI does: the answer, or the rejection's `{kind, message}`.
pub(crate) fn invoke(webview: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    invoke_raw(webview, cmd, args).map(|body| body.deserialize::<Value>().unwrap())
}

/// [`invoke`]'s answer as it crosses IPC (JSON, or the raw bytes of a binary response).
pub(crate) fn invoke_raw(webview: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<InvokeResponseBody, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(webview, request)
}

/// `tree_table`'s answer for `args`, read with the format's test reader.
pub(crate) fn tree_table(webview: &WebviewWindow<MockRuntime>, args: Value) -> crate::commands::tree::wire::read::Table {
    let InvokeResponseBody::Raw(bytes) = invoke_raw(webview, "tree_table", args).unwrap() else {
        panic!("tree_table must answer with bytes");
    };
    crate::commands::tree::wire::read::decode(&bytes)
}
