//! Every pi / omp session on this machine, grouped by project: `contextree sessions` and the
//! app's library screen.

use contextree_host::library::{iso_utc, Library, ProjectGroup, ProjectSource, RootOrigin, RootStatus, SessionSummary};
use serde::Serialize;
use ts_rs::TS;

/// A scanned library.
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LibraryReport {
    /// The folders looked in, found or not.
    pub roots: Vec<RootReport>,
    /// Number of sessions listed.
    pub session_count: usize,
    /// Projects, the one with the newest session first.
    pub projects: Vec<ProjectReport>,
    /// Folders or files that could not be read.
    pub warnings: Vec<String>,
}

/// A folder of session files, as scanned.
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RootReport {
    /// The folder.
    pub path: String,
    /// The agent that writes there, when known.
    pub dialect: Option<&'static str>,
    /// Where it came from.
    pub origin: RootOrigin,
    /// It exists.
    pub exists: bool,
    /// Sessions found in it.
    pub session_count: usize,
}

/// The sessions of one project.
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProjectReport {
    /// The project's folder.
    pub project: String,
    /// How it was found: `header` (a session's cwd), `folder` (the folder name decoded to an
    /// existing folder), `header-mismatch`, `guess` (dashes read as slashes), `folder-name`.
    pub source: ProjectSource,
    /// False when the path is only a guess from the folder name.
    pub certain: bool,
    /// The session folders merged here (one per agent usually).
    pub folders: Vec<String>,
    /// Newest modification time of its sessions (`2026-01-01T00:00:00Z`).
    pub last_activity: Option<String>,
    /// The same, ms since the epoch.
    pub last_activity_ms: Option<u64>,
    /// Newest first.
    pub sessions: Vec<SessionItem>,
}

/// One session file of the library.
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionItem {
    /// Absolute path (what opening it takes).
    pub path: String,
    /// Its file name.
    pub file_name: String,
    /// `pi`, `omp`, or null when neither the folder nor the id says.
    pub dialect: Option<&'static str>,
    /// Bytes.
    pub size: u64,
    /// Lines after the header (a fast count).
    pub entry_count: u64,
    /// The header's session id.
    pub id: Option<String>,
    /// The header's cwd.
    pub cwd: Option<String>,
    /// The header's creation timestamp.
    pub created: Option<String>,
    /// pi: the `session_info` name; omp: the header title.
    pub name: Option<String>,
    /// First line of the first user message (≤ 120 characters).
    pub first_request: Option<String>,
    /// Last activity (file modification time), `2026-01-01T00:00:00Z`.
    pub modified: Option<String>,
    /// The same, ms since the epoch.
    pub modified_ms: Option<u64>,
    /// False when the first line is not a session header.
    pub valid: bool,
}

impl LibraryReport {
    /// The report of a scanned library.
    pub fn new(lib: &Library) -> Self {
        Self {
            roots: lib.roots.iter().map(RootReport::new).collect(),
            session_count: lib.session_count(),
            projects: lib.projects.iter().map(ProjectReport::new).collect(),
            warnings: lib.warnings.clone(),
        }
    }
}

impl RootReport {
    fn new(r: &RootStatus) -> Self {
        Self {
            path: r.root.path.display().to_string(),
            dialect: r.root.dialect.map(|d| d.name()),
            origin: r.root.origin,
            exists: r.exists,
            session_count: r.session_count,
        }
    }
}

impl ProjectReport {
    fn new(g: &ProjectGroup) -> Self {
        Self {
            project: g.project.clone(),
            source: g.source,
            certain: g.source.certain(),
            folders: g.folders.iter().map(|f| f.display().to_string()).collect(),
            last_activity: g.last_activity().map(iso_utc),
            last_activity_ms: g.sessions.iter().filter_map(SessionSummary::modified_ms).max(),
            sessions: g.sessions.iter().map(SessionItem::new).collect(),
        }
    }
}

impl SessionItem {
    fn new(s: &SessionSummary) -> Self {
        Self {
            path: s.path.display().to_string(),
            file_name: s.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            dialect: s.dialect.map(|d| d.name()),
            size: s.size,
            entry_count: s.entry_count,
            id: s.id.clone(),
            cwd: s.cwd.clone(),
            created: s.created.clone(),
            name: s.name.clone(),
            first_request: s.first_request.clone(),
            modified: s.modified.map(iso_utc),
            modified_ms: s.modified_ms(),
            valid: s.valid,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::time::{Duration, UNIX_EPOCH};

    use contextree_core::Dialect;
    use contextree_host::library::SessionRoot;

    #[test]
    fn one_session_of_one_project() {
        let s = SessionSummary {
            path: PathBuf::from("/r/--p--/a.jsonl"),
            dialect: Some(Dialect::Omp),
            size: 10,
            entry_count: 2,
            id: Some("15e4dc26ca91c9ed".into()),
            cwd: Some("/p".into()),
            created: None,
            name: Some("Title".into()),
            first_request: Some("do it".into()),
            modified: Some(UNIX_EPOCH + Duration::from_secs(2)),
            valid: true,
        };
        let lib = Library {
            roots: vec![RootStatus {
                root: SessionRoot { path: "/r".into(), dialect: None, origin: RootOrigin::Override },
                exists: true,
                session_count: 1,
            }],
            projects: vec![ProjectGroup {
                project: "/p".into(),
                source: ProjectSource::Guess,
                folders: vec!["/r/--p--".into()],
                sessions: vec![s],
            }],
            warnings: vec![],
        };
        let v = serde_json::to_value(LibraryReport::new(&lib)).unwrap();
        assert_eq!(v["sessionCount"], 1);
        assert_eq!(v["roots"][0]["origin"], "override");
        let p = &v["projects"][0];
        assert_eq!((p["project"].as_str(), p["certain"].as_bool(), p["lastActivityMs"].as_u64()), (Some("/p"), Some(false), Some(2000)));
        assert_eq!(p["lastActivity"], "1970-01-01T00:00:02Z");
        let item = &p["sessions"][0];
        assert_eq!(item["fileName"], "a.jsonl");
        assert_eq!(item["firstRequest"], "do it");
        assert_eq!(item["entryCount"], 2);
        assert_eq!(item["modified"], "1970-01-01T00:00:02Z");
        assert_eq!(item["dialect"], "omp");
    }
}
