//! A scratch HOME for the app and the CLI, so that neither the machine's sessions nor its
//! config files are read or written, and a case can give the agents folders of its own.
//!
//! tauri-driver passes no environment to the app, so the app is started through a small shell
//! script that sets HOME and XDG_CONFIG_HOME and `exec`s it (the process is then the app
//! itself, which `with_app_in` waits for).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::Context as _;
use serde_json::{json, Value};

use crate::steps::{cli, json_output};
use crate::Harness;

/// A scratch HOME with its own config folder, and the script that starts the app in it.
pub struct FakeHome {
    pub home: PathBuf,
    pub config: PathBuf,
    pub launcher: PathBuf,
}

impl FakeHome {
    pub fn new(harness: &Harness, name: &str) -> anyhow::Result<Self> {
        let base = harness.scratch.join(name);
        let _ = std::fs::remove_dir_all(&base);
        let home = base.join("home");
        // under the home folder, so the page shows it as `~/.config/…`
        let config = home.join(".config");
        std::fs::create_dir_all(&home)?;
        std::fs::create_dir_all(&config)?;
        let launcher = base.join("contextree-app.sh");
        // `env -u`: the machine's own agent folders must not leak in.
        let script = format!(
            "#!/bin/sh\nexec env -u PI_CODING_AGENT_DIR -u PI_CONFIG_DIR -u XDG_DATA_HOME \
             HOME='{}' XDG_CONFIG_HOME='{}' '{}' \"$@\"\n",
            home.display(),
            config.display(),
            harness.app.display()
        );
        std::fs::write(&launcher, script)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755))?;
        }
        Ok(Self { home, config, launcher })
    }

    /// Writes `fixture` as a session of `project` (its header's cwd) under `root`, last
    /// modified `age` ago.
    pub fn session(&self, root: &str, folder: &str, project: &Path, fixture: &Path, name: &str, age: Duration) -> anyhow::Result<PathBuf> {
        let text = std::fs::read_to_string(fixture)?;
        let (header, rest) = text.split_once('\n').context("fixture has one line")?;
        let mut header: Value = serde_json::from_str(header)?;
        header["cwd"] = json!(project.display().to_string());
        let dir = self.home.join(root).join(folder);
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(name);
        std::fs::write(&path, format!("{header}\n{rest}"))?;
        let file = std::fs::File::options().write(true).open(&path)?;
        file.set_modified(SystemTime::now() - age)?;
        Ok(path)
    }

    /// `contextree sessions --json` in this HOME: what the library must show.
    pub fn cli_sessions(&self, harness: &Harness) -> anyhow::Result<Value> {
        json_output(
            std::process::Command::new(cli(harness))
                .args(["sessions", "--json"])
                .env("HOME", &self.home)
                .env("XDG_CONFIG_HOME", &self.config)
                .env_remove("PI_CODING_AGENT_DIR")
                .env_remove("PI_CONFIG_DIR")
                .env_remove("XDG_DATA_HOME"),
            "sessions",
        )
    }
}
