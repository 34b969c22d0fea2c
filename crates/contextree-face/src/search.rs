//! Search across every session (`contextree search` / `contextree index`): the index under the
//! user's cache folder, kept by contextree-search, answered by the read layer's `SearchReport`
//! (each hit with its state for its session's leaf). The index is brought up to date before
//! each answer, so an agent's appends and prunes are always found. The library's listing is
//! kept by file events (`LiveLibrary`: a query lists again only the folders something happened
//! in), and once the index is first asked for, a keeper thread brings it up to date as those
//! events come, so the process's index stays current while it runs.

use std::sync::{Mutex, Once, OnceLock, PoisonError};
use std::time::Duration;

use contextree_host::HostEnv;
use contextree_read::search::states::StateCache;
use contextree_read::{search_library, IndexedReport, SearchReport};
use contextree_search::{LiveLibrary, SearchIndex, SessionFile};
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

/// The library's listing, kept by file events while the process runs; made again when the
/// library's folders change (settings, a default folder that appeared).
static LIVE: Mutex<Option<LiveLibrary>> = Mutex::new(None);

/// The library's session files, as the Library screen finds them (`library_files`' answer).
fn files(state: &AppState) -> Vec<SessionFile> {
    let (env, overrides) = (state.env(), state.library_roots());
    let mut live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
    match &mut *live {
        Some(live) if live.is_of(&env, &overrides) => live.files(),
        slot => slot.insert(LiveLibrary::new(&env, &overrides)).files(),
    }
}

/// How often the keeper looks at the library's events.
const KEEPER_PERIOD: Duration = Duration::from_secs(1);

/// Starts, once per process, the thread that brings the index up to date when the library's
/// events say something changed (an agent appending, a new session). Without events it does
/// nothing: each query then lists the library itself.
fn keep_current(index: &'static Mutex<SearchIndex>) {
    static KEEPER: Once = Once::new();
    KEEPER.call_once(|| {
        let keeper = move || loop {
            std::thread::sleep(KEEPER_PERIOD);
            let changed = match &mut *LIVE.lock().unwrap_or_else(PoisonError::into_inner) {
                Some(live) if live.has_events() => live.look(),
                _ => false,
            };
            if !changed {
                continue;
            }
            // The index first, then the listing, as a query takes them.
            let index = index.lock().unwrap_or_else(PoisonError::into_inner);
            let files = match &mut *LIVE.lock().unwrap_or_else(PoisonError::into_inner) {
                Some(live) => live.files(),
                None => continue,
            };
            if let Err(err) = index.update(&files, false) {
                eprintln!("contextree: the search index could not be brought up to date: {err}");
            }
        };
        if let Err(err) = std::thread::Builder::new().name("contextree-index".into()).spawn(keeper) {
            eprintln!("contextree: no thread keeps the search index current ({err}); each search brings it up to date");
        }
    });
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
    let kept = &index(&env)?.0;
    let index = kept.lock().unwrap_or_else(|e| e.into_inner());
    // Listed once the index is ours: the listing's stamps are what the update trusts, and
    // another update (the first index) may have held it for minutes.
    let files = files(state);
    progress(IndexProgress { done: 0, total: files.len() });
    let report = update(&index, &files, progress);
    keep_current(kept);
    report
}

/// Searches every session for `query` (words, "phrases", prefix*, -excluded, `role:`, `tool:`,
/// `project:`, `agent:`, `model:`, `session:`, `after:`, `before:`), best first, after bringing
/// the index up to date; only the library's files answer, each hit with its state for its
/// session's leaf. Blocking.
pub fn search(state: &AppState, query: &str, limit: Option<usize>) -> Result<SearchReport, CommandError> {
    let env = state.env();
    let (kept, cache) = index(&env)?;
    let index = kept.lock().unwrap_or_else(|e| e.into_inner());
    let files = files(state);
    let report = search_library(&env, &index, &files, query, limit.unwrap_or(LIMIT), cache)?;
    keep_current(kept);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;
    use std::time::Instant;

    use contextree_testkit::Scratch;

    use super::*;

    const HEADER: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

    fn user(id: &str, parent: &str, text: &str) -> String {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"{text}","timestamp":1767225601000}}}}"#
        )
    }

    /// An agent's append reaches the index by the library's events, without a query bringing it
    /// up to date (the index is read here directly, as no query would leave it).
    #[test]
    fn the_index_follows_the_library_while_the_process_runs() {
        let home = Scratch::new("face-search-live");
        let project = home.path().join("sessions").join("--p--");
        std::fs::create_dir_all(&project).unwrap();
        let file = project.join("s1.jsonl");
        std::fs::write(&file, format!("{HEADER}\n{}\n", user("u1", "null", "marmalade first"))).unwrap();
        let env = HostEnv::isolated(home.path());
        let state = AppState::with_env(None, env.clone()).with_library(vec![home.path().join("sessions")]);

        let report = search(&state, "marmalade", None).unwrap();
        assert_eq!(report.hits.len(), 1, "{:?}", report.hits);

        let mut f = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
        writeln!(f, "{}", user("u2", "\"u1\"", "quince later")).unwrap();
        drop(f);
        let kept = &index(&env).unwrap().0;
        let started = Instant::now();
        loop {
            let hits = kept.lock().unwrap().search("quince", 10, None).unwrap();
            if hits.len() == 1 {
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(20), "the append never reached the index by itself");
            std::thread::sleep(Duration::from_millis(100));
        }
        // And a query answers it with its state, as always.
        let report = search(&state, "quince", None).unwrap();
        assert_eq!(report.hits.len(), 1);
        assert_eq!(report.hits[0].entry_id.as_deref(), Some("u2"));
    }
}
