//! What the app's tests on the mock runtime share: the app and a webview to call commands
//! through IPC (scratch folders are `contextree_testkit::Scratch`).

use serde_json::Value;
use tauri::ipc::{CallbackFn, InvokeBody, InvokeResponseBody};
use tauri::test::{get_ipc_response, mock_builder, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{App, WebviewWindow};

use crate::{build, context, AppState};

/// The app as `run` builds it, on the mock runtime, with no session on the command line.
pub(crate) fn app() -> App<MockRuntime> {
    build(mock_builder(), AppState::new(Default::default())).build(context()).expect("app builds with the mock runtime")
}

/// [`app`] on a machine of its own (`env`: a temporary home, its own config file).
pub(crate) fn app_in(env: contextree_host::HostEnv) -> App<MockRuntime> {
    build(mock_builder(), AppState::with_env(Default::default(), env)).build(context()).expect("app builds with the mock runtime")
}

/// [`app`] whose flows see the machine `env` (a home, variables and config file of the test's
/// own) instead of the process's.
pub(crate) fn app_with_env(env: contextree_host::HostEnv) -> App<MockRuntime> {
    build(mock_builder(), AppState::with_env(Default::default(), env)).build(context()).expect("app builds with the mock runtime")
}

/// [`app`] started with `startup` as its command line (file and `--leaf`), in `home`.
pub(crate) fn app_started_with(startup: crate::startup::Startup, home: &std::path::Path) -> App<MockRuntime> {
    let env = contextree_host::HostEnv::isolated(home);
    build(mock_builder(), AppState::with_env(startup.file, env).with_startup_leaf(startup.leaf))
        .build(context())
        .expect("app builds with the mock runtime")
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
pub(crate) fn tree_table(webview: &WebviewWindow<MockRuntime>, args: Value) -> contextree_face::tree::wire::read::Table {
    let InvokeResponseBody::Raw(bytes) = invoke_raw(webview, "tree_table", args).unwrap() else {
        panic!("tree_table must answer with bytes");
    };
    contextree_face::tree::wire::read::decode(&bytes)
}
