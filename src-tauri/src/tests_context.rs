//! The tree table and the context panel's commands over IPC, on the mock runtime (as
//! `src/tests.rs` does for the others): the table arrives as raw bytes holding every entry,
//! counts and texts line up with the context, bad arguments are typed errors.

use serde_json::{json, Value};
use tauri::ipc::InvokeResponseBody;

use crate::demo;
use contextree_testkit::Scratch;

use crate::test_support::{app, invoke, invoke_raw, webview};

#[test]
fn tree_table_counts_texts_and_exports_over_ipc() {
    let app = app();
    let webview = webview(&app);
    let dir = Scratch::new("app-ctx-ipc");
    let session = dir.path().join("session.jsonl");
    std::fs::write(&session, demo::DEMO_SESSION).unwrap();
    invoke(&webview, "open_session", json!({ "path": session })).unwrap();

    // The table: binary, one row per entry, the same ids as the file's entries.
    let entries: Vec<String> = demo::DEMO_SESSION
        .split(|&b| b == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .map(|line| serde_json::from_slice::<Value>(line).unwrap())
        .filter(|v| v["type"] != "session")
        .map(|v| v["id"].as_str().unwrap().to_owned())
        .collect();
    let InvokeResponseBody::Raw(bytes) = invoke_raw(&webview, "tree_table", json!({})).unwrap() else {
        panic!("tree_table must answer with bytes");
    };
    assert_eq!(&bytes[..4], b"CTR2");
    let word = |k: usize| u32::from_le_bytes(bytes[4 * k..4 * k + 4].try_into().unwrap()) as usize;
    assert_eq!(word(3), entries.len());
    // The ids close the buffer.
    let ids = std::str::from_utf8(&bytes[bytes.len() - word(8)..]).unwrap();
    // Rows are in display order: the same ids, each once.
    let mut rows = contextree_face::tree::wire::read::decode(&bytes).ids;
    assert_eq!(ids, rows.concat());
    rows.sort_unstable();
    let mut sorted = entries.clone();
    sorted.sort_unstable();
    assert_eq!(rows, sorted);

    // Counts: one per message, the sent ones summed; not sent: null.
    let ctx = invoke(&webview, "context_view", json!({})).unwrap();
    let counts = invoke(&webview, "token_counts", json!({ "tokenizer": "o200k_base" })).unwrap();
    let messages = ctx["messages"].as_array().unwrap();
    let per = counts["messages"].as_array().unwrap();
    assert_eq!(per.len(), messages.len());
    for (m, c) in messages.iter().zip(per) {
        assert_eq!(m["llmRole"].is_null(), c.is_null(), "{m} {c}");
    }
    assert_eq!(counts["total"], json!(per.iter().filter_map(Value::as_u64).sum::<u64>()));
    assert_eq!(counts["tokenizer"], "o200k_base");
    let err = invoke(&webview, "token_counts", json!({ "tokenizer": "gpt2" })).unwrap_err();
    assert_eq!(err["kind"], "invalid-argument", "{err}");

    // Whole texts: the cut one is longer than the panel's, an uncut one the same.
    let cut = messages.iter().position(|m| m["truncated"] == true).expect("the demo has a cut message");
    let full = invoke(&webview, "message_text", json!({ "index": cut })).unwrap();
    let shown = messages[cut]["text"].as_str().unwrap();
    assert!(full["text"].as_str().unwrap().starts_with(shown));
    assert!(full["text"].as_str().unwrap().chars().count() > shown.chars().count());
    let whole = messages.iter().position(|m| m["truncated"] == false).unwrap();
    let same = invoke(&webview, "message_text", json!({ "index": whole })).unwrap();
    assert_eq!(same["text"], messages[whole]["text"]);
    let err = invoke(&webview, "message_text", json!({ "index": messages.len() })).unwrap_err();
    assert_eq!(err["kind"], "invalid-argument", "{err}");

    // Exports: every message, whole.
    let exported = invoke(&webview, "export_context", json!({ "format": "json" })).unwrap();
    let doc: Value = serde_json::from_str(exported.as_str().unwrap()).unwrap();
    assert_eq!(doc["messageCount"], ctx["messageCount"]);
    assert_eq!(doc["llmTokens"], ctx["llmTokens"]);
    let md = invoke(&webview, "export_context", json!({ "format": "markdown" })).unwrap();
    assert!(md.as_str().unwrap().contains(full["text"].as_str().unwrap()));
    let html = invoke(&webview, "export_context", json!({ "format": "html" })).unwrap();
    let html = html.as_str().unwrap();
    assert!(html.starts_with("<!doctype html>") && !html.contains("<script"), "{html}");
    assert_eq!(html.matches("<section>").count() as u64, ctx["messageCount"].as_u64().unwrap());
    let err = invoke(&webview, "export_context", json!({ "format": "pdf" })).unwrap_err();
    assert_eq!(err["kind"], "invalid-argument", "{err}");
}
