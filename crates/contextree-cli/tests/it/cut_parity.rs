//! `contextree cut` against the real agents' `prepareCompaction` /
//! `findCutPoint`: for every golden file in `tests/golden/` (pi 0.73.1 and
//! oh-my-pi 13.19.0, see its README), the `cut`, `cut8000` and `cut2000`
//! results are compared field by field with what the binary prints for the
//! same settings; `tests/golden-cut-window/` adds the threshold rule
//! (`--window`). Unlike `oracle_parity.rs`, no agent package is needed.

use crate::support;

use std::path::Path;

use crate::support::parity::{compare_cut, cut_flags as flags};
use crate::support::{fixture, json_files, repo, split_name, Report};
use serde_json::Value;

fn cut(file: &Path, dialect: &str, extra: &[String]) -> Result<Value, String> {
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    support::run("cut", file, dialect, &extra)
}

/// Compares the golden file's cut results; returns how many there were.
fn check_golden(golden: &Path, report: &mut Report) -> usize {
    let name = golden.file_name().unwrap().to_string_lossy().into_owned();
    let (stem, dialect) = split_name(&name);
    let g: Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
    if g.get("error").is_some() {
        // The agent crashed, looped or rejected the file: nothing to compare.
        return 0;
    }
    let file = fixture(&stem);
    let mut results = 0;
    for key in ["cut", "cut8000", "cut2000"] {
        let theirs = &g[key];
        if theirs.get("error").is_some() || theirs.is_null() {
            continue;
        }
        results += 1;
        match cut(&file, dialect, &flags(theirs)) {
            Ok(ours) => compare_cut(&format!("{name} {key}"), &ours, theirs, report),
            Err(e) => report.fail(format!("{name} {key}: cut failed: {e}")),
        }
    }
    results
}

#[test]
fn cut_matches_the_agents_on_every_golden_file() {
    let goldens = json_files(&repo().join("tests/golden"));
    assert!(goldens.len() >= 100, "only {} golden files", goldens.len());
    let mut report = Report::default();
    let results: usize = goldens.iter().map(|g| check_golden(g, &mut report)).sum();
    assert!(results >= 390, "only {results} cut results compared");
    report.assert_clean(&format!("{results} cut results"));
    eprintln!("{results} cut results compared");
}

/// `tests/golden-cut-window/<stem>.<dialect>.w<window>[.r<reserve>].json`: the
/// oracle's `cut --window` (see that folder's README); `omp18` files run under
/// `omp@18` (resolveThresholdTokens' fallbacks for an unset reserve).
#[test]
fn threshold_rule_matches_the_agents() {
    let goldens = json_files(&repo().join("tests/golden-cut-window"));
    assert!(goldens.len() >= 10, "only {} window goldens", goldens.len());
    let mut report = Report::default();
    for golden in &goldens {
        let name = golden.file_name().unwrap().to_string_lossy().into_owned();
        let theirs: Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
        let stem = theirs["file"]["name"].as_str().unwrap().trim_end_matches(".jsonl").to_owned();
        let rules = match theirs["oracle"]["impl"].as_str() {
            Some("pi") => "pi@0.73",
            Some("omp18") => "omp@18",
            _ => "omp@13",
        };
        let extra = flags(&theirs);
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let ours = match support::run_rules("cut", &fixture(&stem), rules, &extra) {
            Ok(v) => v,
            Err(e) => {
                report.fail(format!("{name}: cut failed: {e}"));
                continue;
            }
        };
        if rules == "omp@18" {
            // omp18_parity.rs compares 18's cut; the oracle has no raw findCutPoint for it.
            if !theirs["prepared"].is_null() {
                report.eq(&format!("{name} tokensBefore"), &ours["tokensBefore"], &theirs["prepared"]["tokensBefore"]);
            }
        } else {
            compare_cut(&name, &ours, &theirs, &mut report);
        }
        // The oracle has no answer without a preparation (it tests tokensBefore).
        if !theirs["shouldCompact"].is_null() {
            report.eq(&format!("{name} shouldCompact"), &ours["shouldCompact"], &theirs["shouldCompact"]);
        }
        if let Some(t) = theirs.get("thresholdTokens").filter(|t| !t.is_null()) {
            report.eq(&format!("{name} thresholdTokens"), &ours["thresholdTokens"], t);
        }
    }
    report.assert_clean(&format!("{} window goldens", goldens.len()));
}
