//! The wire contract of [`CommandError`] and a smoke test of the whole app on the mock runtime.

use std::path::Path;

use serde_json::{json, Value};

use contextree_face::tree::wire;
use contextree_testkit::Scratch;

use crate::test_support::{app, invoke, tree_table as table, webview};
use crate::{demo, CommandError};

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
    let dir = Scratch::new("app-demo");
    let cache = dir.path().join("nested/cache");
    let path = demo::materialize(&cache).unwrap();
    assert_eq!(path, cache.join(demo::DEMO_FILE_NAME));
    assert_eq!(std::fs::read(&path).unwrap(), demo::DEMO_SESSION);
    // A second call finds the same bytes and leaves no temporary file behind.
    assert_eq!(demo::materialize(&cache).unwrap(), path);
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 1);
}

#[test]
fn app_on_the_mock_runtime_opens_a_session_over_ipc() {
    let app = app();
    let webview = webview(&app);

    let dir = Scratch::new("app-ipc");
    let session = dir.path().join("session.jsonl");
    std::fs::write(&session, demo::DEMO_SESSION).unwrap();

    // Before a session is open, the session commands say so.
    let err = invoke(&webview, "tree_table", json!({})).unwrap_err();
    assert_eq!(err["kind"], "no-session", "{err}");

    let view = invoke(&webview, "open_session", json!({ "path": session })).unwrap();
    let expected = entry_ids(demo::DEMO_SESSION);
    assert_eq!(view["entryCount"], json!(expected.len()));
    assert_eq!(view["fileName"], "session.jsonl");
    assert_eq!(view["dialect"], "pi");
    assert_eq!(view["leafId"], json!(expected.last().unwrap()));
    assert!(view["diagnostics"].is_array());

    // Every entry is one row; display order starts at the root; the file's leaf is marked.
    let tree = table(&webview, json!({}));
    let mut ids: Vec<&str> = tree.ids.iter().map(String::as_str).collect();
    assert_eq!(ids[0], expected[0]);
    ids.sort_unstable();
    let mut sorted: Vec<&str> = expected.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    assert_eq!(ids, sorted);
    assert_eq!(tree.meta["leafId"], view["leafId"]);
    let marked = tree.flags.iter().filter(|f| *f & wire::IS_LEAF != 0).count();
    assert_eq!(marked, 1);
    assert_eq!(tree.ids[tree.leaf_row as usize], view["leafId"].as_str().unwrap());

    // Another leaf: the states change and the context follows it.
    let other = (0..tree.n)
        .find(|&i| tree.flags[i] & wire::CHILDLESS != 0 && tree.flags[i] & wire::IS_LEAF == 0)
        .expect("the demo session has a second branch");
    let other_id = tree.ids[other].as_str();
    let tree2 = table(&webview, json!({ "leafId": other_id }));
    assert_eq!(tree2.meta["leafId"], other_id);
    assert_eq!(tree2.ids, tree.ids);
    assert_ne!(tree2.state, tree.state);
    // Asked with the reading of the table held: only the leaf's columns, the same ones.
    let columns = table(&webview, json!({ "leafId": other_id, "reading": tree.reading }));
    assert!(tree.whole && !columns.whole);
    assert_eq!((columns.reading, columns.n, columns.leaf_row), (tree.reading, tree.n, tree2.leaf_row));
    assert_eq!(columns.state, tree2.state);
    assert_eq!(columns.meta["leafId"], other_id);
    // Another reading of the file (opened again): the whole table again, under a new number.
    invoke(&webview, "open_session", json!({ "path": session })).unwrap();
    let again = table(&webview, json!({ "leafId": other_id, "reading": tree.reading }));
    assert!(again.whole && again.reading != tree.reading);
    assert_eq!(again.ids, tree.ids);
    let ctx = invoke(&webview, "context_view", json!({ "leafId": other_id })).unwrap();
    assert_eq!(ctx["leafId"], other_id);
    let messages = ctx["messages"].as_array().unwrap();
    assert_eq!(ctx["messageCount"], json!(messages.len()));
    assert!(!messages.is_empty());
    assert_eq!(ctx["prompts"]["source"].as_str().map(|s| s == "own" || s == "agent"), Some(true));

    // Two leaves side by side: the file's leaf (B) against the other one (A), each side the
    // context of its leaf, with the sent messages' text.
    let cmp = invoke(&webview, "compare_view", json!({ "leafA": other_id })).unwrap();
    assert_eq!((&cmp["a"]["leafId"], &cmp["b"]["leafId"]), (&json!(other_id), &view["leafId"]));
    assert_eq!(cmp["a"]["llmTokens"], ctx["llmTokens"]);
    assert!(cmp["divergeAt"].as_u64().is_some(), "{cmp}");
    let texts = cmp["rows"].as_array().unwrap().iter().filter(|r| r["a"]["message"]["text"].is_string()).count();
    assert_eq!(texts, messages.len(), "every message of A with its text");
    let err = invoke(&webview, "compare_view", json!({ "leafA": "nope" })).unwrap_err();
    assert_eq!(err["kind"], "unknown-entry", "{err}");

    let previews = invoke(&webview, "row_previews", json!({ "ids": [expected[0], "nope"] })).unwrap();
    assert_eq!(previews.as_array().unwrap().len(), 1);

    let detail = invoke(&webview, "entry_detail", json!({ "id": expected[0] })).unwrap();
    assert_eq!(detail["line"], 2);
    let json: Value = serde_json::from_str(detail["json"].as_str().unwrap()).unwrap();
    assert_eq!(json["id"], json!(expected[0]));
    let err = invoke(&webview, "entry_detail", json!({ "id": "nope" })).unwrap_err();
    assert_eq!(err["kind"], "unknown-entry", "{err}");

    // The budget bar: the path's model sets the window unless one is given.
    let budget = invoke(&webview, "budget", json!({})).unwrap();
    assert_eq!(budget["leafId"], view["leafId"]);
    assert!(budget["used"].as_u64().unwrap() > 0, "{budget}");
    for field in ["window", "windowSource", "reserve", "threshold", "keepRecent", "keepRecentFrom", "wouldCompact", "decision", "reason"] {
        assert!(budget.get(field).is_some(), "budget lacks `{field}`: {budget}");
    }
    let small = invoke(&webview, "budget", json!({ "leafId": other_id, "window": 1000 })).unwrap();
    assert_eq!(small["window"], 1000);
    assert_eq!(small["windowSource"], "override");
    let err = invoke(&webview, "budget", json!({ "leafId": "nope" })).unwrap_err();
    assert_eq!(err["kind"], "unknown-entry", "{err}");

    // The compaction preview: the plan `contextree compact --dry-run` prints, read only.
    let plan = invoke(&webview, "compaction_preview", json!({})).unwrap();
    assert_eq!(plan["leafId"], view["leafId"]);
    assert_eq!(plan["nothingToCompact"], false, "{plan}");
    assert!(plan["tokensBefore"].as_f64().unwrap() > 0.0, "{plan}");
    assert!(plan["preview"]["estimatedTokensAfter"].as_u64().is_some(), "{plan}");
    assert!(!plan["messagesToSummarizeIds"].as_array().unwrap().is_empty(), "{plan}");
    assert!(!plan["recentMessagesIds"].as_array().unwrap().is_empty(), "{plan}");
    let first_kept = plan["firstKeptEntryId"].as_str().unwrap();
    assert!(expected.iter().any(|id| id == first_kept), "{plan}");
    let calls = plan["calls"].as_array().unwrap();
    assert!(!calls.is_empty(), "{plan}");
    for call in calls {
        // maxTokens only where the rules send one (pi 1.6 sends none).
        for field in ["kind", "systemPrompt", "prompt"] {
            assert!(call.get(field).is_some(), "call lacks `{field}`: {call}");
        }
    }
    let focused = invoke(&webview, "compaction_preview", json!({ "instructions": "focus on the parser" })).unwrap();
    assert!(focused["calls"][0]["prompt"].as_str().unwrap().contains("focus on the parser"), "{focused}");
    assert_eq!(std::fs::read(&session).unwrap(), demo::DEMO_SESSION, "a preview writes nothing");
    let err = invoke(&webview, "compaction_preview", json!({ "leafId": "nope" })).unwrap_err();
    assert_eq!(err["kind"], "unknown-entry", "{err}");

    let missing = dir.path().join("missing.jsonl");
    let err = invoke(&webview, "open_session", json!({ "path": missing })).unwrap_err();
    assert_eq!(err["kind"], "load", "{err}");
}

#[test]
fn the_leaf_named_on_the_command_line_is_checked_against_the_startup_file() {
    use crate::startup::Startup;
    use crate::test_support::app_started_with;

    let dir = Scratch::new("app-startup-leaf");
    let session = dir.path().join("session.jsonl");
    std::fs::write(&session, demo::DEMO_SESSION).unwrap();
    let ids = entry_ids(demo::DEMO_SESSION);
    // An entry in the middle of the file: what an agent's leaf is after it navigated back.
    let inner = ids[ids.len() / 2].clone();

    let started = |leaf: Option<&str>| {
        let startup = Startup { file: Some(session.clone()), leaf: leaf.map(str::to_owned) };
        let app = app_started_with(startup, dir.path());
        let webview = webview(&app);
        // `null`: the file named on the command line, as the UI's first call does.
        let view = invoke(&webview, "open_session", json!({ "path": null })).unwrap();
        assert_eq!(view["file"], json!(session), "the startup file is opened");
        (invoke(&webview, "startup_leaf", json!({})), app)
    };

    assert_eq!(started(None).0, Ok(Value::Null));
    assert_eq!(started(Some(&inner)).0, Ok(json!(inner)));
    let err = started(Some("nope1234")).0.unwrap_err();
    assert_eq!(err["kind"], "unknown-entry", "{err}");
    let message = err["message"].as_str().unwrap();
    assert_eq!(message, format!("`--leaf nope1234`: `{}` has no entry with this id; its own leaf is shown instead", session.display()));
}
