//! Compaction with no contextree set-up: `contextree compact FILE --yes` in a HOME that holds
//! only pi's own files (settings.json naming a provider and model, models.json declaring that
//! provider at a stand-in server on 127.0.0.1, auth.json with its key) asks that model with
//! that key. The key appears in the request's authorization header and nowhere else: not on
//! stdout or stderr, not in the session file, not in any file contextree wrote. A subscription
//! login and a `!command` key are reported as unusable with the reason, and the command is
//! never run.

use crate::support::sandbox::{json_out, Sandbox};
use crate::support::server::{serve, Server};
use serde_json::{json, Value};

const CANARY: &str = "sk-canary-7f3a9c1e5b2d4f6a8c0e";

fn sse_response(events: &[&str]) -> String {
    let body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    format!("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len())
}

fn summarizing_server() -> Server {
    let chunk = |t: &str| json!({"choices": [{"index": 0, "delta": {"content": t}}]}).to_string();
    let ok = sse_response(&[&chunk("## Goal\n"), &chunk("Summary by pi's own model."), "[DONE]"]);
    serve("/v1", move |_, _| ok.clone())
}

/// Every file below `dir`, recursively.
fn files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn pis_own_model_and_key_compact_with_no_contextree_config() {
    let sb = Sandbox::new("E02");
    let server = summarizing_server();
    let marker = sb.path("command-ran");
    sb.write(".pi/agent/settings.json", &json!({"defaultProvider": "canaryprov", "defaultModel": "canary-model"}).to_string());
    // The models.json key is a command; auth.json's stored key wins over it, and it is never run.
    sb.write(
        ".pi/agent/models.json",
        &format!(
            "{{\n  // pi strips comments and trailing commas\n  \"providers\": {{\"canaryprov\": {{\"baseUrl\": \"{}\", \"api\": \"openai-completions\", \"apiKey\": \"!touch '{}'\", \"models\": [{{\"id\": \"canary-model\"}},]}}}}\n}}\n",
            server.url,
            marker.display()
        ),
    );
    sb.write(".pi/agent/auth.json", &json!({"canaryprov": {"type": "api_key", "key": CANARY}}).to_string());
    assert!(!sb.path("xdg/contextree/config.json").exists(), "no contextree config");
    let before = std::fs::read(&sb.file).unwrap();
    let listing_before = files(&sb.dir);

    let out = sb.run("compact", &["--dialect", "pi@0.73", "--keep-recent", "45", "--yes", "--json"]);
    let done = json_out(&out);
    assert_eq!(done["summarizer"]["kind"], "model", "{done}");
    assert_eq!(done["summarizer"]["calls"][0]["provider"], "pi's own: canaryprov/canary-model", "{done}");
    assert_eq!(done["summarizer"]["calls"][0]["model"], "canary-model", "{done}");
    let entry: &Value = &done["entry"];
    assert!(entry["summary"].as_str().unwrap().starts_with("## Goal\nSummary by pi's own model."), "{entry}");

    // The server saw the key in the authorization header, and the model in the body.
    assert!(server.count() >= 1);
    for (head, body) in server.heads().iter().zip(server.bodies()) {
        let auth = head.lines().find(|l| l.to_ascii_lowercase().starts_with("authorization:")).unwrap_or_default();
        assert_eq!(auth.trim_end(), format!("authorization: Bearer {CANARY}"), "{head}");
        assert_eq!(body["model"], "canary-model");
        assert!(!body.to_string().contains(CANARY), "the key is not in the request body");
    }

    // Nowhere else: stdout, stderr, the session file, any file contextree wrote.
    for (what, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        assert!(!String::from_utf8_lossy(text).contains(CANARY), "{what} shows the key");
        assert!(!String::from_utf8_lossy(text).contains("7f3a9c1e"), "{what} shows part of the key");
    }
    let after = std::fs::read(&sb.file).unwrap();
    assert!(after.starts_with(&before));
    assert!(!String::from_utf8_lossy(&after).contains(CANARY), "the session file holds the key");
    for f in files(&sb.dir) {
        if f.ends_with(".pi/agent/auth.json") {
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        assert!(!text.contains(CANARY), "{} holds the key", f.display());
        if !listing_before.contains(&f) {
            assert!(f == sb.file || !text.is_empty(), "new file {}", f.display());
        }
    }
    assert!(!marker.exists(), "the `!command` key was run");
    assert_eq!(
        std::fs::read_to_string(sb.path(".pi/agent/auth.json")).unwrap(),
        json!({"canaryprov": {"type": "api_key", "key": CANARY}}).to_string(),
        "auth.json is untouched"
    );

    // The dry run names no key either.
    let dry = sb.run("compact", &["--dialect", "pi@0.73", "--keep-recent", "45", "--dry-run", "--json"]);
    assert!(!String::from_utf8_lossy(&dry.stdout).contains(CANARY));
}

#[test]
fn a_subscription_login_and_a_command_key_are_unusable_with_the_reason_and_never_run() {
    let server = summarizing_server();
    for (provider, auth) in [
        ("anthropic", json!({"anthropic": {"type": "oauth", "access": "sk-ant-oat01-secret-token", "refresh": "r", "expires": 1}})),
        ("vault", json!({})),
    ] {
        let sb = Sandbox::new("E02");
        let marker = sb.path("command-ran");
        sb.write(".pi/agent/settings.json", &json!({"defaultProvider": provider, "defaultModel": "m"}).to_string());
        sb.write(
            ".pi/agent/models.json",
            &json!({"providers": {"vault": {"baseUrl": server.url, "api": "openai-completions", "apiKey": format!("!touch '{}'", marker.display()), "models": [{"id": "m"}]}}}).to_string(),
        );
        sb.write(".pi/agent/auth.json", &auth.to_string());
        let out = sb.run("compact", &["--dialect", "pi@0.73", "--keep-recent", "45", "--yes", "--json"]);
        let done = json_out(&out);
        assert_eq!(done["summarizer"]["kind"], "offline", "{provider}: {done}");
        let why = done["summarizer"]["why"].as_str().unwrap();
        let expected = if provider == "anthropic" {
            "signed in to `anthropic` with a subscription (OAuth in ~/.pi/agent/auth.json): only pi's own login flow can use it"
        } else {
            "is the output of a command (`!…`), which contextree does not run"
        };
        assert!(why.contains(&format!("pi's own: {provider}/m: ")) && why.contains(expected), "{provider}: {why}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("secret-token"));
        assert!(!String::from_utf8_lossy(&out.stderr).contains("secret-token"));
        assert!(!marker.exists(), "{provider}: the `!command` key was run");
    }
    assert_eq!(server.count(), 0, "no model was asked");
}
