//! The settings file: what is kept, what is refused.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::*;

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

fn dark_200k() -> AppSettings {
    AppSettings {
        theme: Theme::Dark,
        tokenizer: Tokenizer::Cl100k,
        context_window: Some(200_000),
        library: LibraryRoots { pi: Some("~/pi-sessions".into()), omp: None, only: vec![] },
    }
}

/// `read_app` with the warning as text, as the app shows it.
fn read(path: &Path) -> (AppSettings, Option<String>) {
    let (settings, warning) = read_app(path);
    (settings, warning.map(|w| w.to_string()))
}

#[test]
fn the_wire_names_are_camel_case_and_the_tokenizer_names_are_the_cores() {
    let v = serde_json::to_value(dark_200k()).unwrap();
    assert_eq!(
        v,
        json!({
            "theme": "dark",
            "tokenizer": "cl100k_base",
            "contextWindow": 200000,
            "library": { "pi": "~/pi-sessions", "omp": null, "only": [] },
        })
    );
    // Missing keys are defaults, so an older file (or `{}`) reads.
    let s: AppSettings = serde_json::from_value(json!({ "theme": "light" })).unwrap();
    assert_eq!(s.theme, Theme::Light);
    assert_eq!(s.tokenizer_kind(), Some(TokenizerKind::O200kBase));
    let none: AppSettings = serde_json::from_value(json!({ "tokenizer": "none" })).unwrap();
    assert_eq!(none.tokenizer_kind(), None);
}

#[test]
fn saving_keeps_providers_hooks_unknown_keys_and_their_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("contextree/config.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let before = r#"{
  "providers": [{ "kind": "anthropic", "model": "claude-sonnet-4-5", "apiKey": "sk-ant-secret-1234" }],
  "zeta": 1,
  "app": { "theme": "light", "future": { "x": [1, 2.5] } },
  "hooks": { "session_before_compact": [{ "command": ["true"] }] }
}"#;
    std::fs::write(&path, before).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }

    write_app(&path, &dark_200k()).unwrap();

    let after: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let keys: Vec<&str> = after.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["providers", "zeta", "app", "hooks"], "order kept");
    let old: Value = serde_json::from_str(before).unwrap();
    assert_eq!(after["providers"], old["providers"]);
    assert_eq!(after["hooks"], old["hooks"]);
    assert_eq!(after["zeta"], 1);
    assert_eq!(after["app"]["future"], json!({ "x": [1, 2.5] }), "unknown app keys kept");
    assert_eq!(after["app"]["theme"], "dark");
    assert_eq!(after["app"]["contextWindow"], 200000);
    assert_eq!(read(&path), (dark_200k(), None));
    // The file's other reader in this workspace still reads its section.
    let hooks = crate::hooks::parse_hooks(&std::fs::read_to_string(&path).unwrap());
    assert!(!hooks.unwrap().is_empty());
    // Renamed into place: no temporary file left; the key-holding file stays private.
    assert_eq!(files_in(path.parent().unwrap()), ["config.json"]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn a_missing_file_is_created_with_only_the_app_section() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new/contextree/config.json");
    assert_eq!(read(&path), (AppSettings::default(), None));
    write_app(&path, &AppSettings::default()).unwrap();
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v.as_object().unwrap().len(), 1);
    assert_eq!(v["app"]["theme"], "system");
    assert_eq!(v["app"]["tokenizer"], "o200k_base");
}

#[test]
fn a_file_that_is_not_json_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    let broken = "{ \"providers\": [ oops";
    std::fs::write(&path, broken).unwrap();
    let err = write_app(&path, &dark_200k()).unwrap_err();
    assert!(matches!(&err, ConfigError::NotOverwritten(e) if matches!(**e, ConfigError::NotJson { .. })), "{err:?}");
    assert!(err.to_string().contains("not overwritten"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
    assert_eq!(files_in(dir.path()), ["config.json"]);
    // Nor one that is JSON but not an object.
    std::fs::write(&path, "[1]").unwrap();
    let err = write_app(&path, &dark_200k()).unwrap_err();
    assert_eq!(err.to_string(), format!("{}: not a JSON object; not overwritten", path.display()));
    std::fs::write(&path, broken).unwrap();
    // Reading it gives the defaults and says why.
    let (settings, warning) = read(&path);
    assert_eq!(settings, AppSettings::default());
    assert!(warning.unwrap().contains("config.json"));
}

#[test]
fn a_bad_app_section_reads_as_defaults_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    std::fs::write(&path, r#"{ "app": { "theme": "purple" } }"#).unwrap();
    let (settings, warning) = read(&path);
    assert_eq!(settings, AppSettings::default());
    assert!(warning.unwrap().contains("purple"));
}

#[test]
fn invalid_settings_are_refused_before_the_file_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    for bad in [
        AppSettings { context_window: Some(0), ..AppSettings::default() },
        AppSettings { context_window: Some(MAX_WINDOW + 1), ..AppSettings::default() },
        AppSettings {
            library: LibraryRoots { only: vec!["relative/sessions".into()], ..LibraryRoots::default() },
            ..AppSettings::default()
        },
    ] {
        let err = write_app(&path, &bad).unwrap_err();
        assert!(matches!(err, ConfigError::Invalid(_)), "{err}");
    }
    assert!(!path.exists());
}

#[test]
fn library_folders_expand_the_home_folder_and_skip_empty_ones() {
    let s = AppSettings {
        library: LibraryRoots { pi: Some("  ".into()), omp: Some("/srv/omp".into()), only: vec!["~/a".into(), String::new()] },
        ..AppSettings::default()
    };
    let o = s.root_overrides(Some(Path::new("/home/u")));
    assert_eq!(o.pi, None);
    assert_eq!(o.omp, Some(PathBuf::from("/srv/omp")));
    assert_eq!(o.only, [PathBuf::from("/home/u/a")]);
    assert_eq!(s.root_overrides(None).only, [PathBuf::from("~/a")], "no home folder: the path as typed");
}
