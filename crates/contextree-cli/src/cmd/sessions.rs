//! `contextree sessions`: every pi / omp session on this machine, grouped by project.

use std::path::PathBuf;

use clap::Args;
use contextree_host::library::{self, iso_utc, Library, ProjectSource, RootOrigin, RootOverrides, SessionSummary};
use serde_json::{json, Value};

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
    let mut lib = library::scan_default(&overrides, None);
    if let Some(q) = &args.search {
        lib = lib.search(q);
    }
    if args.json {
        print_json(&to_json(&lib));
        return Ok(());
    }
    print_text(&lib);
    Ok(())
}

fn origin(o: RootOrigin) -> &'static str {
    match o {
        RootOrigin::Default => "default",
        RootOrigin::Environment => "environment",
        RootOrigin::Override => "override",
    }
}

fn source(s: ProjectSource) -> &'static str {
    match s {
        ProjectSource::Header => "header",
        ProjectSource::Folder => "folder",
        ProjectSource::HeaderMismatch => "header-mismatch",
        ProjectSource::Guess => "guess",
        ProjectSource::FolderName => "folder-name",
    }
}

fn session_json(s: &SessionSummary) -> Value {
    json!({
        "path": s.path.display().to_string(),
        "dialect": s.dialect.map(|d| d.name()),
        "size": s.size,
        "entryCount": s.entry_count,
        "id": s.id,
        "cwd": s.cwd,
        "created": s.created,
        "name": s.name,
        "firstRequest": s.first_request,
        "modified": s.modified.map(iso_utc),
        "modifiedMs": s.modified_ms(),
        "valid": s.valid,
    })
}

fn to_json(lib: &Library) -> Value {
    json!({
        "roots": lib.roots.iter().map(|r| json!({
            "path": r.root.path.display().to_string(),
            "dialect": r.root.dialect.map(|d| d.name()),
            "origin": origin(r.root.origin),
            "exists": r.exists,
            "sessionCount": r.session_count,
        })).collect::<Vec<_>>(),
        "sessionCount": lib.session_count(),
        "projects": lib.projects.iter().map(|g| json!({
            "project": g.project,
            "source": source(g.source),
            "folders": g.folders.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
            "lastActivity": g.last_activity().map(iso_utc),
            "sessions": g.sessions.iter().map(session_json).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "warnings": lib.warnings,
    })
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
