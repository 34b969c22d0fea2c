//! contextree under the `pi@1.6` rule set against pi 1.6.0 itself: every
//! golden file in `tests/golden-pi16/` (made by `scripts/make-golden.sh
//! --impls pi16`, see its README) is compared field by field with what the
//! `contextree` binary prints with `--dialect pi@1.6`: info, context (also at
//! other leaves), tokens, the cuts, serialize, branch jobs and the tree.
//!
//! The wrapper texts come from the agent's prompt pack (docs/decisions.md D8).
//! pi 1.6.0's package does not load as a pack yet; its context wrappers are
//! byte-identical to pi 0.73.1's (pi-1.6.md §2.6), so the 0.73.1 package of
//! the oracle is used ([`agent_pack`]`("pi")`).

use crate::support;

use std::path::Path;

use crate::support::oracle::agent_pack;
use crate::support::parity::{compare_branch, compare_cut, compare_info, compare_tree, cut_flags};
use crate::support::{fixture, json_files, pick, repo, Report};
use serde_json::{json, Value};

const RULES: &str = "pi@1.6";

/// `contextree CMD FILE --dialect pi@1.6` with the agent's prompt pack.
fn run(cmd: &str, file: &Path, extra: &[&str]) -> Result<Value, String> {
    let pack = agent_pack("pi");
    let mut args = vec!["--prompts", pack.to_str().unwrap()];
    args.extend_from_slice(extra);
    support::run_rules(cmd, file, RULES, &args)
}

/// Mismatches that belong to pi 1.6 rules another change implements, with
/// the reason: `(stem, job, reason)`, where a mismatch of `"{stem} {job}…"`
/// is expected. An entry that no longer matches any mismatch fails the test,
/// so the list shrinks as those rules land.
const PENDING: &[(&str, &str, &str)] = &[];

fn check_file(golden: &Path, report: &mut Report) {
    let name = golden.file_name().unwrap().to_string_lossy().into_owned();
    let stem = name.strip_suffix(".pi16.json").unwrap().to_owned();
    let g: Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
    let file = fixture(&stem);

    let info = match run("info", &file, &[]) {
        Ok(v) => v,
        Err(e) => return report.fail(format!("{stem}: info failed: {e}")),
    };
    if let Some(err) = g.get("error").and_then(Value::as_str) {
        // pi 1.6 rejects the file (no valid header; a BOM is no longer
        // stripped, pi-1.6.md §1.1) or never finishes (cycles): contextree
        // must still answer, and say the file is not a session when pi
        // rejects it.
        if err.contains("not a session file") {
            report.eq(&format!("{stem} info.valid"), info["valid"].clone(), json!(false));
        }
        for cmd in ["context", "tree", "tokens", "serialize", "cut"] {
            if let Err(e) = run(cmd, &file, &[]) {
                report.fail(format!("{stem}: {cmd} failed where the agent did not answer: {e}"));
            }
        }
        return;
    }
    compare_info(report, &stem, &stem, &info, &g["info"]);

    for (key, gc) in g.as_object().unwrap().iter().filter(|(k, _)| *k == "context" || k.starts_with("context@")) {
        let leaf: Vec<&str> = key.strip_prefix("context@").map_or_else(Vec::new, |id| vec!["--leaf", id]);
        match run("context", &file, &leaf) {
            Err(e) => report.fail(format!("{stem} {key}: failed: {e}")),
            Ok(c) => compare_context(report, &format!("{stem} {key}"), &c, gc),
        }
    }

    match run("tokens", &file, &[]) {
        Err(e) => report.fail(format!("{stem}: tokens failed: {e}")),
        Ok(t) => {
            let keys = ["id", "type", "role", "tokens", "systemTokens"];
            report.eq(&format!("{stem} tokens.entries"), pick(&t["entries"], &keys), pick(&g["tokens"]["entries"], &keys));
            report.eq(&format!("{stem} tokens.totalTokens"), t["totalTokens"].clone(), g["tokens"]["totalTokens"].clone());
        }
    }

    // cut, cut8000, cut2000, cutN and cut@ID.
    for (key, theirs) in g.as_object().unwrap().iter().filter(|(k, _)| k.starts_with("cut")) {
        if theirs.get("error").is_some() || theirs.is_null() {
            continue;
        }
        let mut args = cut_flags(theirs);
        if let Some(id) = key.split_once('@').map(|(_, id)| id) {
            args.extend(["--leaf".to_owned(), id.to_owned()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        match run("cut", &file, &args) {
            Ok(ours) => compare_cut(&format!("{stem} {key}"), &ours, theirs, report),
            Err(e) => report.fail(format!("{stem} {key}: cut failed: {e}")),
        }
    }

    if let Some(gs) = g.get("serialize").filter(|s| s.get("error").is_none()) {
        match run("serialize", &file, &[]) {
            Err(e) => report.fail(format!("{stem}: serialize failed: {e}")),
            Ok(s) => {
                report.eq(&format!("{stem} serialize.length"), s["length"].clone(), gs["length"].clone());
                report.eq(&format!("{stem} serialize.sha256"), s["sha256"].clone(), gs["sha256"].clone());
            }
        }
    }

    for job in g.get("branch").and_then(Value::as_array).into_iter().flatten() {
        let args: Vec<&str> = job["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        let at = format!("{stem} branch {}", args.join(" "));
        match (run("branch", &file, &args), job["result"].get("error").and_then(Value::as_str)) {
            (Ok(ours), None) => compare_branch(report, &at, &ours, &job["result"]),
            (Err(e), None) => report.fail(format!("{at}: {e}")),
            // pi 1.6 crashed on the job (pi16-content: an unnormalized null
            // content, golden-pi16/README.md); contextree answers.
            (Ok(_), Some(err)) if err.starts_with("agent crashed") => report.compared += 1,
            (Ok(_), Some(err)) => report.fail(format!("{at}: contextree answered where the agent failed with {err}")),
            (Err(_), Some(_)) => report.compared += 1,
        }
    }

    if let Some(gt) = g.get("tree").filter(|t| t.is_object()) {
        match run("tree", &file, &[]) {
            Err(e) => report.fail(format!("{stem}: tree failed: {e}")),
            Ok(t) => compare_tree(report, &stem, &stem, &t, gt),
        }
    }
}

/// The oracle's pi16 `context` document against ours.
fn compare_context(report: &mut Report, at: &str, c: &Value, gc: &Value) {
    let system = ["systemSections", "removedSections", "toolsAdded", "toolsRemoved", "contentLength", "editedBy"];
    let keys: Vec<&str> = ["role", "entryId", "tokens"].into_iter().chain(system).collect();
    report.eq(&format!("{at}.messages"), pick(&c["messages"], &keys), pick(&gc["messages"], &keys));
    let keys: Vec<&str> = ["role", "tokens"].into_iter().chain(system).collect();
    report.eq(&format!("{at}.llm"), pick(&c["llm"], &keys), pick(&gc["llm"], &keys));
    for key in [
        "thinkingLevel",
        "model",
        "messageTokens",
        "llmTokens",
        "pathLength",
        "contextEntryCount",
        "contextEditsOnPath",
        "omittedEntryIds",
        "replacedEntryIds",
        "systemMessageCount",
        "currentSystem",
    ] {
        report.eq(&format!("{at}.{key}"), c[key].clone(), gc[key].clone());
    }
    let estimate = ["tokens", "usageTokens", "trailingTokens", "lastUsageIndex"];
    for key in ["estimateContextTokens", "estimateProjectedContextTokens"] {
        report.eq(&format!("{at}.{key}"), pick(&json!([c[key]]), &estimate), pick(&json!([gc[key]]), &estimate));
    }
    let edits = ["entryId", "targetId", "action", "effective"];
    report.eq(&format!("{at}.contextEdits"), pick(&c["contextEdits"], &edits), pick(&gc["contextEdits"], &edits));
}

#[test]
fn every_pi16_golden_file_matches_pi_1_6() {
    let dir = repo().join("tests/golden-pi16");
    let goldens = json_files(&dir);
    assert!(goldens.len() >= 90, "only {} golden files in {}", goldens.len(), dir.display());
    let mut report = Report::default();
    for g in &goldens {
        check_file(g, &mut report);
    }
    // Mismatches of rules another change implements are expected, each
    // listed once in PENDING; a stale entry is an error too.
    let pending = |f: &String| PENDING.iter().find(|(stem, job, _)| f.starts_with(&format!("{stem} {job}")));
    let (expected, failures): (Vec<String>, Vec<String>) = report.failures.drain(..).partition(|f| pending(f).is_some());
    report.failures = failures;
    for (stem, job, reason) in PENDING {
        if !expected.iter().any(|f| f.starts_with(&format!("{stem} {job}"))) {
            report.failures.push(format!("{stem} {job}: listed as pending ({reason}) but matches now: remove it from PENDING"));
        }
    }
    let files = goldens.len();
    report.assert_clean(&format!("{files} pi 1.6 golden files ({} comparisons, {} pending)", report.compared, expected.len()));
    eprintln!("{files} pi 1.6 golden files: {} comparisons, {} mismatches pending (PENDING)", report.compared, expected.len());
}
