//! Search across every session (`contextree search` / `contextree index`): the index under the
//! user's cache folder, kept by contextree-search, answered by the read layer's `SearchReport`
//! (each hit with its state for its session's leaf). The index is brought up to date before
//! each answer (an unchanged library costs a `stat` per file), so an agent's appends and
//! prunes are found without a watcher of their own.

use std::sync::{Mutex, OnceLock};

use contextree_host::HostEnv;
use contextree_read::search::states::StateCache;
use contextree_read::{search_library, IndexedReport, SearchReport};
use contextree_search::{library_files, SearchIndex, SessionFile};
use serde::Serialize;

use crate::{AppState, CommandError};

/// Hits per query when the UI does not say.
const LIMIT: usize = 200;

/// How far an update has come.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexProgress {
    /// Files checked so far (unchanged, or read).
    pub done: usize,
    /// Files in the library.
    pub total: usize,
}

/// The open index: one per process, updated by one command at a time (the engine allows a
/// single writer per index; a CLI updating meanwhile makes ours answer from its last commit).
/// The hits' session states are kept with it, in memory for the process (and on disk, shared
/// with the CLI's queries).
fn index(env: &HostEnv) -> Result<&'static (Mutex<SearchIndex>, StateCache), CommandError> {
    static INDEX: OnceLock<(Mutex<SearchIndex>, StateCache)> = OnceLock::new();
    if let Some(index) = INDEX.get() {
        return Ok(index);
    }
    let dir = contextree_search::default_dir(env).ok_or(CommandError::NoConfigFolder)?;
    let opened = SearchIndex::open(&dir)?;
    let cache = StateCache::beside(&opened);
    Ok(INDEX.get_or_init(|| (Mutex::new(opened), cache)))
}

/// The library's session files, as the Library screen finds them.
fn files(state: &AppState) -> Vec<SessionFile> {
    library_files(&state.env(), &state.library_roots())
}

/// Brings `index` up to date with `files`, telling `progress` how far it has come.
fn update(index: &SearchIndex, files: &[SessionFile], progress: &dyn Fn(IndexProgress)) -> Result<IndexedReport, CommandError> {
    let stats = index.update_with_progress(files, false, &|p| progress(IndexProgress { done: p.checked, total: p.total }))?;
    Ok(IndexedReport::new(&stats, index.disk_size()))
}

/// Brings the index of every session up to date, reporting `{ done, total }` files to
/// `progress`. Blocking.
pub fn bring_up_to_date(state: &AppState, progress: &dyn Fn(IndexProgress)) -> Result<IndexedReport, CommandError> {
    let env = state.env();
    let index = index(&env)?.0.lock().unwrap_or_else(|e| e.into_inner());
    // Listed once the index is ours: the listing's stamps are what the update trusts, and
    // another update (the first index) may have held it for minutes.
    let files = files(state);
    progress(IndexProgress { done: 0, total: files.len() });
    update(&index, &files, progress)
}

/// Searches every session for `query` (words, "phrases", prefix*, -excluded, `role:`, `tool:`,
/// `project:`, `agent:`, `model:`, `session:`, `after:`, `before:`), best first, after bringing
/// the index up to date; only the library's files answer, each hit with its state for its
/// session's leaf. Blocking.
pub fn search(state: &AppState, query: &str, limit: Option<usize>) -> Result<SearchReport, CommandError> {
    let env = state.env();
    let (index, cache) = index(&env)?;
    let index = index.lock().unwrap_or_else(|e| e.into_inner());
    let files = files(state);
    Ok(search_library(&env, &index, &files, query, limit.unwrap_or(LIMIT), cache)?)
}
