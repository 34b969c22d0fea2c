//! The session library over a fake HOME holding both agents' folder layouts.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use contextree_core::Dialect;
use contextree_host::library::{default_roots, scan, HostPaths, ProjectSource, RootOverrides, SummaryCache};

/// A temporary folder (`tempfile`, removed when dropped) and its canonical path (the library
/// compares canonical project paths).
struct TempDir {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = tempfile::Builder::new().prefix(&format!("contextree-library-{tag}-")).tempdir().unwrap();
        let path = std::fs::canonicalize(dir.path()).unwrap();
        TempDir { _dir: dir, path }
    }
}

fn write(path: &Path, text: &str, secs: u64) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    File::options().write(true).open(path).unwrap().set_modified(UNIX_EPOCH + Duration::from_secs(secs)).unwrap();
}

fn user(id: &str, parent: &str, text: &str) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":[{{"type":"text","text":{}}}],"timestamp":1}}}}"#,
        serde_json::to_string(text).unwrap()
    )
}

fn assistant(id: &str, parent: &str, text: &str) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":{}}}]}}}}"#,
        serde_json::to_string(text).unwrap()
    )
}

#[test]
fn lists_both_agents_grouped_newest_first_and_searches() {
    let t = TempDir::new("both");
    let home = t.path.join("home");
    let proj = home.join("work/my-app"); // a dash in a folder name
    std::fs::create_dir_all(&proj).unwrap();
    let proj_s = proj.to_string_lossy().into_owned();
    let host = HostPaths { home: Some(home.clone()), tmp: Some(t.path.join("tmpdir")) };

    // pi: named twice (the last name wins), a user request with leading blank lines.
    let pi_dir = home.join(".pi/agent/sessions").join(contextree_host::library::encode_pi(&proj_s));
    let pi_id = "01890a5d-ac96-774b-bcce-b302099a8057";
    let pi_text = [
        format!(r#"{{"type":"session","version":3,"id":"{pi_id}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{proj_s}"}}"#),
        r#"{"type":"model_change","id":"m1","parentId":null,"timestamp":"t","provider":"p","modelId":"x"}"#.to_owned(),
        user("u1", "m1", "\n\n  Fix the tokenizer  \nsecond line"),
        assistant("a1", "u1", r#"I said "type":"session_info" and "role":"user" here"#),
        r#"{"type":"session_info","id":"s1","parentId":"a1","timestamp":"t","name":"first name"}"#.to_owned(),
        r#"{"type":"session_info","id":"s2","parentId":"s1","timestamp":"t","name":"  Tokenizer fix "}"#.to_owned(),
    ]
    .join("\n")
        + "\n";
    write(&pi_dir.join(format!("2026-01-01T00-00-00-000Z_{pi_id}.jsonl")), &pi_text, 1_000);

    // omp: same project (its own folder name), a title, a >1 MiB line before the user
    // message, no trailing newline.
    let omp_dir = home.join(".omp/agent/sessions/-work-my-app");
    let big = assistant("a0", "x", &"y".repeat(1_500_000));
    let omp_text = [
        format!(r#"{{"type":"session","version":3,"id":"15e4dc26ca91c9ed","timestamp":"2026-01-02T00:00:00.000Z","cwd":"{proj_s}","title":"Omp title"}}"#),
        big,
        user("u1", "a0", "write the docs"),
    ]
    .join("\n"); // no trailing newline
    write(&omp_dir.join("2026-01-02T00-00-00-000Z_15e4dc26ca91c9ed.jsonl"), &omp_text, 3_000);

    // omp, another project at the home folder itself, no user message yet; plus an omp
    // temporary file and a non-session file that must be ignored.
    let omp_home = home.join(".omp/agent/sessions/-");
    write(
        &omp_home.join("2026_aaaaaaaaaaaaaaaa.jsonl"),
        &format!("{{\"type\":\"session\",\"version\":3,\"id\":\"aaaaaaaaaaaaaaaa\",\"timestamp\":\"t\",\"cwd\":\"{}\"}}\n", home.display()),
        2_000,
    );
    write(&omp_home.join(".2026_aaaaaaaaaaaaaaaa.jsonl.123.tmp"), "x", 2_000);
    write(&omp_home.join("notes.txt"), "x", 2_000);

    // pi: a session_info line straddling the 1 MiB read boundary, in a folder whose cwd no
    // longer exists and whose header is invalid.
    let gone = home.join(".pi/agent/sessions/--srv-old-thing--");
    let head = format!("{}\n{}\n", r#"{"type":"bogus"}"#, assistant("a", "b", ""));
    let pad = "z".repeat(1024 * 1024 - 20 - head.len()); // the name line starts 20 bytes before 1 MiB
    let straddle = [
        r#"{"type":"bogus"}"#.to_owned(),
        assistant("a", "b", &pad),
        r#"{"type":"session_info","id":"s","parentId":"a","timestamp":"t","name":"straddler"}"#.to_owned(),
    ]
    .join("\n")
        + "\n";
    assert_eq!(straddle.find("{\"type\":\"session_info"), Some(1024 * 1024 - 20));
    write(&gone.join("x.jsonl"), &straddle, 500);

    let env = |_: &str| None;
    let roots = default_roots(Some(&home), &env, &|p| p.is_dir(), &RootOverrides::default());
    let cache = SummaryCache::new();
    let lib = scan(&roots, &host, Some(&cache));
    assert!(lib.warnings.is_empty(), "{:?}", lib.warnings);
    assert_eq!(lib.roots.iter().map(|r| (r.exists, r.session_count)).collect::<Vec<_>>(), [(true, 2), (true, 2)]);

    let projects: Vec<(&str, ProjectSource, usize)> =
        lib.projects.iter().map(|g| (g.project.as_str(), g.source, g.sessions.len())).collect();
    let home_s = home.to_string_lossy();
    assert_eq!(
        projects,
        [(proj_s.as_str(), ProjectSource::Header, 2), (&*home_s, ProjectSource::Header, 1), ("/srv/old/thing", ProjectSource::Guess, 1)]
    );

    let app = &lib.projects[0];
    assert_eq!(app.folders.len(), 2);
    let omp = &app.sessions[0];
    assert_eq!(omp.dialect, Some(Dialect::Omp));
    assert_eq!(omp.name.as_deref(), Some("Omp title"));
    assert_eq!(omp.first_request.as_deref(), Some("write the docs"));
    assert_eq!(omp.entry_count, 2);
    assert_eq!(omp.modified_ms(), Some(3_000_000));
    assert_eq!(omp.size, omp_text.len() as u64);
    let pi = &app.sessions[1];
    assert_eq!(pi.dialect, Some(Dialect::Pi));
    assert_eq!(pi.name.as_deref(), Some("Tokenizer fix"));
    assert_eq!(pi.first_request.as_deref(), Some("Fix the tokenizer"));
    assert_eq!(pi.entry_count, 5);
    assert!(pi.valid);

    let home_group = &lib.projects[1].sessions[0];
    assert_eq!((home_group.first_request.as_deref(), home_group.entry_count), (None, 0));

    let old = &lib.projects[2].sessions[0];
    assert!(!old.valid);
    assert_eq!(old.dialect, Some(Dialect::Pi)); // from the root
    assert_eq!(old.name.as_deref(), Some("straddler"));
    assert_eq!(old.entry_count, 2);

    // Search: name, first request, project path.
    let hits = |q: &str| {
        lib.search(q).projects.iter().flat_map(|g| g.sessions.iter().map(|s| s.name.clone().unwrap_or_default())).collect::<Vec<_>>()
    };
    assert_eq!(hits("tokenizer"), ["Tokenizer fix"]);
    assert_eq!(hits("DOCS"), ["Omp title"]);
    assert_eq!(hits("my-app"), ["Omp title", "Tokenizer fix"]);
    assert_eq!(hits("srv/old"), ["straddler"]);

    // The cache answers unchanged files; a changed file is read again.
    write(&pi_dir.join(format!("2026-01-01T00-00-00-000Z_{pi_id}.jsonl")), &(pi_text.clone() + &user("u2", "s2", "again") + "\n"), 4_000);
    let lib2 = scan(&roots, &host, Some(&cache));
    assert_eq!(lib2.projects[0].sessions[0].entry_count, 6);
    assert_eq!(lib2, scan(&roots, &host, None));
}

#[test]
fn xdg_data_home_and_explicit_roots() {
    let t = TempDir::new("xdg");
    let home = t.path.join("home");
    let data = t.path.join("data");
    let dir = data.join("omp/sessions/--elsewhere--");
    write(&dir.join("a.jsonl"), "{\"type\":\"session\",\"id\":\"0123456789abcdef\",\"cwd\":\"/elsewhere\"}\n", 10);
    let data_s = data.to_string_lossy().into_owned();
    let env = move |k: &str| (k == "XDG_DATA_HOME").then(|| data_s.clone());
    let roots = default_roots(Some(&home), &env, &|p| p.is_dir(), &RootOverrides::default());
    assert_eq!(roots[1].path, data.join("omp/sessions"));
    let host = HostPaths { home: Some(home.clone()), tmp: None };
    let lib = scan(&roots, &host, None);
    assert_eq!(lib.roots.iter().map(|r| r.exists).collect::<Vec<_>>(), [false, true]);
    assert_eq!(lib.projects.len(), 1);
    assert_eq!(lib.projects[0].project, "/elsewhere");

    // An explicit root: no defaults, dialect from the id.
    let only = RootOverrides { only: vec![data.join("omp/sessions")], ..Default::default() };
    let roots = default_roots(Some(&home), &env, &|p| p.is_dir(), &only);
    let lib = scan(&roots, &host, None);
    assert_eq!(lib.projects[0].sessions[0].dialect, Some(Dialect::Omp));
    assert!(lib.projects[0].sessions[0].modified.is_some_and(|m| m < SystemTime::now()));

    // The same folder twice is listed once.
    let twice = RootOverrides { only: vec![data.join("omp/sessions"), data.join("omp/sessions")], ..Default::default() };
    let lib = scan(&default_roots(Some(&home), &env, &|p| p.is_dir(), &twice), &host, None);
    assert_eq!(lib.session_count(), 1);
}
