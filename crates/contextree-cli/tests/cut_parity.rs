//! `contextree cut` against the real agents' `prepareCompaction` /
//! `findCutPoint`: for every golden file in `tests/golden/` (pi 0.73.1 and
//! oh-my-pi 13.19.0, see its README), the `cut`, `cut8000` and `cut2000`
//! results are compared field by field with what the binary prints for the
//! same settings; `tests/golden-cut-window/` adds the threshold rule
//! (`--window`). Unlike `oracle_parity.rs`, no agent package is needed.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn fixture(stem: &str) -> PathBuf {
    let root = repo().join("tests/fixtures");
    ["synthetic", "real", "generated", "edge"]
        .iter()
        .map(|d| root.join(d).join(format!("{stem}.jsonl")))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no fixture for golden {stem}"))
}

fn cut(file: &Path, dialect: &str, extra: &[String]) -> Result<Value, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_contextree")).arg("cut").arg(file).args(["--json", "--dialect", dialect]).args(extra).output().unwrap();
    if !out.status.success() {
        return Err(format!("exit {:?}: {}", out.status.code(), String::from_utf8_lossy(&out.stderr)));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("stdout is not one JSON document: {e}"))
}

/// Collects mismatches so one run reports all of them.
#[derive(Default)]
struct Report {
    mismatches: Vec<String>,
    compared: usize,
}

impl Report {
    fn eq(&mut self, what: &str, ours: &Value, theirs: &Value) {
        if ours != theirs {
            self.mismatches.push(format!("{what}:\n    contextree {}\n    agent      {}", clip(&ours.to_string()), clip(&theirs.to_string())));
        }
    }
}

fn clip(s: &str) -> &str {
    &s[..s.char_indices().nth(400).map_or(s.len(), |(i, _)| i)]
}

/// `<stem>.<pi|omp>.json` → (stem, dialect).
fn split_name(name: &str) -> (String, &'static str) {
    match name.strip_suffix(".pi.json") {
        Some(stem) => (stem.to_owned(), "pi"),
        None => (name.strip_suffix(".omp.json").expect("a .pi.json or .omp.json name").to_owned(), "omp"),
    }
}

/// Compares one oracle `cut` document with ours.
fn compare_cut(at: &str, ours: &Value, theirs: &Value, report: &mut Report) {
    report.compared += 1;
    let prepared = &theirs["prepared"];
    report.eq(&format!("{at} nothingToCompact"), &ours["nothingToCompact"], &json!(prepared.is_null()));
    if !prepared.is_null() {
        for key in ["firstKeptEntryId", "isSplitTurn", "tokensBefore", "messagesToSummarizeIds", "turnPrefixIds", "turnStartEntryId"] {
            report.eq(&format!("{at} {key}"), &ours[key], &prepared[key]);
        }
        for key in ["readFiles", "modifiedFiles", "read", "written", "edited"] {
            report.eq(&format!("{at} fileOps.{key}"), &ours["fileOps"][key], &prepared["fileOps"][key]);
        }
        if let Some(recent) = prepared.get("recentMessagesIds") {
            report.eq(&format!("{at} recentMessagesIds"), &ours["recentMessagesIds"], recent);
        }
    }
    // The raw cut, also where the agent refuses; contextree skips it after a
    // trailing compaction (nothing is cut there).
    let (of, tf) = (&ours["findCutPoint"], &theirs["findCutPoint"]);
    let keys: &[&str] = if of.get("firstKeptEntryIndex").is_some() {
        &["boundaryStart", "boundaryEnd", "firstKeptEntryIndex", "turnStartIndex", "isSplitTurn", "firstKeptEntryId", "turnStartEntryId"]
    } else {
        &["boundaryStart", "boundaryEnd"]
    };
    for key in keys.iter().chain(tf.get("keepRecentTokensUsed").map(|_| &["keepRecentTokensUsed", "estimatedTokens", "promptTokens"][..]).unwrap_or(&[])) {
        report.eq(&format!("{at} findCutPoint.{key}"), &of[*key], &tf[*key]);
    }
}

/// The `--keep-recent` / `--reserve` / `--window` flags the oracle ran with.
fn flags(theirs: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (flag, value) in [("--keep-recent", &theirs["settings"]["keepRecentTokens"]), ("--reserve", &theirs["settings"]["reserveTokens"]), ("--window", &theirs["window"])] {
        if let Some(n) = value.as_u64() {
            out.extend([flag.to_owned(), n.to_string()]);
        }
    }
    out
}

fn check_golden(golden: &Path, report: &mut Report) {
    let name = golden.file_name().unwrap().to_string_lossy().into_owned();
    let (stem, dialect) = split_name(&name);
    let g: Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
    if g.get("error").is_some() {
        // The agent crashed, looped or rejected the file: nothing to compare.
        return;
    }
    let file = fixture(&stem);
    for key in ["cut", "cut8000", "cut2000"] {
        let theirs = &g[key];
        if theirs.get("error").is_some() || theirs.is_null() {
            continue;
        }
        match cut(&file, dialect, &flags(theirs)) {
            Ok(ours) => compare_cut(&format!("{name} {key}"), &ours, theirs, report),
            Err(e) => report.mismatches.push(format!("{name} {key}: cut failed: {e}")),
        }
    }
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    files.sort();
    files
}

#[test]
fn cut_matches_the_agents_on_every_golden_file() {
    let goldens = json_files(&repo().join("tests/golden"));
    assert!(goldens.len() >= 100, "only {} golden files", goldens.len());
    let mut report = Report::default();
    for g in &goldens {
        check_golden(g, &mut report);
    }
    assert!(report.compared >= 390, "only {} cut results compared", report.compared);
    assert!(report.mismatches.is_empty(), "{} mismatches over {} cut results:\n{}", report.mismatches.len(), report.compared, report.mismatches.join("\n"));
    eprintln!("{} cut results compared", report.compared);
}

/// `tests/golden-cut-window/<stem>.<dialect>.w<window>[.r<reserve>].json`: the
/// oracle's `cut --window` (see that folder's README).
#[test]
fn threshold_rule_matches_the_agents() {
    let goldens = json_files(&repo().join("tests/golden-cut-window"));
    assert!(goldens.len() >= 10, "only {} window goldens", goldens.len());
    let mut report = Report::default();
    for golden in &goldens {
        let name = golden.file_name().unwrap().to_string_lossy().into_owned();
        let theirs: Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
        let stem = theirs["file"]["name"].as_str().unwrap().trim_end_matches(".jsonl").to_owned();
        let dialect = if theirs["oracle"]["impl"] == "pi" { "pi" } else { "omp" };
        let ours = match cut(&fixture(&stem), dialect, &flags(&theirs)) {
            Ok(v) => v,
            Err(e) => {
                report.mismatches.push(format!("{name}: cut failed: {e}"));
                continue;
            }
        };
        compare_cut(&name, &ours, &theirs, &mut report);
        // The oracle has no answer without a preparation (it tests tokensBefore).
        if !theirs["shouldCompact"].is_null() {
            report.eq(&format!("{name} shouldCompact"), &ours["shouldCompact"], &theirs["shouldCompact"]);
        }
        if let Some(t) = theirs.get("thresholdTokens").filter(|t| !t.is_null()) {
            report.eq(&format!("{name} thresholdTokens"), &ours["thresholdTokens"], t);
        }
    }
    assert!(report.mismatches.is_empty(), "{} mismatches over {} window goldens:\n{}", report.mismatches.len(), goldens.len(), report.mismatches.join("\n"));
}
