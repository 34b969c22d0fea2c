//! The write commands on the mock runtime: compact against a stand-in provider on 127.0.0.1
//! (deltas arrive on the channel, the entry is written), cancel mid-stream, a changed file,
//! busy, prune, navigate, edit and undo. Commands are called through `contextree_face::calls`
//! as the IPC handler calls them, their progress collected by the test (a channel's events
//! would go to a page); one IPC round trip checks they are registered.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use contextree_core::prompts::PromptPack;
use contextree_testkit::server::{json_response, serve, serve_with};
use serde_json::{json, Value};
use tauri::test::MockRuntime;
use tauri::{App, Manager as _};

use crate::state::OpenSession;
use contextree_face::calls::{self, Answer};
use contextree_face::write::WriteState;
use contextree_testkit::Scratch;

use crate::test_support::{app, app_with_env, invoke, webview};
use crate::{demo, AppState};

/// A fixture copy in a fresh temporary folder, removed when dropped.
struct Copy {
    _dir: Scratch,
    file: PathBuf,
}

impl Copy {
    fn new(name: &str, bytes: &[u8]) -> Copy {
        let dir = Scratch::new("app-write");
        let file = dir.path().join(name);
        std::fs::write(&file, bytes).unwrap();
        Copy { _dir: dir, file }
    }

    fn fixture(rel: &str) -> Copy {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(rel);
        Copy::new(path.file_name().unwrap().to_str().unwrap(), &std::fs::read(&path).unwrap())
    }

    fn bytes(&self) -> Vec<u8> {
        std::fs::read(&self.file).unwrap()
    }
}

/// Makes `file` the open session without starting a watcher (so nothing reloads behind the
/// test's back).
fn open(app: &App<MockRuntime>, file: &Path) {
    let stamp = crate::state::stamp(file);
    let loaded = contextree_host::load_session(&contextree_host::HostEnv::default(), file, None).unwrap();
    let pack = PromptPack::own(loaded.session.dialect());
    app.state::<AppState>().set_session(Arc::new(OpenSession::new(loaded, pack, stamp, None)));
}

/// Where a flow's progress goes in these tests: every event collected; `on` runs for each.
struct Events {
    on: Box<dyn Fn(&Value) + Send + Sync>,
    seen: Arc<Mutex<Vec<Value>>>,
}

/// [`Events`] running `on`, and what it will have collected.
fn channel(on: impl Fn(&Value) + Send + Sync + 'static) -> (Events, Arc<Mutex<Vec<Value>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    (Events { on: Box::new(on), seen: seen.clone() }, seen)
}

fn quiet() -> Events {
    channel(|_| {}).0
}

/// Runs `command` with `args` as the IPC handler does, on the app's state and write slot.
fn call(app: &App<MockRuntime>, command: &str, args: Value, events: &Events) -> Result<Value, crate::CommandError> {
    let progress = |event: String| {
        let v: Value = serde_json::from_str(&event).unwrap();
        (events.on)(&v);
        events.seen.lock().unwrap().push(v);
    };
    let answer = calls::call(app.state::<AppState>().inner(), app.state::<WriteState>().inner(), command, &args, &progress)
        .expect("a face command")?;
    let Answer::Json(json) = answer else { panic!("{command} answers JSON") };
    Ok(serde_json::from_str(json.get()).unwrap())
}

/// A stand-in OpenAI-compatible provider on 127.0.0.1: every request gets `respond(stream)`.
fn provider(respond: impl Fn(&mut std::net::TcpStream) + Send + Sync + 'static) -> String {
    serve_with("/v1", move |_, _, stream| respond(stream)).url
}

fn sse_chunk(text: &str) -> String {
    format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": {"content": text}}]}))
}

const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";

fn source(url: &str) -> Value {
    json!({"provider": {"kind": "openai-compatible", "model": "m", "baseUrl": url}})
}

/// `compact` of the file's leaf with the agent's settings, the summary from `source`.
fn compact(app: &App<MockRuntime>, source: Value, events: Events) -> Result<Value, crate::CommandError> {
    call(app, "compact", json!({ "source": source }), &events)
}

/// The offline extractive summary: no model is asked.
fn offline() -> Value {
    json!({"offline": true})
}

fn err_json(e: crate::CommandError) -> Value {
    serde_json::to_value(e).unwrap()
}

/// The open session's leaf.
fn leaf_id(app: &App<MockRuntime>) -> Option<String> {
    let open = app.state::<AppState>().session().unwrap();
    let s = &open.loaded.session;
    s.leaf().map(|n| s.entry(n).id.to_string())
}

fn last_line(file: &Path) -> Value {
    let text = std::fs::read_to_string(file).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

#[test]
fn compact_streams_the_summary_and_appends_the_entry() {
    let app = app();
    let copy = Copy::new("demo.jsonl", demo::DEMO_SESSION);
    open(&app, &copy.file);
    let old_leaf = leaf_id(&app).unwrap();
    let url = provider(|s| {
        let _ = write!(s, "{SSE_HEAD}{}{}data: [DONE]\n\n", sse_chunk("## Goal\n"), sse_chunk("Streamed by the stand-in."));
    });
    let (ch, seen) = channel(|_| {});
    let before = copy.bytes();
    let done = compact(&app, source(&url), ch).unwrap();
    let done = serde_json::to_value(done).unwrap();

    let events = seen.lock().unwrap().clone();
    let deltas: String =
        events.iter().filter(|e| e["kind"] == "delta" && e["call"] == "history").map(|e| e["text"].as_str().unwrap()).collect();
    assert_eq!(deltas, "## Goal\nStreamed by the stand-in.", "{events:?}");
    assert!(events.iter().any(|e| e["kind"] == "attempt" && e["provider"].is_string()), "{events:?}");
    assert_eq!(events.last().unwrap()["kind"], "writing", "{events:?}");

    let after = copy.bytes();
    assert!(after.starts_with(&before), "append only");
    let entry = last_line(&copy.file);
    assert_eq!(entry["type"], "compaction");
    assert_eq!(entry["parentId"], old_leaf.as_str());
    assert!(entry["summary"].as_str().unwrap().starts_with("## Goal\nStreamed by the stand-in."), "{entry}");
    assert_eq!(done["action"], "compact");
    assert_eq!(
        done["entries"],
        json!([{"id": entry["id"], "parentId": old_leaf, "type": "compaction", "line": std::str::from_utf8(&after).unwrap().lines().count()}])
    );
    assert_eq!(done["leafId"], entry["id"]);
    assert_eq!(done["session"]["leafId"], entry["id"], "the re-read session comes back");
    assert_eq!(done["summarizer"]["kind"], "model");
    assert_eq!(leaf_id(&app), entry["id"].as_str().map(str::to_owned), "the open session is the new file");
    assert!(!app.state::<WriteState>().cancel(), "nothing runs any more");
}

#[test]
fn cancel_mid_stream_writes_nothing() {
    let app = app();
    let copy = Copy::new("demo.jsonl", demo::DEMO_SESSION);
    open(&app, &copy.file);
    // One piece of text, then the stream stalls until the test process ends.
    let url = provider(|s| {
        let _ = write!(s, "{SSE_HEAD}{}", sse_chunk("partial "));
        let _ = s.flush();
        std::thread::sleep(std::time::Duration::from_secs(120));
    });
    let handle = app.handle().clone();
    let (ch, seen) = channel(move |e| {
        if e["kind"] == "delta" {
            assert!(handle.state::<WriteState>().cancel(), "a summary is running");
        }
    });
    let before = copy.bytes();
    let started = std::time::Instant::now();
    let err = compact(&app, source(&url), ch).unwrap_err();
    assert_eq!(err_json(err)["kind"], "cancelled");
    assert!(started.elapsed() < std::time::Duration::from_secs(60), "the cancel stops the stream at once");
    assert!(seen.lock().unwrap().iter().any(|e| e["kind"] == "delta"));
    assert_eq!(copy.bytes(), before, "nothing written");
    // The slot is free again.
    assert!(app.state::<WriteState>().take().is_ok());
}

/// The key the provider tests put in the environment; no message may show it.
const SECRET_KEY: &str = "sk-contextree-test-0123456789abcdef";

#[test]
fn a_provider_that_refuses_is_kind_provider_without_the_key() {
    // The client reads the key of an openai-compatible provider from OPENAI_API_KEY, in the
    // flow's environment (the app's, here a home of the test's own), not the process's.
    let home = Scratch::new("app-key-home");
    let mut env = contextree_host::HostEnv::isolated(home.path());
    env.vars.insert("OPENAI_API_KEY".into(), SECRET_KEY.into());
    for status in [400, 401] {
        let app = app_with_env(env.clone());
        let copy = Copy::new("demo.jsonl", demo::DEMO_SESSION);
        open(&app, &copy.file);
        // Like OpenAI's own 401, the answer quotes the key it was sent.
        let server = serve("/v1", move |_, _| {
            json_response(
                status,
                &json!({"error": {"message": format!("Incorrect API key provided: {SECRET_KEY}"),
                                  "type": "invalid_request_error"}}),
            )
        });
        let (ch, seen) = channel(|_| {});
        let before = copy.bytes();
        let err = compact(&app, source(&server.url), ch).unwrap_err();
        let err = err_json(err);
        assert_eq!(err["kind"], "provider", "{status}: {err}");
        let message = err["message"].as_str().unwrap();
        assert!(message.contains(&status.to_string()), "{status}: {message}");
        assert!(!message.contains(SECRET_KEY), "{status}: the key leaks: {message}");
        assert!(!message.contains("0123456789abcdef"), "{status}: {message}");
        let events = serde_json::to_string(&*seen.lock().unwrap()).unwrap();
        assert!(!events.contains("0123456789abcdef"), "{status}: {events}");
        assert!(server.count() >= 1, "the provider was asked");
        assert_eq!(copy.bytes(), before, "{status}: nothing written");
        assert!(app.state::<WriteState>().take().is_ok(), "the write slot is free again");
    }
}

#[test]
fn a_changed_file_is_refused_and_busy_is_reported() {
    let app = app();
    let copy = Copy::new("demo.jsonl", demo::DEMO_SESSION);
    open(&app, &copy.file);
    // An agent appends after the app read the file.
    let mut f = std::fs::OpenOptions::new().append(true).open(&copy.file).unwrap();
    f.write_all(
        b"{\"type\":\"custom\",\"customType\":\"x\",\"id\":\"zz000001\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00.000Z\"}\n",
    )
    .unwrap();
    let before = copy.bytes();
    let (ch, _) = channel(|_| {});
    let err = compact(&app, offline(), ch).unwrap_err();
    assert_eq!(err_json(err)["kind"], "changed");
    assert_eq!(copy.bytes(), before, "nothing written");

    let writes = app.state::<WriteState>();
    let slot = writes.take().unwrap();
    let err = call(&app, "prune", json!({}), &quiet()).unwrap_err();
    assert_eq!(err_json(err)["kind"], "busy");
    drop(slot);
}

#[test]
fn prune_previews_then_rewrites_with_a_backup() {
    let app = app();
    let copy = Copy::fixture("edge/edge-prune.jsonl");
    open(&app, &copy.file);
    let before = copy.bytes();
    let pv = serde_json::to_value(call(&app, "prune_preview", json!({}), &quiet()).unwrap()).unwrap();
    assert_eq!(pv["prunedIds"].as_array().map(Vec::len), Some(2), "{pv}");
    assert_eq!(pv["total"]["prunedCount"], 2, "{pv}");
    assert!(pv["context"]["after"]["messageTokens"].as_u64() < pv["context"]["before"]["messageTokens"].as_u64(), "{pv}");
    assert!(pv["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("pi never prunes")), "{pv}");
    assert_eq!(copy.bytes(), before, "a preview writes nothing");

    // While an agent holds the file open for writing (here: this process), it is refused.
    let agent = std::fs::OpenOptions::new().append(true).open(&copy.file).unwrap();
    let err = err_json(call(&app, "prune", json!({}), &quiet()).unwrap_err());
    assert_eq!(err["kind"], "held", "{err}");
    let pid = format!("(pid {})", std::process::id());
    assert!(err["message"].as_str().unwrap().contains(&pid), "{err}");
    assert_eq!(copy.bytes(), before, "nothing written");
    drop(agent);

    let done = serde_json::to_value(call(&app, "prune", json!({}), &quiet()).unwrap()).unwrap();
    assert_eq!(done["action"], "prune");
    assert_eq!(done["entries"], json!([]));
    assert_eq!(done["rewrite"]["prunedIds"], pv["prunedIds"]);
    assert_eq!(done["rewrite"]["bytesBefore"], before.len());
    assert_eq!(done["rewrite"]["bytesAfter"], copy.bytes().len());
    assert_eq!(done["rewrite"]["bytesAfter"], pv["bytes"]["after"], "the preview said how big the file would be");
    assert_eq!(std::fs::read(done["rewrite"]["backupPath"].as_str().unwrap()).unwrap(), before, "the backup is the old file");
    // A second prune has nothing left to do: refused, nothing written.
    let now = copy.bytes();
    let err = call(&app, "prune", json!({}), &quiet()).unwrap_err();
    assert_eq!(err_json(err)["kind"], "refused");
    assert_eq!(copy.bytes(), now);
}

#[test]
fn navigate_with_and_without_a_summary() {
    for (summarize, action, entry_type, parent) in [(false, "continue", "custom", "u3"), (true, "navigate", "branch_summary", "a1")] {
        let app = app();
        let copy = Copy::fixture("synthetic/E10.jsonl");
        open(&app, &copy.file);
        let pv = serde_json::to_value(call(&app, "navigate_preview", json!({"targetId": "u3", "summarize": summarize}), &quiet()).unwrap())
            .unwrap();
        assert_eq!(pv["placementParentId"], parent, "{pv}");
        assert_eq!(pv["entryType"], entry_type, "{pv}");
        assert_eq!(pv["call"].is_object(), summarize, "{pv}");
        let before = copy.bytes();
        let (ch, seen) = channel(|_| {});
        let done = serde_json::to_value(
            call(&app, "navigate", json!({"targetId": "u3", "summarize": summarize, "source": offline()}), &ch).unwrap(),
        )
        .unwrap();
        let entry = last_line(&copy.file);
        assert!(copy.bytes().starts_with(&before));
        assert_eq!(done["action"], action);
        assert_eq!(entry["type"], entry_type);
        assert_eq!(entry["parentId"], parent);
        assert_eq!(done["leafId"], entry["id"]);
        let events = seen.lock().unwrap().clone();
        assert_eq!(events.iter().any(|e| e["kind"] == "offline" && e["call"] == "branch"), summarize, "{events:?}");
    }
}

#[test]
fn edit_a_summary_and_undo_a_compaction() {
    let app = app();
    let copy = Copy::fixture("synthetic/E06.jsonl");
    open(&app, &copy.file);
    let pv = serde_json::to_value(call(&app, "edit_summary_preview", json!({"compactionId": "c1"}), &quiet()).unwrap()).unwrap();
    assert_eq!(
        (pv["summary"].as_str(), pv["firstKeptEntryId"].as_str(), pv["parentId"].as_str()),
        (Some("## Goal\nSet up repo."), Some("u2"), Some("a5")),
        "{pv}"
    );
    let done = serde_json::to_value(
        call(&app, "edit_summary", json!({"compactionId": "c1", "summary": "## Goal\nSet up the repo and CI."}), &quiet()).unwrap(),
    )
    .unwrap();
    let entry = last_line(&copy.file);
    assert_eq!(done["action"], "edit-summary");
    assert_eq!(
        (entry["type"].as_str(), entry["parentId"].as_str(), entry["firstKeptEntryId"].as_str()),
        (Some("compaction"), Some("a5"), Some("u2"))
    );
    assert_eq!(entry["summary"], "## Goal\nSet up the repo and CI.");
    assert_eq!(done["summarizer"]["kind"], "supplied");
    // c1 is no longer the compaction in effect: editing it again is refused.
    let err = call(&app, "edit_summary_preview", json!({"compactionId": "c1"}), &quiet()).unwrap_err();
    assert_eq!(err_json(err)["kind"], "refused");

    // Undo the corrected compaction: continue under its parent, a5.
    let new_id = entry["id"].as_str().unwrap().to_owned();
    let pv = serde_json::to_value(call(&app, "undo_compaction_preview", json!({"compactionId": new_id}), &quiet()).unwrap()).unwrap();
    assert_eq!(pv["targetId"], "a5", "{pv}");
    assert_eq!(pv["entry"], json!({"type": "custom", "customType": "contextree-continue"}));
    let done = serde_json::to_value(call(&app, "undo_compaction", json!({"compactionId": new_id}), &quiet()).unwrap()).unwrap();
    let entry = last_line(&copy.file);
    assert_eq!(done["action"], "undo-compaction");
    assert_eq!((entry["customType"].as_str(), entry["parentId"].as_str()), (Some("contextree-continue"), Some("a5")));
    let err = call(&app, "undo_compaction_preview", json!({"compactionId": "nope"}), &quiet()).unwrap_err();
    assert_eq!(err_json(err)["kind"], "unknown-entry");
}

#[test]
fn the_write_commands_are_registered() {
    let app = app();
    let webview = webview(&app);
    let copy = Copy::fixture("synthetic/E06.jsonl");
    open(&app, &copy.file);
    let invoke = |cmd: &str, args: Value| invoke(&webview, cmd, args);
    assert_eq!(invoke("cancel_summary", json!({})).unwrap(), json!(false));
    let providers = invoke("providers", json!({})).unwrap();
    assert!(providers["candidates"].is_array(), "{providers}");
    let pv = invoke("undo_compaction_preview", json!({"compactionId": "c1"})).unwrap();
    assert_eq!(pv["targetId"], "r1");
    let pv = invoke("prune_preview", json!({"leafId": "a5"})).unwrap();
    assert_eq!(pv["leafId"], "a5");
    let pv = invoke("navigate_preview", json!({"targetId": "a3", "summarize": false})).unwrap();
    assert_eq!(pv["entryType"], "custom");
    let err = invoke("edit_summary_preview", json!({"compactionId": "u1"})).unwrap_err();
    assert_eq!(err["kind"], "refused", "{err}");
}

/// A machine of the test's own (a scratch home, removed with the returned folder) whose
/// contextree config file lists two candidates, `strong` then `cheap` (no key needed: the
/// stand-ins ignore headers).
fn configure_two_candidates(strong: &str, cheap: &str) -> (Scratch, contextree_host::HostEnv) {
    let home = Scratch::new("app-candidates");
    let dir = home.path().join("xdg");
    let file = dir.join("contextree/config.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let config = json!({"providers": [
        {"name": "strong", "kind": "openai-compatible", "model": "big", "baseUrl": strong, "maxRetries": 0},
        {"name": "cheap", "kind": "openai-compatible", "model": "small", "baseUrl": cheap, "maxRetries": 0},
    ]});
    std::fs::write(&file, config.to_string()).unwrap();
    let mut vars = contextree_host::HostEnv::isolated(home.path()).vars;
    vars.insert("XDG_CONFIG_HOME".into(), dir.display().to_string());
    let env = contextree_host::HostEnv::with_vars(vars, home.path().to_owned());
    (home, env)
}

/// A stand-in that streams `text`, and how many requests it had.
fn streaming(text: &'static str) -> contextree_testkit::server::Server {
    serve_with("/v1", move |_, _, s| {
        let _ = write!(s, "{SSE_HEAD}{}data: [DONE]\n\n", sse_chunk(text));
    })
}

fn pick(v: Value) -> Value {
    v
}

#[test]
fn a_picked_configured_candidate_is_the_only_one_asked() {
    let (strong, cheap) = (streaming("## Goal\nBy strong."), streaming("## Goal\nBy cheap."));
    let (_home, env) = configure_two_candidates(&strong.url, &cheap.url);

    // By name, as the dialog sends it: only the second is asked.
    let app = app_with_env(env);
    let copy = Copy::new("demo.jsonl", demo::DEMO_SESSION);
    open(&app, &copy.file);
    let (ch, seen) = channel(|_| {});
    let done = compact(&app, pick(json!({"candidate": "cheap"})), ch).unwrap();
    let done = serde_json::to_value(done).unwrap();
    // (The demo's compaction may take two calls: the history and a split turn's prefix.)
    let calls = cheap.count();
    assert_eq!(strong.count(), 0);
    assert!(calls >= 1);
    assert!(last_line(&copy.file)["summary"].as_str().unwrap().starts_with("## Goal\nBy cheap."));
    assert_eq!(done["summarizer"]["calls"][0]["model"], "small", "{done}");
    let events = seen.lock().unwrap().clone();
    assert!(events.iter().filter(|e| e["kind"] == "attempt").all(|e| e["model"] == "small"), "{events:?}");

    // By index (a branch summary), the same one.
    let copy = Copy::fixture("synthetic/E10.jsonl");
    open(&app, &copy.file);
    let (ch, _) = channel(|_| {});
    let done = call(&app, "navigate", json!({"targetId": "u3", "summarize": true, "source": pick(json!({"candidate": 1}))}), &ch).unwrap();
    assert_eq!(serde_json::to_value(done).unwrap()["summarizer"]["model"], "small");
    assert_eq!((strong.count(), cheap.count()), (0, calls + 1));
    assert!(last_line(&copy.file)["summary"].as_str().unwrap().contains("By cheap."));

    // Without a pick, the candidates in order: the first answers.
    let copy = Copy::new("demo.jsonl", demo::DEMO_SESSION);
    open(&app, &copy.file);
    let (ch, _) = channel(|_| {});
    compact(&app, pick(json!({})), ch).unwrap();
    assert_eq!((strong.count(), cheap.count()), (calls, calls + 1));

    // An entry the config file does not list, or a pick next to another source, is refused
    // before anyone is asked; nothing is written.
    let before = copy.bytes();
    for bad in [
        json!({"candidate": "nope"}),
        json!({"candidate": 2}),
        json!({"candidate": "cheap", "offline": true}),
        json!({"candidate": 0, "provider": {"kind": "anthropic", "model": "m"}}),
    ] {
        let (ch, _) = channel(|_| {});
        let err = err_json(compact(&app, pick(bad.clone()), ch).unwrap_err());
        assert_eq!(err["kind"], "invalid-argument", "{bad}: {err}");
        assert_eq!(copy.bytes(), before, "{bad}");
    }
    let (ch, _) = channel(|_| {});
    let err = err_json(compact(&app, pick(json!({"candidate": "nope"})), ch).unwrap_err());
    assert_eq!(err["message"], "no configured summarizer \"nope\" (configured: #0 \"strong\", #1 \"cheap\")");
    assert_eq!((strong.count(), cheap.count()), (calls, calls + 1));
    assert!(app.state::<WriteState>().take().is_ok(), "the write slot is free again");
}
