//! contextree against the real agents: every golden file in `tests/golden/`
//! (made by `scripts/make-golden.sh` from pi 0.73.1 and oh-my-pi 13.19.0) is
//! compared field by field with what the `contextree` binary prints.
//!
//! The texts wrapped around summaries come from the installed agents' prompt
//! packs (docs/decisions.md D8), so this test needs the agents' packages:
//! `scripts/install-agents.sh` installs them in `tests/agents`, or set
//! `CONTEXTREE_PI_PACKAGE` / `CONTEXTREE_OMP_PACKAGE`.

mod support;

use std::path::Path;

use serde_json::{json, Value};
use support::oracle::agent_pack;
use support::{fixture, json_files, pick, repo, split_name, Report};

/// `contextree CMD FILE` with the agent's own prompt pack.
fn run(cmd: &str, file: &Path, dialect: &str, extra: &[&str]) -> Result<Value, String> {
    let pack = agent_pack(dialect);
    let mut args = vec!["--prompts", pack.to_str().unwrap()];
    args.extend_from_slice(extra);
    support::run(cmd, file, dialect, &args)
}

/// Entries the agents leave out of their root and leaf lists (and, with
/// `true`, out of `getTree`) but contextree shows as roots with a diagnostic
/// (spec session-format.md §6: self-parented entries are displayed as roots; a
/// parent cycle is cut rather than looped on).
const HIDDEN_BY_AGENTS: &[(&str, &[&str], bool)] =
    &[("edge-cycle", &["cycb", "cyca"], true), ("edge-self-parent", &["selfp001"], false)];

/// Tree fields contextree deliberately answers differently, and why.
const TREE_DEVIATIONS: &[(&str, &str)] = &[(
    "edge-duplicate-id",
    "the agents attach the later `dup00001` (the one the id resolves to) under both parents, so it and its subtree appear twice; contextree shows each entry once and the first `dup00001` as a leaf, with a duplicate-id diagnostic",
)];

/// Removes the ids the agents hide from a list of ids or rows.
fn without(v: Value, hidden: &[&str], id_of: impl Fn(&Value) -> Option<&str>) -> Value {
    Value::Array(v.as_array().into_iter().flatten().filter(|x| !id_of(x).is_some_and(|id| hidden.contains(&id))).cloned().collect())
}

fn check_file(golden: &Path, report: &mut Report) {
    let name = golden.file_name().unwrap().to_string_lossy().into_owned();
    let (stem, dialect) = split_name(&name);
    let g: Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
    let file = fixture(&stem);
    let at = |what: &str| format!("{name} {what}");

    let info = match run("info", &file, dialect, &[]) {
        Ok(v) => v,
        Err(e) => return report.fail(format!("{name}: info failed: {e}")),
    };
    if let Some(err) = g.get("error").and_then(Value::as_str) {
        // The agents crash, loop or reject the file; contextree must still
        // answer, and say what is wrong when the file is not a session.
        if err.starts_with("invalid session file") {
            report.eq(&at("info.valid"), info["valid"].clone(), json!(false));
        }
        for cmd in ["context", "tree", "tokens", "serialize"] {
            if let Err(e) = run(cmd, &file, dialect, &[]) {
                report.fail(format!("{name}: {cmd} failed where the agent did not answer: {e}"));
            }
        }
        return;
    }

    let (hidden, hidden_in_tree) = HIDDEN_BY_AGENTS.iter().find(|(s, ..)| *s == stem).map_or((&[][..], false), |(_, ids, t)| (*ids, *t));
    let tree_deviates = TREE_DEVIATIONS.iter().any(|(s, _)| *s == stem);
    let gi = &g["info"];
    for key in ["entryCount", "leafId", "leafIndex", "leafPathLength", "types", "roles"] {
        report.eq(&at(&format!("info.{key}")), info[key].clone(), gi[key].clone());
    }
    if !tree_deviates {
        for key in ["roots", "leaves", "branchPoints"] {
            let ours = without(info[key].clone(), hidden, |v| v.as_str().or_else(|| v["id"].as_str()));
            report.eq(&at(&format!("info.{key}")), ours, gi[key].clone());
        }
    }
    let labels: serde_json::Map<String, Value> =
        gi["labels"].as_array().into_iter().flatten().map(|l| (l["id"].as_str().unwrap().to_owned(), l["label"].clone())).collect();
    report.eq(&at("info.labels"), info["labels"].clone(), Value::Object(labels));

    let gc = &g["context"];
    match run("context", &file, dialect, &[]) {
        Err(e) => report.fail(format!("{name}: context failed: {e}")),
        Ok(c) => {
            report.eq(&at("context.messages"), pick(&c["messages"], &["role", "entryId", "tokens"]), pick(&gc["messages"], &["role", "entryId", "tokens"]));
            report.eq(&at("context.llm"), pick(&c["llm"], &["role", "tokens"]), pick(&gc["llm"], &["role", "tokens"]));
            for key in ["thinkingLevel", "messageTokens", "llmTokens", "pathLength"] {
                report.eq(&at(&format!("context.{key}")), c[key].clone(), gc[key].clone());
            }
            match dialect {
                "pi" => {
                    report.eq(&at("context.model"), c["model"].clone(), gc["model"].clone());
                    report.eq(&at("context.estimateContextTokens"), c["estimateContextTokens"]["tokens"].clone(), gc["estimateContextTokens"]["tokens"].clone());
                }
                _ => {
                    report.eq(&at("context.models"), c["models"].clone(), gc["models"].clone());
                    report.eq(&at("context.mode"), c["mode"].clone(), gc["mode"].clone());
                }
            }
        }
    }

    match run("tokens", &file, dialect, &[]) {
        Err(e) => report.fail(format!("{name}: tokens failed: {e}")),
        Ok(t) => {
            let keys = ["id", "type", "role", "tokens"];
            report.eq(&at("tokens.entries"), pick(&t["entries"], &keys), pick(&g["tokens"]["entries"], &keys));
            report.eq(&at("tokens.totalTokens"), t["totalTokens"].clone(), g["tokens"]["totalTokens"].clone());
        }
    }

    match run("serialize", &file, dialect, &[]) {
        Err(e) => report.fail(format!("{name}: serialize failed: {e}")),
        Ok(s) => {
            report.eq(&at("serialize.length"), s["length"].clone(), g["serialize"]["length"].clone());
            report.eq(&at("serialize.sha256"), s["sha256"].clone(), g["serialize"]["sha256"].clone());
        }
    }

    if let Some(gt) = g.get("tree").filter(|t| t.is_object() && !tree_deviates) {
        match run("tree", &file, dialect, &[]) {
            Err(e) => report.fail(format!("{name}: tree failed: {e}")),
            Ok(t) => {
                let rows = if hidden_in_tree { without(t["rows"].clone(), hidden, |r| r["id"].as_str()) } else { t["rows"].clone() };
                report.eq(&at("tree"), pick(&rows, &["id", "depth", "label"]), gt["nodes"].clone());
            }
        }
    }
}

#[test]
fn every_golden_file_matches_the_agents() {
    let dir = repo().join("tests/golden");
    let goldens = json_files(&dir);
    assert!(goldens.len() >= 100, "only {} golden files in {}", goldens.len(), dir.display());
    let mut report = Report::default();
    for g in &goldens {
        check_file(g, &mut report);
    }
    report.assert_clean(&format!("{} golden files", goldens.len()));
}
