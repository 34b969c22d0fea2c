//! Folder names, roots, first lines, dialects, grouping, search and dates.
use super::folders::*;
use super::summary::*;
use super::*;
use std::collections::HashSet;
use std::time::Duration;

fn host() -> HostPaths {
    HostPaths { home: Some(PathBuf::from("/home/ana")), tmp: Some(PathBuf::from("/tmp")) }
}

#[test]
fn encodes_like_the_agents() {
    assert_eq!(encode_pi("/home/ana/proj"), "--home-ana-proj--");
    assert_eq!(encode_pi("C:\\work\\x"), "--C--work-x--");
    let h = host();
    assert_eq!(encode_omp("/home/ana", &h), "-");
    assert_eq!(encode_omp("/home/ana/work/app", &h), "-work-app");
    assert_eq!(encode_omp("/tmp", &h), "-tmp");
    assert_eq!(encode_omp("/tmp/x/y", &h), "-tmp-x-y");
    assert_eq!(encode_omp("/srv/app", &h), "--srv-app--");
}

#[test]
fn decodes_against_the_disk_with_dashes_in_names() {
    let dirs: HashSet<PathBuf> =
        ["/home", "/home/ana", "/home/ana/my-proj", "/home/ana/my", "/srv", "/srv/a-b"].iter().map(PathBuf::from).collect();
    let is_dir = |p: &Path| dirs.contains(p);
    let h = host();
    assert_eq!(
        project_path("--home-ana-my-proj--", Some(Dialect::Pi), &[], &h, &is_dir),
        ("/home/ana/my-proj".to_owned(), ProjectSource::Folder)
    );
    assert_eq!(project_path("-my-proj", Some(Dialect::Omp), &[], &h, &is_dir), ("/home/ana/my-proj".to_owned(), ProjectSource::Folder));
    assert_eq!(project_path("-", Some(Dialect::Omp), &[], &h, &is_dir), ("/home/ana".to_owned(), ProjectSource::Folder));
    assert_eq!(project_path("--srv-a-b--", None, &[], &h, &is_dir), ("/srv/a-b".to_owned(), ProjectSource::Folder));
    // Nothing on disk: a header cwd, else every dash a slash.
    assert_eq!(
        project_path("--gone-x--", Some(Dialect::Pi), &["/elsewhere"], &h, &is_dir),
        ("/elsewhere".to_owned(), ProjectSource::HeaderMismatch)
    );
    assert_eq!(project_path("--gone-x--", Some(Dialect::Pi), &[], &h, &is_dir), ("/gone/x".to_owned(), ProjectSource::Guess));
    assert_eq!(project_path("weird", None, &[], &h, &is_dir), ("weird".to_owned(), ProjectSource::FolderName));
    // A header cwd that encodes to the folder wins over the disk.
    assert_eq!(
        project_path("--home-ana-my-proj--", Some(Dialect::Pi), &["/home/ana/my/proj"], &h, &is_dir),
        ("/home/ana/my/proj".to_owned(), ProjectSource::Header)
    );
    assert_eq!(project_path("-tmp-q", Some(Dialect::Omp), &["/tmp/q"], &h, &is_dir), ("/tmp/q".to_owned(), ProjectSource::Header));
}

#[test]
fn roots_from_environment_and_overrides() {
    let home = Path::new("/h");
    let none = |_: &str| None;
    let no = |_: &Path| false;
    let r = default_roots(Some(home), &none, &no, &RootOverrides::default());
    assert_eq!(
        r.iter().map(|r| (r.path.clone(), r.dialect)).collect::<Vec<_>>(),
        vec![(PathBuf::from("/h/.pi/agent/sessions"), Some(Dialect::Pi)), (PathBuf::from("/h/.omp/agent/sessions"), Some(Dialect::Omp))]
    );
    let env = |k: &str| match k {
        "PI_CODING_AGENT_DIR" => Some("~/pi".to_owned()),
        "XDG_DATA_HOME" => Some("/data".to_owned()),
        _ => None,
    };
    let yes = |p: &Path| p == Path::new("/data/omp");
    let r = default_roots(Some(home), &env, &yes, &RootOverrides::default());
    assert_eq!(r[0].path, PathBuf::from("/h/pi/sessions"));
    assert_eq!(r[1].path, PathBuf::from("/data/omp/sessions"));
    assert_eq!(r[1].origin, RootOrigin::Environment);
    // XDG_DATA_HOME/omp missing: the default.
    assert_eq!(default_roots(Some(home), &env, &no, &RootOverrides::default())[1].path, PathBuf::from("/h/.omp/agent/sessions"));
    let o = RootOverrides { omp: Some("/o".into()), ..Default::default() };
    assert_eq!(default_roots(Some(home), &env, &yes, &o)[1].path, PathBuf::from("/o"));
    let o = RootOverrides { only: vec!["/x".into()], ..Default::default() };
    let r = default_roots(Some(home), &env, &yes, &o);
    assert_eq!((r.len(), r[0].dialect, r[0].origin), (1, None, RootOrigin::Override));
}

#[test]
fn first_line_trims_and_cuts() {
    assert_eq!(first_line("  \n  fix the bug  \nmore").as_deref(), Some("fix the bug"));
    assert_eq!(first_line("   "), None);
    let long = "é".repeat(200);
    let cut = first_line(&long).unwrap();
    assert_eq!(cut.chars().count(), FIRST_REQUEST_CHARS);
    assert!(cut.ends_with('…'));
    assert_eq!(first_line(&"x".repeat(120)).unwrap().len(), 120);
}

#[test]
fn dialect_from_id_root_and_folder() {
    assert_eq!(file_dialect(Some("15e4dc26ca91c9ed"), Some(Dialect::Pi), "--a--"), Some(Dialect::Omp));
    assert_eq!(file_dialect(Some("01890a5d-ac96-774b-bcce-b302099a8057"), None, "-a"), Some(Dialect::Pi));
    assert_eq!(file_dialect(Some("x"), Some(Dialect::Pi), "-a"), Some(Dialect::Pi));
    assert_eq!(file_dialect(None, None, "-a"), Some(Dialect::Omp));
    assert_eq!(file_dialect(None, None, "--a--"), None);
}

fn summary(path: &str, secs: u64, name: Option<&str>, first: Option<&str>) -> SessionSummary {
    SessionSummary {
        path: PathBuf::from(path),
        dialect: Some(Dialect::Pi),
        size: 1,
        entry_count: 1,
        id: Some(format!("id-{path}")),
        cwd: None,
        created: None,
        name: name.map(str::to_owned),
        first_request: first.map(str::to_owned),
        modified: Some(UNIX_EPOCH + Duration::from_secs(secs)),
        valid: true,
    }
}

fn scans() -> Vec<FolderScan> {
    vec![
        FolderScan {
            folder: "/r/pi/--p--".into(),
            project: "/p".into(),
            source: ProjectSource::Guess,
            sessions: vec![summary("a", 10, Some("Alpha"), None), summary("b", 30, None, Some("fix the parser"))],
        },
        FolderScan {
            folder: "/r/omp/-q".into(),
            project: "/home/q".into(),
            source: ProjectSource::Header,
            sessions: vec![summary("c", 20, None, Some("write docs"))],
        },
        FolderScan {
            folder: "/r/omp/--p--".into(),
            project: "/p".into(),
            source: ProjectSource::Header,
            sessions: vec![summary("d", 5, None, None)],
        },
        FolderScan { folder: "/r/empty".into(), project: "/e".into(), source: ProjectSource::Header, sessions: vec![] },
    ]
}

#[test]
fn groups_merge_folders_and_sort_newest_first() {
    let g = group(scans());
    assert_eq!(g.iter().map(|g| g.project.as_str()).collect::<Vec<_>>(), ["/p", "/home/q"]);
    assert_eq!(g[0].folders.len(), 2);
    assert_eq!(g[0].source, ProjectSource::Header);
    assert_eq!(g[0].sessions.iter().map(|s| s.path.to_str().unwrap()).collect::<Vec<_>>(), ["b", "a", "d"]);
    assert_eq!(g[0].last_activity(), Some(UNIX_EPOCH + Duration::from_secs(30)));
}

#[test]
fn search_matches_name_request_and_project() {
    let g = group(scans());
    let paths =
        |q: &str| search(&g, q).iter().flat_map(|g| g.sessions.iter().map(|s| s.path.to_string_lossy().into_owned())).collect::<Vec<_>>();
    assert_eq!(paths("alpha"), ["a"]);
    assert_eq!(paths("PARSER"), ["b"]);
    assert_eq!(paths("home/q"), ["c"]);
    assert_eq!(paths("/p fix"), ["b"]);
    assert_eq!(paths("nothing"), Vec::<String>::new());
    assert_eq!(paths("  ").len(), 4);
}

#[test]
fn iso_dates() {
    assert_eq!(iso_utc(UNIX_EPOCH), "1970-01-01T00:00:00Z");
    assert_eq!(iso_utc(UNIX_EPOCH + Duration::from_secs(1_767_225_600 + 3661)), "2026-01-01T01:01:01Z");
    assert_eq!(iso_utc(UNIX_EPOCH + Duration::from_secs(951_782_400)), "2000-02-29T00:00:00Z");
}
