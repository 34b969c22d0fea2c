//! `/contextree` (agents/contextree) loaded by the pinned agents themselves: pi 1.6.0 after
//! `pi install` of the folder, oh-my-pi 18.2.3 after `omp plugin install`, each through its own
//! startup (resource discovery, extension loader, session), the command typed into the session
//! (`tests/agent-command/run.mjs`, under the agents' Bun). The programs it starts are fakes
//! named by `CONTEXTREE_APP_BIN` / `CONTEXTREE_BIN` that write down their arguments, so the
//! test reads the exact command line: the app with a display, `contextree serve` without one.
//!
//! Needs the agents (`scripts/install-agents.sh`, or `ORACLE`): without them this cannot show
//! that the agents load the extension, so it fails rather than skip.

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

/// Runs `/contextree` in `agent` (`pi16`, `omp18`) on `session` with the leaf moved to `leaf`,
/// the fakes in `bin`, and a display or none; the harness's JSON.
fn run_in(agent: &str, session: &Path, leaf: &str, bin: &Path, display: bool) -> Value {
    let agents = oracle_dir();
    let bun = agents.join("node_modules/.bin/bun");
    assert!(bun.is_file(), "no Bun in {} — run scripts/install-agents.sh", agents.display());
    let mut cmd = Command::new(bun);
    cmd.arg(contextree_testkit::repo().join("tests/agent-command/run.mjs"))
        .args(["--agent", agent])
        .arg("--agents")
        .arg(&agents)
        .arg("--package")
        .arg(contextree_testkit::repo().join("agents/contextree"))
        .arg("--session")
        .arg(session)
        .args(["--leaf", leaf])
        .env("CONTEXTREE_APP_BIN", bin.join("contextree-app"))
        .env("CONTEXTREE_BIN", bin.join("contextree"))
        .env_remove("WAYLAND_DISPLAY")
        // The harness's scratch HOME and serve's log folder land in the test's own folder.
        .env("TMPDIR", bin.parent().unwrap());
    if display {
        cmd.env("DISPLAY", ":77");
    } else {
        cmd.env_remove("DISPLAY");
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "run.mjs --agent {agent}: {}\n{stderr}", out.status);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("run.mjs --agent {agent} printed no JSON ({e}): {}\n{stderr}", String::from_utf8_lossy(&out.stdout)));
    // Installed the agent's way (pi records the folder, omp links it), loaded without errors,
    // `/contextree` registered once (beside the commands of the agent's built-in extensions).
    let installed = doc["installed"].as_str().unwrap();
    let expected = if agent == "pi16" { "Installed " } else { "Linked contextree-agent-command from " };
    assert!(installed.contains(expected), "{doc}");
    assert_eq!(doc["loadErrors"], serde_json::json!([]), "{doc}");
    assert_eq!(doc["errors"], serde_json::json!([]), "{doc}");
    let ours: Vec<&Value> = doc["commands"].as_array().unwrap().iter().filter(|c| c["name"] == "contextree").collect();
    assert_eq!(ours.len(), 1, "{doc}");
    assert_eq!(ours[0]["description"], "Open this session in contextree, at the current leaf");
    assert_eq!(doc["leafId"], leaf, "the harness moved the leaf: {doc}");
    doc
}

/// The one thing the command told the user: `(level, message)`.
fn told(doc: &Value) -> (String, String) {
    let notes = doc["notifications"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{doc}");
    (notes[0]["level"].as_str().unwrap().to_owned(), notes[0]["message"].as_str().unwrap().to_owned())
}

/// A fixture of `agent`'s with branches, and a leaf that is not its last entry (as after /tree).
fn session_and_other_leaf(dir: &Scratch, agent: &str) -> (PathBuf, String) {
    let fixture = match agent {
        "pi16" => "pi16/g16-branchy-s112.jsonl",
        // oh-my-pi 18.2.3 reads 18.3's files as its own (the same format, version 3).
        _ => "omp183/g183-branchy-s66.jsonl",
    };
    let session = dir.copy_fixture(fixture);
    let info = contextree(&["info", session.to_str().unwrap(), "--json"]);
    let last = info["leafId"].as_str().unwrap();
    let other =
        info["leaves"].as_array().unwrap().iter().filter_map(Value::as_str).find(|l| *l != last).expect("the fixture has another leaf");
    (session, other.to_owned())
}

/// With a display: the app on the agent's file and leaf, and nothing else.
fn with_a_display_the_app_opens_the_session_at_its_leaf(agent: &str) {
    let dir = Scratch::new("agent-command-app");
    let (session, leaf) = session_and_other_leaf(&dir, agent);
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let app = fake(&bin, "contextree-app", "");
    let cli = fake(&bin, "contextree", URL);

    let doc = run_in(agent, &session, &leaf, &bin, true);
    let file = doc["copy"].as_str().unwrap();
    assert_eq!(argv_of(&app), [file, "--leaf", &leaf]);
    let (level, message) = told(&doc);
    assert_eq!(level, "info");
    assert_eq!(message, format!("contextree is opening {file} at leaf {leaf}."));
    assert!(!PathBuf::from(format!("{}.argv", cli.display())).exists(), "serve was started too");
}

/// Without one: `contextree serve` on the same, and the address it printed shown to the user.
fn without_a_display_serve_starts_and_its_address_is_shown(agent: &str) {
    let dir = Scratch::new("agent-command-serve");
    let (session, leaf) = session_and_other_leaf(&dir, agent);
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let app = fake(&bin, "contextree-app", "");
    let cli = fake(&bin, "contextree", URL);

    let doc = run_in(agent, &session, &leaf, &bin, false);
    let file = doc["copy"].as_str().unwrap();
    assert_eq!(argv_of(&cli), ["serve", "--bind", "127.0.0.1:0", file, "--leaf", &leaf]);
    let (level, message) = told(&doc);
    assert_eq!(level, "info");
    let shows = format!("shows this session at leaf {leaf}: {URL} From another machine: ssh -L 7777:127.0.0.1:7777 THIS-HOST");
    assert!(message.contains(&shows), "{message}");
    assert!(!PathBuf::from(format!("{}.argv", app.display())).exists(), "the app was started too");
}

/// A missing app is told to the user, with what to do, not thrown at the agent.
fn a_missing_app_is_reported_not_thrown(agent: &str) {
    let dir = Scratch::new("agent-command-missing");
    let (session, leaf) = session_and_other_leaf(&dir, agent);
    let bin = dir.join("bin"); // no programs in it
    std::fs::create_dir(&bin).unwrap();

    let doc = run_in(agent, &session, &leaf, &bin, true);
    let (level, message) = told(&doc);
    assert_eq!(level, "error");
    let expected = format!("Could not start `{}/contextree-app {} --leaf {leaf}`", bin.display(), doc["copy"].as_str().unwrap());
    assert!(message.starts_with(&expected), "{message}");
    assert!(message.ends_with("Is contextree installed? CONTEXTREE_APP_BIN names the app's binary."), "{message}");
}

#[test]
fn pi16_with_a_display_opens_the_app_at_the_leaf() {
    with_a_display_the_app_opens_the_session_at_its_leaf("pi16");
}

#[test]
fn pi16_without_a_display_starts_serve() {
    without_a_display_serve_starts_and_its_address_is_shown("pi16");
}

#[test]
fn pi16_reports_a_missing_app() {
    a_missing_app_is_reported_not_thrown("pi16");
}

#[test]
fn omp18_with_a_display_opens_the_app_at_the_leaf() {
    with_a_display_the_app_opens_the_session_at_its_leaf("omp18");
}

#[test]
fn omp18_without_a_display_starts_serve() {
    without_a_display_serve_starts_and_its_address_is_shown("omp18");
}
