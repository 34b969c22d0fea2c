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
    // The startup file, as detected: the preload begun at startup has (or is) reading it.
    let preloaded = if matches!(&source, Source::File(p) if Some(p.as_path()) == state.startup()) && dialect.is_none() {
        state.take_preload()
    } else {
        None
    };
    let env = state.env();
    let open = tauri::async_runtime::spawn_blocking(move || {
        // A preload that died without an answer is read again here.
        match preloaded.and_then(|answer| answer.recv().ok()) {
            Some(done) => done,
            None => load(&env, source, dialect).map(Arc::new),
        }
    })
    .await??;
    let view = open.report();
    let generation = state.set_session(open.clone());
    crate::watch::start(app, &open, generation);
    Ok(view)
}

/// Begins reading the file named on the command line at startup, before the window and its
/// web view exist (they take a few hundred milliseconds to start, the reading of a large file
/// as long), then makes the file's leaf's tree table while the first `open_session` sends the
/// report. The first `open_session` of that file, as detected, takes what it read.
pub fn preload<R: Runtime>(app: &AppHandle<R>) {
    let state = app.state::<AppState>();
    let Some(path) = state.startup().map(PathBuf::from) else {
        return;
    };
    let env = state.env();
    let (answer, answers) = std::sync::mpsc::sync_channel(1);
    state.set_preload(answers);
    let spawned = std::thread::Builder::new().name("contextree-preload".into()).spawn(move || {
        let open = match load(&env, Source::File(path), None) {
            Ok(open) => Arc::new(open),
            Err(err) => {
                let _ = answer.send(Err(err));
                return;
            }
        };
        // Held before the session is handed over, so a `tree_table` waits for this table
        // instead of making it a second time.
        let mut first = open.first_table.lock().expect("first table lock poisoned");
        let _ = answer.send(Ok(open.clone()));
        *first = super::tree::table(&open, None, None).ok();
    });
    if let Err(err) = spawned {
        // `open_session` reads the file itself.
        state.take_preload();
        eprintln!("contextree: cannot read the session ahead: {err}");
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
