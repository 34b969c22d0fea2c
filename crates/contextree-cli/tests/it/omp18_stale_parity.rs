//! oh-my-pi 18's per-turn stale pass (`pruneSupersededToolResults`, omp-18.md
//! §6.2) and the overflow pruning after it, against 18.2.3 itself: every
//! golden in `tests/golden-omp18-stale/` (made by its `make.py`: the oracle's
//! `prune --stale --then-overflow --now MS`) is compared with `contextree
//! prune --dry-run --dialect omp@18 --now MS` (both passes, the default under
//! omp@18), field by field.

use crate::support;

use std::path::Path;

use crate::support::{json_files, pick, repo, Report};
use serde_json::Value;

#[test]
fn stale_pass_matches_omp18() {
    let dir = repo().join("tests/golden-omp18-stale");
    let goldens = json_files(&dir);
    assert!(goldens.len() >= 15, "goldens missing in {}", dir.display());
    let mut report = Report::default();
    let mut pruned = 0;
    for golden in &goldens {
        let name = golden.file_name().unwrap().to_string_lossy().into_owned();
        let g: Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
        let stem = name.split('.').next().unwrap();
        let file = dir.join("fixtures").join(format!("{stem}.jsonl"));
        let args: Vec<&str> = g["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        pruned += g["result"]["prunedCount"].as_u64().unwrap();
        check(&mut report, &name, &g, &file, &args);
    }
    println!("{} goldens, {} comparisons, {pruned} results pruned by the agent's stale pass", goldens.len(), report.compared);
    report.assert_clean("the omp 18 stale-pass goldens");
}

fn check(report: &mut Report, name: &str, g: &Value, file: &Path, args: &[&str]) {
    let mut extra = vec!["--dry-run"];
    extra.extend_from_slice(args);
    let ours = match support::run_rules("prune", file, "omp@18", &extra) {
        Ok(v) => v,
        Err(e) => return report.fail(format!("{name}: prune failed: {e}")),
    };
    let at = |what: &str| format!("{name} {what}");
    let st = &ours["stale"];
    report.eq(&at("passes"), &ours["passes"], serde_json::json!(["stale", "overflow"]));
    for key in ["supersedeReads", "dropUseless", "protectedTools", "keepBoundaryId", "idleFlushMs", "suffixTokenLimit"] {
        report.eq(&at(&format!("stale config.{key}")), &st["config"][key], &g["config"][key]);
    }
    report.eq(&at("stale config.now"), &st["config"]["now"], &g["config"]["now"]);
    report.eq(&at("stale lastMessageTimestamp"), &st["lastMessageTimestamp"], &g["lastMessageTimestamp"]);
    report.eq(&at("stale pathLength"), &st["pathLength"], &g["pathLength"]);
    report.eq(&at("stale prunedCount"), &st["prunedCount"], &g["result"]["prunedCount"]);
    report.eq(&at("stale tokensSaved"), &st["tokensSaved"], &g["result"]["tokensSaved"]);
    let rows = ["entryId", "toolName", "tokens", "tokensAfter", "notice"];
    report.eq(&at("stale pruned"), pick(&st["pruned"], &rows), pick(&g["pruned"], &rows));
    // The overflow pass of the same turn, on what the stale pass left.
    let o = &g["overflow"];
    for key in ["protectTokens", "minimumSavings", "pruneUseless", "keepBoundaryId", "cacheWarmSuffixTokens"] {
        report.eq(&at(&format!("overflow config.{key}")), &ours["config"][key], &o["config"][key]);
    }
    report.eq(&at("overflow prunedCount"), &ours["prunedCount"], &o["result"]["prunedCount"]);
    report.eq(&at("overflow tokensSaved"), &ours["tokensSaved"], &o["result"]["tokensSaved"]);
    let rows = ["entryId", "toolName", "tokens", "notice"];
    report.eq(&at("overflow pruned"), pick(&ours["pruned"], &rows), pick(&o["pruned"], &rows));
}

/// The CLI shape: `--pass` per rule set, `--pass stale` alone, and `--yes` writing both passes
/// as one rewrite after which the agent's own stale pass finds nothing more.
#[test]
fn prune_passes_cli_shape_and_apply() {
    let fixture = repo().join("tests/golden-omp18-stale/fixtures/stale-reads.jsonl");
    let err = support::run_rules("prune", &fixture, "omp@13", &["--dry-run", "--pass", "stale"]).unwrap_err();
    assert!(err.contains("exit Some(2)") && err.contains("omp@13"), "{err}");
    let only = support::run_rules("prune", &fixture, "omp@18", &["--dry-run", "--pass", "stale", "--now", "1767232000000"]).unwrap();
    assert_eq!(only["passes"], serde_json::json!(["stale"]));
    assert!(only.get("prunedCount").is_none() && only["stale"]["idle"] == true);
    assert_eq!(only["total"]["prunedCount"], 8);
    let overflow = support::run_rules("prune", &fixture, "omp@18", &["--dry-run", "--pass", "overflow"]).unwrap();
    assert!(overflow["stale"].is_null() && overflow["passes"] == serde_json::json!(["overflow"]));

    let tmp = contextree_testkit::Scratch::new("stale");
    let dir = tmp.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("stale-reads.jsonl");
    std::fs::copy(&fixture, &copy).unwrap();
    let done = support::run_rules("prune", &copy, "omp@18", &["--yes", "--now", "1767232000000"]).unwrap();
    assert_eq!((done["total"]["prunedCount"].as_u64(), done["backup"].is_string()), (Some(8), true));
    let text = std::fs::read_to_string(&copy).unwrap();
    assert_eq!(text.matches("[Superseded by a newer read of this file]").count(), 8);
    let again = support::run_rules("prune", &copy, "omp@18", &["--dry-run", "--now", "1767232000000"]).unwrap();
    assert_eq!(again["total"]["prunedCount"], 0);
    assert_eq!(again["alreadyPruned"].as_array().map(Vec::len), Some(8));
    std::fs::remove_dir_all(&dir).unwrap();
}
