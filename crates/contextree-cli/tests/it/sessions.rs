//! `contextree sessions`: the library over a fake HOME.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use contextree_testkit::Scratch;
use serde_json::Value;

fn temp(tag: &str) -> Scratch {
    Scratch::new(&format!("cli-sessions-{tag}"))
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn session(id: &str, cwd: &str, request: &str) -> String {
    format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"{cwd}\"}}\n\
         {{\"type\":\"message\",\"id\":\"u1\",\"parentId\":null,\"timestamp\":\"t\",\"message\":{{\"role\":\"user\",\"content\":\"{request}\",\"timestamp\":1}}}}\n"
    )
}

fn sessions(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_contextree"))
        .arg("sessions")
        .args(args)
        .env("HOME", home)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CONFIG_DIR")
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap()
}

fn fake_home(t: &Scratch) -> PathBuf {
    let home = t.path().join("home");
    write(
        &home.join(".pi/agent/sessions/--srv-app--/2026-01-01T00-00-00-000Z_01890a5d-ac96-774b-bcce-b302099a8057.jsonl"),
        &session("01890a5d-ac96-774b-bcce-b302099a8057", "/srv/app", "fix the parser"),
    );
    write(
        &home.join(".omp/agent/sessions/--srv-app--/2026_15e4dc26ca91c9ed.jsonl"),
        &session("15e4dc26ca91c9ed", "/srv/app", "write docs"),
    );
    home
}

#[test]
fn lists_the_default_roots_as_json_and_searches() {
    let t = temp("json");
    let home = fake_home(&t);
    let out = sessions(&home, &["--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["sessionCount"], 2);
    assert_eq!(doc["projects"].as_array().unwrap().len(), 1);
    let p = &doc["projects"][0];
    assert_eq!(p["project"], "/srv/app");
    assert_eq!(p["source"], "header");
    let mut dialects: Vec<&str> = p["sessions"].as_array().unwrap().iter().map(|s| s["dialect"].as_str().unwrap()).collect();
    dialects.sort_unstable();
    assert_eq!(dialects, ["omp", "pi"]);

    let out = sessions(&home, &["--json", "--search", "PARSER"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["sessionCount"], 1);
    assert_eq!(doc["projects"][0]["sessions"][0]["firstRequest"], "fix the parser");
    assert_eq!(doc["projects"][0]["sessions"][0]["entryCount"], 1);
}

#[test]
fn text_output_and_explicit_roots() {
    let t = temp("text");
    let home = fake_home(&t);
    let root = home.join(".omp/agent/sessions");
    let out = sessions(&home, &["--root", root.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("/srv/app  [1 session]"), "{text}");
    assert!(text.contains("write docs"), "{text}");
    assert!(!text.contains("fix the parser"), "{text}");

    let out = sessions(&home, &["--root", "/nonexistent/sessions"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/sessions"));
}
