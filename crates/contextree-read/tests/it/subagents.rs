//! omp's subagents in the usage report, over `tests/fixtures/omp-subagents/` (written by
//! `scripts/make-omp-subagent-fixtures.py`, which says which usage each file records). The
//! expected sums below are added up by hand from those numbers.

use std::path::{Path, PathBuf};

use contextree_host::subagents::child_files;
use contextree_host::{load_session, HostEnv};
use serde_json::{json, Value};

fn fixture() -> PathBuf {
    contextree_testkit::repo().join("tests/fixtures/omp-subagents/omp-subagents.jsonl")
}

/// The usage report of the session at `path` as `contextree usage --json` prints it.
fn report(path: &Path) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let env = HostEnv::isolated(tmp.path());
    let loaded = load_session(&env, path, None).unwrap();
    let s = &loaded.session;
    let sums = contextree_read::usage_sums(s, &loaded.source).unwrap();
    let children = child_files(&env, path, s.dialect());
    serde_json::to_value(contextree_read::UsageReport::new(s, &sums, &children)).unwrap()
}

/// `records`, `input`, `output`, `cacheRead`, `cost` of a `Totals` object.
fn sums(t: &Value) -> (u64, f64, f64, f64, f64) {
    let f = |k: &str| t[k].as_f64().unwrap();
    (t["records"].as_u64().unwrap(), f("input"), f("output"), f("cacheRead"), f("cost"))
}

#[test]
fn every_subagent_and_the_advisor_is_listed_with_what_it_cost() {
    let r = report(&fixture());
    let rows: Vec<Value> = r["subagents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| json!([x["file"], x["kind"], x["status"], x["counted"], x["depth"], x["spawnedBy"]["entryId"], x["model"]]))
        .collect();
    let haiku = "anthropic/claude-haiku-4-5";
    assert_eq!(
        rows,
        [
            json!(["Anna.jsonl", "subagent", "read", "file", 0, "r1", haiku]),
            json!(["Anna/Anna.Eve.jsonl", "subagent", "read", "file", 1, "r1", haiku]),
            json!(["Ghost.jsonl", "subagent", "missing", "recorded", 0, "r3", haiku]),
            json!(["Cleo.jsonl", "subagent", "read", "file", 0, "r3", haiku]),
            json!(["__advisor.jsonl", "advisor", "read", "file", 0, null, haiku]),
        ]
    );
    let anna = &r["subagents"][0];
    // Anna's file: two replies, 1000 + 200 in, 100 + 50 out, 1000 read from the cache, $1 + $0.5.
    assert_eq!(sums(&anna["totals"]), (2, 1200.0, 150.0, 1000.0, 1.5));
    // The task result recorded the same sum for her (omp adds up the child's replies).
    assert_eq!(anna["recorded"]["input"], 1200.0);
    assert_eq!(
        (anna["agent"].as_str(), anna["role"].as_str(), anna["spawnedBy"]["toolCallId"].as_str()),
        (Some("task"), Some("task"), Some("call_1"))
    );
    // Cleo ran in the background: the result names her (progress) but records no usage.
    assert_eq!(r["subagents"][3]["recorded"], Value::Null);
}

#[test]
fn the_session_totals_include_the_subagents() {
    let r = report(&fixture());
    // The session's own six replies: in 100+10+20+5+100+30, out 20+30+10+5+10+10,
    // cache read 150+160+200+150, cost .5+.25+.25+.125+.5+.25.
    assert_eq!(sums(&r["totals"]), (6, 265.0, 85.0, 660.0, 1.875));
    // Anna 2 records, Eve, Ghost (as recorded), Cleo, the advisor: in 1200+300+500+400+600,
    // out 150+30+50+40+60, cost 1.5+.25+.75+.5+.125.
    assert_eq!(sums(&r["subagentTotals"]), (6, 3000.0, 330.0, 1000.0, 3.125));
    assert_eq!(sums(&r["withSubagents"]), (12, 3265.0, 415.0, 1660.0, 5.0));
}

#[test]
fn each_branch_gets_the_subagents_started_on_its_path() {
    let r = report(&fixture());
    let branch = |leaf: &str| {
        let b = r["branchSubagents"].as_array().unwrap().iter().find(|b| b["leafId"] == leaf).unwrap().clone();
        (sums(&b["subagents"]), sums(&b["withSubagents"]))
    };
    // a4's path holds r1 (Anna and her Eve) and r3 (Ghost, Cleo); not the advisor.
    assert_eq!(branch("a4"), ((5, 2400.0, 270.0, 1000.0, 3.0), (9, 2535.0, 335.0, 1510.0, 4.125)));
    // a6 left after r1: Anna and Eve only.
    assert_eq!(branch("a6"), ((3, 1500.0, 180.0, 1000.0, 1.75), (6, 1640.0, 240.0, 1300.0, 2.75)));
    // a5 started none.
    assert_eq!(branch("a5"), ((0, 0.0, 0.0, 0.0, 0.0), (1, 100.0, 10.0, 0.0, 0.5)));
}

#[test]
fn a_missing_child_is_listed_not_an_error_and_pi_looks_for_none() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("omp-subagents.jsonl");
    std::fs::copy(fixture(), &copy).unwrap();
    // No folder at all: every agent the results name is missing, counted as recorded.
    let r = report(&copy);
    let status: Vec<(&str, &str, &str)> = r["subagents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["agentId"].as_str().unwrap(), x["status"].as_str().unwrap(), x["counted"].as_str().unwrap()))
        .collect();
    assert_eq!(status, [("Anna", "missing", "recorded"), ("Ghost", "missing", "recorded"), ("Cleo", "missing", "nothing")]);
    // Anna's recorded $1.5 and Ghost's $0.75.
    assert_eq!(sums(&r["subagentTotals"]), (2, 1700.0, 200.0, 1000.0, 2.25));

    // A pi session with a folder beside it: pi writes no subagents, nothing is read.
    let pi = contextree_testkit::repo().join("tests/fixtures/synthetic/E01.jsonl");
    let pi_copy = tmp.path().join("pi.jsonl");
    std::fs::copy(&pi, &pi_copy).unwrap();
    std::fs::create_dir(tmp.path().join("pi")).unwrap();
    std::fs::copy(fixture(), tmp.path().join("pi/Anna.jsonl")).unwrap();
    let r = report(&pi_copy);
    assert_eq!(r["subagents"], json!([]));
    assert_eq!(r["withSubagents"], r["totals"]);
}
