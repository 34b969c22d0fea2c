//! Opening a session file.

use std::path::PathBuf;
use std::sync::Arc;

use contextree_core::RuleRequest;
use contextree_host::HostEnv;
use contextree_read::SessionReport;

use crate::state::OpenSession;
use crate::watch::Watched;
use crate::{demo, AppState, CommandError};

/// Opens `path`, else the file given on the command line, else the bundled demo session
/// (written into `demo_dir` first), and makes it the session the other commands work on; then
/// watches its file: appends reload it and `to` hears of it (`crate::watch`).
///
/// Contexts use the installed agent's prompt pack when one loads, else contextree's own.
/// `dialect` forces the agent (`pi`, `omp`) or one rule set (`pi@0.73`, `pi@1.6`, `omp@13`,
/// `omp@18`) instead of detecting it (the title bar's switch, the settings screen's override);
/// the watcher keeps it when it reloads the file. Blocking: a file can be tens of megabytes.
pub fn open(
    to: impl Watched,
    path: Option<String>,
    dialect: Option<String>,
    demo_dir: impl FnOnce() -> Result<PathBuf, CommandError>,
) -> Result<SessionReport, CommandError> {
    let state = to.state();
    let dialect = dialect.filter(|d| !d.is_empty()).map(|d| d.parse::<RuleRequest>()).transpose()?;
    let path = match path.map(PathBuf::from).or_else(|| state.startup().map(Into::into)) {
        Some(path) => path,
        None => {
            let dir = demo_dir()?;
            demo::materialize(&dir).map_err(|source| CommandError::Demo { path: dir.join(demo::DEMO_FILE_NAME), source })?
        }
    };
    let open = load(&state.env(), path, dialect)?;
    Ok(open_read(to, open))
}

/// Makes `open`, a session already read (by [`load`]), the open session, as [`open`] does
/// once it has read the file: the app reads its startup file while its window starts.
pub fn open_read(to: impl Watched, open: OpenSession) -> SessionReport {
    let view = open.report();
    let open = Arc::new(open);
    let generation = to.state().set_session(open.clone());
    crate::watch::start(to, &open, generation);
    view
}

/// The leaf named on the command line (`--leaf ID`), checked against the open session: `None`
/// when none was named, an error saying so when the file has no such entry (the UI then shows
/// the file's own leaf, with that message). Asked once, right after the first `open`.
pub fn startup_leaf(state: &AppState) -> Result<Option<String>, CommandError> {
    let Some(id) = state.startup_leaf() else { return Ok(None) };
    let open = state.session()?;
    match open.loaded.session.node(id) {
        Some(_) => Ok(Some(id.to_owned())),
        None => Err(CommandError::UnknownStartupLeaf { id: id.to_owned(), file: open.loaded.path.clone() }),
    }
}

/// Reads the session at `path` (`forced`: the rules asked for) with its prompt pack, as
/// [`open`] does; its stamp is taken before the read.
pub fn load(env: &HostEnv, path: PathBuf, forced: Option<RuleRequest>) -> Result<OpenSession, CommandError> {
    let stamp = crate::state::stamp(&path);
    let loaded = contextree_host::load_session(env, &path, forced)?;
    // The installed agent's texts for the session's rule set, else contextree's own for it.
    let pack = contextree_host::agent::default_pack(env, loaded.session.rules());
    Ok(OpenSession::new(loaded, pack, stamp, forced))
}
