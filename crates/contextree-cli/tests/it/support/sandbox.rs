//! A temporary HOME for runs that must not see the user's real settings,
//! hooks or providers: its own XDG config folder and working folder, and a
//! copy of a synthetic fixture.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use contextree_testkit::Scratch;
use serde_json::{json, Value};

/// A temporary HOME with a copy of a fixture, removed when dropped.
pub struct Sandbox {
    scratch: Scratch,
    pub dir: PathBuf,
    pub file: PathBuf,
}

impl Sandbox {
    pub fn new(fixture: &str) -> Sandbox {
        let scratch = Scratch::new("sandbox");
        std::fs::create_dir_all(scratch.join("xdg/contextree")).unwrap();
        std::fs::create_dir_all(scratch.join("work")).unwrap();
        let file = scratch.copy_fixture(&format!("synthetic/{fixture}.jsonl"));
        Sandbox { dir: scratch.path().to_owned(), file, scratch }
    }

    /// Writes contextree's config file.
    pub fn config(&self, config: &Value) {
        std::fs::write(self.dir.join("xdg/contextree/config.json"), config.to_string()).unwrap();
    }

    /// Writes a file below the sandbox's HOME.
    pub fn write(&self, rel: &str, text: &str) {
        let p = self.dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.scratch.join(rel)
    }

    /// `contextree CMD FILE ARGS…` in the sandbox (HOME, XDG config, cwd).
    pub fn run(&self, cmd: &str, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_contextree"))
            .arg(cmd)
            .arg(&self.file)
            .args(args)
            .env("HOME", &self.dir)
            .env("XDG_CONFIG_HOME", self.dir.join("xdg"))
            .env_remove("PI_CODING_AGENT_DIR")
            .current_dir(self.dir.join("work"))
            .output()
            .unwrap()
    }

    /// The file's last line, parsed.
    pub fn last_line(&self) -> Value {
        let text = std::fs::read_to_string(&self.file).unwrap();
        serde_json::from_str(text.lines().last().unwrap()).unwrap()
    }
}

/// A hook running a shell script.
pub fn sh(script: &str) -> Value {
    json!({"command": ["sh", "-c", script]})
}

/// The JSON a successful run printed.
pub fn json_out(out: &Output) -> Value {
    assert!(out.status.success(), "exit {:?}\n{}", out.status.code(), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A JSON file.
pub fn read(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap()
}
