//! `contextree search` and `contextree index`: the full-text index of every session in the
//! library's folders (contextree-search), brought up to date before each answer, and the hits
//! with their state for their session's leaf (the read layer's [`SearchReport`]).

use std::collections::HashMap;
use std::path::PathBuf;

use clap::Args;
use contextree_host::library::RootOverrides;
use contextree_host::HostEnv;
use contextree_read::search::states::StateCache;
use contextree_read::{search_library, IndexedReport, SearchReport};
use contextree_search::{library_files, SearchError, SearchIndex, SessionFile};

use crate::common::{print_json, CliError};

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Words, "quoted phrases", prefix*, -excluded, and filters: role:user, tool:bash,
    /// project:NAME, agent:omp, model:NAME, session:ID, after:YYYY-MM-DD, before:YYYY-MM-DD.
    #[arg(value_name = "QUERY", num_args = 1.., required = true)]
    pub query: Vec<String>,
    /// A sessions folder to search instead of the agents' own (repeatable).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// At most this many hits.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: usize,
    /// Print one JSON document.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// A sessions folder to index instead of the agents' own (repeatable).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// Drop the index and build it again from every file.
    #[arg(long)]
    pub rebuild: bool,
    /// Print one JSON document.
    #[arg(long)]
    pub json: bool,
}

fn search_error(e: SearchError) -> CliError {
    match e {
        SearchError::Query(m) => CliError::Input(m),
        other => CliError::Input(format!("search index: {other}")),
    }
}

/// The index and the library's files (`roots` replacing the default folders).
fn opened(env: &HostEnv, roots: &[PathBuf]) -> Result<(SearchIndex, Vec<SessionFile>), CliError> {
    if let Some(missing) = roots.iter().find(|r| !r.is_dir()) {
        return Err(CliError::Input(format!("{}: no such folder", missing.display())));
    }
    let dir = contextree_search::default_dir(env).ok_or_else(|| CliError::Input("no cache folder: set HOME or XDG_CACHE_HOME".into()))?;
    let index = SearchIndex::open(&dir).map_err(search_error)?;
    let files = library_files(env, &RootOverrides { only: roots.to_vec(), ..Default::default() });
    Ok((index, files))
}

pub fn run_search(args: &SearchArgs) -> Result<(), CliError> {
    let env = HostEnv::from_process();
    let (index, files) = opened(&env, &args.roots)?;
    // On disk: each query is a new process, and the hits' states outlive it.
    let cache = StateCache::beside(&index);
    let report = search_library(&env, &index, &files, &args.query.join(" "), args.limit, &cache).map_err(search_error)?;
    if args.json {
        print_json(&report);
    } else {
        print_text(&report);
    }
    Ok(())
}

pub fn run_index(args: &IndexArgs) -> Result<(), CliError> {
    let env = HostEnv::from_process();
    let (index, files) = opened(&env, &args.roots)?;
    let stats = index.update(&files, args.rebuild).map_err(search_error)?;
    let indexed = IndexedReport::new(&stats, index.disk_size());
    if args.json {
        print_json(&indexed);
    } else {
        outln!("{}", indexed_line(&indexed));
    }
    Ok(())
}

fn indexed_line(i: &IndexedReport) -> String {
    if i.busy {
        return format!("the index is being updated by another process: answers from its last commit ({} files)", i.total_files);
    }
    format!(
        "indexed {} files ({} new or rewritten, {} grown, {} dropped), {} bytes, {} entries in {} ms; {} files in the index ({} bytes)",
        i.files, i.whole, i.grown, i.dropped, i.bytes, i.entries, i.ms, i.total_files, i.index_bytes
    )
}

/// `snippet` with its highlights (UTF-16 ranges) between « and ».
fn marked(snippet: &str, highlights: &[[u32; 2]]) -> String {
    let mut out = String::with_capacity(snippet.len() + 8 * highlights.len());
    let mut unit = 0u32;
    for c in snippet.chars() {
        if highlights.iter().any(|h| h[0] == unit) {
            out.push('«');
        }
        out.push(if c == '\n' { ' ' } else { c });
        unit += c.len_utf16() as u32;
        if highlights.iter().any(|h| h[1] == unit) {
            out.push('»');
        }
    }
    out
}

/// The hits grouped by session, sessions in the order of their best hit.
fn print_text(r: &SearchReport) {
    outln!("{}", indexed_line(&r.indexed));
    if r.hits.is_empty() {
        outln!("no entry matches {:?}", r.query);
    }
    let mut order: Vec<&str> = Vec::new();
    let mut groups: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, h) in r.hits.iter().enumerate() {
        let g = groups.entry(&h.file).or_default();
        if g.is_empty() {
            order.push(&h.file);
        }
        g.push(i);
    }
    for file in order {
        let first = &r.hits[groups[file][0]];
        outln!();
        outln!("{}  {}", first.project.as_deref().unwrap_or("?"), file);
        for &i in &groups[file] {
            let h = &r.hits[i];
            let tool = h.tool_name.as_deref().map(|t| format!(" {t}")).unwrap_or_default();
            let by = h.summarized_by.as_deref().map(|c| format!(" by {c}")).unwrap_or_default();
            outln!(
                "  {} line {} {}{}  [{}{}]  {}  {:.2}",
                h.entry_id.as_deref().unwrap_or("-"),
                h.line.map_or("?".to_owned(), |l| l.to_string()),
                h.role,
                tool,
                h.state,
                by,
                h.time.as_deref().unwrap_or("-"),
                h.score
            );
            outln!("      {}", marked(&h.snippet, &h.highlights));
        }
    }
    for w in &r.warnings {
        outln!("warning: {w}");
    }
}
