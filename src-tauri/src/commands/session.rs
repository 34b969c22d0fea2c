//! Opening a session file.

use std::path::PathBuf;
use std::sync::Arc;

use contextree_core::RuleRequest;
use contextree_host::HostEnv;

use tauri::{AppHandle, Manager as _, Runtime, State};

use crate::state::OpenSession;
use crate::{demo, AppState, CommandError};
use contextree_read::SessionReport;

/// Where the session to open comes from.
enum Source {
    /// A file on disk.
    File(PathBuf),
    /// The bundled demo, written into this cache directory first.
    Demo { cache_dir: PathBuf },
}

/// Opens `path`, else the file given on the command line, else the bundled demo session, and
/// makes it the session the other commands work on.
///
/// Reading and parsing run on a blocking thread: a session file can be tens of megabytes.
/// Contexts use the installed agent's prompt pack when one loads, else contextree's own.
/// The file is then watched: appends reload it and emit `session-changed` (`crate::watch`).
/// `dialect` forces the agent (`pi`, `omp`) or one rule set (`pi@0.73`, `pi@1.6`, `omp@13`,
/// `omp@18`) instead of detecting it (the title bar's switch, the settings screen's
/// override); the watcher keeps it when it reloads the file.
#[tauri::command]
pub async fn open_session<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    path: Option<String>,
    dialect: Option<String>,
) -> Result<SessionReport, CommandError> {
    let dialect = dialect.filter(|d| !d.is_empty()).map(|d| d.parse::<RuleRequest>()).transpose()?;
    let source = match path.map(PathBuf::from).or_else(|| state.startup().map(Into::into)) {
        Some(path) => Source::File(path),
        None => Source::Demo { cache_dir: app.path().app_cache_dir()? },
    };
    let env = state.env();
    let open = tauri::async_runtime::spawn_blocking(move || load(&env, source, dialect)).await??;
    let view = open.report();
    let open = Arc::new(open);
    let generation = state.set_session(open.clone());
    crate::watch::start(app, &open, generation);
    Ok(view)
}

/// The leaf named on the command line (`--leaf ID`), checked against the open session: `None`
/// when none was named, an error saying so when the file has no such entry (the UI then shows
/// the file's own leaf, with that message). Asked once, right after the first `open_session`.
#[tauri::command]
pub fn startup_leaf(state: State<'_, AppState>) -> Result<Option<String>, CommandError> {
    let Some(id) = state.startup_leaf() else { return Ok(None) };
    let open = state.session()?;
    match open.loaded.session.node(id) {
        Some(_) => Ok(Some(id.to_owned())),
        None => Err(CommandError::UnknownStartupLeaf { id: id.to_owned(), file: open.loaded.path.clone() }),
    }
}

fn load(env: &HostEnv, source: Source, forced: Option<RuleRequest>) -> Result<OpenSession, CommandError> {
    let path = match source {
        Source::File(path) => path,
        Source::Demo { cache_dir } => {
            demo::materialize(&cache_dir).map_err(|source| CommandError::Demo { path: cache_dir.join(demo::DEMO_FILE_NAME), source })?
        }
    };
    let stamp = crate::state::stamp(&path);
    let loaded = contextree_host::load_session(env, &path, forced)?;
    // The installed agent's texts for the session's rule set, else contextree's own for it.
    let pack = contextree_host::agent::default_pack(env, loaded.session.rules());
    Ok(OpenSession::new(loaded, pack, stamp, forced))
}
