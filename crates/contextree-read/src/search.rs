//! `contextree search` and the app's search panel: the index's hits, each with its state for
//! its session's current leaf (in the context, summarized by which compaction, pruned, on
//! another branch) — what no index alone can say. Each hit's session is loaded once per query,
//! by the loader handed in, unless [`states`]' cache already has its states for the file as
//! it is and the rules it would be read under. [`search_library`] is the one query both faces
//! run: update the index, ask it, load the hits' sessions from disk (or the cache).

pub mod states;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use std::sync::Arc;

use contextree_core::context::{self, entry_states, EntryState, Leaf};
use contextree_core::session::{NodeId, Session};
use contextree_host::HostEnv;
use contextree_search::{Hit, SearchError, SearchIndex, SessionFile, UpdateStats};
use serde::Serialize;
use ts_rs::TS;

use states::{HitStates, StateCache};

/// The answer to one query.
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchReport {
    /// The query as typed.
    pub query: String,
    /// The matching entries, best first.
    pub hits: Vec<SearchHit>,
    /// What bringing the index up to date took before answering.
    pub indexed: IndexedReport,
    /// Milliseconds the query took: the index's search, the snippets, the hits' states.
    #[ts(type = "number")]
    pub search_ms: u64,
    /// Hits' files that could not be loaded (their hits have no state).
    pub warnings: Vec<String>,
}

/// One matching entry: enough to open its session with the entry selected.
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// The session file.
    pub file: String,
    /// The header's session id.
    pub session_id: Option<String>,
    /// The project folder.
    pub project: Option<String>,
    /// The entry's id (as the session reads it: v1 files get their migrated ids).
    pub entry_id: Option<String>,
    /// Its 1-based line in the file.
    pub line: Option<u32>,
    /// A message's role, else the entry type (`compaction`, `branch_summary`, `label`, …).
    pub role: String,
    /// The tool of a tool result, or the first tool an assistant message calls.
    pub tool_name: Option<String>,
    /// Every tool the entry names.
    pub tools: Vec<String>,
    /// The best passage of the entry's text.
    pub snippet: String,
    /// `[start, end)` of each match in `snippet`, in UTF-16 code units (JavaScript string
    /// indices).
    pub highlights: Vec<[u32; 2]>,
    /// BM25 score.
    pub score: f32,
    /// The entry's time (`2026-01-01T00:00:00Z`).
    pub time: Option<String>,
    /// The same, ms since the epoch.
    #[ts(type = "number | null")]
    pub time_ms: Option<i64>,
    /// Its state for the session's current leaf: `context` (sent to the model), `summarized`
    /// (only a compaction's summary of it is sent), `pruned` (sent with its output cut),
    /// `offPath` (on another branch), `branchSummarized` (on another branch that a branch
    /// summary on the path stands for), `notSent` (on the path but not sent: labels, excluded
    /// messages, superseded compactions), `unknown` (the file could not be loaded).
    pub state: &'static str,
    /// The tree's finer state (`kept`, `old-compaction`, `branch-summary`, …; core's names).
    pub tree_state: Option<&'static str>,
    /// For `summarized`: the id of the compaction entry whose summary stands for it; for
    /// `branchSummarized`, the branch summary's.
    pub summarized_by: Option<String>,
    /// The leaf the state is for (the file's last entry, as the agents resume it).
    pub leaf_id: Option<String>,
    /// The rule set the state was computed under (as `contextree info` chooses it).
    pub rule_set: Option<&'static str>,
}

/// What an index update did.
#[derive(Debug, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct IndexedReport {
    /// Files read (new, rewritten or grown).
    pub files: usize,
    /// Bytes read from them.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Milliseconds taken.
    #[ts(type = "number")]
    pub ms: u64,
    /// Files read whole (new or rewritten).
    pub whole: usize,
    /// Files read from the offset they had been indexed through (grown).
    pub grown: usize,
    /// Files dropped (deleted).
    pub dropped: usize,
    /// Entries added.
    #[ts(type = "number")]
    pub entries: u64,
    /// Files the index holds.
    pub total_files: usize,
    /// Bytes the index takes on disk.
    #[ts(type = "number")]
    pub index_bytes: u64,
    /// Another process was updating the index: nothing was read, the answers are from its
    /// last commit.
    pub busy: bool,
}

impl IndexedReport {
    /// `stats` of an update, the index then taking `index_bytes` on disk.
    pub fn new(stats: &UpdateStats, index_bytes: u64) -> Self {
        IndexedReport {
            files: stats.files,
            bytes: stats.bytes,
            ms: stats.ms,
            whole: stats.whole,
            grown: stats.grown,
            dropped: stats.dropped,
            entries: stats.entries,
            total_files: stats.total_files,
            index_bytes,
            busy: stats.busy,
        }
    }
}

/// What `contextree search` and the app's search panel do for one query: bring `index` up to
/// date with the library's `files`, ask it (only those files answer: the index may hold others
/// that another `--root` listed), and give each hit its state, its session loaded from disk as
/// `contextree info` loads it, or its states taken from `cache` when they are of the file as
/// it is and of the rules it would be read under.
pub fn search_library(
    env: &HostEnv,
    index: &SearchIndex,
    files: &[SessionFile],
    query: &str,
    limit: usize,
    cache: &StateCache,
) -> Result<SearchReport, SearchError> {
    let stats = index.update(files, false)?;
    let indexed = IndexedReport::new(&stats, index.disk_size());
    let started = std::time::Instant::now();
    let scope: HashSet<PathBuf> = files.iter().map(|f| f.path.clone()).collect();
    let hits = index.search(query, limit, Some(&scope))?;
    // Found once per query, not per hit: it reads each agent's package.json.
    let rules = if hits.is_empty() { String::new() } else { states::rules_key(env) };
    let compute = |p: &Path| contextree_host::load_session(env, p, None).map(|l| hit_states(&l.session)).map_err(|e| e.to_string());
    let load = |p: &Path| cache.get(p, &rules, &compute);
    let mut report = SearchReport::new(query, hits, indexed, &load);
    report.search_ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

/// The search state of an entry in core's terms.
fn state_name(s: EntryState) -> &'static str {
    match s {
        EntryState::Kept | EntryState::Compaction | EntryState::Replaced | EntryState::BranchSummary => "context",
        EntryState::Summarized => "summarized",
        EntryState::Pruned => "pruned",
        EntryState::OffPath => "offPath",
        EntryState::Excluded | EntryState::Hidden | EntryState::Metadata | EntryState::OldCompaction => "notSent",
    }
}

/// UTF-16 positions of the byte ranges `ranges` of `text`.
fn utf16_ranges(text: &str, ranges: &[std::ops::Range<usize>]) -> Vec<[u32; 2]> {
    let at = |b: usize| text.get(..b).map_or(0, |t| t.encode_utf16().count() as u32);
    ranges.iter().map(|r| [at(r.start), at(r.end)]).collect()
}

fn iso_ms(ms: i64) -> Option<String> {
    let t = contextree_host::library::iso_utc(std::time::UNIX_EPOCH + std::time::Duration::from_millis(u64::try_from(ms).ok()?));
    Some(t)
}

/// The entries of the abandoned branches that the branch summaries on `path` summarize: each
/// summary's `fromId` and its ancestors that are off the path.
fn branch_summarized(s: &Session, path: &[NodeId], states: &[EntryState]) -> HashMap<u32, String> {
    let mut out = HashMap::new();
    for &n in path {
        let e = s.entry(n);
        if &*e.entry_type != "branch_summary" {
            continue;
        }
        let (Some(id), Some(from)) = (e.id(), e.str_field("fromId").and_then(|f| s.node(f))) else { continue };
        for m in s.tree().path_to(from) {
            if states[m.index()] == EntryState::OffPath {
                out.entry(m.0).or_insert_with(|| id.to_owned());
            }
        }
    }
    out
}

/// One session's states for its current leaf: what its hits need of it.
pub fn hit_states(s: &Session) -> HitStates {
    let ctx = context::build(s, Leaf::Last);
    let states = entry_states(s, &ctx);
    let id = |n: Option<NodeId>| n.and_then(|n| s.entry(n).id().map(str::to_owned));
    let (compaction, leaf) = (id(ctx.compaction), id(ctx.leaf));
    let branch_summarized = branch_summarized(s, &ctx.path, &states);
    let entries = s.entries();
    HitStates {
        starts: entries.iter().map(|e| e.span.start).collect(),
        lines: entries.iter().map(|e| e.line).collect(),
        ids: entries.iter().map(|e| e.id().map(str::to_owned)).collect(),
        states: states.iter().map(|&st| states::code(st)).collect(),
        branch_summarized,
        compaction,
        leaf,
        rule_set: s.rules().name().to_owned(),
    }
}

/// A loader of one session's states.
pub type LoadStates<'a> = dyn Fn(&Path) -> Result<Arc<HitStates>, String> + Sync + 'a;

/// The states of `files`, in their order, loaded on every core: a query's hits are spread over
/// up to `limit` sessions, each read and parsed whole (unless cached), which is most of a
/// query's time.
fn load_trees(files: &[&Path], load: &LoadStates) -> Vec<Result<Arc<HitStates>, String>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(files.len());
    if threads <= 1 {
        return files.iter().map(|f| load(f)).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut out: Vec<(usize, Result<Arc<HitStates>, String>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(f) = files.get(i) else { break done };
                        done.push((i, load(f)));
                    }
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("a session's tree does not panic")).collect()
    });
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, t)| t).collect()
}

impl SearchReport {
    /// The report of the index's `hits` for `query`, each hit's file's states loaded once by
    /// `load` (an error message for a file that cannot be).
    pub fn new(query: &str, hits: Vec<Hit>, indexed: IndexedReport, load: &LoadStates) -> SearchReport {
        let mut files: Vec<&Path> = Vec::new();
        for h in &hits {
            if !files.contains(&h.file.as_path()) {
                files.push(&h.file);
            }
        }
        let mut trees: HashMap<PathBuf, Option<Arc<HitStates>>> = HashMap::new();
        let mut warnings = Vec::new();
        for (file, tree) in files.iter().zip(load_trees(&files, load)) {
            let tree = tree.map_err(|e| warnings.push(e)).ok();
            trees.insert(file.to_path_buf(), tree);
        }
        let hits = hits
            .into_iter()
            .map(|h| {
                let tree = trees.get(&h.file).and_then(Option::as_ref);
                let node = tree.and_then(|t| t.node_at(h.offset, h.line_len).map(|n| (t, n)));
                let tree_state = node.and_then(|(t, n)| t.state(n));
                let by_branch = node.and_then(|(t, n)| t.branch_summarized.get(&n.0));
                let state = if by_branch.is_some() { "branchSummarized" } else { tree_state.map_or("unknown", state_name) };
                let entry_id = node.and_then(|(t, n)| t.ids[n.index()].clone()).or(h.entry_id);
                SearchHit {
                    file: h.file.to_string_lossy().into_owned(),
                    session_id: h.session_id,
                    project: h.project,
                    entry_id,
                    line: node.map(|(t, n)| t.lines[n.index()]),
                    tool_name: h.tools.first().cloned(),
                    tools: h.tools,
                    role: h.role,
                    highlights: utf16_ranges(&h.snippet, &h.highlights),
                    snippet: h.snippet,
                    score: h.score,
                    time: h.time_ms.and_then(iso_ms),
                    time_ms: h.time_ms,
                    state,
                    tree_state: tree_state.map(EntryState::name),
                    summarized_by: match state {
                        "summarized" => tree.and_then(|t| t.compaction.clone()),
                        _ => by_branch.cloned(),
                    },
                    leaf_id: tree.and_then(|t| t.leaf.clone()),
                    rule_set: tree.and_then(|t| t.rule_set()),
                }
            })
            .collect();
        SearchReport { query: query.to_owned(), hits, indexed, search_ms: 0, warnings }
    }
}
