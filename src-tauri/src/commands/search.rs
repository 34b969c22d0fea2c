//! Search across every session (`contextree search` / `contextree index`): the index under the
//! user's cache folder, kept by contextree-search, answered by the read layer's `SearchReport`
//! (each hit with its state for its session's leaf). The index is brought up to date before
//! each answer (an unchanged library costs a `stat` per file), so an agent's appends and
//! prunes are found without a watcher of their own.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use contextree_host::HostEnv;
use contextree_read::{IndexedReport, SearchReport};
use contextree_search::{library_files, SearchIndex, SessionFile};
use serde::Serialize;
use tauri::ipc::Channel;
use tauri::State;

use crate::{AppState, CommandError};

/// Hits per query when the UI does not say.
const LIMIT: usize = 200;
/// Bytes of session files indexed between two progress messages (and two commits).
const BATCH_BYTES: u64 = 64 << 20;

/// How far the first index has come.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexProgress {
    /// Files brought up to date so far.
    pub done: usize,
    /// Files in the library.
    pub total: usize,
}

/// The open index: one per process, updated by one command at a time (the engine allows a
/// single writer per index).
fn index(env: &HostEnv) -> Result<&'static Mutex<SearchIndex>, CommandError> {
    static INDEX: OnceLock<Mutex<SearchIndex>> = OnceLock::new();
    if let Some(index) = INDEX.get() {
        return Ok(index);
    }
    let dir = contextree_search::default_dir(env).ok_or(CommandError::NoConfigFolder)?;
    let opened = SearchIndex::open(&dir)?;
    Ok(INDEX.get_or_init(|| Mutex::new(opened)))
}

/// The library's session files, as the Library screen finds them (the settings' folders, else
/// the agents').
fn files(env: &HostEnv) -> Vec<SessionFile> {
    let roots = super::settings::current(env).root_overrides(env.home.as_deref());
    library_files(env, &roots)
}

/// Brings the index up to date with `files`, a batch at a time, telling `progress` after each.
fn update(index: &SearchIndex, files: &[SessionFile], mut progress: impl FnMut(usize)) -> Result<IndexedReport, CommandError> {
    let mut total = contextree_search::UpdateStats::default();
    let mut start = 0;
    while start < files.len() {
        let mut end = start;
        let mut bytes = 0;
        while end < files.len() && (end == start || bytes < BATCH_BYTES) {
            bytes += std::fs::metadata(&files[end].path).map_or(0, |m| m.len());
            end += 1;
        }
        let stats = index.update(&files[start..end], false)?;
        total.add(&stats);
        progress(end);
        start = end;
    }
    if files.is_empty() {
        total.add(&index.update(&[], false)?);
    }
    Ok(IndexedReport::new(&total, index))
}

/// Brings the index of every session up to date, reporting `{ done, total }` files on
/// `on_progress`; runs on a blocking thread, so the window never waits.
#[tauri::command]
pub async fn search_index(state: State<'_, AppState>, on_progress: Channel<IndexProgress>) -> Result<IndexedReport, CommandError> {
    let env = state.env();
    tauri::async_runtime::spawn_blocking(move || {
        let files = files(&env);
        let total = files.len();
        let index = index(&env)?.lock().unwrap_or_else(|e| e.into_inner());
        let _ = on_progress.send(IndexProgress { done: 0, total });
        update(&index, &files, |done| {
            let _ = on_progress.send(IndexProgress { done, total });
        })
    })
    .await?
}

/// Searches every session for `query` (words, "phrases", prefix*, `role:`, `tool:`,
/// `project:`, `agent:`, `model:`, `after:`, `before:`), best first, after bringing the index
/// up to date; only the library's files answer.
#[tauri::command]
pub async fn search_sessions(state: State<'_, AppState>, query: String, limit: Option<usize>) -> Result<SearchReport, CommandError> {
    let env = state.env();
    tauri::async_runtime::spawn_blocking(move || {
        let files = files(&env);
        let index = index(&env)?.lock().unwrap_or_else(|e| e.into_inner());
        let indexed = update(&index, &files, |_| {})?;
        let within: HashSet<PathBuf> = files.iter().map(|f| f.path.clone()).collect();
        Ok(SearchReport::run(&env, &index, &query, limit.unwrap_or(LIMIT), Some(&within), indexed)?)
    })
    .await?
}
