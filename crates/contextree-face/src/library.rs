//! The session library: every pi / omp session on this machine, grouped by project (the read
//! layer's `LibraryReport`, as `contextree sessions --json` prints it).

use std::sync::OnceLock;

use contextree_host::library::{self, SummaryCache};
use contextree_read::LibraryReport;

use crate::AppState;

/// Summaries read by earlier calls, reused while a file's size and modification time hold.
fn cache() -> &'static SummaryCache {
    static CACHE: OnceLock<SummaryCache> = OnceLock::new();
    CACHE.get_or_init(SummaryCache::new)
}

/// The library's sessions as the Library screen lists them ([`AppState::library_roots`]: the
/// face's folders, else the settings', else the agents' session folders: pi
/// `~/.pi/agent/sessions` or `$PI_CODING_AGENT_DIR`, omp `~/.omp/agent/sessions` or
/// `$XDG_DATA_HOME/omp/sessions`), grouped by project, newest first.
pub fn scan(state: &AppState) -> library::Library {
    library::scan_default(&state.env(), &state.library_roots(), Some(cache()))
}

/// [`scan`]'s report; with `search`, only the sessions whose name, first request, project or
/// id contain every word. Blocking: a header and a newline count per file.
pub fn list(state: &AppState, search: Option<&str>) -> LibraryReport {
    let lib = scan(state);
    let lib = match search.map(str::trim).filter(|q| !q.is_empty()) {
        Some(q) => lib.search(q),
        None => lib,
    };
    LibraryReport::new(&lib)
}
