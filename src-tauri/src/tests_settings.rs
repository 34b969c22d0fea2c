//! The settings file (what is kept, what is refused) and the settings, library and
//! dialect-override commands over IPC on the mock runtime.

use contextree_host::config::MAX_WINDOW;
use contextree_host::HostEnv;
use serde_json::{json, Value};

use crate::demo;
use contextree_face::settings::*;
use contextree_testkit::Scratch;

use crate::test_support::{app_in, invoke, webview};

#[test]
fn a_config_file_that_cannot_be_saved_is_a_settings_error() {
    let dir = Scratch::new("app-broken");
    let path = dir.path().join("config.json");
    let broken = "{ \"providers\": [ oops";
    std::fs::write(&path, broken).unwrap();
    let settings = AppSettings { context_window: Some(200_000), ..AppSettings::default() };
    let err = write(&path, &settings).unwrap_err();
    assert_eq!(err.kind(), "settings");
    assert!(err.to_string().contains("not overwritten"), "{err}");
    // The message names the file and the JSON error once.
    let wire = serde_json::to_value(&err).unwrap();
    let message = wire["message"].as_str().unwrap();
    assert_eq!(message, err.to_string(), "{message}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
    for bad in [
        AppSettings { context_window: Some(0), ..AppSettings::default() },
        AppSettings { context_window: Some(MAX_WINDOW + 1), ..AppSettings::default() },
    ] {
        let err = write(&path, &bad).unwrap_err();
        assert_eq!(err.kind(), "settings", "{err}");
    }
    let (settings, warning) = read(&path);
    assert_eq!(settings, AppSettings::default());
    assert!(warning.unwrap().contains("config.json"));
}

/// On a machine of its own: a temporary home whose config file the commands read and write.
#[test]
fn settings_library_folders_and_a_forced_dialect_over_ipc() {
    let dir = Scratch::new("app-ipc");
    let env = HostEnv::isolated(dir.path());
    let config = env.config_path.clone().unwrap();
    let app = app_in(env.clone());
    let webview = webview(&app);

    let view = invoke(&webview, "settings", json!({})).unwrap();
    assert_eq!(view["settings"]["theme"], "system");
    assert_eq!(view["warning"], Value::Null);
    assert_eq!(view["path"], json!(config.display().to_string()));

    // A library folder holding one project with one pi session (the demo).
    let sessions = dir.path().join("sessions");
    let project = sessions.join("--work-demo--");
    std::fs::create_dir_all(&project).unwrap();
    let file = project.join("2026-01-01T00-00-00-000Z_demo.jsonl");
    std::fs::write(&file, demo::DEMO_SESSION).unwrap();
    let saved = invoke(
        &webview,
        "save_settings",
        json!({ "settings": { "theme": "dark", "tokenizer": "none", "contextWindow": 1000,
                              "library": { "only": [sessions] } } }),
    )
    .unwrap();
    assert_eq!(saved["settings"]["theme"], "dark");
    assert_eq!(current(&env).tokenizer_kind(), None);
    let err = invoke(&webview, "save_settings", json!({ "settings": { "contextWindow": 0 } })).unwrap_err();
    assert_eq!(err["kind"], "settings", "{err}");
    assert_eq!(current(&env).context_window, Some(1000), "a refused save changes nothing");

    let lib = invoke(&webview, "list_sessions", json!({})).unwrap();
    assert_eq!(lib["roots"][0]["origin"], "override", "{lib}");
    assert_eq!(lib["sessionCount"], 1, "{lib}");
    let item = &lib["projects"][0]["sessions"][0];
    assert_eq!(item["path"], json!(file.display().to_string()));

    // Opening it from the library, then forcing omp's rules on it.
    let pi = invoke(&webview, "open_session", json!({ "path": item["path"] })).unwrap();
    assert_eq!((&pi["dialect"], &pi["detectedDialect"]), (&json!("pi"), &json!("pi")));
    let omp = invoke(&webview, "open_session", json!({ "path": item["path"], "dialect": "omp" })).unwrap();
    assert_eq!((&omp["dialect"], &omp["detectedDialect"]), (&json!("omp"), &json!("pi")));
    let ctx = invoke(&webview, "context_view", json!({})).unwrap();
    assert_eq!(ctx["dialect"], "omp", "the open session is the forced one");
    let err = invoke(&webview, "open_session", json!({ "path": item["path"], "dialect": "vim" })).unwrap_err();
    assert_eq!(err["kind"], "settings", "{err}");
    assert_eq!(invoke(&webview, "home_dir", json!({})).unwrap(), json!(dir.path().display().to_string()));
}
