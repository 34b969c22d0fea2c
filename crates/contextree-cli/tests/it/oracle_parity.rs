//! contextree against the real agents: every golden file in `tests/golden/`
//! (made by `scripts/make-golden.sh` from pi 0.73.1 and oh-my-pi 13.19.0) is
//! compared field by field with what the `contextree` binary prints.
//!
//! The texts wrapped around summaries come from the installed agents' prompt
//! packs (docs/decisions.md D8), so this test needs the agents' packages:
//! `scripts/install-agents.sh` installs them in `tests/agents`, or set
//! `CONTEXTREE_PI_PACKAGE` / `CONTEXTREE_OMP_PACKAGE`.

use crate::support;

use std::path::Path;

use crate::support::oracle::agent_pack;
use crate::support::parity::{compare_info, compare_tree};
use crate::support::{fixture, json_files, pick, repo, split_name, Report};
use serde_json::{json, Value};

/// `contextree CMD FILE` with the agent's own prompt pack.
fn run(cmd: &str, file: &Path, dialect: &str, extra: &[&str]) -> Result<Value, String> {
    let pack = agent_pack(dialect);
    let mut args = vec!["--prompts", pack.to_str().unwrap()];
    args.extend_from_slice(extra);
    support::run(cmd, file, dialect, &args)
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

    compare_info(report, &name, &stem, &info, &g["info"]);

    let gc = &g["context"];
    match run("context", &file, dialect, &[]) {
        Err(e) => report.fail(format!("{name}: context failed: {e}")),
        Ok(c) => {
            report.eq(
                &at("context.messages"),
                pick(&c["messages"], &["role", "entryId", "tokens"]),
                pick(&gc["messages"], &["role", "entryId", "tokens"]),
            );
            report.eq(&at("context.llm"), pick(&c["llm"], &["role", "tokens"]), pick(&gc["llm"], &["role", "tokens"]));
            for key in ["thinkingLevel", "messageTokens", "llmTokens", "pathLength"] {
                report.eq(&at(&format!("context.{key}")), c[key].clone(), gc[key].clone());
            }
            match dialect {
                "pi" => {
                    report.eq(&at("context.model"), c["model"].clone(), gc["model"].clone());
                    report.eq(
                        &at("context.estimateContextTokens"),
                        c["estimateContextTokens"]["tokens"].clone(),
                        gc["estimateContextTokens"]["tokens"].clone(),
                    );
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

    if let Some(gt) = g.get("tree").filter(|t| t.is_object()) {
        match run("tree", &file, dialect, &[]) {
            Err(e) => report.fail(format!("{name}: tree failed: {e}")),
            Ok(t) => compare_tree(report, &name, &stem, &t, gt),
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
