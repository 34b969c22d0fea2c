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

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use contextree_core::Dialect;
use memchr::memmem;
use serde_json::Value;

/// How many bytes from the start of a file are searched for the first user message.
pub const SCAN_CAP: u64 = 4 * 1024 * 1024;

/// Longest first request kept, in characters (an ellipsis ends a cut one).
pub const FIRST_REQUEST_CHARS: usize = 120;

/// Read size of the streaming pass.
const CHUNK: usize = 1024 * 1024;

/// A line longer than this is not kept whole for the `session_info` search (those lines are tiny).
const MAX_KEPT_LINE: usize = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Roots

/// Where a session root came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootOrigin {
    /// The agent's default location.
    Default,
    /// An environment variable (`PI_CODING_AGENT_DIR`, `XDG_DATA_HOME`, `PI_CONFIG_DIR`).
    Environment,
    /// Passed in by the caller (settings, `--root`).
    Override,
}

/// A folder holding `<encoded cwd>/<file>.jsonl` session files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRoot {
    pub path: PathBuf,
    /// The agent that writes there, when known (a root passed in may hold either).
    pub dialect: Option<Dialect>,
    pub origin: RootOrigin,
}

/// Replacements for the default roots (from settings or the command line).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RootOverrides {
    /// pi's sessions folder instead of the default.
    pub pi: Option<PathBuf>,
    /// omp's sessions folder instead of the default.
    pub omp: Option<PathBuf>,
    /// When not empty: only these folders (dialect read from each file), no defaults.
    pub only: Vec<PathBuf>,
}

/// The machine facts the folder names depend on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostPaths {
    pub home: Option<PathBuf>,
    /// The OS temporary folder (omp encodes cwds inside it as `-tmp-…`).
    pub tmp: Option<PathBuf>,
}

impl HostPaths {
    /// `HOME` and the OS temporary folder (canonical, as omp resolves cwds).
    pub fn from_env() -> HostPaths {
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
        let tmp = std::env::temp_dir();
        let tmp = std::fs::canonicalize(&tmp).unwrap_or(tmp);
        HostPaths { home, tmp: Some(tmp) }
    }
}

/// Expands a leading `~` (alone or followed by `/`).
pub fn expand_tilde(p: &str, home: Option<&Path>) -> PathBuf {
    match (p.strip_prefix('~'), home) {
        (Some(""), Some(h)) => h.to_path_buf(),
        (Some(rest), Some(h)) if rest.starts_with('/') => h.join(&rest[1..]),
        _ => PathBuf::from(p),
    }
}

/// The agents' session folders: pi `$PI_CODING_AGENT_DIR/sessions` else
/// `~/.pi/agent/sessions`; omp `~/.omp/agent/sessions` (`.omp` renamed by `PI_CONFIG_DIR`),
/// or `$XDG_DATA_HOME/omp/sessions` when `$XDG_DATA_HOME/omp` exists. `exists` is asked
/// about that folder only. Overrides replace the defaults; `only` replaces everything.
pub fn default_roots(
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
    exists: &dyn Fn(&Path) -> bool,
    overrides: &RootOverrides,
) -> Vec<SessionRoot> {
    if !overrides.only.is_empty() {
        return overrides
            .only
            .iter()
            .map(|p| SessionRoot { path: p.clone(), dialect: None, origin: RootOrigin::Override })
            .collect();
    }
    let var = |k: &str| env(k).filter(|v| !v.is_empty());
    let mut roots = Vec::new();
    let pi = match &overrides.pi {
        Some(p) => Some((p.clone(), RootOrigin::Override)),
        None => crate::settings::pi_agent_dir(home, env).map(|(dir, origin)| (dir.join("sessions"), origin)),
    };
    if let Some((path, origin)) = pi {
        roots.push(SessionRoot { path, dialect: Some(Dialect::Pi), origin });
    }
    let xdg = var("XDG_DATA_HOME").map(|x| PathBuf::from(x).join("omp")).filter(|d| exists(d));
    let omp = match (&overrides.omp, xdg, home) {
        (Some(p), _, _) => Some((p.clone(), RootOrigin::Override)),
        (None, Some(data), _) => Some((data.join("sessions"), RootOrigin::Environment)),
        (None, None, Some(h)) => match var("PI_CONFIG_DIR") {
            Some(name) => Some((h.join(name).join("agent/sessions"), RootOrigin::Environment)),
            None => Some((h.join(".omp/agent/sessions"), RootOrigin::Default)),
        },
        (None, None, None) => None,
    };
    if let Some((path, origin)) = omp {
        roots.push(SessionRoot { path, dialect: Some(Dialect::Omp), origin });
    }
    roots
}

/// [`default_roots`] with the real environment and file system.
pub fn default_roots_from_env(overrides: &RootOverrides) -> Vec<SessionRoot> {
    let home = HostPaths::from_env().home;
    default_roots(home.as_deref(), &|k| std::env::var(k).ok(), &|p| p.is_dir(), overrides)
}

// ---------------------------------------------------------------------------------------------
// Folder names (pure)

fn replace_separators(s: &str) -> String {
    s.chars().map(|c| if matches!(c, '/' | '\\' | ':') { '-' } else { c }).collect()
}

/// pi's folder name for `cwd`: `--<cwd without one leading separator, / \ : → ->--`.
pub fn encode_pi(cwd: &str) -> String {
    let rest = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
    format!("--{}--", replace_separators(rest))
}

/// omp's folder name for a (canonical) `cwd`: `-<home-relative>` inside home, `-tmp-<rel>`
/// inside the temp folder, else pi's form.
pub fn encode_omp(cwd: &str, host: &HostPaths) -> String {
    let cwd_path = Path::new(cwd);
    let rel = |base: &Option<PathBuf>| base.as_deref().and_then(|b| cwd_path.strip_prefix(b).ok()).map(|r| r.to_string_lossy().into_owned());
    if let Some(r) = rel(&host.home) {
        return if r.is_empty() { "-".to_owned() } else { format!("-{}", replace_separators(&r)) };
    }
    if let Some(r) = rel(&host.tmp) {
        return if r.is_empty() { "-tmp".to_owned() } else { format!("-tmp-{}", replace_separators(&r)) };
    }
    encode_pi(cwd)
}

/// Whether `folder` is what `dialect` (either, when `None`) writes for `cwd`.
pub fn folder_matches(folder: &str, cwd: &str, dialect: Option<Dialect>, host: &HostPaths) -> bool {
    let pi = || folder == encode_pi(cwd);
    let omp = || folder == encode_omp(cwd, host);
    match dialect {
        Some(Dialect::Pi) => pi(),
        Some(Dialect::Omp) => omp() || pi(), // omp's older `--…--` folders are pi-style
        None => pi() || omp(),
    }
}

/// The base folder and the `-`-separated rest of a folder name, for each reading of it.
fn decode_candidates(folder: &str, host: &HostPaths) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    if let Some(inner) = folder.strip_prefix("--").and_then(|s| s.strip_suffix("--")).filter(|s| !s.is_empty()) {
        out.push((PathBuf::from("/"), inner.to_owned()));
        return out;
    }
    if let Some(rest) = folder.strip_prefix('-') {
        if let Some(h) = &host.home {
            out.push((h.clone(), rest.to_owned()));
        }
        if let (Some(t), Some(r)) = (&host.tmp, rest.strip_prefix("tmp")) {
            if r.is_empty() || r.starts_with('-') {
                out.push((t.clone(), r.strip_prefix('-').unwrap_or(r).to_owned()));
            }
        }
    }
    out
}

/// Splits `rest` (`a-b-c`) into existing folders under `base`, trying every way the `-`s
/// could have been `/` or `-`; `None` when no reading exists (bounded work).
fn resolve_on_disk(base: &Path, rest: &str, is_dir: &dyn Fn(&Path) -> bool) -> Option<PathBuf> {
    if rest.is_empty() {
        return is_dir(base).then(|| base.to_path_buf());
    }
    let tokens: Vec<&str> = rest.split('-').collect();
    let mut budget = 2000usize;
    fn go(base: &Path, tokens: &[&str], is_dir: &dyn Fn(&Path) -> bool, budget: &mut usize) -> Option<PathBuf> {
        if tokens.is_empty() {
            return Some(base.to_path_buf());
        }
        // Longest segment first: names with dashes are likelier than many one-word folders.
        for take in (1..=tokens.len()).rev() {
            let seg = tokens[..take].join("-");
            if seg.is_empty() {
                continue;
            }
            if *budget == 0 {
                return None;
            }
            *budget -= 1;
            let next = base.join(&seg);
            if is_dir(&next) {
                if let Some(found) = go(&next, &tokens[take..], is_dir, budget) {
                    return Some(found);
                }
            }
        }
        None
    }
    go(base, &tokens, is_dir, &mut budget)
}

/// Every `-` read as `/`: the best guess when nothing on disk matches.
fn naive_decode(folder: &str, host: &HostPaths) -> Option<PathBuf> {
    let (base, rest) = decode_candidates(folder, host).into_iter().next()?;
    Some(rest.split('-').filter(|s| !s.is_empty()).fold(base, |p, s| p.join(s)))
}

/// How a project's path was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProjectSource {
    /// A session header's `cwd` that encodes to the folder's name (exact).
    Header,
    /// The folder name decoded to a folder that exists.
    Folder,
    /// A session header's `cwd` that does not encode to the folder name (moved session).
    HeaderMismatch,
    /// The folder name with every `-` read as `/` (may be wrong where names have dashes).
    Guess,
    /// Nothing better than the folder's own name.
    FolderName,
}

/// The project path of a session folder: a header `cwd` that encodes to the name, else the
/// name decoded against the disk, else any header `cwd`, else a guess, else the name itself.
pub fn project_path(
    folder: &str,
    dialect: Option<Dialect>,
    header_cwds: &[&str],
    host: &HostPaths,
    is_dir: &dyn Fn(&Path) -> bool,
) -> (String, ProjectSource) {
    if let Some(c) = header_cwds.iter().find(|c| folder_matches(folder, c, dialect, host)) {
        return ((*c).to_owned(), ProjectSource::Header);
    }
    for (base, rest) in decode_candidates(folder, host) {
        if let Some(p) = resolve_on_disk(&base, &rest, is_dir) {
            return (p.to_string_lossy().into_owned(), ProjectSource::Folder);
        }
    }
    if let Some(c) = header_cwds.first() {
        return ((*c).to_owned(), ProjectSource::HeaderMismatch);
    }
    match naive_decode(folder, host) {
        Some(p) => (p.to_string_lossy().into_owned(), ProjectSource::Guess),
        None => (folder.to_owned(), ProjectSource::FolderName),
    }
}

/// The dialect a header id's shape points to: UUID → pi, 16 hex digits (snowflake) → omp.
pub fn dialect_of_id(id: &str) -> Option<Dialect> {
    if id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
        Some(Dialect::Omp)
    } else if id.len() == 36 && id.matches('-').count() == 4 {
        Some(Dialect::Pi)
    } else {
        None
    }
}

/// A file's dialect: the header id's shape, else the root's agent, else the folder naming
/// (only omp writes `-…` names).
pub fn file_dialect(id: Option<&str>, root: Option<Dialect>, folder: &str) -> Option<Dialect> {
    id.and_then(dialect_of_id)
        .or(root)
        .or_else(|| (folder.starts_with('-') && !folder.starts_with("--")).then_some(Dialect::Omp))
}

/// The first line of `text`, trimmed, at most [`FIRST_REQUEST_CHARS`] characters.
pub fn first_line(text: &str) -> Option<String> {
    let line = text.trim().lines().next()?.trim();
    if line.is_empty() {
        return None;
    }
    if line.chars().count() <= FIRST_REQUEST_CHARS {
        return Some(line.to_owned());
    }
    let mut cut: String = line.chars().take(FIRST_REQUEST_CHARS - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    Some(cut)
}

/// The text of a user message's `content` (a string, or the first text block).
fn user_text(content: &Value) -> Option<&str> {
    match content {
        Value::String(s) => Some(s),
        Value::Array(blocks) => blocks.iter().find_map(|b| (b.get("type")? == "text").then(|| b.get("text")?.as_str()).flatten()),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// One file

/// What the library shows of one session file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    pub path: PathBuf,
    pub dialect: Option<Dialect>,
    /// File size in bytes.
    pub size: u64,
    /// Lines after the header (a newline count: blank or broken lines count too).
    pub entry_count: u64,
    /// The header's `id`.
    pub id: Option<String>,
    /// The header's `cwd`.
    pub cwd: Option<String>,
    /// The header's `timestamp` (creation).
    pub created: Option<String>,
    /// pi: the last `session_info` name (empty clears it); omp: the header `title`.
    pub name: Option<String>,
    /// The first line of the first user message, trimmed, ≤ 120 characters.
    pub first_request: Option<String>,
    /// The file's modification time.
    pub modified: Option<SystemTime>,
    /// Whether the first line is a session header (`type: "session"`, string `id`).
    pub valid: bool,
}

/// Reads the summary of one file: header, lines up to the first user message (within
/// [`SCAN_CAP`] bytes), a newline count and pi's `session_info` lines; never parses the rest.
pub fn read_summary(path: &Path, root_dialect: Option<Dialect>, folder: &str) -> io::Result<SessionSummary> {
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    let mut s = SessionSummary {
        path: path.to_path_buf(),
        dialect: None,
        size: meta.len(),
        entry_count: 0,
        id: None,
        cwd: None,
        created: None,
        name: None,
        first_request: None,
        modified: meta.modified().ok(),
        valid: false,
    };
    let info_finder = memmem::Finder::new(br#""type":"session_info""#);
    let user_finder = memmem::Finder::new(br#""role":"user""#);
    let mut newlines = 0u64;
    let mut last_byte = b'\n';
    let mut pos = 0u64; // file offset of buf[0]
    let mut buf: Vec<u8> = Vec::with_capacity(2 * CHUNK);
    let mut in_long_line = false; // buf[0] is inside a line whose start was dropped
    let mut header_done = false;
    let mut pi_name: Option<Option<String>> = None;
    loop {
        let old = buf.len();
        buf.resize(old + CHUNK, 0);
        let n = loop {
            match file.read(&mut buf[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        buf.truncate(old + n);
        if n > 0 {
            newlines += memchr::memchr_iter(b'\n', &buf[old..]).count() as u64;
            last_byte = buf[buf.len() - 1];
        }
        let complete = if n == 0 { buf.len() } else { memchr::memrchr(b'\n', &buf).map_or(0, |i| i + 1) };
        if complete > 0 {
            let region = &buf[..complete];
            if !header_done {
                // A header line longer than MAX_KEPT_LINE is not read (the file shows as invalid).
                header_done = true;
                if !in_long_line {
                    let end = memchr::memchr(b'\n', region).unwrap_or(region.len());
                    read_header(&region[..end], &mut s);
                }
            }
            // pi's `session_info` lines, anywhere in the file.
            let mut after = 0;
            for hit in info_finder.find_iter(region) {
                if hit < after {
                    continue;
                }
                let start = memchr::memrchr(b'\n', &region[..hit]).map_or(0, |i| i + 1);
                let end = memchr::memchr(b'\n', &region[hit..]).map_or(region.len(), |i| hit + i);
                after = end;
                if start == 0 && in_long_line {
                    continue;
                }
                if let Ok(v) = serde_json::from_slice::<Value>(&region[start..end]) {
                    if v.get("type") == Some(&Value::from("session_info")) {
                        pi_name = Some(v.get("name").and_then(Value::as_str).map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned));
                    }
                }
            }
            // The first user message, within the cap.
            if s.first_request.is_none() && pos < SCAN_CAP {
                let limit = region.len().min(usize::try_from(SCAN_CAP - pos).unwrap_or(usize::MAX));
                let mut after = 0;
                for hit in user_finder.find_iter(&region[..limit]) {
                    if hit < after {
                        continue;
                    }
                    let start = memchr::memrchr(b'\n', &region[..hit]).map_or(0, |i| i + 1);
                    let end = memchr::memchr(b'\n', &region[hit..]).map_or(region.len(), |i| hit + i);
                    after = end;
                    if start == 0 && in_long_line {
                        continue;
                    }
                    let Ok(v) = serde_json::from_slice::<Value>(&region[start..end]) else { continue };
                    let msg = v.get("message");
                    if v.get("type") == Some(&Value::from("message")) && msg.and_then(|m| m.get("role")) == Some(&Value::from("user")) {
                        s.first_request = msg.and_then(|m| m.get("content")).and_then(user_text).and_then(first_line);
                        if s.first_request.is_some() {
                            break;
                        }
                    }
                }
            }
            buf.drain(..complete);
            pos += complete as u64;
            in_long_line = false;
        } else if buf.len() > MAX_KEPT_LINE {
            // One very long line: keep counting, stop keeping it.
            pos += buf.len() as u64;
            buf.clear();
            in_long_line = true;
        }
        if n == 0 {
            break;
        }
    }
    let lines = newlines + u64::from(s.size > 0 && last_byte != b'\n');
    s.entry_count = lines.saturating_sub(1);
    if let Some(name) = pi_name {
        if s.name.is_none() || s.dialect_hint_is_pi() {
            s.name = name;
        }
    }
    s.dialect = file_dialect(s.id.as_deref(), root_dialect, folder);
    Ok(s)
}

impl SessionSummary {
    fn dialect_hint_is_pi(&self) -> bool {
        self.id.as_deref().and_then(dialect_of_id) == Some(Dialect::Pi)
    }

    /// Modification time in milliseconds since the Unix epoch.
    pub fn modified_ms(&self) -> Option<u64> {
        self.modified.and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(|d| d.as_millis() as u64)
    }
}

fn read_header(line: &[u8], s: &mut SessionSummary) {
    let Ok(Value::Object(h)) = serde_json::from_slice::<Value>(line) else { return };
    let text = |k: &str| h.get(k).and_then(Value::as_str).map(str::to_owned);
    s.valid = h.get("type") == Some(&Value::from("session")) && h.get("id").is_some_and(Value::is_string);
    if !s.valid {
        return;
    }
    s.id = text("id");
    s.cwd = text("cwd");
    s.created = text("timestamp");
    s.name = text("title").map(|t| t.trim().to_owned()).filter(|t| !t.is_empty());
}

// ---------------------------------------------------------------------------------------------
// The library

/// The sessions of one project, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectGroup {
    /// The project's path (see [`ProjectSource`] for how sure it is).
    pub project: String,
    pub source: ProjectSource,
    /// The session folders merged into this group (one per agent usually).
    pub folders: Vec<PathBuf>,
    pub sessions: Vec<SessionSummary>,
}

impl ProjectGroup {
    /// The newest modification time of its sessions.
    pub fn last_activity(&self) -> Option<SystemTime> {
        self.sessions.iter().filter_map(|s| s.modified).max()
    }
}

/// A root as scanned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootStatus {
    pub root: SessionRoot,
    pub exists: bool,
    pub session_count: usize,
}

/// Every session under the roots, grouped by project, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Library {
    pub roots: Vec<RootStatus>,
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
    pub folder: PathBuf,
    pub project: String,
    pub source: ProjectSource,
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
pub fn scan_default(overrides: &RootOverrides, cache: Option<&SummaryCache>) -> Library {
    scan(&default_roots_from_env(overrides), &HostPaths::from_env(), cache)
}

/// `2026-01-01T00:00:00Z` for a time (UTC, whole seconds).
pub fn iso_utc(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let ms = crate::write::iso_from_ms(i64::try_from(secs).unwrap_or(i64::MAX / 1000) * 1000);
    // `YYYY-MM-DDTHH:MM:SS.000Z` without the milliseconds.
    format!("{}Z", &ms[..19])
}

#[cfg(test)]
mod tests {
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
        let dirs: HashSet<PathBuf> = ["/home", "/home/ana", "/home/ana/my-proj", "/home/ana/my", "/srv", "/srv/a-b"].iter().map(PathBuf::from).collect();
        let is_dir = |p: &Path| dirs.contains(p);
        let h = host();
        assert_eq!(project_path("--home-ana-my-proj--", Some(Dialect::Pi), &[], &h, &is_dir), ("/home/ana/my-proj".to_owned(), ProjectSource::Folder));
        assert_eq!(project_path("-my-proj", Some(Dialect::Omp), &[], &h, &is_dir), ("/home/ana/my-proj".to_owned(), ProjectSource::Folder));
        assert_eq!(project_path("-", Some(Dialect::Omp), &[], &h, &is_dir), ("/home/ana".to_owned(), ProjectSource::Folder));
        assert_eq!(project_path("--srv-a-b--", None, &[], &h, &is_dir), ("/srv/a-b".to_owned(), ProjectSource::Folder));
        // Nothing on disk: a header cwd, else every dash a slash.
        assert_eq!(project_path("--gone-x--", Some(Dialect::Pi), &["/elsewhere"], &h, &is_dir), ("/elsewhere".to_owned(), ProjectSource::HeaderMismatch));
        assert_eq!(project_path("--gone-x--", Some(Dialect::Pi), &[], &h, &is_dir), ("/gone/x".to_owned(), ProjectSource::Guess));
        assert_eq!(project_path("weird", None, &[], &h, &is_dir), ("weird".to_owned(), ProjectSource::FolderName));
        // A header cwd that encodes to the folder wins over the disk.
        assert_eq!(project_path("--home-ana-my-proj--", Some(Dialect::Pi), &["/home/ana/my/proj"], &h, &is_dir), ("/home/ana/my/proj".to_owned(), ProjectSource::Header));
        assert_eq!(project_path("-tmp-q", Some(Dialect::Omp), &["/tmp/q"], &h, &is_dir), ("/tmp/q".to_owned(), ProjectSource::Header));
    }

    #[test]
    fn roots_from_environment_and_overrides() {
        let home = Path::new("/h");
        let none = |_: &str| None;
        let no = |_: &Path| false;
        let r = default_roots(Some(home), &none, &no, &RootOverrides::default());
        assert_eq!(r.iter().map(|r| (r.path.clone(), r.dialect)).collect::<Vec<_>>(), vec![(PathBuf::from("/h/.pi/agent/sessions"), Some(Dialect::Pi)), (PathBuf::from("/h/.omp/agent/sessions"), Some(Dialect::Omp))]);
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
            FolderScan { folder: "/r/pi/--p--".into(), project: "/p".into(), source: ProjectSource::Guess, sessions: vec![summary("a", 10, Some("Alpha"), None), summary("b", 30, None, Some("fix the parser"))] },
            FolderScan { folder: "/r/omp/-q".into(), project: "/home/q".into(), source: ProjectSource::Header, sessions: vec![summary("c", 20, None, Some("write docs"))] },
            FolderScan { folder: "/r/omp/--p--".into(), project: "/p".into(), source: ProjectSource::Header, sessions: vec![summary("d", 5, None, None)] },
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
        let paths = |q: &str| search(&g, q).iter().flat_map(|g| g.sessions.iter().map(|s| s.path.to_string_lossy().into_owned())).collect::<Vec<_>>();
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
}
