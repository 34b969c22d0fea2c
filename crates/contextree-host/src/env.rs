//! [`HostEnv`]: what the write flows read from the machine besides the session file — the home
//! folder, the working folder, the environment variables and contextree's config file. Each face
//! builds one ([`HostEnv::from_process`]: the CLI per run, the app at startup) and hands it to
//! the flows of contextree-ops, which never read the process environment themselves; tests build
//! one over a temporary folder ([`HostEnv::isolated`]) and set no variable.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use contextree_core::Dialect;

use crate::hooks::{self, HookConfigError, Hooks};
use crate::settings::{agent_settings, AgentSettings};

/// The machine as the flows see it. The agents' settings and the hooks are read from it when a
/// flow asks ([`HostEnv::agent_settings`], [`HostEnv::hooks`]), so a file edited between two
/// writes counts; the variables are the ones given when it was built.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostEnv {
    /// The home folder (`None`: unknown; the agents' global settings are then not read).
    pub home: Option<PathBuf>,
    /// The working folder (the agents' project settings are read under it).
    pub cwd: PathBuf,
    /// The environment variables (API keys, `PI_CODING_AGENT_DIR`, ...).
    pub vars: BTreeMap<String, String>,
    /// contextree's config file (providers, hooks, the app's settings), whether or not it
    /// exists; `None` without a home folder.
    pub config_path: Option<PathBuf>,
}

impl HostEnv {
    /// The process's home folder, working folder, variables and config file
    /// (`$XDG_CONFIG_HOME/contextree/config.json`, else `$HOME/.config/contextree/config.json`).
    /// A value that is not UTF-8 is kept with its bad bytes replaced: a `PATH` with one such
    /// folder still names the others.
    pub fn from_process() -> HostEnv {
        let vars: BTreeMap<String, String> =
            std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.to_string_lossy().into_owned()))).collect();
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        HostEnv::with_vars(vars, cwd)
    }

    /// `vars` and `cwd`, with the home folder and the config file derived from `vars` as
    /// [`HostEnv::from_process`] derives them.
    pub fn with_vars(vars: BTreeMap<String, String>, cwd: PathBuf) -> HostEnv {
        let non_empty = |k: &str| vars.get(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let home = non_empty("HOME");
        let config_path = non_empty("XDG_CONFIG_HOME")
            .or_else(|| home.as_ref().map(|h| h.join(".config")))
            .map(|base| base.join("contextree").join("config.json"));
        HostEnv { home, cwd, vars, config_path }
    }

    /// A machine of its own under `home`: no variable but `HOME`, the working folder `home`,
    /// the config file `home/.config/contextree/config.json`.
    pub fn isolated(home: &Path) -> HostEnv {
        let vars = BTreeMap::from([("HOME".to_owned(), home.display().to_string())]);
        HostEnv::with_vars(vars, home.to_owned())
    }

    /// The variable `name`.
    pub fn var(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }

    /// The agent's settings as seen from the working folder ([`agent_settings`]); without a
    /// home folder only the project file is read, and a warning says so.
    pub fn agent_settings(&self, dialect: Dialect) -> AgentSettings {
        let env = |k: &str| self.var(k);
        match &self.home {
            Some(home) => agent_settings(dialect, home, &env, &self.cwd),
            None => {
                // Without a home folder only the project file can be found; a path that
                // cannot exist stands in for the global one.
                let mut s = agent_settings(dialect, Path::new("/nonexistent-home"), &env, &self.cwd);
                s.warnings.push("HOME is not set: the global settings file was not read".to_owned());
                s
            }
        }
    }

    /// The hooks of contextree's config file (none when it does not exist, or without a home
    /// folder).
    pub fn hooks(&self) -> Result<Hooks, HookConfigError> {
        match &self.config_path {
            Some(path) => hooks::load_hooks(path),
            None => Ok(Hooks::default()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_file_follows_xdg_config_home_else_home() {
        let env = HostEnv::isolated(Path::new("/h"));
        assert_eq!(env.config_path.as_deref(), Some(Path::new("/h/.config/contextree/config.json")));
        let mut vars = env.vars.clone();
        vars.insert("XDG_CONFIG_HOME".into(), "/x".into());
        let xdg = HostEnv::with_vars(vars, "/w".into());
        assert_eq!(xdg.config_path.as_deref(), Some(Path::new("/x/contextree/config.json")));
        let none = HostEnv::with_vars(BTreeMap::from([("HOME".to_owned(), String::new())]), "/w".into());
        assert_eq!((none.home, none.config_path), (None, None));
    }

    #[test]
    fn without_a_home_the_settings_say_so_and_there_are_no_hooks() {
        let env = HostEnv { cwd: "/nonexistent-cwd".into(), ..HostEnv::default() };
        assert!(env.agent_settings(Dialect::Pi).warnings.iter().any(|w| w.contains("HOME is not set")));
        assert!(env.hooks().unwrap().is_empty());
    }
}
