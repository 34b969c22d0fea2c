//! Finding the agents installed on this machine and loading their prompt
//! packs (docs/decisions.md D8). The pack logic itself is pure and lives in
//! `contextree_core::prompts`; this module only finds directories and reads
//! files. It starts no program: asking npm (`npm root -g`) cost a Node.js
//! start (0.2–0.3 s) and a log file in `~/.npm/_logs` on every run, so the
//! places the package managers install global packages are looked at directly.
//!
//! Search order for a dialect's package directory (in each folder, every name
//! the agent was published under, newest first):
//! 1. `CONTEXTREE_PI_PACKAGE` / `CONTEXTREE_OMP_PACKAGE`: the package
//!    directory itself. When set, it is the only place looked at, so a wrong
//!    value is reported instead of silently replaced by another install.
//! 2. The package behind the agent's command on `PATH` (`pi`, `omp`): the
//!    command's symlink is followed to `…/node_modules/<package>/…`. This is
//!    the agent the user runs, whichever tool installed it.
//! 3. npm's global folder: `$NPM_CONFIG_PREFIX`, else `prefix=` of the user's
//!    `.npmrc` (`$NPM_CONFIG_USERCONFIG`, default `~/.npmrc`), then the usual
//!    prefixes `/usr/local`, `/usr`, `~/.npm-global` (each `lib/node_modules`).
//! 4. bun (`$BUN_INSTALL/install/global/node_modules`, default `~/.bun`),
//!    pnpm (`$PNPM_HOME/global/5/node_modules`, `~/.local/share/pnpm/...`),
//!    yarn (`~/.config/yarn/global/node_modules`).
//! 5. The node version managers' installs, newest Node first: nvm
//!    (`$NVM_DIR/versions/node/*/lib/node_modules`), fnm
//!    (`~/.local/share/fnm/node-versions/*/installation/lib/node_modules`),
//!    volta (`$VOLTA_HOME/tools/image/packages/<package>/lib/node_modules`),
//!    asdf (`$ASDF_DATA_DIR/installs/nodejs/*/lib/node_modules`).
//!
//! All of it is a few dozen `stat` calls and at most a handful of directory
//! listings (well under a millisecond), so nothing is cached.
//!
//! The variables and the home folder are the [`HostEnv`]'s a face hands in: nothing here reads
//! the process environment.
//!
//! When a session's rule set is known ([`load_agent_pack_for`]), the first
//! installed package whose version maps to that rule set wins (pi 1.6.0 for
//! `pi@1.6`, pi 0.73.1 for `pi@0.73`, when both are installed); else the
//! first installed one.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use contextree_core::prompts::{agent_package_name, agent_package_names, AgentPackError, PromptPack};
use contextree_core::{Dialect, RuleSet};

use crate::HostEnv;

/// The environment variable that points at a dialect's package directory.
pub fn package_env_var(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Pi => "CONTEXTREE_PI_PACKAGE",
        Dialect::Omp => "CONTEXTREE_OMP_PACKAGE",
    }
}

/// The command a dialect's agent installs on `PATH`.
pub fn agent_command(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Pi => "pi",
        Dialect::Omp => "omp",
    }
}

/// How a package directory was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FoundVia {
    /// The dialect's environment variable ([`package_env_var`]).
    EnvVar(&'static str),
    /// The agent's command on `PATH`, followed to its package.
    Command,
    /// npm's global folder (its prefix, or a usual prefix).
    NpmGlobal,
    /// bun's global packages.
    BunGlobal,
    /// pnpm's global packages.
    PnpmGlobal,
    /// yarn's global packages.
    YarnGlobal,
    /// A node version manager's install (nvm, fnm, volta, asdf).
    NodeManager,
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
pub fn candidate_dirs(env: &HostEnv, dialect: Dialect) -> Vec<(PathBuf, FoundVia)> {
    let var = package_env_var(dialect);
    if let Some(dir) = env_path(env, var) {
        return vec![(dir, FoundVia::EnvVar(var))];
    }
    let mut out: Vec<(PathBuf, FoundVia)> = Vec::new();
    let mut push = |dir: PathBuf, via: FoundVia| {
        if !out.iter().any(|(d, _)| *d == dir) {
            out.push((dir, via));
        }
    };
    if let Some(path) = env.var("PATH") {
        for dir in command_packages(dialect, OsStr::new(&path)) {
            push(dir, FoundVia::Command);
        }
    }
    for (root, via) in global_roots(env, dialect) {
        for package in agent_package_names(dialect) {
            push(root.join(package), via.clone());
        }
    }
    out
}

/// A non-empty environment variable as a path.
fn env_path(env: &HostEnv, var: &str) -> Option<PathBuf> {
    env.vars.get(var).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// The global `node_modules` folders of the package managers, in search order.
fn global_roots(env: &HostEnv, dialect: Dialect) -> Vec<(PathBuf, FoundVia)> {
    let home = env.home.as_deref();
    let env_path = |var: &str| env_path(env, var);
    let mut roots: Vec<(PathBuf, FoundVia)> = Vec::new();
    let lib = |prefix: PathBuf| prefix.join("lib/node_modules");
    // npm
    let prefix = env_path("NPM_CONFIG_PREFIX").or_else(|| env_path("npm_config_prefix")).or_else(|| {
        let rc = env_path("NPM_CONFIG_USERCONFIG").or_else(|| home.map(|h| h.join(".npmrc")))?;
        npmrc_prefix(&std::fs::read_to_string(rc).ok()?, home)
    });
    if let Some(prefix) = prefix {
        roots.push((lib(prefix), FoundVia::NpmGlobal));
    }
    roots.push((lib("/usr/local".into()), FoundVia::NpmGlobal));
    roots.push((lib("/usr".into()), FoundVia::NpmGlobal));
    if let Some(h) = home {
        roots.push((lib(h.join(".npm-global")), FoundVia::NpmGlobal));
    }
    // bun, pnpm, yarn
    if let Some(bun) = env_path("BUN_INSTALL").or_else(|| home.map(|h| h.join(".bun"))) {
        roots.push((bun.join("install/global/node_modules"), FoundVia::BunGlobal));
    }
    let data = env_path("XDG_DATA_HOME").or_else(|| home.map(|h| h.join(".local/share")));
    let pnpm_homes = [env_path("PNPM_HOME"), data.as_ref().map(|d| d.join("pnpm"))];
    for pnpm in pnpm_homes.into_iter().flatten() {
        roots.push((pnpm.join("global/5/node_modules"), FoundVia::PnpmGlobal));
    }
    let config = env_path("XDG_CONFIG_HOME").or_else(|| home.map(|h| h.join(".config")));
    if let Some(config) = config {
        roots.push((config.join("yarn/global/node_modules"), FoundVia::YarnGlobal));
    }
    if let Some(h) = home {
        roots.push((h.join(".config/yarn/global/node_modules"), FoundVia::YarnGlobal));
    }
    // node version managers: each installed Node has its own global folder
    if let Some(nvm) = env_path("NVM_DIR").or_else(|| home.map(|h| h.join(".nvm"))) {
        for v in versions_newest_first(&nvm.join("versions/node")) {
            roots.push((lib(v), FoundVia::NodeManager));
        }
    }
    let fnm = env_path("FNM_DIR").or_else(|| data.as_ref().map(|d| d.join("fnm")));
    for fnm in [fnm, home.map(|h| h.join(".fnm"))].into_iter().flatten() {
        for v in versions_newest_first(&fnm.join("node-versions")) {
            roots.push((lib(v.join("installation")), FoundVia::NodeManager));
        }
    }
    if let Some(volta) = env_path("VOLTA_HOME").or_else(|| home.map(|h| h.join(".volta"))) {
        // volta keeps each global package in a Node prefix of its own, named after the package
        for package in agent_package_names(dialect) {
            roots.push((lib(volta.join("tools/image/packages").join(package)), FoundVia::NodeManager));
        }
    }
    if let Some(asdf) = env_path("ASDF_DATA_DIR").or_else(|| home.map(|h| h.join(".asdf"))) {
        for v in versions_newest_first(&asdf.join("installs/nodejs")) {
            roots.push((lib(v), FoundVia::NodeManager));
        }
    }
    roots
}

/// `prefix=` of an `.npmrc` (`~/` and `${HOME}` expanded); the last one wins, as in npm.
fn npmrc_prefix(text: &str, home: Option<&Path>) -> Option<PathBuf> {
    let mut found = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        if key.trim() != "prefix" {
            continue;
        }
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
        let home_str = home.map(|h| h.to_string_lossy().into_owned());
        let value = match (&home_str, value.strip_prefix("~/")) {
            (Some(h), Some(rest)) => format!("{h}/{rest}"),
            _ => value.to_owned(),
        };
        let value = match &home_str {
            Some(h) => value.replace("${HOME}", h).replace("$HOME", h),
            None => value,
        };
        if !value.is_empty() {
            found = Some(PathBuf::from(value));
        }
    }
    found
}

/// The subfolders of `dir` (Node versions such as `v22.3.0`), newest version first.
fn versions_newest_first(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut versions: Vec<(Vec<u64>, PathBuf)> = read
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .map(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let key = name.trim_start_matches('v').split(|c: char| !c.is_ascii_digit()).map(|n| n.parse().unwrap_or(0)).collect();
            (key, p)
        })
        .collect();
    versions.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    versions.into_iter().map(|(_, p)| p).collect()
}

/// The package directories behind the agent's command in the folders of `path`: the command
/// (usually a symlink to `…/node_modules/<package>/dist/cli.js`) resolved, and the part of the
/// resolved path up to `node_modules/<package>` kept, for each name of the agent's package.
fn command_packages(dialect: Dialect, path: &OsStr) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in std::env::split_paths(path) {
        let command = dir.join(agent_command(dialect));
        if !command.is_file() {
            continue;
        }
        let Ok(resolved) = std::fs::canonicalize(&command) else { continue };
        if let Some(package) = package_of(&resolved, agent_package_names(dialect)) {
            if !out.contains(&package) {
                out.push(package);
            }
        }
    }
    out
}

/// The last `…/node_modules/<name>` folder in `file`'s path, for one of `names`
/// (scoped names such as `@scope/pkg` are two components).
fn package_of(file: &Path, names: &[&str]) -> Option<PathBuf> {
    let parts: Vec<Component> = file.components().collect();
    for end in (1..parts.len()).rev() {
        for name in names {
            let name_parts: Vec<&str> = name.split('/').collect();
            let n = name_parts.len();
            if end < n {
                continue;
            }
            let start = end + 1 - n;
            if start == 0 || parts[start - 1].as_os_str() != "node_modules" {
                continue;
            }
            if parts[start..=end].iter().zip(&name_parts).all(|(c, p)| c.as_os_str() == *p) {
                return Some(parts[..=end].iter().collect());
            }
        }
    }
    None
}

/// The first installed package of `dialect`, if any.
pub fn find_agent_package(env: &HostEnv, dialect: Dialect) -> Option<AgentPackage> {
    candidate_dirs(env, dialect).into_iter().find(|(dir, _)| dir.join("package.json").is_file()).map(|(dir, found_via)| AgentPackage {
        dialect,
        version: read_version(&dir),
        dir,
        found_via,
    })
}

/// The prompt pack of the installed `dialect` agent: `None` when none is
/// installed, `Some(Err)` when one was found (or named by the environment
/// variable) but could not be read.
pub fn load_agent_pack(env: &HostEnv, dialect: Dialect) -> Option<Result<PromptPack, AgentLoadError>> {
    load_pack_among(env, dialect, None)
}

/// The prompt pack of the installed agent for `rules`: among the installed
/// packages of its agent the first whose version maps to `rules`, else the
/// first installed (its pack then says which rule set it fits,
/// [`PromptPack::rules`]). `None` and `Some(Err)` as [`load_agent_pack`].
pub fn load_agent_pack_for(env: &HostEnv, rules: RuleSet) -> Option<Result<PromptPack, AgentLoadError>> {
    load_pack_among(env, rules.dialect(), Some(rules))
}

/// The texts a session under `rules` is rendered with by default: the installed agent's
/// ([`load_agent_pack_for`]), else contextree's own wording for `rules` (an agent that is not
/// installed, or whose texts do not load, leaves the own wording).
pub fn default_pack(env: &HostEnv, rules: RuleSet) -> PromptPack {
    match load_agent_pack_for(env, rules) {
        Some(Ok(pack)) => pack,
        _ => PromptPack::own_for(rules),
    }
}

fn load_pack_among(env: &HostEnv, dialect: Dialect, rules: Option<RuleSet>) -> Option<Result<PromptPack, AgentLoadError>> {
    let candidates = candidate_dirs(env, dialect);
    if let [(dir, FoundVia::EnvVar(var))] = candidates.as_slice() {
        if !dir.join("package.json").is_file() {
            return Some(Err(AgentLoadError::BadOverride { var, dir: dir.clone(), package: agent_package_name(dialect) }));
        }
    }
    let dir = pick_installed(dialect, candidates.into_iter().map(|(dir, _)| dir), rules)?;
    Some(load_pack_from_dir(dialect, &dir))
}

/// The installed package directory (one holding `package.json`) among
/// `candidates`, in order: the first whose version maps to `rules`, else the
/// first installed.
pub fn pick_installed(dialect: Dialect, candidates: impl IntoIterator<Item = PathBuf>, rules: Option<RuleSet>) -> Option<PathBuf> {
    let installed: Vec<PathBuf> = candidates.into_iter().filter(|dir| dir.join("package.json").is_file()).collect();
    let fitting = rules
        .and_then(|rules| installed.iter().find(|dir| read_version(dir).and_then(|v| RuleSet::for_version(dialect, &v)) == Some(rules)));
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
                io_error.borrow_mut().get_or_insert(AgentLoadError::Io { path, source });
                None
            }
        }
    };
    let result = PromptPack::from_agent_files(dialect, dir, &read);
    match (result, io_error.into_inner()) {
        (Ok(pack), _) => Ok(pack),
        (Err(_), Some(io)) => Err(io),
        (Err(source), None) => Err(AgentLoadError::Pack { dir: dir.to_owned(), source }),
    }
}

fn read_version(dir: &Path) -> Option<String> {
    let raw = std::fs::read_to_string(dir.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&raw).ok()?;
    json.get("version")?.as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    use contextree_testkit::Scratch;

    #[test]
    fn missing_package_json_is_a_pack_error() {
        let tmp = Scratch::new("host-agent-empty");
        let dir = tmp.path().to_path_buf();
        match load_pack_from_dir(Dialect::Pi, &dir) {
            Err(AgentLoadError::Pack { source: AgentPackError::MissingFile(f), .. }) => assert_eq!(f, "package.json"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn loads_a_minimal_pi_package() {
        let tmp = Scratch::new("host-agent-pi");
        let dir = tmp.path().to_path_buf();
        let write = |rel: &str, text: &str| {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("package.json", r#"{"name":"@mariozechner/pi-coding-agent","version":"0.0.1"}"#);
        write(
            "dist/core/messages.js",
            "export const COMPACTION_SUMMARY_PREFIX = `C\n`;\nexport const COMPACTION_SUMMARY_SUFFIX = `\n/C`;\n\
             export const BRANCH_SUMMARY_PREFIX = `B\n`;\nexport const BRANCH_SUMMARY_SUFFIX = `/B`;\n",
        );
        write("dist/core/compaction/utils.js", "export const SUMMARIZATION_SYSTEM_PROMPT = `sys`;");
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
    }

    #[test]
    fn the_installed_package_of_the_rule_set_is_picked() {
        let tmp = Scratch::new("host-agent-pick");
        let root = tmp.path().to_path_buf();
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
    }

    #[test]
    fn candidates_come_from_the_given_environment_only() {
        let tmp = Scratch::new("host-agent-candidates");
        let home = tmp.path().to_path_buf();
        let mut env = HostEnv::isolated(&home);
        env.vars.insert("NPM_CONFIG_PREFIX".into(), "/opt/npm".into());
        env.vars.insert("BUN_INSTALL".into(), "/opt/bun".into());
        for dialect in Dialect::ALL {
            let candidates = candidate_dirs(&env, dialect);
            let names = agent_package_names(dialect);
            assert!(candidates.iter().all(|(d, _)| names.iter().any(|p| d.ends_with(p))), "{candidates:?}");
            // npm's prefix from the variable first, bun's from its variable, the home's yarn.
            let first = &candidates[0];
            assert_eq!((first.0.clone(), first.1.clone()), (Path::new("/opt/npm/lib/node_modules").join(names[0]), FoundVia::NpmGlobal));
            assert!(candidates.iter().any(|(d, v)| d.starts_with("/opt/bun/install/global") && *v == FoundVia::BunGlobal));
            assert!(candidates.iter().any(|(d, v)| d.starts_with(home.join(".config/yarn")) && *v == FoundVia::YarnGlobal));
            assert!(!candidates.iter().any(|(d, _)| d.starts_with(std::env::var_os("HOME").unwrap_or_default()) && !d.starts_with(&home)));
            // The package variable, when set, is the only place looked at.
            let mut only = env.clone();
            only.vars.insert(package_env_var(dialect).into(), "/pkg".into());
            assert_eq!(candidate_dirs(&only, dialect), [(PathBuf::from("/pkg"), FoundVia::EnvVar(package_env_var(dialect)))]);
        }
    }

    #[test]
    fn package_of_a_resolved_command() {
        let names = agent_package_names(Dialect::Pi);
        assert_eq!(
            package_of(Path::new("/usr/lib/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"), names),
            Some(PathBuf::from("/usr/lib/node_modules/@earendil-works/pi-coding-agent"))
        );
        assert_eq!(
            package_of(Path::new("/h/.bun/install/global/node_modules/@mariozechner/pi-coding-agent/dist/cli.js"), names),
            Some(PathBuf::from("/h/.bun/install/global/node_modules/@mariozechner/pi-coding-agent"))
        );
        assert_eq!(package_of(Path::new("/usr/bin/pi"), names), None);
        assert_eq!(package_of(Path::new("/x/@earendil-works/pi-coding-agent/cli.js"), names), None, "no node_modules");
        assert_eq!(package_of(Path::new("/node_modules/@oh-my-pi/pi-coding-agent/cli.js"), names), None, "another agent");
    }

    #[test]
    fn npmrc_prefix_lines() {
        let home = Path::new("/home/u");
        assert_eq!(npmrc_prefix("fund=false\nprefix=/opt/npm\n", Some(home)), Some(PathBuf::from("/opt/npm")));
        assert_eq!(npmrc_prefix("prefix = ~/.npm-packages\n", Some(home)), Some(PathBuf::from("/home/u/.npm-packages")));
        assert_eq!(npmrc_prefix("prefix=${HOME}/g\n", Some(home)), Some(PathBuf::from("/home/u/g")));
        assert_eq!(npmrc_prefix("# prefix=/no\n;prefix=/no\naudit=false\n", Some(home)), None);
        assert_eq!(npmrc_prefix("prefix=/a\nprefix=/b\n", Some(home)), Some(PathBuf::from("/b")));
    }

    #[test]
    fn node_versions_newest_first() {
        let tmp = Scratch::new("host-agent-versions");
        let dir = tmp.path().to_path_buf();
        for v in ["v18.20.1", "v22.3.0", "v20.9.0", "v22.11.0"] {
            std::fs::create_dir_all(dir.join(v)).unwrap();
        }
        let names: Vec<String> =
            versions_newest_first(&dir).iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["v22.11.0", "v22.3.0", "v20.9.0", "v18.20.1"]);
        assert!(versions_newest_first(&dir.join("missing")).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn the_command_on_path_leads_to_its_package() {
        let tmp = Scratch::new("host-agent-command");
        let dir = tmp.path().to_path_buf();
        let package = dir.join("lib/node_modules/@oh-my-pi/pi-coding-agent");
        std::fs::create_dir_all(package.join("dist")).unwrap();
        std::fs::write(package.join("dist/cli.js"), "").unwrap();
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::os::unix::fs::symlink("../lib/node_modules/@oh-my-pi/pi-coding-agent/dist/cli.js", dir.join("bin/omp")).unwrap();
        let path = std::env::join_paths([dir.join("nothing"), dir.join("bin")]).unwrap();
        let found = command_packages(Dialect::Omp, &path);
        assert_eq!(found, [std::fs::canonicalize(&package).unwrap()]);
        assert!(command_packages(Dialect::Pi, &path).is_empty(), "no pi command there");
    }
}
