//! The tree table and the context panel's commands over IPC, on the mock runtime (as
//! `src/tests.rs` does for the others): the table arrives as raw bytes holding every entry,
//! counts and texts line up with the context, bad arguments are typed errors.

use serde_json::{json, Value};
use tauri::ipc::{CallbackFn, InvokeBody, InvokeResponseBody};
use tauri::test::{get_ipc_response, mock_builder, INVOKE_KEY};
use tauri::webview::InvokeRequest;

use crate::{build, context, demo, AppState};

fn call(
    webview: &tauri::WebviewWindow<tauri::test::MockRuntime>,
    cmd: &str,
    args: Value,
) -> Result<InvokeResponseBody, Value> {
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

fn json_of(body: InvokeResponseBody) -> Value {
    match body {
        InvokeResponseBody::Json(text) => serde_json::from_str(&text).unwrap(),
        InvokeResponseBody::Raw(_) => panic!("expected JSON"),
    }
}

#[test]
fn tree_table_counts_texts_and_exports_over_ipc() {
    let app = build(mock_builder(), AppState::new(None))
        .build(context())
        .unwrap();
    let webview = tauri::WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .unwrap();
    let dir = std::env::temp_dir().join(format!("contextree-app-ctx-ipc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let session = dir.join("session.jsonl");
    std::fs::write(&session, demo::DEMO_SESSION).unwrap();
    json_of(call(&webview, "open_session", json!({ "path": session })).unwrap());

    // The table: binary, one row per entry, the same ids as the JSON rows.
    let rows = json_of(call(&webview, "tree_rows", json!({})).unwrap());
    let InvokeResponseBody::Raw(bytes) = call(&webview, "tree_table", json!({})).unwrap() else {
        panic!("tree_table must answer with bytes");
    };
    assert_eq!(&bytes[..4], b"CTR1");
    let n = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    assert_eq!(n, rows["rows"].as_array().unwrap().len());
    let id_bytes = u32::from_le_bytes(bytes[16..20].try_into().unwrap()) as usize;
    let ids_at = 32 + 24 * n + (2 * n).div_ceil(4) * 4;
    let ids = std::str::from_utf8(&bytes[ids_at..ids_at + id_bytes]).unwrap();
    let joined: String = rows["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, joined);

    // Counts: one per message, the sent ones summed; not sent: null.
    let ctx = json_of(call(&webview, "context_view", json!({})).unwrap());
    let counts = json_of(
        call(
            &webview,
            "token_counts",
            json!({ "tokenizer": "o200k_base" }),
        )
        .unwrap(),
    );
    let messages = ctx["messages"].as_array().unwrap();
    let per = counts["messages"].as_array().unwrap();
    assert_eq!(per.len(), messages.len());
    for (m, c) in messages.iter().zip(per) {
        assert_eq!(m["llmRole"].is_null(), c.is_null(), "{m} {c}");
    }
    assert_eq!(
        counts["total"],
        json!(per.iter().filter_map(Value::as_u64).sum::<u64>())
    );
    assert_eq!(counts["tokenizer"], "o200k_base");
    let err = call(&webview, "token_counts", json!({ "tokenizer": "gpt2" })).unwrap_err();
    assert_eq!(err["kind"], "invalid-argument", "{err}");

    // Whole texts: the cut one is longer than the panel's, an uncut one the same.
    let cut = messages
        .iter()
        .position(|m| m["truncated"] == true)
        .expect("the demo has a cut message");
    let full = json_of(call(&webview, "message_text", json!({ "index": cut })).unwrap());
    let shown = messages[cut]["text"].as_str().unwrap();
    assert!(full["text"].as_str().unwrap().starts_with(shown));
    assert!(full["text"].as_str().unwrap().chars().count() > shown.chars().count());
    let whole = messages
        .iter()
        .position(|m| m["truncated"] == false)
        .unwrap();
    let same = json_of(call(&webview, "message_text", json!({ "index": whole })).unwrap());
    assert_eq!(same["text"], messages[whole]["text"]);
    let err = call(&webview, "message_text", json!({ "index": messages.len() })).unwrap_err();
    assert_eq!(err["kind"], "invalid-argument", "{err}");

    // Exports: every message, whole.
    let exported = json_of(call(&webview, "export_context", json!({ "format": "json" })).unwrap());
    let doc: Value = serde_json::from_str(exported.as_str().unwrap()).unwrap();
    assert_eq!(doc["messageCount"], ctx["messageCount"]);
    assert_eq!(doc["llmTokens"], ctx["llmTokens"]);
    let md = json_of(call(&webview, "export_context", json!({ "format": "markdown" })).unwrap());
    assert!(md
        .as_str()
        .unwrap()
        .contains(full["text"].as_str().unwrap()));
    let err = call(&webview, "export_context", json!({ "format": "html" })).unwrap_err();
    assert_eq!(err["kind"], "invalid-argument", "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
