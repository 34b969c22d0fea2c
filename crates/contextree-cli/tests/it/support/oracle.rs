//! The real agents, through the harness in `tests/agents` (installed there by
//! `scripts/install-agents.sh`; `ORACLE` names another installed copy),
//! and temporary copies of fixtures to write to.

use std::path::{Path, PathBuf};
use std::process::Command;

use contextree_testkit::Scratch;
use serde_json::Value;

/// The oracle's folder. Tests that need the agents fail without it: they
/// cannot show that the agents accept what contextree wrote, so they must not skip.
pub fn oracle_dir() -> PathBuf {
    contextree_testkit::agents()
}

/// The agent's own package (its prompt pack): `CONTEXTREE_PI_PACKAGE` /
/// `CONTEXTREE_OMP_PACKAGE` / `CONTEXTREE_OMP18_PACKAGE`, else the one in `tests/agents`
/// (`omp18`: oh-my-pi 18.2.3, its top-level package).
pub fn agent_pack(dialect: &str) -> PathBuf {
    let (var, rel) = match dialect {
        "pi" => ("CONTEXTREE_PI_PACKAGE", "node_modules/@mariozechner/pi-coding-agent"),
        "omp18" => ("CONTEXTREE_OMP18_PACKAGE", "node_modules/@oh-my-pi/pi-coding-agent"),
        _ => ("CONTEXTREE_OMP_PACKAGE", "omp13/node_modules/@oh-my-pi/pi-coding-agent"),
    };
    let dir = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| oracle_dir().join(rel));
    assert!(
        dir.join("package.json").is_file(),
        "the {dialect} agent package is not at {} — run scripts/install-agents.sh or set {var}",
        dir.display()
    );
    dir
}

/// pi 1.6.0's package inside the oracle (`@earendil-works/pi-coding-agent`).
pub fn pi16_pack() -> PathBuf {
    let dir = oracle_dir().join("node_modules/@earendil-works/pi-coding-agent");
    assert!(dir.join("package.json").is_file(), "pi 1.6.0 is not installed at {} — run scripts/install-oracle.sh", dir.display());
    dir
}

/// `node oracle.mjs --impl pi|omp13|omp18 CMD FILE EXTRA…`, parsed
/// (`dialect` `pi`, `omp` = omp13, or an impl name).
pub fn oracle(dialect: &str, cmd: &str, file: &Path, extra: &[&str]) -> Value {
    let imp = match dialect {
        "pi" => "pi",
        "omp" => "omp13",
        other => other,
    };
    oracle_impl(imp, cmd, file, extra)
}

/// `node oracle.mjs --impl IMPL CMD FILE EXTRA…` (`pi`, `pi16`, `omp13`, `omp18`), parsed.
pub fn oracle_impl(imp: &str, cmd: &str, file: &Path, extra: &[&str]) -> Value {
    let out = Command::new("node")
        .arg(oracle_dir().join("oracle.mjs"))
        .args(["--impl", imp, cmd])
        .arg(file)
        .args(extra)
        .output()
        .unwrap_or_else(|e| panic!("cannot run node: {e}"));
    assert!(out.status.success(), "oracle --impl {imp} {cmd}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `contextree ARGS…` that must succeed, parsed.
pub fn contextree(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_contextree")).args(args).output().unwrap();
    assert!(out.status.success(), "contextree {args:?}: exit {:?}\n{}", out.status.code(), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("contextree {args:?}: stdout is not JSON: {e}"))
}

/// A temporary folder (the testkit's [`Scratch`]), removed when dropped, with fixture copies.
pub struct TempDir(Scratch);

impl TempDir {
    pub fn new() -> TempDir {
        TempDir(Scratch::new("e2e"))
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        self.0.path()
    }

    /// A copy of a synthetic fixture in this folder.
    pub fn copy(&self, fixture: &str) -> PathBuf {
        self.copy_from("synthetic", fixture)
    }

    /// A copy of a fixture of `tests/fixtures/<folder>` in this folder.
    pub fn copy_from(&self, folder: &str, fixture: &str) -> PathBuf {
        self.0.copy_fixture(&format!("{folder}/{fixture}.jsonl"))
    }
}
