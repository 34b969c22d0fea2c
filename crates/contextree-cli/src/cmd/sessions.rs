//! `contextree sessions`: every pi / omp session on this machine, grouped by project.

use std::path::PathBuf;

use clap::Args;
use contextree_host::library::{self, iso_utc, Library, ProjectSource, RootOverrides};

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
        print_json(&contextree_read::LibraryReport::new(&lib));
        return Ok(());
    }
    print_text(&lib);
    Ok(())
}

/// `sessions --json`.
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
