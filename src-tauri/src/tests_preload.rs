//! The startup file read while the window starts (`crate::preload`): the page's first open
//! gives what a normal open gives, errors included, and a file changed since is read again.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tauri::test::MockRuntime;
use tauri::{App, Manager as _, WebviewWindow};

use contextree_testkit::Scratch;

use crate::demo;
use crate::preload::Preload;
use crate::startup::Startup;
use crate::test_support::{app_started_with, invoke, webview};

/// The app started with `file` on its command line, and its window; its preload has finished
/// reading.
fn started(file: &Path, home: &Path) -> (App<MockRuntime>, WebviewWindow<MockRuntime>) {
    let app = app_started_with(Startup { file: Some(file.to_owned()), leaf: None }, home);
    app.state::<Preload>().settle();
    let window = webview(&app);
    (app, window)
}

/// The page's first call: `open_session` with no path, as `ui/src/main.js` makes it.
fn first_open(window: &WebviewWindow<MockRuntime>) -> Result<Value, Value> {
    invoke(window, "open_session", json!({ "path": null }))
}

/// `open_session` of `file` named by its path, in an app started with no file (no preload).
fn normal_open(file: &Path, home: &Path) -> Result<Value, Value> {
    let app = app_started_with(Startup::default(), home);
    assert!(!app.state::<Preload>().holds());
    invoke(&webview(&app), "open_session", json!({ "path": file }))
}

/// The id of the last entry of `session` (the file's leaf), and the file with that id changed
/// to another of the same length: the same size, another leaf.
fn with_other_leaf(session: &[u8]) -> (String, String, Vec<u8>) {
    let text = std::str::from_utf8(session).unwrap();
    let body = text.trim_end();
    let start = body.rfind('\n').map_or(0, |i| i + 1);
    let last = &body[start..];
    let id = serde_json::from_str::<Value>(last).unwrap()["id"].as_str().unwrap().to_owned();
    let mut other = id.clone();
    let end = other.pop().unwrap();
    other.push(if end == '0' { '1' } else { '0' });
    let changed_last = last.replacen(&format!("\"id\":\"{id}\""), &format!("\"id\":\"{other}\""), 1);
    assert_ne!(changed_last, last, "the last line names its id as `\"id\":\"…\"`");
    let changed = format!("{}{changed_last}{}", &text[..start], &text[start + last.len()..]);
    assert_eq!(changed.len(), text.len());
    (id, other, changed.into_bytes())
}

fn write_session(dir: &Scratch) -> PathBuf {
    let session = dir.path().join("session.jsonl");
    std::fs::write(&session, demo::DEMO_SESSION).unwrap();
    session
}

#[test]
fn the_preloaded_open_answers_as_a_normal_open_and_is_used_once() {
    let dir = Scratch::new("app-preload-same");
    let session = write_session(&dir);
    let (app, window) = started(&session, dir.path());
    assert!(app.state::<Preload>().holds(), "the startup file was read before the page asked");

    let view = first_open(&window).unwrap();
    assert_eq!(Ok(view.clone()), normal_open(&session, dir.path()));
    assert!(!app.state::<Preload>().holds(), "the reading is not held after the first open");
    // The commands work on it as on any open session.
    let ctx = invoke(&window, "context_view", json!({})).unwrap();
    assert_eq!(ctx["leafId"], view["leafId"]);
    // A second open of the startup file reads it again, with the same answer.
    assert_eq!(first_open(&window), Ok(view));
}

#[test]
fn the_preload_is_what_the_first_open_shows_while_the_file_keeps_its_stamp() {
    // The same length and modification time but another leaf id: only a preloaded open can
    // still show the old leaf, which tells that the first open did not read the file again.
    let dir = Scratch::new("app-preload-used");
    let session = write_session(&dir);
    let (_app, window) = started(&session, dir.path());
    let (id, other, changed) = with_other_leaf(demo::DEMO_SESSION);
    let modified = std::fs::metadata(&session).unwrap().modified().unwrap();
    std::fs::write(&session, changed).unwrap();
    std::fs::File::options().write(true).open(&session).unwrap().set_modified(modified).unwrap();

    assert_eq!(first_open(&window).unwrap()["leafId"], json!(id));
    assert_eq!(normal_open(&session, dir.path()).unwrap()["leafId"], json!(other));
}

#[test]
fn a_file_changed_after_the_preload_is_read_again() {
    let dir = Scratch::new("app-preload-changed");
    let session = write_session(&dir);
    let (_app, window) = started(&session, dir.path());
    // Another leaf, and a stamp of its own (a later modification time).
    let (id, other, changed) = with_other_leaf(demo::DEMO_SESSION);
    let later = std::fs::metadata(&session).unwrap().modified().unwrap() + std::time::Duration::from_secs(2);
    std::fs::write(&session, changed).unwrap();
    std::fs::File::options().write(true).open(&session).unwrap().set_modified(later).unwrap();

    let view = first_open(&window).unwrap();
    assert_eq!(view["leafId"], json!(other), "not the preloaded leaf {id}");
    assert_eq!(Ok(view), normal_open(&session, dir.path()));

    // A file that grew (an agent appended) is read again too.
    let dir = Scratch::new("app-preload-grown");
    let session = write_session(&dir);
    let (_app, window) = started(&session, dir.path());
    let mut grown = demo::DEMO_SESSION.to_vec();
    grown.extend_from_slice(b"\n");
    std::fs::write(&session, &grown).unwrap();
    let view = first_open(&window).unwrap();
    assert_eq!(Ok(view.clone()), normal_open(&session, dir.path()));
    assert_eq!(view["bytes"], json!(grown.len()), "{view}");
}

#[test]
fn a_startup_file_that_cannot_be_read_fails_as_a_normal_open() {
    let dir = Scratch::new("app-preload-errors");
    // A file that is not there, and a folder where the file should be.
    let missing = dir.path().join("missing.jsonl");
    let folder = dir.path().join("folder.jsonl");
    std::fs::create_dir(&folder).unwrap();
    for file in [missing, folder] {
        let (_app, window) = started(&file, dir.path());
        let err = first_open(&window).unwrap_err();
        assert_eq!(err["kind"], "load", "{err}");
        assert_eq!(Err(err), normal_open(&file, dir.path()));
    }
}

#[test]
fn another_file_opened_first_gives_the_preload_up() {
    let dir = Scratch::new("app-preload-other");
    let session = write_session(&dir);
    let other = dir.path().join("other.jsonl");
    std::fs::write(&other, demo::DEMO_SESSION).unwrap();
    // Not settled: the reading may still be under way, and is not waited for.
    let app = app_started_with(Startup { file: Some(session.clone()), leaf: None }, dir.path());
    let view = invoke(&webview(&app), "open_session", json!({ "path": other })).unwrap();
    assert_eq!(view["fileName"], "other.jsonl");
    assert!(!app.state::<Preload>().holds());
    // Forced rules give it up as well: the reading was made with the detected ones.
    let (app, window) = started(&session, dir.path());
    let forced = invoke(&window, "open_session", json!({ "path": null, "dialect": "omp" })).unwrap();
    assert_eq!(forced["requested"], "omp", "{forced}");
    assert!(!app.state::<Preload>().holds());
    // The startup file still opens, read again.
    assert_eq!(first_open(&window).unwrap()["fileName"], "session.jsonl");
}
