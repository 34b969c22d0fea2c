//! The session library: every pi / omp session on this machine, grouped by project (the read
//! layer's `LibraryReport`, as `contextree sessions --json` prints it).

use std::sync::OnceLock;

use contextree_host::library::{self, SummaryCache};
use contextree_read::LibraryReport;
use tauri::State;

use crate::{AppState, CommandError};

/// Summaries read by earlier calls, reused while a file's size and modification time hold.
fn cache() -> &'static SummaryCache {
    static CACHE: OnceLock<SummaryCache> = OnceLock::new();
    CACHE.get_or_init(SummaryCache::new)
}

/// Lists the library folders of the settings, else the agents' session folders (pi
/// `~/.pi/agent/sessions` or `$PI_CODING_AGENT_DIR`, omp `~/.omp/agent/sessions` or
/// `$XDG_DATA_HOME/omp/sessions`), grouped by project, newest first; with `search`, only the
/// sessions whose name, first request, project or id contain every word. Files are read on a
/// blocking thread (a header and a newline count each).
#[tauri::command]
pub async fn list_sessions(state: State<'_, AppState>, search: Option<String>) -> Result<LibraryReport, CommandError> {
    let env = state.env();
    let lib = tauri::async_runtime::spawn_blocking(move || {
        // The settings screen's folders replace the agents' defaults.
        let roots = super::settings::current(&env).root_overrides(env.home.as_deref());
        let lib = library::scan_default(&env, &roots, Some(cache()));
        match search.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
            Some(q) => lib.search(q),
            None => lib,
        }
    })
    .await?;
    Ok(LibraryReport::new(&lib))
}
