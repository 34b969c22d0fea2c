//! Where the agents keep their sessions: the default roots from the environment and the
//! home folder (passed in, so tests need no real HOME), and the overrides that replace them.

use crate::HostEnv;
use std::path::{Path, PathBuf};

use contextree_core::Dialect;

/// Where a session root came from (`default`, `environment`, `override` in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum RootOrigin {
    /// The agent's default location.
    Default,
    /// An environment variable (`PI_CODING_AGENT_DIR`, `XDG_DATA_HOME`, `PI_CONFIG_DIR`).
    Environment,
    /// Passed in by the caller (settings, `--root`).
    Override,
}

/// A folder holding `<encoded cwd>/<file>.jsonl` session files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRoot {
    /// The folder (it may not exist).
    pub path: PathBuf,
    /// The agent that writes there, when known (a root passed in may hold either).
    pub dialect: Option<Dialect>,
    /// Whether it is an agent's default, comes from an environment variable or was passed in.
    pub origin: RootOrigin,
}

/// Replacements for the default roots (from settings or the command line).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RootOverrides {
    /// pi's sessions folder instead of the default.
    pub pi: Option<PathBuf>,
    /// omp's sessions folder instead of the default.
    pub omp: Option<PathBuf>,
    /// When not empty: only these folders (dialect read from each file), no defaults.
    pub only: Vec<PathBuf>,
}

/// The machine facts the folder names depend on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostPaths {
    /// The user's home folder (omp encodes cwds inside it as `-<relative path>`); `None`
    /// when unknown.
    pub home: Option<PathBuf>,
    /// The OS temporary folder (omp encodes cwds inside it as `-tmp-…`).
    pub tmp: Option<PathBuf>,
}

impl HostPaths {
    /// `env`'s home folder and the OS temporary folder (canonical, as omp resolves cwds).
    pub fn of(env: &HostEnv) -> HostPaths {
        let home = env.home.clone();
        let tmp = std::env::temp_dir();
        let tmp = std::fs::canonicalize(&tmp).unwrap_or(tmp);
        HostPaths { home, tmp: Some(tmp) }
    }
}

/// Expands a leading `~` (alone or followed by `/`).
pub fn expand_tilde(p: &str, home: Option<&Path>) -> PathBuf {
    match (p.strip_prefix('~'), home) {
        (Some(""), Some(h)) => h.to_path_buf(),
        (Some(rest), Some(h)) if rest.starts_with('/') => h.join(&rest[1..]),
        _ => PathBuf::from(p),
    }
}

/// The agents' session folders: pi `$PI_CODING_AGENT_DIR/sessions` else
/// `~/.pi/agent/sessions`; omp `~/.omp/agent/sessions` (`.omp` renamed by `PI_CONFIG_DIR`),
/// or `$XDG_DATA_HOME/omp/sessions` when `$XDG_DATA_HOME/omp` exists. `exists` is asked
/// about that folder only. Overrides replace the defaults; `only` replaces everything.
pub fn default_roots(
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
    exists: &dyn Fn(&Path) -> bool,
    overrides: &RootOverrides,
) -> Vec<SessionRoot> {
    if !overrides.only.is_empty() {
        return overrides.only.iter().map(|p| SessionRoot { path: p.clone(), dialect: None, origin: RootOrigin::Override }).collect();
    }
    let var = |k: &str| env(k).filter(|v| !v.is_empty());
    let mut roots = Vec::new();
    let pi = match &overrides.pi {
        Some(p) => Some((p.clone(), RootOrigin::Override)),
        None => crate::settings::pi_agent_dir(home, env).map(|(dir, origin)| (dir.join("sessions"), origin)),
    };
    if let Some((path, origin)) = pi {
        roots.push(SessionRoot { path, dialect: Some(Dialect::Pi), origin });
    }
    let xdg = var("XDG_DATA_HOME").map(|x| PathBuf::from(x).join("omp")).filter(|d| exists(d));
    let omp = match (&overrides.omp, xdg, home) {
        (Some(p), _, _) => Some((p.clone(), RootOrigin::Override)),
        (None, Some(data), _) => Some((data.join("sessions"), RootOrigin::Environment)),
        (None, None, Some(h)) => match var("PI_CONFIG_DIR") {
            Some(name) => Some((h.join(name).join("agent/sessions"), RootOrigin::Environment)),
            None => Some((h.join(".omp/agent/sessions"), RootOrigin::Default)),
        },
        (None, None, None) => None,
    };
    if let Some((path, origin)) = omp {
        roots.push(SessionRoot { path, dialect: Some(Dialect::Omp), origin });
    }
    roots
}

/// [`default_roots`] with `env`'s home folder and variables and the real file system.
pub fn default_roots_in(env: &HostEnv, overrides: &RootOverrides) -> Vec<SessionRoot> {
    default_roots(env.home.as_deref(), &|k| env.var(k), &|p| p.is_dir(), overrides)
}
