//! Finding the agents installed on this machine and loading their prompt
//! packs (decisions.md D8). The pack logic itself is pure and lives in
//! `contextree_core::prompts`; this module only finds directories and reads
//! files.
//!
//! Search order for a dialect's package directory (in each folder, every name
//! the agent was published under, newest first):
//! 1. `CONTEXTREE_PI_PACKAGE` / `CONTEXTREE_OMP_PACKAGE`: the package
//!    directory itself. When set, it is the only place looked at, so a wrong
//!    value is reported instead of silently replaced by another install.
//! 2. npm's global root (`npm root -g`, asked once per process), when `npm`
//!    is on `PATH`.
//! 3. bun's global packages (`$BUN_INSTALL/install/global/node_modules`,
//!    default `~/.bun/...`).
//! 4. Common global prefixes: `$NPM_CONFIG_PREFIX/lib/node_modules`,
//!    `/usr/local/lib/node_modules`, `/usr/lib/node_modules`,
//!    `~/.npm-global/lib/node_modules`.
//!
//! When a session's rule set is known ([`load_agent_pack_for`]), the first
//! installed package whose version maps to that rule set wins (pi 1.6.0 for
//! `pi@1.6`, pi 0.73.1 for `pi@0.73`, when both are installed); else the
//! first installed one.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use contextree_core::prompts::{agent_package_name, agent_package_names, AgentPackError, PromptPack};
use contextree_core::{Dialect, RuleSet};

/// How long `npm root -g` may take; npm's startup is slow, but a hung npm
/// must not freeze the app.
const NPM_TIMEOUT: Duration = Duration::from_secs(3);

/// The environment variable that points at a dialect's package directory.
pub fn package_env_var(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Pi => "CONTEXTREE_PI_PACKAGE",
        Dialect::Omp => "CONTEXTREE_OMP_PACKAGE",
    }
}

/// How a package directory was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FoundVia {
    /// The dialect's environment variable ([`package_env_var`]).
    EnvVar(&'static str),
    /// npm's global root.
    NpmGlobal,
    /// bun's global packages.
    BunGlobal,
    /// A common global prefix.
    Prefix,
}

/// An agent package found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentPackage {
    /// Whose package it is.
    pub dialect: Dialect,
    /// The package directory (holds `package.json`).
    pub dir: PathBuf,
    /// `version` from `package.json`, if readable.
    pub version: Option<String>,
    /// Where it was found.
    pub found_via: FoundVia,
}

/// Why an agent pack could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum AgentLoadError {
    /// The environment variable names a directory that is not the package.
    #[error("{var}={}: no {package} package there (no package.json)", dir.display())]
    BadOverride {
        /// The variable.
        var: &'static str,
        /// Its value.
        dir: PathBuf,
        /// The expected package.
        package: &'static str,
    },
    /// A file could not be read for a reason other than not existing.
    #[error("reading {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The package's files do not form a pack.
    #[error("{}: {source}", dir.display())]
    Pack {
        /// The package directory.
        dir: PathBuf,
        /// What is wrong.
        source: AgentPackError,
    },
}

/// The places a dialect's package may be installed, in search order
/// (directories that may not exist). An environment override, when set,
/// is the only candidate.
pub fn candidate_dirs(dialect: Dialect) -> Vec<(PathBuf, FoundVia)> {
    let var = package_env_var(dialect);
    if let Some(dir) = std::env::var_os(var).filter(|v| !v.is_empty()) {
        return vec![(PathBuf::from(dir), FoundVia::EnvVar(var))];
    }
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let mut roots: Vec<(PathBuf, FoundVia)> = Vec::new();
    if let Some(root) = npm_global_root() {
        roots.push((root, FoundVia::NpmGlobal));
    }
    let bun = std::env::var_os("BUN_INSTALL")
        .filter(|b| !b.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".bun")));
    if let Some(bun) = bun {
        roots.push((bun.join("install/global/node_modules"), FoundVia::BunGlobal));
    }
    if let Some(prefix) = std::env::var_os("NPM_CONFIG_PREFIX").filter(|p| !p.is_empty()) {
        roots.push((
            PathBuf::from(prefix).join("lib/node_modules"),
            FoundVia::Prefix,
        ));
    }
    roots.push((
        PathBuf::from("/usr/local/lib/node_modules"),
        FoundVia::Prefix,
    ));
    roots.push((PathBuf::from("/usr/lib/node_modules"), FoundVia::Prefix));
    if let Some(home) = &home {
        roots.push((home.join(".npm-global/lib/node_modules"), FoundVia::Prefix));
    }
    let mut out: Vec<(PathBuf, FoundVia)> = Vec::new();
    for (root, via) in roots {
        for package in agent_package_names(dialect) {
            let dir = root.join(package);
            if !out.iter().any(|(d, _)| *d == dir) {
                out.push((dir, via.clone()));
            }
        }
    }
    out
}

/// The first installed package of `dialect`, if any.
pub fn find_agent_package(dialect: Dialect) -> Option<AgentPackage> {
    candidate_dirs(dialect)
        .into_iter()
        .find(|(dir, _)| dir.join("package.json").is_file())
        .map(|(dir, found_via)| AgentPackage {
            dialect,
            version: read_version(&dir),
            dir,
            found_via,
        })
}

/// The prompt pack of the installed `dialect` agent: `None` when none is
/// installed, `Some(Err)` when one was found (or named by the environment
/// variable) but could not be read.
pub fn load_agent_pack(dialect: Dialect) -> Option<Result<PromptPack, AgentLoadError>> {
    load_pack_among(dialect, None)
}

/// The prompt pack of the installed agent for `rules`: among the installed
/// packages of its agent the first whose version maps to `rules`, else the
/// first installed (its pack then says which rule set it fits,
/// [`PromptPack::rules`]). `None` and `Some(Err)` as [`load_agent_pack`].
pub fn load_agent_pack_for(rules: RuleSet) -> Option<Result<PromptPack, AgentLoadError>> {
    load_pack_among(rules.dialect(), Some(rules))
}

fn load_pack_among(dialect: Dialect, rules: Option<RuleSet>) -> Option<Result<PromptPack, AgentLoadError>> {
    let candidates = candidate_dirs(dialect);
    if let [(dir, FoundVia::EnvVar(var))] = candidates.as_slice() {
        if !dir.join("package.json").is_file() {
            return Some(Err(AgentLoadError::BadOverride {
                var,
                dir: dir.clone(),
                package: agent_package_name(dialect),
            }));
        }
    }
    // Searched among the candidates above: listing them again (`find_agent_package`) would
    // repeat the environment and npm lookups.
    let dir = pick_installed(dialect, candidates.into_iter().map(|(dir, _)| dir), rules)?;
    Some(load_pack_from_dir(dialect, &dir))
}

/// The installed package directory (one holding `package.json`) among
/// `candidates`, in order: the first whose version maps to `rules`, else the
/// first installed.
pub fn pick_installed(dialect: Dialect, candidates: impl IntoIterator<Item = PathBuf>, rules: Option<RuleSet>) -> Option<PathBuf> {
    let installed: Vec<PathBuf> = candidates.into_iter().filter(|dir| dir.join("package.json").is_file()).collect();
    let fitting = rules.and_then(|rules| {
        installed
            .iter()
            .find(|dir| read_version(dir).and_then(|v| RuleSet::for_version(dialect, &v)) == Some(rules))
    });
    fitting.or(installed.first()).cloned()
}

/// The prompt pack of the `dialect` agent package in `dir`.
pub fn load_pack_from_dir(dialect: Dialect, dir: &Path) -> Result<PromptPack, AgentLoadError> {
    // The pure loader sees "missing" as None; any other read error is kept
    // aside and reported in its place, since it explains the failure better.
    let io_error: std::cell::RefCell<Option<AgentLoadError>> = std::cell::RefCell::new(None);
    let read = |rel: &str| -> Option<String> {
        let path = dir.join(rel);
        match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                io_error
                    .borrow_mut()
                    .get_or_insert(AgentLoadError::Io { path, source });
                None
            }
        }
    };
    let result = PromptPack::from_agent_files(dialect, dir, &read);
    match (result, io_error.into_inner()) {
        (Ok(pack), _) => Ok(pack),
        (Err(_), Some(io)) => Err(io),
        (Err(source), None) => Err(AgentLoadError::Pack {
            dir: dir.to_owned(),
            source,
        }),
    }
}

fn read_version(dir: &Path) -> Option<String> {
    let raw = std::fs::read_to_string(dir.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&raw).ok()?;
    json.get("version")?.as_str().map(str::to_owned)
}

/// Asks npm for its global root ahead of the first lookup, so that a caller (the app, at
/// start-up) can pay npm's start-up on a background thread while it does something else.
/// Lookups made meanwhile wait for this answer instead of starting npm again.
pub fn warm_up() {
    let _ = npm_global_root();
}

/// `npm root -g`, asked once per process: npm starts a Node.js process (0.15–0.5 s), far longer
/// than opening a large session, and its global root does not move while contextree runs.
fn npm_global_root() -> Option<PathBuf> {
    static ROOT: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    ROOT.get_or_init(ask_npm_global_root).clone()
}

/// `npm root -g`, if npm is on `PATH` and answers within [`NPM_TIMEOUT`].
fn ask_npm_global_root() -> Option<PathBuf> {
    let npm = find_on_path("npm", std::env::var_os("PATH")?)?;
    let mut child = Command::new(npm)
        .args(["root", "-g"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + NPM_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(Some(_)) | Err(_) => return None,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    let mut out = String::new();
    child.stdout.take()?.read_to_string(&mut out).ok()?;
    let root = out.trim();
    (!root.is_empty()).then(|| PathBuf::from(root))
}

fn find_on_path(program: &str, path: OsString) -> Option<PathBuf> {
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "contextree-host-agent-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn missing_package_json_is_a_pack_error() {
        let dir = temp_dir("empty");
        match load_pack_from_dir(Dialect::Pi, &dir) {
            Err(AgentLoadError::Pack {
                source: AgentPackError::MissingFile(f),
                ..
            }) => assert_eq!(f, "package.json"),
            other => panic!("{other:?}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn loads_a_minimal_pi_package() {
        let dir = temp_dir("pi");
        let write = |rel: &str, text: &str| {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "package.json",
            r#"{"name":"@mariozechner/pi-coding-agent","version":"0.0.1"}"#,
        );
        write(
            "dist/core/messages.js",
            "export const COMPACTION_SUMMARY_PREFIX = `C\n`;\nexport const COMPACTION_SUMMARY_SUFFIX = `\n/C`;\n\
             export const BRANCH_SUMMARY_PREFIX = `B\n`;\nexport const BRANCH_SUMMARY_SUFFIX = `/B`;\n",
        );
        write(
            "dist/core/compaction/utils.js",
            "export const SUMMARIZATION_SYSTEM_PROMPT = `sys`;",
        );
        write(
            "dist/core/compaction/compaction.js",
            "const SUMMARIZATION_PROMPT = `a`; const UPDATE_SUMMARIZATION_PROMPT = `b`; const TURN_PREFIX_SUMMARIZATION_PROMPT = `c`;",
        );
        write(
            "dist/core/compaction/branch-summarization.js",
            "const BRANCH_SUMMARY_PREAMBLE = `p\n\n`;\nconst BRANCH_SUMMARY_PROMPT = `d`;",
        );
        let pack = load_pack_from_dir(Dialect::Pi, &dir).unwrap();
        assert_eq!(pack.wrap_compaction_summary("S"), "C\nS\n/C");
        assert_eq!(read_version(&dir).as_deref(), Some("0.0.1"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_installed_package_of_the_rule_set_is_picked() {
        let root = temp_dir("pick");
        let old = root.join("@mariozechner/pi-coding-agent");
        let new = root.join("@earendil-works/pi-coding-agent");
        let missing = root.join("nothing-here");
        for (dir, version) in [(&old, "0.73.1"), (&new, "1.6.0")] {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join("package.json"), format!(r#"{{"name":"x","version":"{version}"}}"#)).unwrap();
        }
        let order = || vec![missing.clone(), new.clone(), old.clone()];
        assert_eq!(pick_installed(Dialect::Pi, order(), Some(RuleSet::Pi16)), Some(new.clone()));
        assert_eq!(pick_installed(Dialect::Pi, order(), Some(RuleSet::Pi073)), Some(old.clone()));
        assert_eq!(pick_installed(Dialect::Pi, order(), None), Some(new.clone()));
        // Only the other release installed: it is used all the same.
        assert_eq!(pick_installed(Dialect::Pi, vec![old.clone()], Some(RuleSet::Pi16)), Some(old.clone()));
        assert_eq!(pick_installed(Dialect::Pi, vec![missing], Some(RuleSet::Pi16)), None);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn candidates_end_with_the_package_path() {
        // Reads the environment only; whatever it holds, every candidate is
        // a package directory of the right name.
        for dialect in Dialect::ALL {
            let candidates = candidate_dirs(dialect);
            assert!(!candidates.is_empty());
            if !matches!(candidates[0].1, FoundVia::EnvVar(_)) {
                assert!(candidates
                    .iter()
                    .all(|(d, _)| agent_package_names(dialect).iter().any(|p| d.ends_with(p))));
            }
        }
    }

    #[test]
    fn path_lookup() {
        let dir = temp_dir("path");
        assert_eq!(
            find_on_path("no-such-program", dir.clone().into_os_string()),
            None
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let prog = dir.join("tool");
            std::fs::write(&prog, "#!/bin/sh\n").unwrap();
            assert_eq!(
                find_on_path("tool", dir.clone().into_os_string()),
                None,
                "not executable"
            );
            std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o755)).unwrap();
            assert_eq!(
                find_on_path("tool", dir.clone().into_os_string()),
                Some(prog)
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
