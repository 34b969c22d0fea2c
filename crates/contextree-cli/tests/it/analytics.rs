//! `contextree weight` and `contextree context --breakdown` against `contextree context`: each
//! turn's size is what `context --leaf <its last entry>` reports as `messageTokens`, and the
//! breakdown's rows add up to that number and to the message count.

use std::path::Path;
use std::process::Command;

use contextree_testkit::fixture;
use serde_json::Value;

/// `(fixture, rule set)`: compactions, branch summaries, context edits, omp 18's rules.
const FIXTURES: &[(&str, &str)] = &[
    ("real/pi-compact-2025-12-24.jsonl", "pi@0.73"),
    ("synthetic/E11.jsonl", "omp@13"),
    ("pi16/g16-branchy-s97.jsonl", "pi@1.6"),
    ("edge/edge-omp-compaction.jsonl", "omp@18"),
    ("omp183/g183-main-s4.jsonl", "omp@18.3"),
];

/// `contextree CMD FILE ARGS --json --dialect RULES --prompts own`, parsed.
fn json(cmd: &str, file: &Path, rules: &str, args: &[&str]) -> Value {
    let mut all = vec![cmd, file.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", "--dialect", rules, "--prompts", "own"]);
    let out = Command::new(env!("CARGO_BIN_EXE_contextree")).args(&all).output().unwrap();
    assert!(out.status.success(), "contextree {all:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_turns_size_is_the_context_of_its_last_entry() {
    for &(rel, rules) in FIXTURES {
        let file = fixture(rel);
        let weight = json("weight", &file, rules, &[]);
        let turns = weight["turns"].as_array().unwrap();
        assert!(turns.len() > 1, "{rel}: one turn");
        // The first, the last and a few between: one process per leaf.
        let step = (turns.len() / 4).max(1);
        for t in turns.iter().step_by(step).chain(turns.last()) {
            let Some(id) = t["lastEntryId"].as_str() else { continue };
            let ctx = json("context", &file, rules, &["--leaf", id]);
            assert_eq!(t["tokens"], ctx["messageTokens"], "{rel} under {rules}, turn {}", t["turn"]);
        }
        let leaf = json("context", &file, rules, &[]);
        assert_eq!(weight["contextTokens"], leaf["messageTokens"], "{rel} under {rules}");
    }
}

#[test]
fn the_breakdown_adds_up_and_is_only_there_when_asked() {
    for &(rel, rules) in FIXTURES {
        let file = fixture(rel);
        let mut with = json("context", &file, rules, &["--breakdown"]);
        let rows = with.as_object_mut().unwrap().remove("breakdown").unwrap();
        let sum = |key: &str| rows.as_array().unwrap().iter().map(|r| r[key].as_u64().unwrap()).sum::<u64>();
        assert_eq!(sum("tokens"), with["messageTokens"].as_u64().unwrap(), "{rel} under {rules}");
        assert_eq!(sum("messages"), with["messageCount"].as_u64().unwrap(), "{rel} under {rules}");
        assert_eq!(with, json("context", &file, rules, &[]), "{rel} under {rules}");
    }
}
