//! The server over real HTTP on 127.0.0.1 (an ephemeral port, nothing else on the network):
//! the token, the roots, the writes switch and many readers at once.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use contextree_host::HostEnv;
use contextree_serve::{bind, Config};
use contextree_testkit::Scratch;
use reqwest::blocking::Client;
use reqwest::redirect::Policy;
use reqwest::StatusCode;
use serde_json::{json, Value};

const TOKEN: &str = "a-test-token-0123456789";

/// A server over a scratch home whose only root holds a copy of E10 (a branched session).
struct Running {
    base: String,
    /// The scratch folder (home, root, a file outside the root).
    dir: Scratch,
    session: PathBuf,
}

fn start(allow_writes: bool) -> Running {
    start_with(allow_writes, false)
}

/// [`start`]; with `named`, the session is the startup file and `a5` its `--leaf`.
fn start_with(allow_writes: bool, named: bool) -> Running {
    let dir = Scratch::new("serve");
    let root = dir.join("root");
    std::fs::create_dir_all(root.join("proj")).unwrap();
    let session = root.join("proj/E10.jsonl");
    std::fs::copy(contextree_testkit::fixture("synthetic/E10.jsonl"), &session).unwrap();
    std::fs::write(dir.join("secret.jsonl"), std::fs::read(&session).unwrap()).unwrap();
    let config = Config {
        bind: "127.0.0.1:0".parse().unwrap(),
        roots: vec![root],
        token: Some(TOKEN.into()),
        allow_writes,
        leaf: named.then(|| "a5".to_owned()),
        file: named.then(|| session.clone()),
    };
    let env = HostEnv::isolated(&dir.join("home"));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        runtime.block_on(async move {
            let bound = bind(&config, env).await.unwrap();
            tx.send(bound.addr).unwrap();
            bound.serve().await.unwrap();
        });
    });
    let addr = rx.recv().unwrap();
    Running { base: format!("http://{addr}"), dir, session }
}

fn http() -> Client {
    Client::builder().redirect(Policy::none()).build().unwrap()
}

impl Running {
    fn get(&self, path: &str) -> reqwest::blocking::Response {
        http().get(format!("{}{path}", self.base)).bearer_auth(TOKEN).send().unwrap()
    }

    fn call(&self, command: &str, args: Value) -> (StatusCode, Value) {
        let r = http()
            .post(format!("{}/api/call/{command}", self.base))
            .bearer_auth(TOKEN)
            .header("x-contextree-client", "test-tab-0001")
            .json(&args)
            .send()
            .unwrap();
        (r.status(), r.json().unwrap_or(Value::Null))
    }

    fn context_url(&self, file: &Path) -> String {
        format!("/api/context?file={}", file.display())
    }
}

#[test]
fn every_route_needs_the_token() {
    let s = start(false);
    for path in ["/", "/index.html", "/src/ipc.js", "/api/sessions", "/api/events?client=test-tab-0001"] {
        let none = http().get(format!("{}{path}", s.base)).send().unwrap();
        assert_eq!(none.status(), StatusCode::UNAUTHORIZED, "{path} without a token");
        assert!(none.headers().get("content-security-policy").is_some(), "even a 401 has the CSP");
        let wrong = http().get(format!("{}{path}", s.base)).bearer_auth("a-test-token-0123456780").send().unwrap();
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED, "{path} with a wrong token");
        let cookie = http().get(format!("{}{path}", s.base)).header("cookie", "contextree_1=a-test-token-0123456789").send().unwrap();
        assert_eq!(cookie.status(), StatusCode::UNAUTHORIZED, "{path} with another port's cookie");
    }
    let post = http().post(format!("{}/api/call/list_sessions", s.base)).body("{}").send().unwrap();
    assert_eq!(post.status(), StatusCode::UNAUTHORIZED);
    let wrong_query = http().get(format!("{}/?token=nope", s.base)).send().unwrap();
    assert_eq!(wrong_query.status(), StatusCode::UNAUTHORIZED);
}

#[test]
fn the_url_token_becomes_a_cookie_and_leaves_the_url() {
    let s = start(false);
    let first = http().get(format!("{}/?token={TOKEN}", s.base)).send().unwrap();
    assert_eq!(first.status(), StatusCode::SEE_OTHER);
    assert_eq!(first.headers()["location"], "/");
    let set = first.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(set.contains("HttpOnly") && set.contains("SameSite=Strict"), "{set}");
    let pair = set.split(';').next().unwrap().to_owned();
    assert!(pair.starts_with("contextree_") && pair.ends_with(TOKEN), "{pair}");
    let page = http().get(format!("{}/", s.base)).header("cookie", &pair).send().unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let h = page.headers();
    assert_eq!(h["x-content-type-options"], "nosniff");
    assert!(h.get("access-control-allow-origin").is_none(), "no CORS");
    let csp = h["content-security-policy"].to_str().unwrap().to_owned();
    assert!(csp.contains("script-src 'self'") && csp.contains("connect-src 'self'"), "{csp}");
    assert!(page.text().unwrap().contains("<title>contextree</title>"));
}

#[test]
fn files_outside_the_roots_are_refused() {
    let s = start(false);
    let inside = s.get(&s.context_url(&s.session));
    assert_eq!(inside.status(), StatusCode::OK);
    let root = s.dir.join("root");
    #[cfg(unix)]
    std::os::unix::fs::symlink(s.dir.join("secret.jsonl"), root.join("proj/link.jsonl")).unwrap();
    let outside = [
        "/etc/passwd".to_owned(),
        format!("{}/proj/../../secret.jsonl", root.display()),
        s.dir.join("secret.jsonl").display().to_string(),
        format!("{}/proj/link.jsonl", root.display()),
        "proj/E10.jsonl".to_owned(),
    ];
    for file in &outside {
        let r = s.get(&format!("/api/context?file={file}"));
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{file}");
        let (status, err) = s.call("open_session", json!({ "path": file }));
        assert_eq!(status, StatusCode::FORBIDDEN, "open {file}: {err}");
        assert_eq!(err["kind"], "refused");
    }
    let (status, opened) = s.call("open_session", json!({ "path": s.session }));
    assert_eq!(status, StatusCode::OK, "{opened}");
}

#[test]
fn a_write_needs_allow_writes_and_then_runs_the_apps_flow() {
    let s = start(false);
    let (status, _) = s.call("open_session", json!({ "path": s.session }));
    assert_eq!(status, StatusCode::OK);
    let before = std::fs::read(&s.session).unwrap();
    let (status, preview) = s.call("navigate_preview", json!({ "targetId": "u3", "summarize": false }));
    assert_eq!(status, StatusCode::OK, "a preview is a read: {preview}");
    let (status, err) = s.call("navigate", json!({ "targetId": "u3", "summarize": false }));
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(err["kind"], "refused");
    assert!(err["message"].as_str().unwrap().contains("--allow-writes"), "{err}");
    assert_eq!(std::fs::read(&s.session).unwrap(), before, "nothing written");

    let s = start(true);
    s.call("open_session", json!({ "path": s.session }));
    let before = std::fs::read(&s.session).unwrap();
    let (status, done) = s.call("navigate", json!({ "targetId": "u3", "summarize": false }));
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["action"], "continue");
    let after = std::fs::read(&s.session).unwrap();
    assert!(after.starts_with(&before), "appended, every earlier byte kept");
    let line: Value = serde_json::from_slice(after[before.len()..].trim_ascii()).unwrap();
    assert_eq!((line["customType"].as_str(), line["parentId"].as_str()), (Some("contextree-continue"), Some("u3")));
    assert_eq!(done["leafId"], line["id"], "the re-read file's leaf is the marker");
}

#[test]
fn two_hundred_readers_get_the_same_whole_document() {
    let s = Arc::new(start(false));
    let url = format!("{}{}&leaf=a4", s.base, s.context_url(&s.session));
    let expected = s.get(&format!("{}&leaf=a4", s.context_url(&s.session))).text().unwrap();
    let doc: Value = serde_json::from_str(&expected).unwrap();
    assert_eq!(doc["leafId"], "a4", "{doc}");
    // One client for all (its connection pool grows to 200): a client each would measure the
    // making of 200 TLS contexts instead of the server.
    let client = http();
    let readers: Vec<_> = (0..200)
        .map(|_| {
            let (url, client) = (url.clone(), client.clone());
            std::thread::spawn(move || {
                let r = client.get(url).bearer_auth(TOKEN).send().unwrap();
                (r.status(), r.text().unwrap())
            })
        })
        .collect();
    for reader in readers {
        let (status, body) = reader.join().unwrap();
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, expected);
    }
}

#[test]
fn bodies_are_bounded_and_a_tab_needs_an_id() {
    let s = start(false);
    let big = vec![b' '; contextree_serve::BODY_LIMIT + 1];
    let r = http()
        .post(format!("{}/api/call/list_sessions", s.base))
        .bearer_auth(TOKEN)
        .header("x-contextree-client", "test-tab-0001")
        .body(big)
        .send()
        .unwrap();
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let r = http().post(format!("{}/api/call/list_sessions", s.base)).bearer_auth(TOKEN).body("{}").send().unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
}

#[test]
fn a_non_loopback_bind_without_a_token_is_refused() {
    let config = Config { bind: "0.0.0.0:0".parse().unwrap(), roots: vec![], token: None, allow_writes: false, leaf: None, file: None };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let err = runtime.block_on(bind(&config, HostEnv::default())).err().expect("refused");
    assert!(err.to_string().contains("without --token"), "{err}");
}

#[test]
fn the_startup_file_opens_with_its_leaf_and_appends_reach_the_tab_live() {
    use std::io::{BufRead as _, BufReader, Write as _};
    let s = start_with(false, true);
    let (status, opened) = s.call("open_session", json!({ "path": null }));
    assert_eq!(status, StatusCode::OK, "{opened}");
    assert_eq!(opened["entryCount"].as_u64().map(|n| n > 0), Some(true), "{opened}");
    assert_eq!(s.call("startup_leaf", json!({})).1, json!("a5"));

    let events = http().get(format!("{}/api/events?client=test-tab-0001", s.base)).bearer_auth(TOKEN).send().unwrap();
    assert_eq!(events.status(), StatusCode::OK);
    assert_eq!(events.headers()["content-type"], "text/event-stream");
    let line = r#"{"type":"message","id":"u9","parentId":"a4","timestamp":"2026-01-01T00:00:11.000Z","message":{"role":"user","content":"More.","timestamp":1767225611000}}"#;
    let mut file = std::fs::OpenOptions::new().append(true).open(&s.session).unwrap();
    writeln!(file, "{line}").unwrap();
    drop(file);
    let mut reader = BufReader::new(events);
    let mut seen = String::new();
    while !seen.contains("event: session-changed") {
        assert!(reader.read_line(&mut seen).unwrap() > 0, "the stream ended: {seen}");
    }
    let mut data = String::new();
    reader.read_line(&mut data).unwrap();
    let report: Value = serde_json::from_str(data.trim().strip_prefix("data: ").unwrap()).unwrap();
    assert_eq!(report["entryCount"].as_u64(), opened["entryCount"].as_u64().map(|n| n + 1), "{report}");
}
