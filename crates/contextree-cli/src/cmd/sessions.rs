//! `contextree sessions`: every pi / omp session on this machine, grouped by project.

use std::path::PathBuf;

use clap::Args;
use contextree_host::library::{self, iso_utc, Library, ProjectGroup, ProjectSource, RootOverrides, RootStatus, SessionSummary};
use serde::Serialize;

use crate::common::{print_json, CliError};

#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Print one JSON document.
    #[arg(long)]
    pub json: bool,
    /// Only sessions whose name, first request, project or id contain every word.
    #[arg(long, value_name = "TEXT")]
    pub search: Option<String>,
    /// A sessions folder to list instead of the agents' own (repeatable).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
}

pub fn run(args: &SessionsArgs) -> Result<(), CliError> {
    if let Some(missing) = args.roots.iter().find(|r| !r.is_dir()) {
        return Err(CliError::Input(format!("{}: no such folder", missing.display())));
    }
    let overrides = RootOverrides { only: args.roots.clone(), ..Default::default() };
    let mut lib = library::scan_default(&contextree_host::HostEnv::from_process(), &overrides, None);
    if let Some(q) = &args.search {
        lib = lib.search(q);
    }
    if args.json {
        print_json(&to_doc(&lib));
        return Ok(());
    }
    print_text(&lib);
    Ok(())
}

/// `sessions --json`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LibraryDoc<'a> {
    roots: &'a [RootStatus],
    session_count: usize,
    projects: Vec<ProjectDoc<'a>>,
    warnings: &'a [String],
}

/// One project and its sessions, newest first.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProjectDoc<'a> {
    project: &'a str,
    source: ProjectSource,
    folders: Vec<String>,
    last_activity: Option<String>,
    sessions: Vec<SessionDoc<'a>>,
}

/// One session file.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionDoc<'a> {
    path: String,
    dialect: Option<&'static str>,
    size: u64,
    entry_count: u64,
    id: Option<&'a str>,
    cwd: Option<&'a str>,
    created: Option<&'a str>,
    name: Option<&'a str>,
    first_request: Option<&'a str>,
    modified: Option<String>,
    modified_ms: Option<u64>,
    valid: bool,
}

impl<'a> SessionDoc<'a> {
    fn new(s: &'a SessionSummary) -> Self {
        Self {
            path: s.path.display().to_string(),
            dialect: s.dialect.map(|d| d.name()),
            size: s.size,
            entry_count: s.entry_count,
            id: s.id.as_deref(),
            cwd: s.cwd.as_deref(),
            created: s.created.as_deref(),
            name: s.name.as_deref(),
            first_request: s.first_request.as_deref(),
            modified: s.modified.map(iso_utc),
            modified_ms: s.modified_ms(),
            valid: s.valid,
        }
    }
}

impl<'a> ProjectDoc<'a> {
    fn new(g: &'a ProjectGroup) -> Self {
        Self {
            project: &g.project,
            source: g.source,
            folders: g.folders.iter().map(|f| f.display().to_string()).collect(),
            last_activity: g.last_activity().map(iso_utc),
            sessions: g.sessions.iter().map(SessionDoc::new).collect(),
        }
    }
}

fn to_doc(lib: &Library) -> LibraryDoc<'_> {
    LibraryDoc {
        roots: &lib.roots,
        session_count: lib.session_count(),
        projects: lib.projects.iter().map(ProjectDoc::new).collect(),
        warnings: &lib.warnings,
    }
}

fn human_size(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KB", "MB", "GB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1000.0 && u < UNITS.len() - 1 {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

fn print_text(lib: &Library) {
    for r in &lib.roots {
        let state = match (r.exists, r.session_count) {
            (false, _) => "missing".to_owned(),
            (true, 1) => "1 session".to_owned(),
            (true, n) => format!("{n} sessions"),
        };
        let who = r.root.dialect.map_or("any", |d| d.name());
        outln!("root {who:<3}  {}  ({state})", r.root.path.display());
    }
    for w in &lib.warnings {
        outln!("warning: {w}");
    }
    for g in &lib.projects {
        let guess = match g.source {
            ProjectSource::Guess | ProjectSource::FolderName => " (path guessed from the folder name)",
            _ => "",
        };
        outln!();
        outln!("{}{guess}  [{} session{}]", g.project, g.sessions.len(), if g.sessions.len() == 1 { "" } else { "s" });
        for s in &g.sessions {
            let when = s.modified.map(iso_utc).unwrap_or_else(|| "-".to_owned());
            let dialect = s.dialect.map_or("?", |d| d.name());
            let label = match (&s.name, &s.first_request) {
                (Some(n), Some(r)) => format!("{n} — {r}"),
                (Some(n), None) => n.clone(),
                (None, Some(r)) => r.clone(),
                (None, None) if !s.valid => "(not a session file)".to_owned(),
                (None, None) => "(no request yet)".to_owned(),
            };
            outln!("  {when}  {dialect:<3}  {:>6} entries  {:>9}  {label}", s.entry_count, human_size(s.size));
            outln!("      {}", s.path.display());
        }
    }
    if lib.projects.is_empty() {
        outln!();
        outln!("no sessions found");
    }
}
