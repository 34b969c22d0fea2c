//! `/contextree` (agents/contextree) loaded by the pinned pi 1.6.0 itself: `pi install` of the
//! folder, pi's resource loader and extension loader, the command typed into the session
//! (`tests/agent-command/pi16.mjs`, under the agents' Bun). The programs it starts are fakes
//! named by `CONTEXTREE_APP_BIN` / `CONTEXTREE_BIN` that write down their arguments, so the
//! test reads the exact command line: the app with a display, `contextree serve` without one.
//!
//! Needs the agents (`scripts/install-agents.sh`, or `ORACLE`): without pi this cannot show
//! that pi loads the extension, so it fails rather than skip.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use contextree_testkit::Scratch;
use serde_json::Value;

use crate::support::oracle::{contextree, oracle_dir};

/// What the fake `contextree serve` prints, as the real one does: an address with a token.
const URL: &str = "http://127.0.0.1:7777/?token=t0k3n";

/// A fake program at `dir/name` that writes its arguments, one a line, to `dir/name.argv`
/// (renamed into place, so a reader never sees half of it) and prints `say`.
fn fake(dir: &Path, name: &str, say: &str) -> PathBuf {
    let path = dir.join(name);
    let script = format!("#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$0.argv.tmp\" && mv \"$0.argv.tmp\" \"$0.argv\"\necho '{say}'\n");
    std::fs::write(&path, script).unwrap();
    Command::new("chmod").arg("+x").arg(&path).status().unwrap();
    path
}

/// The arguments `fake` wrote down, waiting for them: the app is started detached and may run
/// after the agent's command returned.
fn argv_of(program: &Path) -> Vec<String> {
    let file = PathBuf::from(format!("{}.argv", program.display()));
    let deadline = Instant::now() + Duration::from_secs(10);
    while !file.exists() {
        assert!(Instant::now() < deadline, "{} was not started (no {})", program.display(), file.display());
        std::thread::sleep(Duration::from_millis(50));
    }
    std::fs::read_to_string(file).unwrap().lines().map(str::to_owned).collect()
}

/// Runs `/contextree` in pi 1.6 on `session` with the leaf moved to `leaf`, the fakes in `bin`,
/// and a display or none; the harness's JSON.
fn run_in_pi16(session: &Path, leaf: &str, bin: &Path, display: bool) -> Value {
    let agents = oracle_dir();
    let bun = agents.join("node_modules/.bin/bun");
    assert!(bun.is_file(), "no Bun in {} — run scripts/install-agents.sh", agents.display());
    let mut cmd = Command::new(bun);
    cmd.arg(contextree_testkit::repo().join("tests/agent-command/pi16.mjs"))
        .arg("--agents")
        .arg(&agents)
        .arg("--package")
        .arg(contextree_testkit::repo().join("agents/contextree"))
        .arg("--session")
        .arg(session)
        .args(["--leaf", leaf])
        .env("CONTEXTREE_APP_BIN", bin.join("contextree-app"))
        .env("CONTEXTREE_BIN", bin.join("contextree"))
        .env_remove("WAYLAND_DISPLAY");
    if display {
        cmd.env("DISPLAY", ":77");
    } else {
        cmd.env_remove("DISPLAY");
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "pi16.mjs: {}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("pi16.mjs printed no JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    // Installed pi's way, loaded without errors, `/contextree` registered.
    assert!(doc["installed"].as_str().unwrap().contains("Installed"), "{doc}");
    assert_eq!(doc["loadErrors"], serde_json::json!([]), "{doc}");
    assert_eq!(doc["errors"], serde_json::json!([]), "{doc}");
    let names: Vec<&str> = doc["commands"].as_array().unwrap().iter().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(names, ["contextree"], "{doc}");
    assert_eq!(doc["leafId"], leaf, "the harness moved the leaf: {doc}");
    doc
}

/// The one thing the command told the user: `(level, message)`.
fn told(doc: &Value) -> (String, String) {
    let notes = doc["notifications"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{doc}");
    (notes[0]["level"].as_str().unwrap().to_owned(), notes[0]["message"].as_str().unwrap().to_owned())
}

/// A pi 1.6 fixture with branches and a leaf that is not its last entry (as after /tree).
fn session_and_other_leaf(dir: &Scratch) -> (PathBuf, String) {
    let session = dir.copy_fixture("pi16/g16-branchy-s112.jsonl");
    let info = contextree(&["info", session.to_str().unwrap(), "--json"]);
    let last = info["leafId"].as_str().unwrap();
    let other =
        info["leaves"].as_array().unwrap().iter().filter_map(Value::as_str).find(|l| *l != last).expect("the fixture has another leaf");
    (session, other.to_owned())
}

#[test]
fn with_a_display_pi16_runs_the_app_on_the_session_and_its_leaf() {
    let dir = Scratch::new("agent-command-app");
    let (session, leaf) = session_and_other_leaf(&dir);
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let app = fake(&bin, "contextree-app", "");
    let cli = fake(&bin, "contextree", URL);

    let doc = run_in_pi16(&session, &leaf, &bin, true);
    let file = doc["copy"].as_str().unwrap();
    assert_eq!(argv_of(&app), [file, "--leaf", &leaf]);
    let (level, message) = told(&doc);
    assert_eq!(level, "info");
    assert_eq!(message, format!("contextree is opening {file} at leaf {leaf}."));
    assert!(!PathBuf::from(format!("{}.argv", cli.display())).exists(), "serve was started too");
}

#[test]
fn without_a_display_pi16_starts_serve_and_shows_its_address() {
    let dir = Scratch::new("agent-command-serve");
    let (session, leaf) = session_and_other_leaf(&dir);
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let app = fake(&bin, "contextree-app", "");
    let cli = fake(&bin, "contextree", URL);

    let doc = run_in_pi16(&session, &leaf, &bin, false);
    let file = doc["copy"].as_str().unwrap();
    assert_eq!(argv_of(&cli), ["serve", file, "--leaf", &leaf]);
    let (level, message) = told(&doc);
    assert_eq!(level, "info");
    let shows = format!("shows this session at leaf {leaf}: {URL} From another machine: ssh -L 7777:127.0.0.1:7777 THIS-HOST");
    assert!(message.contains(&shows), "{message}");
    assert!(!PathBuf::from(format!("{}.argv", app.display())).exists(), "the app was started too");
}

#[test]
fn a_missing_app_is_reported_in_pi16_not_thrown() {
    let dir = Scratch::new("agent-command-missing");
    let (session, leaf) = session_and_other_leaf(&dir);
    let bin = dir.join("bin"); // no programs in it
    std::fs::create_dir(&bin).unwrap();

    let doc = run_in_pi16(&session, &leaf, &bin, true);
    let (level, message) = told(&doc);
    assert_eq!(level, "error");
    let expected = format!("Could not start `{}/contextree-app {} --leaf {leaf}`", bin.display(), doc["copy"].as_str().unwrap());
    assert!(message.starts_with(&expected), "{message}");
    assert!(message.ends_with("Is contextree installed? CONTEXTREE_APP_BIN names the app's binary."), "{message}");
}
