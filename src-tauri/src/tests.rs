//! The wire contract of [`CommandError`] and a smoke test of the whole app on the mock runtime.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, INVOKE_KEY};
use tauri::webview::InvokeRequest;

use crate::{build, context, demo, AppState, CommandError};

/// A fresh directory under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("contextree-app-{name}-{}", std::process::id()));
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

/// Ids of the entries of a session file: every line with an `id` but the `session` header.
fn entry_ids(jsonl: &[u8]) -> Vec<String> {
    std::str::from_utf8(jsonl)
        .unwrap()
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|value| value["type"] != "session")
        .filter_map(|value| value["id"].as_str().map(str::to_owned))
        .collect()
}

fn invoke(
    webview: &tauri::WebviewWindow<tauri::test::MockRuntime>,
    cmd: &str,
    args: Value,
) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(webview, request).map(|body| body.deserialize::<Value>().unwrap())
}

#[test]
fn command_error_serializes_as_kind_and_message() {
    // `ui/src/ipc.js` relies on exactly these two fields; the message carries the cause chain.
    let err = CommandError::Demo {
        path: Path::new("/cache/demo-session.jsonl").into(),
        source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "permission denied"),
    };
    assert_eq!(
        serde_json::to_value(&err).unwrap(),
        json!({
            "kind": "io",
            "message": "cannot write the demo session to `/cache/demo-session.jsonl`: permission denied",
        })
    );
}

#[test]
fn demo_session_is_written_once_and_kept_identical() {
    let dir = TempDir::new("demo");
    let cache = dir.0.join("nested/cache");
    let path = demo::materialize(&cache).unwrap();
    assert_eq!(path, cache.join(demo::DEMO_FILE_NAME));
    assert_eq!(std::fs::read(&path).unwrap(), demo::DEMO_SESSION);
    // A second call finds the same bytes and leaves no temporary file behind.
    assert_eq!(demo::materialize(&cache).unwrap(), path);
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 1);
}

#[test]
fn app_on_the_mock_runtime_opens_a_session_over_ipc() {
    let app = build(mock_builder(), AppState::new(None))
        .build(context())
        .expect("app builds with the mock runtime");
    // `build()` does not run setup, so no config window exists yet: make one for IPC.
    let webview = tauri::WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .unwrap();

    let dir = TempDir::new("ipc");
    let session = dir.0.join("session.jsonl");
    std::fs::write(&session, demo::DEMO_SESSION).unwrap();

    let view = invoke(&webview, "open_session", json!({ "path": session })).unwrap();
    let ids: Vec<&str> = view["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, entry_ids(demo::DEMO_SESSION));
    assert_eq!(view["entryCount"], json!(ids.len()));
    assert_eq!(view["fileName"], "session.jsonl");
    // Every entry carries the fields `ui/src/entries/view.js` renders.
    let first = &view["entries"][0];
    for field in ["id", "parentId", "entryType", "role", "line", "tokens"] {
        assert!(first.get(field).is_some(), "entry lacks `{field}`: {first}");
    }

    let missing = dir.0.join("missing.jsonl");
    let err = invoke(&webview, "open_session", json!({ "path": missing })).unwrap_err();
    assert_eq!(err["kind"], "load", "{err}");
}
