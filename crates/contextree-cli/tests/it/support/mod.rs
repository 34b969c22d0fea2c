//! Helpers shared by the parity tests: where the fixtures and golden files
//! are, running the binary, and a report that collects every mismatch.

#![allow(dead_code)] // each test binary uses its own subset

pub mod oracle;
pub mod parity;
pub mod sandbox;
pub mod server;

use std::borrow::Borrow;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

pub use contextree_testkit::paths::{fixture_stem as fixture, repo};

/// The rule set the goldens of `dialect` (`pi`, `omp`) were made with: the
/// seed's (pi 0.73.1, oh-my-pi 13.19.0). Passed explicitly, since a bare
/// agent name would pick the rule set of the installed agent or the newest.
pub fn seed_rules(dialect: &str) -> &'static str {
    match dialect {
        "pi" => "pi@0.73",
        "omp" => "omp@13",
        other => panic!("not a seed dialect: {other}"),
    }
}

/// `contextree CMD FILE --json --dialect D EXTRA…`, parsed (`D` = `pi`,
/// `omp`: the seed's rule sets, [`seed_rules`]).
pub fn run(cmd: &str, file: &Path, dialect: &str, extra: &[&str]) -> Result<Value, String> {
    run_rules(cmd, file, seed_rules(dialect), extra)
}

/// `contextree CMD FILE --json --dialect RULES EXTRA…`, parsed (`RULES` =
/// one rule set exactly: `omp@18`, `pi@1.6`, …).
pub fn run_rules(cmd: &str, file: &Path, rules: &str, extra: &[&str]) -> Result<Value, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_contextree"))
        .arg(cmd)
        .arg(file)
        .args(["--json", "--dialect", rules])
        .args(extra)
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(format!("exit {:?}: {}", out.status.code(), String::from_utf8_lossy(&out.stderr)));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("stdout is not one JSON document: {e}"))
}

/// The `*.json` files of a folder, sorted.
pub fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    files.sort();
    files
}

/// `NAME.pi.json` / `NAME.omp.json` → (NAME, dialect).
pub fn split_name(file_name: &str) -> (String, &'static str) {
    match file_name.strip_suffix(".pi.json") {
        Some(stem) => (stem.to_owned(), "pi"),
        None => (file_name.strip_suffix(".omp.json").unwrap_or(file_name).to_owned(), "omp"),
    }
}

/// Collects mismatches so one run reports all of them, and counts comparisons.
#[derive(Default)]
pub struct Report {
    pub failures: Vec<String>,
    pub compared: usize,
}

impl Report {
    /// Compares one field.
    pub fn eq(&mut self, what: &str, ours: impl Borrow<Value>, theirs: impl Borrow<Value>) {
        self.compared += 1;
        let (ours, theirs) = (ours.borrow(), theirs.borrow());
        if ours != theirs {
            let (o, t) = (ours.to_string(), theirs.to_string());
            self.failures.push(format!("{what}:\n    contextree {}\n    agent      {}", clip(&o), clip(&t)));
        }
    }

    /// Records a failure that is not a field comparison (a command failed).
    pub fn fail(&mut self, what: String) {
        self.compared += 1;
        self.failures.push(what);
    }

    /// Panics with every failure when there is any.
    pub fn assert_clean(&self, over: &str) {
        assert!(self.failures.is_empty(), "{} mismatches over {over}:\n{}", self.failures.len(), self.failures.join("\n"));
    }
}

fn clip(s: &str) -> &str {
    &s[..s.char_indices().nth(400).map_or(s.len(), |(i, _)| i)]
}

/// `[[item[k] for k in keys] for item in v]`.
pub fn pick(v: &Value, keys: &[&str]) -> Value {
    Value::Array(
        v.as_array()
            .into_iter()
            .flatten()
            .map(|item| Value::Array(keys.iter().map(|k| item.get(*k).cloned().unwrap_or(Value::Null)).collect()))
            .collect(),
    )
}
