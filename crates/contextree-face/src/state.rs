//! What the commands work on: the open session and the machine it is read through. The app
//! keeps one (`Builder::manage`), the server one per browser tab.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

use contextree_core::prompts::PromptPack;
use contextree_core::RuleRequest;
use contextree_host::{HostEnv, LoadedSession};

use crate::CommandError;

/// The session the window shows, with the prompt pack its contexts are rendered with.
#[derive(Debug)]
pub struct OpenSession {
    /// The parsed session and its file.
    pub loaded: LoadedSession,
    /// The installed agent's pack when one is found and loads, else contextree's own.
    pub pack: PromptPack,
    /// The file's length and modification time, taken before it was read: the watcher reloads
    /// only when the file's stamp differs from the open session's (so a write's own re-read
    /// is not read a second time).
    pub stamp: Stamp,
    /// The dialect or rule set the user forced (`None`: detected, docs/decisions.md D22).
    pub request: Option<RuleRequest>,
    /// This reading's number, unique in the process: the tree table carries it, and a leaf
    /// change asked with it gets only the leaf's columns (`tree/wire.rs`).
    pub reading: u32,
    /// What the UI was sent of the tree: rows do not depend on the leaf, so a leaf's columns
    /// are laid out in their order without laying out the tree, and the states of the leaf
    /// sent last tell which rows the next leaf changes.
    pub tree: crate::tree::sent::Sent,
}

/// The next reading's number.
static READINGS: AtomicU32 = AtomicU32::new(1);

/// A file's length and modification time; `None` when it cannot be looked at.
pub type Stamp = Option<(u64, Option<SystemTime>)>;

/// The current stamp of the file at `path`.
pub fn stamp(path: &Path) -> Stamp {
    std::fs::metadata(path).ok().map(|m| (m.len(), m.modified().ok()))
}

impl OpenSession {
    /// A reading of `loaded`'s file, taken when it had `stamp`.
    pub fn new(loaded: LoadedSession, pack: PromptPack, stamp: Stamp, request: Option<RuleRequest>) -> Self {
        let reading = READINGS.fetch_add(1, Ordering::Relaxed);
        Self { loaded, pack, stamp, request, reading, tree: Default::default() }
    }

    /// The read layer's report of this session (what `open_session` returns and
    /// `session-changed` carries; `contextree info --json`).
    pub fn report(&self) -> contextree_read::SessionReport {
        contextree_read::SessionReport::new(&self.loaded.path, self.loaded.fingerprint.len, &self.loaded.session, self.request)
    }

    /// The same file read again, keeping a forced dialect and the pack (`env`: where the
    /// installed agents are looked for, when the rule set is not forced).
    pub fn reload(&self, env: &HostEnv) -> Result<OpenSession, contextree_host::LoadError> {
        let path = &self.loaded.path;
        let stamp = stamp(path);
        let loaded = contextree_host::load_session(env, path, self.request)?;
        Ok(OpenSession::new(loaded, self.pack.clone(), stamp, self.request))
    }
}

/// What a face knows: its command line (the startup file and leaf) and the open session.
#[derive(Debug)]
pub struct AppState {
    startup: Option<PathBuf>,
    /// The entry named on the command line (`--leaf`), selected when the startup file opens.
    startup_leaf: Option<String>,
    /// The library's folders when the face was told them (`contextree serve --root`), instead
    /// of the settings' (else the agents').
    library: Vec<PathBuf>,
    /// The machine the write flows and the agent's settings are read through (built once, at
    /// startup: the process's home, working folder, variables and config file).
    env: Arc<HostEnv>,
    session: RwLock<Option<Arc<OpenSession>>>,
    /// Bumped by every `set_session`: a file watcher serves one generation only.
    generation: AtomicU64,
}

impl AppState {
    /// `startup` is the session file named on the command line; `None` opens the demo.
    pub fn new(startup: Option<PathBuf>) -> Self {
        Self::with_env(startup, HostEnv::from_process())
    }

    /// [`AppState::new`] over `env` instead of the process's (tests: a temporary home).
    pub fn with_env(startup: Option<PathBuf>, env: HostEnv) -> Self {
        Self {
            startup,
            startup_leaf: None,
            library: Vec::new(),
            env: Arc::new(env),
            session: RwLock::new(None),
            generation: AtomicU64::new(0),
        }
    }

    /// The machine the flows read settings, hooks, the config file and keys through.
    pub fn env(&self) -> Arc<HostEnv> {
        self.env.clone()
    }

    /// The session file named on the command line, if any.
    pub fn startup(&self) -> Option<&Path> {
        self.startup.as_deref()
    }

    /// This state with `leaf` as the entry to select when the startup file opens.
    pub fn with_startup_leaf(mut self, leaf: Option<String>) -> Self {
        self.startup_leaf = leaf;
        self
    }

    /// The entry to select when the startup file opens, if one was named.
    pub fn startup_leaf(&self) -> Option<&str> {
        self.startup_leaf.as_deref()
    }

    /// This state with `roots` as the library's only folders (none: the settings' folders,
    /// else the agents').
    pub fn with_library(mut self, roots: Vec<PathBuf>) -> Self {
        self.library = roots;
        self
    }

    /// The folders the library and the search read: the ones this state was given, else the
    /// settings screen's, else the agents' own. Reads the config file.
    pub fn library_roots(&self) -> contextree_host::library::RootOverrides {
        if self.library.is_empty() {
            crate::settings::current(&self.env).root_overrides(self.env.home.as_deref())
        } else {
            contextree_host::library::RootOverrides { only: self.library.clone(), ..Default::default() }
        }
    }

    /// Closes the open session: its watcher stops at its next look (the server drops a tab's
    /// state this way).
    pub fn close(&self) {
        let mut guard = self.session.write().expect("session lock poisoned");
        *guard = None;
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// The open session; the lock is released before this returns (never held across `.await`).
    pub fn session(&self) -> Result<Arc<OpenSession>, CommandError> {
        let guard = self.session.read().expect("session lock poisoned");
        guard.clone().ok_or(CommandError::NoSession)
    }

    /// Replaces the open session; returns its generation.
    pub fn set_session(&self, session: Arc<OpenSession>) -> u64 {
        let mut guard = self.session.write().expect("session lock poisoned");
        *guard = Some(session);
        self.generation.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The generation of the open session.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Replaces the open session with a newer reading of the same file, unless another session
    /// was opened since `generation`; returns whether it did.
    pub fn replace_session(&self, generation: u64, session: Arc<OpenSession>) -> bool {
        let mut guard = self.session.write().expect("session lock poisoned");
        if self.generation() != generation {
            return false;
        }
        *guard = Some(session);
        true
    }
}
