//! `contextree prune --dry-run` and `contextree branch` against the real agents:
//! every golden `prune` result (oh-my-pi 13.19's `pruneToolOutputs`, also for
//! pi files, docs/decisions.md D20) and every golden `branch` job
//! (`collectEntriesForBranchSummary` + `prepareBranchEntries`, pi 0.73.1 and
//! omp 13.19) in `tests/golden/`, plus the spec's examples with their own
//! settings (E10, E11 budgets, E13 scaled pruning) from
//! `tests/fixtures/synthetic/expected/`. Fields are compared one by one.
//!
//! These commands use no prompt texts, so unlike `oracle_parity.rs` this test
//! does not need the agents' packages.

use crate::support::parity::compare_branch;
use crate::support::{fixture, json_files, pick, repo, run, split_name, Report};
use serde_json::{json, Value};

fn goldens() -> Vec<(String, &'static str, Value)> {
    json_files(&repo().join("tests/golden"))
        .into_iter()
        .map(|p| {
            let (stem, dialect) = split_name(&p.file_name().unwrap().to_string_lossy());
            (stem, dialect, serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap())
        })
        .collect()
}

/// The oracle's `prune` document against ours, field by field.
fn compare_prune(report: &mut Report, at: &str, ours: &Value, g: &Value) {
    let rows = ["entryId", "toolName", "tokens", "notice"];
    report.eq(&format!("{at} config"), ours["config"].clone(), g["config"].clone());
    report.eq(&format!("{at} prunedCount"), ours["prunedCount"].clone(), g["result"]["prunedCount"].clone());
    report.eq(&format!("{at} tokensSaved"), ours["tokensSaved"].clone(), g["result"]["tokensSaved"].clone());
    report.eq(&format!("{at} pruned"), pick(&ours["pruned"], &rows), pick(&g["pruned"], &rows));
    for key in ["pathLength", "toolResultCount", "toolResultTokens"] {
        report.eq(&format!("{at} {key}"), ours[key].clone(), g[key].clone());
    }
    let below = ["entryId", "tokens", "notice"];
    let shape = |v: &Value| if v.is_object() { json!([v["result"], pick(&v["candidates"], &below)]) } else { Value::Null };
    let theirs = g.get("belowMinimumSavings").unwrap_or(&Value::Null);
    report.eq(&format!("{at} belowMinimumSavings"), shape(&ours["belowMinimumSavings"]), shape(theirs));
}

fn finish(report: Report, what: &str, minimum: usize) {
    report.assert_clean(what);
    assert!(report.compared >= minimum, "only {} {what} comparisons", report.compared);
    eprintln!("{what}: {} comparisons", report.compared);
}

#[test]
fn every_golden_prune_matches_omp() {
    let mut report = Report::default();
    let mut files = 0;
    for (stem, dialect, g) in goldens() {
        let Some(gp) = g.get("prune").filter(|p| p.get("error").is_none()) else { continue };
        files += 1;
        let at = format!("{stem}.{dialect} prune");
        match run("prune", &fixture(&stem), dialect, &["--dry-run"]) {
            Ok(ours) => compare_prune(&mut report, &at, &ours, gp),
            Err(e) => report.fail(format!("{at}: {e}")),
        }
    }
    assert!(files >= 120, "only {files} golden prune results");
    finish(report, "golden prune", 1000);
}

#[test]
fn every_golden_branch_job_matches_the_agents() {
    let mut report = Report::default();
    let mut jobs = 0;
    for (stem, dialect, g) in goldens() {
        for job in g.get("branch").and_then(Value::as_array).into_iter().flatten() {
            let args: Vec<&str> = job["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
            let at = format!("{stem}.{dialect} branch {}", args.join(" "));
            jobs += 1;
            match (run("branch", &fixture(&stem), dialect, &args), job["result"].get("error")) {
                (Ok(ours), None) => compare_branch(&mut report, &at, &ours, &job["result"]),
                (Err(e), None) => report.fail(format!("{at}: {e}")),
                // The agent rejected the job: contextree must reject it too.
                (Ok(_), Some(err)) => report.fail(format!("{at}: contextree answered where the agent failed with {err}")),
                (Err(_), Some(_)) => report.compared += 1,
            }
        }
    }
    assert!(jobs >= 300, "only {jobs} golden branch jobs");
    finish(report, "golden branch", 3000);
}

fn expected(name: &str) -> Value {
    let path = repo().join("tests/fixtures/synthetic/expected").join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// E13 with the scaled configurations of examples.md and E13b with omp's
/// own; the omp results hold for pi files too (D20).
#[test]
fn e13_pruning_examples_match_omp() {
    let mut report = Report::default();
    for (name, stem, extra) in [
        ("E13", "E13", &["--protect", "30", "--min-savings", "10"][..]),
        ("E13-nosave", "E13", &["--protect", "30", "--min-savings", "25"][..]),
        ("E13b", "E13b", &[][..]),
    ] {
        let want = &expected(&format!("{name}.omp"))["prune"];
        let pruned: Vec<&Value> = want["after"].as_array().unwrap().iter().filter(|r| r["prunedAt"] == true).collect();
        for dialect in ["omp", "pi"] {
            let at = format!("{name}.{dialect}");
            let args: Vec<&str> = ["--dry-run"].iter().chain(extra).copied().collect();
            let ours = match run("prune", &fixture(stem), dialect, &args) {
                Ok(v) => v,
                Err(e) => {
                    report.fail(format!("{at}: {e}"));
                    continue;
                }
            };
            report.eq(&format!("{at} prunedCount"), ours["prunedCount"].clone(), want["prunedCount"].clone());
            report.eq(&format!("{at} tokensSaved"), ours["tokensSaved"].clone(), want["tokensSaved"].clone());
            report.eq(
                &format!("{at} pruned ids"),
                pick(&ours["pruned"], &["entryId"]),
                Value::Array(pruned.iter().map(|r| json!([r["id"]])).collect()),
            );
            // The expected texts are cut to 60 characters; notices are shorter.
            report.eq(
                &format!("{at} notices"),
                pick(&ours["pruned"], &["notice"]),
                Value::Array(pruned.iter().map(|r| json!([r["text"]])).collect()),
            );
            report.eq(&format!("{at} note"), Value::Bool(ours["note"].is_string()), Value::Bool(dialect == "pi" || name != "E13b"));
        }
    }
    finish(report, "E13 prune", 30);
}

/// E10 (budget 200000 − 16384, not reached) and the E11 budgets.
#[test]
fn e10_e11_branch_examples_match_both_agents() {
    let mut report = Report::default();
    let jobs: [(&str, &str, &[&str]); 5] = [
        ("E10", "E10", &["--to", "a5", "--budget", "183616"]),
        ("E10-user", "E10", &["--to", "u3", "--budget", "183616"]),
        ("E11-25", "E11", &["--from", "a2", "--to", "u3", "--budget", "25"]),
        ("E11-22", "E11", &["--from", "a2", "--to", "u3", "--budget", "22"]),
        ("E11-15", "E11", &["--from", "a2", "--to", "u3", "--budget", "15"]),
    ];
    for (name, stem, args) in jobs {
        for dialect in ["omp", "pi"] {
            let want = &expected(&format!("{name}.{dialect}"))["branch"];
            let at = format!("{name}.{dialect}");
            let ours = match run("branch", &fixture(stem), dialect, args) {
                Ok(v) => v,
                Err(e) => {
                    report.fail(format!("{at}: {e}"));
                    continue;
                }
            };
            report.eq(&format!("{at} commonAncestorId"), ours["commonAncestorId"].clone(), want["commonAncestorId"].clone());
            report.eq(&format!("{at} entries"), ours["entryIds"].clone(), want["entries"].clone());
            report.eq(&format!("{at} totalTokens"), ours["totalTokens"].clone(), want["totalTokens"].clone());
            report.eq(&format!("{at} roles"), pick(&ours["messages"], &["role"]), pick(&want["prepared"], &["role"]));
            for key in ["read", "written", "edited"] {
                // The expected sets keep insertion order; ours are sorted.
                let mut theirs: Vec<String> =
                    want["fileOps"][key].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect();
                theirs.sort();
                report.eq(&format!("{at} fileOps.{key}"), ours["fileOps"][key].clone(), json!(theirs));
            }
        }
    }
    finish(report, "E10/E11 branch", 70);
}
