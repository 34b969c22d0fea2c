//! The session library: every pi / omp session file on this machine, grouped by project
//! (session-format.md §11 "Where sessions live").
//!
//! - [`default_roots`] finds the agents' session folders by themselves (environment and
//!   home folder passed in, so tests need no real HOME); [`RootOverrides`] replaces them.
//! - [`scan`] lists every `*.jsonl` under `<root>/<encoded cwd>/` and reads a
//!   [`SessionSummary`] of each without parsing the whole file: the header line, the lines
//!   up to the first user message (at most [`SCAN_CAP`] bytes), a newline count (memchr) for
//!   the entry count, and a substring search for pi's `session_info` lines.
//! - The pure parts (folder-name encoding and decoding, grouping, sorting, searching) take
//!   values and predicates and are unit-tested without touching the disk.
//!
//! `roots.rs` (where sessions live), `folders.rs` (folder names), `summary.rs` (one file),
//! this file (the scan, grouping, search).

mod folders;
mod roots;
mod summary;

pub use folders::{dialect_of_id, encode_omp, encode_pi, file_dialect, folder_matches, project_path, ProjectSource};
pub use roots::{default_roots, default_roots_in, expand_tilde, HostPaths, RootOrigin, RootOverrides, SessionRoot};
pub use summary::{first_line, read_summary, SessionSummary, FIRST_REQUEST_CHARS, SCAN_CAP};

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use contextree_core::Dialect;

/// The sessions of one project, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectGroup {
    /// The project's path (see [`ProjectSource`] for how sure it is).
    pub project: String,
    /// How `project` was found: the most certain of its folders' (smallest [`ProjectSource`]).
    pub source: ProjectSource,
    /// The session folders merged into this group (one per agent usually).
    pub folders: Vec<PathBuf>,
    /// The sessions of all its folders, newest first (see [`sort_sessions`]).
    pub sessions: Vec<SessionSummary>,
}

impl ProjectGroup {
    /// The newest modification time of its sessions.
    pub fn last_activity(&self) -> Option<SystemTime> {
        self.sessions.iter().filter_map(|s| s.modified).max()
    }
}

/// A root as scanned (the read layer's `RootReport` shows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootStatus {
    /// The root as given to [`scan`].
    pub root: SessionRoot,
    /// The root is a folder (a missing root is no error: the agent may not be installed).
    pub exists: bool,
    /// Session files found under it (0 for a root listed twice after its first time).
    pub session_count: usize,
}

/// Every session under the roots, grouped by project, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Library {
    /// Every root scanned, in the order given.
    pub roots: Vec<RootStatus>,
    /// The projects, the one with the newest session first.
    pub projects: Vec<ProjectGroup>,
    /// Folders or files that could not be read.
    pub warnings: Vec<String>,
}

impl Library {
    /// Number of sessions in all groups.
    pub fn session_count(&self) -> usize {
        self.projects.iter().map(|g| g.sessions.len()).sum()
    }

    /// The groups and sessions matching `query` (see [`search`]).
    pub fn search(&self, query: &str) -> Library {
        Library { roots: self.roots.clone(), projects: search(&self.projects, query), warnings: self.warnings.clone() }
    }
}

/// One session folder as found on disk, before grouping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderScan {
    /// The folder (a root itself when session files lie directly in it).
    pub folder: PathBuf,
    /// The project path read from the folder's name and its sessions' `cwd`s.
    pub project: String,
    /// How sure `project` is.
    pub source: ProjectSource,
    /// The summaries of its `*.jsonl` files.
    pub sessions: Vec<SessionSummary>,
}

/// Newest first (modification time), then by path for a stable order.
pub fn sort_sessions(sessions: &mut [SessionSummary]) {
    sessions.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.path.cmp(&b.path)));
}

/// Merges folders with the same project path (pi's and omp's folders of one cwd), sorts
/// sessions newest first and groups by their newest session, newest first.
pub fn group(folders: Vec<FolderScan>) -> Vec<ProjectGroup> {
    let mut by_project: HashMap<String, usize> = HashMap::new();
    let mut groups: Vec<ProjectGroup> = Vec::new();
    for f in folders {
        if f.sessions.is_empty() {
            continue;
        }
        match by_project.get(&f.project) {
            Some(&i) => {
                let g = &mut groups[i];
                g.source = g.source.min(f.source);
                g.folders.push(f.folder);
                g.sessions.extend(f.sessions);
            }
            None => {
                by_project.insert(f.project.clone(), groups.len());
                groups.push(ProjectGroup { project: f.project, source: f.source, folders: vec![f.folder], sessions: f.sessions });
            }
        }
    }
    for g in &mut groups {
        g.folders.sort();
        sort_sessions(&mut g.sessions);
    }
    groups.sort_by(|a, b| b.last_activity().cmp(&a.last_activity()).then_with(|| a.project.cmp(&b.project)));
    groups
}

/// The sessions whose name, first request, project path or id contain every word of
/// `query` (case-insensitive); groups without a match are dropped. An empty query keeps all.
pub fn search(groups: &[ProjectGroup], query: &str) -> Vec<ProjectGroup> {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    if words.is_empty() {
        return groups.to_vec();
    }
    groups
        .iter()
        .filter_map(|g| {
            let project = g.project.to_lowercase();
            let sessions: Vec<SessionSummary> = g
                .sessions
                .iter()
                .filter(|s| {
                    let hay = [s.name.as_deref(), s.first_request.as_deref(), s.id.as_deref()]
                        .into_iter()
                        .flatten()
                        .map(str::to_lowercase)
                        .collect::<Vec<_>>();
                    words.iter().all(|w| project.contains(w.as_str()) || hay.iter().any(|h| h.contains(w.as_str())))
                })
                .cloned()
                .collect();
            (!sessions.is_empty()).then(|| ProjectGroup { sessions, ..g.clone() })
        })
        .collect()
}

/// Summaries already read, reused while a file's size and modification time are unchanged.
#[derive(Debug, Default)]
pub struct SummaryCache {
    entries: Mutex<HashMap<PathBuf, SessionSummary>>,
}

impl SummaryCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    fn get(&self, path: &Path, size: u64, modified: Option<SystemTime>) -> Option<SessionSummary> {
        let map = self.entries.lock().ok()?;
        map.get(path).filter(|s| s.size == size && s.modified == modified).cloned()
    }

    fn put(&self, s: &SessionSummary) {
        if let Ok(mut map) = self.entries.lock() {
            map.insert(s.path.clone(), s.clone());
        }
    }
}

/// Lists and summarizes every session under `roots` (files read on all cores).
pub fn scan(roots: &[SessionRoot], host: &HostPaths, cache: Option<&SummaryCache>) -> Library {
    let mut lib = Library::default();
    // (root index, folder, folder name, files)
    let mut folders: Vec<(usize, PathBuf, String, Vec<PathBuf>)> = Vec::new();
    for (ri, root) in roots.iter().enumerate() {
        let exists = root.path.is_dir();
        lib.roots.push(RootStatus { root: root.clone(), exists, session_count: 0 });
        // A folder given twice (an override equal to a default) is listed once.
        if !exists || roots[..ri].iter().any(|r| r.path == root.path) {
            continue;
        }
        let mut dirs = vec![root.path.clone()]; // files directly in a root count as one folder
        match std::fs::read_dir(&root.path) {
            Ok(rd) => dirs.extend(rd.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_dir())),
            Err(e) => lib.warnings.push(format!("{}: {e}", root.path.display())),
        }
        dirs.sort();
        for dir in dirs {
            match jsonl_files(&dir) {
                Ok(files) if !files.is_empty() => {
                    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    folders.push((ri, dir, name, files));
                }
                Ok(_) => {}
                Err(e) => lib.warnings.push(format!("{}: {e}", dir.display())),
            }
        }
    }
    let jobs: Vec<(usize, usize)> = folders.iter().enumerate().flat_map(|(fi, f)| (0..f.3.len()).map(move |k| (fi, k))).collect();
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(jobs.len()).max(1);
    let results: Vec<Vec<(usize, Result<SessionSummary, String>)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let j = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&(fi, k)) = jobs.get(j) else { break };
                        let (ri, _, name, files) = &folders[fi];
                        out.push((j, summarize(&files[k], roots[*ri].dialect, name, cache)));
                    }
                    out
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    let mut per_folder: Vec<Vec<SessionSummary>> = vec![Vec::new(); folders.len()];
    let mut flat: Vec<(usize, Result<SessionSummary, String>)> = results.into_iter().flatten().collect();
    flat.sort_by_key(|(j, _)| *j);
    for (j, r) in flat {
        match r {
            Ok(s) => per_folder[jobs[j].0].push(s),
            Err(e) => lib.warnings.push(e),
        }
    }
    let is_dir = |p: &Path| p.is_dir();
    let mut scans = Vec::new();
    for ((ri, dir, name, _), sessions) in folders.into_iter().zip(per_folder) {
        lib.roots[ri].session_count += sessions.len();
        let cwds: Vec<&str> = sessions.iter().filter_map(|s| s.cwd.as_deref()).collect();
        let (project, source) = if dir == roots[ri].path {
            match cwds.first() {
                Some(c) => ((*c).to_owned(), ProjectSource::HeaderMismatch),
                None => (dir.to_string_lossy().into_owned(), ProjectSource::FolderName),
            }
        } else {
            project_path(&name, roots[ri].dialect, &cwds, host, &is_dir)
        };
        scans.push(FolderScan { folder: dir, project, source, sessions });
    }
    lib.projects = group(scans);
    lib
}

fn summarize(path: &Path, dialect: Option<Dialect>, folder: &str, cache: Option<&SummaryCache>) -> Result<SessionSummary, String> {
    let fail = |e: io::Error| format!("{}: {e}", path.display());
    if let Some(cache) = cache {
        let meta = std::fs::metadata(path).map_err(fail)?;
        if let Some(s) = cache.get(path, meta.len(), meta.modified().ok()) {
            return Ok(s);
        }
        let s = read_summary(path, dialect, folder).map_err(fail)?;
        cache.put(&s);
        return Ok(s);
    }
    read_summary(path, dialect, folder).map_err(fail)
}

/// The `*.jsonl` files directly in `dir` (no hidden files: omp's rewrite temporaries).
fn jsonl_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
            name.ends_with(".jsonl") && !name.starts_with('.') && p.is_file()
        })
        .collect();
    out.sort();
    Ok(out)
}

/// [`scan`] of the default roots with the real environment.
pub fn scan_default(env: &crate::HostEnv, overrides: &RootOverrides, cache: Option<&SummaryCache>) -> Library {
    scan(&default_roots_in(env, overrides), &HostPaths::of(env), cache)
}

/// `2026-01-01T00:00:00Z` for a time (UTC, whole seconds).
pub fn iso_utc(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let t = i64::try_from(secs).ok().and_then(|s| jiff::Timestamp::from_second(s).ok()).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests;
