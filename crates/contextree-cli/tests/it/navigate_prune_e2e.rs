//! The write halves of issue 4 end to end, on copies of fixtures:
//! `contextree navigate` (with and without a branch summary) and
//! `contextree prune --yes`. contextree reloads each file, and the real agents
//! (pi 0.73.1, oh-my-pi 13.19.0, through the oracle) load it with the new
//! leaf and see the same context.
//!
//! Needs the agents (`scripts/install-agents.sh` installs them in `tests/agents`, or
//! set `ORACLE`): without the agents this test cannot show that they accept
//! what contextree wrote, so it fails rather than skip.

use crate::support;

use std::path::PathBuf;
use std::process::Command;

use crate::support::oracle::{agent_pack, contextree, oracle, oracle_dir, TempDir};
use serde_json::Value;

/// `(entryId, role)` of every context message.
fn messages(doc: &Value) -> Vec<(Value, Value)> {
    doc["messages"].as_array().unwrap().iter().map(|m| (m["entryId"].clone(), m["role"].clone())).collect()
}

/// Navigates a copy of E10 to `to` and checks the result with contextree and the agent:
/// the file's context is `expected_base`'s context, plus the summary when summarized.
fn navigate_and_check(dialect: &str, to: &str, summarize: bool, expected_base: &str) {
    let tmp = TempDir::new();
    let file = tmp.copy("E10");
    let before = std::fs::read(&file).unwrap();
    let f = file.to_str().unwrap();
    let at = format!("E10 {dialect} --to {to} summarize={summarize}");
    let pack = agent_pack(dialect);
    let mut args =
        vec!["navigate", f, "--dialect", support::seed_rules(dialect), "--to", to, "--yes", "--json", "--prompts", pack.to_str().unwrap()];
    if summarize {
        args.extend(["--summarize", "--offline"]);
    }
    let done = contextree(&args);

    // One whole line appended, the old bytes untouched.
    let after = std::fs::read(&file).unwrap();
    assert_eq!(&after[..before.len()], &before[..], "{at}: the old bytes are not an untouched prefix");
    let line = String::from_utf8(after[before.len()..].to_vec()).unwrap();
    assert!(line.ends_with('\n') && line.matches('\n').count() == 1, "{at}: one line appended: {line:?}");
    let entry: Value = serde_json::from_str(line.trim_end()).unwrap();
    assert_eq!(entry, done["entry"], "{at}: the printed entry is the appended one");
    let id = entry["id"].as_str().unwrap().to_owned();
    assert_eq!(done["newLeafId"], id.as_str(), "{at}");
    let flag = if dialect == "pi" { "fromHook" } else { "fromExtension" };
    if summarize {
        assert_eq!(entry["type"], "branch_summary", "{at}");
        assert_eq!(entry[flag], false, "{at}");
        assert_eq!(entry["parentId"], expected_base, "{at}: placed where navigateTree places it");
        assert_eq!(entry["fromId"], expected_base, "{at}");
    } else {
        assert_eq!(entry["type"], "custom", "{at}");
        assert_eq!(entry["customType"], "contextree-continue", "{at}");
        assert_eq!(entry["parentId"], to, "{at}: hangs under the target");
    }

    // contextree: the file's own leaf now gives the target's context (+ the summary).
    let ours = contextree(&["context", f, "--json", "--dialect", support::seed_rules(dialect)]);
    let base = contextree(&["context", f, "--json", "--dialect", support::seed_rules(dialect), "--leaf", expected_base]);
    let mut expected = messages(&base);
    if summarize {
        expected.push((Value::from(id.as_str()), Value::from("branchSummary")));
    }
    assert_eq!(ours["leafId"], id.as_str(), "{at}");
    assert_eq!(messages(&ours), expected, "{at}: contextree's context after navigate");
    if !summarize {
        assert_eq!(ours["messageTokens"], base["messageTokens"], "{at}: the custom entry adds nothing to the context");
    }

    // The agent: same leaf, same context, same estimate, our summary text.
    let theirs = oracle(dialect, "context", &file, &["--full"]);
    assert_eq!(theirs["leafId"], id.as_str(), "{at}: the agent's leaf is the new entry");
    assert_eq!(messages(&theirs), expected, "{at}: the agent's context");
    assert_eq!(theirs["messageTokens"], ours["messageTokens"], "{at}: same estimate");
    if summarize {
        let last = theirs["fullMessages"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["summary"], entry["summary"], "{at}: the agent reads our summary");
    }
}

#[test]
fn navigate_persists_the_leaf_for_contextree_and_the_agents() {
    oracle_dir(); // fails at once, with the install hint, when the agents are missing
    for dialect in ["pi", "omp"] {
        // An assistant target: marker / summary under it.
        navigate_and_check(dialect, "a5", false, "a5");
        navigate_and_check(dialect, "a5", true, "a5");
        // A user target: the marker hangs under it (continue from that
        // message); a summary goes under its parent, as navigateTree does.
        navigate_and_check(dialect, "u3", false, "u3");
        navigate_and_check(dialect, "u3", true, "a1");
    }
}

#[test]
fn navigate_summary_line_matches_the_golden_layout() {
    // With the stub answer's layout aside, the summary starts with the
    // agent's preamble and carries the golden's file tags and details.
    oracle_dir(); // fails at once, with the install hint, when the agents are missing
    for dialect in ["pi", "omp"] {
        let tmp = TempDir::new();
        let file = tmp.copy("E10");
        let pack = agent_pack(dialect);
        let done = contextree(&[
            "navigate",
            file.to_str().unwrap(),
            "--dialect",
            support::seed_rules(dialect),
            "--to",
            "a5",
            "--summarize",
            "--offline",
            "--yes",
            "--json",
            "--prompts",
            pack.to_str().unwrap(),
        ]);
        let entry = &done["entry"];
        let keys: Vec<&str> = entry.as_object().unwrap().keys().map(String::as_str).collect();
        let flag = if dialect == "pi" { "fromHook" } else { "fromExtension" };
        assert_eq!(keys, ["type", "id", "parentId", "timestamp", "fromId", "summary", "details", flag], "{dialect}");
        let summary = entry["summary"].as_str().unwrap();
        let tags = if dialect == "pi" {
            "\n\n<read-files>\nsrc/lexer.ts\n</read-files>\n\n<modified-files>\nsrc/parser.ts\n</modified-files>"
        } else {
            "\n\n<read-files>\nsrc/lexer.ts\n</read-files><modified-files>\nsrc/parser.ts\n</modified-files>"
        };
        assert!(summary.ends_with(tags), "{dialect}: {summary:?}");
        assert_eq!(entry["details"]["readFiles"], serde_json::json!(["src/lexer.ts"]));
        assert_eq!(entry["details"]["modifiedFiles"], serde_json::json!(["src/parser.ts"]));
    }
}

#[test]
fn navigate_and_prune_refuse_without_yes() {
    let tmp = TempDir::new();
    let e10 = tmp.copy("E10");
    let e13b = tmp.copy("E13b");
    let snapshot = (std::fs::read(&e10).unwrap(), std::fs::read(&e13b).unwrap());
    let run = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_contextree")).args(args).output().unwrap();
    for out in [run(&["navigate", e10.to_str().unwrap(), "--to", "a5"]), run(&["prune", e13b.to_str().unwrap(), "--json"])] {
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("--yes"));
    }
    let missing = run(&["navigate", e10.to_str().unwrap(), "--to", "nope", "--yes"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("Entry nope not found"));
    // The target is the leaf already: nothing to do.
    let noop = contextree(&["navigate", e10.to_str().unwrap(), "--to", "a4", "--yes", "--json"]);
    assert_eq!(noop["appended"], Value::Null);
    assert_eq!((std::fs::read(&e10).unwrap(), std::fs::read(&e13b).unwrap()), snapshot, "refusals write nothing");
}

#[test]
fn prune_rewrites_the_file_as_omp_reads_it_back() {
    oracle_dir(); // fails at once, with the install hint, when the agents are missing
    for dialect in ["pi", "omp"] {
        let tmp = TempDir::new();
        let file = tmp.copy("E13b");
        let before = std::fs::read(&file).unwrap();
        let f = file.to_str().unwrap();
        let plan = contextree(&["prune", f, "--dialect", support::seed_rules(dialect), "--dry-run", "--json"]);
        assert_eq!(std::fs::read(&file).unwrap(), before, "--dry-run writes nothing");
        let done = contextree(&["prune", f, "--dialect", support::seed_rules(dialect), "--yes", "--json"]);
        for k in ["prunedCount", "tokensSaved", "pruned"] {
            assert_eq!(done[k], plan[k], "{dialect}: {k} as planned");
        }
        assert_eq!(done["prunedCount"], 1);
        let backup = PathBuf::from(done["backup"].as_str().unwrap());
        assert_eq!(std::fs::read(&backup).unwrap(), before, "{dialect}: the backup is the original");

        // Only r1's line differs.
        let after = String::from_utf8(std::fs::read(&file).unwrap()).unwrap();
        let old = String::from_utf8(before.clone()).unwrap();
        let diff: Vec<usize> = old.split('\n').zip(after.split('\n')).enumerate().filter(|(_, (a, b))| a != b).map(|(i, _)| i).collect();
        assert_eq!(diff, [3], "{dialect}");
        assert_eq!(old.split('\n').count(), after.split('\n').count());

        // omp's pruning finds nothing left; both agents see the notice.
        assert_eq!(oracle("omp", "prune", &file, &[])["result"]["prunedCount"], 0, "{dialect}");
        let ours = contextree(&["context", f, "--json", "--dialect", support::seed_rules(dialect)]);
        let theirs = oracle(dialect, "context", &file, &["--full"]);
        assert_eq!(messages(&theirs), messages(&ours), "{dialect}");
        assert_eq!(theirs["messageTokens"], ours["messageTokens"], "{dialect}");
        // The preview said what the context would be; the agent agrees.
        assert_eq!(theirs["messageTokens"], plan["context"]["after"]["messageTokens"], "{dialect}");
        assert_eq!(theirs["llmTokens"], plan["context"]["after"]["llmTokens"], "{dialect}");
        assert!(plan["context"]["before"]["messageTokens"].as_u64() > plan["context"]["after"]["messageTokens"].as_u64());
        let r1 = theirs["fullMessages"].as_array().unwrap().iter().find(|m| m["toolCallId"] == "c1").unwrap().clone();
        assert_eq!(r1["content"][0]["text"], "[Output truncated - 25000 tokens]", "{dialect}");
        assert_eq!(r1["prunedAt"], done["prunedAt"], "{dialect}");
        // Nothing left to prune: no rewrite, no new backup.
        let again = contextree(&["prune", f, "--dialect", support::seed_rules(dialect), "--yes", "--json"]);
        assert_eq!((again["prunedCount"].clone(), again["backup"].clone()), (Value::from(0), Value::Null));
    }
}
