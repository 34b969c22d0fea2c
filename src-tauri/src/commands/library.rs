//! The session library: every pi / omp session on this machine, grouped by project.

use std::sync::OnceLock;

use contextree_host::library::{self, iso_utc, Library, ProjectGroup, ProjectSource, RootStatus, SessionSummary, SummaryCache};
use serde::Serialize;
use tauri::State;

use crate::{AppState, CommandError};

/// Summaries read by earlier calls, reused while a file's size and modification time hold.
fn cache() -> &'static SummaryCache {
    static CACHE: OnceLock<SummaryCache> = OnceLock::new();
    CACHE.get_or_init(SummaryCache::new)
}

/// Lists the library folders of the settings, else the agents' session folders (pi
/// `~/.pi/agent/sessions` or `$PI_CODING_AGENT_DIR`, omp `~/.omp/agent/sessions` or
/// `$XDG_DATA_HOME/omp/sessions`), grouped by project, newest first; with `search`, only the
/// sessions whose name, first request, project or id contain every word. Files are read on a
/// blocking thread (a header and a newline count each).
#[tauri::command]
pub async fn list_sessions(state: State<'_, AppState>, search: Option<String>) -> Result<LibraryView, CommandError> {
    let env = state.env();
    let lib = tauri::async_runtime::spawn_blocking(move || {
        // The settings screen's folders replace the agents' defaults.
        let roots = super::settings::current(&env).root_overrides(env.home.as_deref());
        let lib = library::scan_default(&env, &roots, Some(cache()));
        match search.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
            Some(q) => lib.search(q),
            None => lib,
        }
    })
    .await?;
    Ok(LibraryView::new(&lib))
}

/// What `list_sessions` returns.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LibraryView {
    /// The folders looked in, found or not.
    /// The folders looked in, found or not (`{path, dialect, origin, exists, sessionCount}`).
    pub roots: Vec<RootStatus>,
    /// Projects, the one with the newest session first.
    pub projects: Vec<ProjectView>,
    /// Number of sessions listed.
    pub session_count: usize,
    /// Folders or files that could not be read.
    pub warnings: Vec<String>,
}

impl LibraryView {
    /// Converts a scanned library.
    pub fn new(lib: &Library) -> Self {
        Self {
            roots: lib.roots.clone(),
            projects: lib.projects.iter().map(ProjectView::new).collect(),
            session_count: lib.session_count(),
            warnings: lib.warnings.clone(),
        }
    }
}

/// The sessions of one project.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectView {
    /// The project's folder.
    pub path: String,
    /// How it was found: `header` (a session's cwd), `folder` (the folder name decoded to an
    /// existing folder), `header-mismatch`, `guess` (dashes read as slashes), `folder-name`.
    pub source: ProjectSource,
    /// False when the path is only a guess from the folder name.
    pub certain: bool,
    /// The session folders merged here (one per agent usually).
    pub folders: Vec<String>,
    /// Newest modification time of its sessions, ms since the epoch.
    pub last_activity_ms: Option<u64>,
    /// Newest first.
    pub sessions: Vec<SessionItem>,
}

impl ProjectView {
    fn new(g: &ProjectGroup) -> Self {
        Self {
            path: g.project.clone(),
            source: g.source,
            certain: g.source.certain(),
            folders: g.folders.iter().map(|f| f.display().to_string()).collect(),
            last_activity_ms: g.sessions.iter().filter_map(SessionSummary::modified_ms).max(),
            sessions: g.sessions.iter().map(SessionItem::new).collect(),
        }
    }
}

/// One session file of the library.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionItem {
    /// Absolute path, for `open_session`.
    pub path: String,
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
    /// pi: the `session_info` name; omp: the header title.
    pub name: Option<String>,
    /// First line of the first user message (≤ 120 characters).
    pub first_request: Option<String>,
    /// Last activity (file modification time), ms since the epoch.
    pub modified_ms: Option<u64>,
    /// The same, as `2026-01-01T00:00:00Z`.
    pub modified: Option<String>,
    /// The header's creation timestamp.
    pub created: Option<String>,
    /// False when the first line is not a session header.
    pub valid: bool,
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
            name: s.name.clone(),
            first_request: s.first_request.clone(),
            modified_ms: s.modified_ms(),
            modified: s.modified.map(iso_utc),
            created: s.created.clone(),
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
    use contextree_host::library::{RootOrigin, SessionRoot};

    #[test]
    fn the_wire_is_camel_case() {
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
        let v = serde_json::to_value(LibraryView::new(&lib)).unwrap();
        assert_eq!(v["sessionCount"], 1);
        assert_eq!(v["roots"][0]["origin"], "override");
        let p = &v["projects"][0];
        assert_eq!((p["path"].as_str(), p["certain"].as_bool(), p["lastActivityMs"].as_u64()), (Some("/p"), Some(false), Some(2000)));
        let item = &p["sessions"][0];
        assert_eq!(item["fileName"], "a.jsonl");
        assert_eq!(item["firstRequest"], "do it");
        assert_eq!(item["entryCount"], 2);
        assert_eq!(item["modified"], "1970-01-01T00:00:02Z");
        assert_eq!(item["dialect"], "omp");
    }
}
