//! The automatic compaction check under `omp@18` against oh-my-pi 18.2.3's own functions: every
//! golden in `tests/golden-omp18-auto/` (made by its `make.py`: the oracle's `auto`, which
//! rebuilds the threshold path of `SessionMaintenance.checkCompaction` from the functions it
//! calls) is compared with the `autoCheck` of `contextree cut --dialect omp@18 --window N --now
//! MS`: the checked reply, `stale`, `isContextOverflow`, the stale pass and overflow pruning, the
//! stored estimate, the usage, their maximum, the threshold and the decision.
//!
//! Not covered (the agent's method needs a live session): payload rejections, `length`
//! recovery, context promotion and the method choice, which `compaction::auto`'s unit tests
//! check against the code read; and the system prompt and tools the agent adds to the estimate.

use crate::support;

use crate::support::{json_files, repo, Report};
use serde_json::Value;

#[test]
fn auto_check_matches_omp18() {
    let dir = repo().join("tests/golden-omp18-auto");
    let goldens = json_files(&dir);
    assert!(goldens.len() >= 90, "goldens missing in {}", dir.display());
    let mut report = Report::default();
    let (mut threshold_path, mut fires) = (0, 0);
    for golden in &goldens {
        let name = golden.file_name().unwrap().to_string_lossy().into_owned();
        let g: Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
        let file = locate(g["file"]["name"].as_str().unwrap());
        let mut args: Vec<&str> = g["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        args.extend(["--keep-recent", "20000"]);
        let ours = match support::run_rules("cut", &file, "omp@18", &args) {
            Ok(v) => v["autoCheck"].clone(),
            Err(e) => {
                report.fail(format!("{name}: cut failed: {e}"));
                continue;
            }
        };
        let at = |what: &str| format!("{name} {what}");
        report.eq(&at("assistantId"), &ours["assistantId"], &g["assistantId"]);
        if g["assistantId"].is_null() {
            continue;
        }
        report.eq(&at("stale"), &ours["stale"], &g["stale"]);
        report.eq(&at("isContextOverflow"), Value::Bool(!ours["overflow"].is_null()), &g["isContextOverflow"]);
        report.eq(&at("thresholdTokens"), &ours["thresholdTokens"], &g["thresholdTokens"]);
        if ours["contextTokens"].is_null() {
            // The check stopped before the threshold (overflow, error, length, aborted).
            continue;
        }
        threshold_path += 1;
        report.eq(&at("stale pass prunedCount"), &ours["stalePrunedCount"], &g["stalePass"]["prunedCount"]);
        report.eq(&at("stale pass tokensSaved"), &ours["staleSavings"], &g["stalePass"]["tokensSaved"]);
        report.eq(&at("overflow pruning prunedCount"), &ours["prunedCount"], &g["overflowPruning"]["prunedCount"]);
        report.eq(&at("overflow pruning tokensSaved"), &ours["pruningSavings"], &g["overflowPruning"]["tokensSaved"]);
        report.eq(&at("storedEstimate"), &ours["storedEstimate"], &g["storedEstimate"]);
        report.eq(&at("usageTokens"), &ours["usageTokens"], &g["usageTokens"]);
        report.eq(&at("contextTokens"), &ours["contextTokens"], &g["contextTokens"]);
        report.eq(&at("shouldCompact"), Value::Bool(ours["decision"] == "threshold"), &g["shouldCompact"]);
        fires += usize::from(g["shouldCompact"] == true);
    }
    println!("{} goldens, {threshold_path} reach the threshold, {fires} of them compact; {} comparisons", goldens.len(), report.compared);
    report.assert_clean("the omp 18 auto-check goldens");
}

/// A golden's fixture by file name: `tests/fixtures/*/NAME` or the stale-pass fixtures.
fn locate(name: &str) -> std::path::PathBuf {
    let root = repo();
    let mut dirs = vec![root.join("tests/golden-omp18-stale/fixtures")];
    for d in ["synthetic", "omp18", "generated"] {
        dirs.push(root.join("tests/fixtures").join(d));
    }
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.exists()).unwrap_or_else(|| panic!("fixture {name} not found"))
}
