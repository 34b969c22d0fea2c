//! `contextree weight` and `contextree context --breakdown` against `contextree context`: each
//! turn's size is what `context --leaf <its last entry>` reports as `messageTokens`, and the
//! breakdown's rows add up to that number and to the message count; the plan's cost lines are
//! its own numbers at the prices the agent's models file gives.

use std::path::Path;
use std::process::Command;

use contextree_testkit::{fixture, Scratch};
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
        for m in with["messages"].as_array_mut().unwrap() {
            assert!(m.as_object_mut().unwrap().remove("breakdownRows").is_some(), "{rel}: a message without its rows");
        }
        assert_eq!(with, json("context", &file, rules, &[]), "{rel} under {rules}");
    }
}

/// `compact --dry-run --json --cost` on a session whose model the agent's models file prices:
/// every line recomputed here from the plan's own numbers and those prices.
#[test]
fn the_plans_cost_is_its_numbers_at_the_agents_prices() {
    let home = Scratch::new("cost");
    let prices = r#"{"providers": {"anthropic": {"models": [
        {"id": "claude-opus-4-5", "cost": {"input": 2, "output": 10, "cacheRead": 0.25, "cacheWrite": 4}}]}}}"#;
    home.write(".pi/agent/models.json", prices);
    let file = fixture("real/pi-compact-2025-12-24.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_contextree"))
        .args(["compact", file.to_str().unwrap(), "--dialect", "pi@0.73", "--prompts", "own", "--dry-run", "--cost", "--json"])
        .env_clear()
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cost = &plan["cost"];
    assert_eq!(cost["sessionModel"], "anthropic/claude-opus-4-5");
    assert_eq!(cost["sessionPrices"]["source"], "agent");
    assert_eq!(cost["summaryPrices"]["detail"], "~/.pi/agent/models.json");
    // The calls' prompts, ceil(UTF-16 units / 4) each; their maxTokens.
    let calls = plan["calls"].as_array().unwrap();
    let units = |v: &Value| v.as_str().unwrap().encode_utf16().count() as u64;
    let input: u64 = calls.iter().map(|c| (units(&c["systemPrompt"]) + units(&c["prompt"])).div_ceil(4)).sum();
    let output: u64 = calls.iter().map(|c| c["maxTokens"].as_u64().unwrap()).sum();
    let before = plan["preview"]["tokensBefore"].as_u64().unwrap();
    let after = plan["preview"]["estimatedTokensAfter"].as_u64().unwrap();
    assert_eq!((cost["summarizerInputTokens"].as_u64(), cost["summarizerOutputTokens"].as_u64()), (Some(input), Some(output)));
    let m = 1_000_000.0;
    let one_off = input as f64 * 2.0 / m + output as f64 * 10.0 / m + after as f64 * 4.0 / m;
    let near = |key: &str, want: f64| assert!((cost[key].as_f64().unwrap() - want).abs() < 1e-9, "{key}: {} ≠ {want}", cost[key]);
    near("summarizerInputCost", input as f64 * 2.0 / m);
    near("summarizerOutputCost", output as f64 * 10.0 / m);
    near("cacheRewriteCost", after as f64 * 4.0 / m);
    near("oneOffCost", one_off);
    let saved = (before - after) as f64;
    near("savingPerCachedTurn", saved * 0.25 / m);
    near("savingPerUncachedTurn", saved * 2.0 / m);
    assert_eq!(cost["paysOffAfterCachedTurns"].as_u64(), Some((one_off / (saved * 0.25 / m)).ceil() as u64));
    assert_eq!(cost["paysOffAfterUncachedTurns"].as_u64(), Some((one_off / (saved * 2.0 / m)).ceil() as u64));

    // Without --cost the JSON document is the same, cost lines included.
    let plain = Command::new(env!("CARGO_BIN_EXE_contextree"))
        .args(["compact", file.to_str().unwrap(), "--dialect", "pi@0.73", "--prompts", "own", "--dry-run", "--json"])
        .env_clear()
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(plain.status.success(), "{}", String::from_utf8_lossy(&plain.stderr));
    assert_eq!(serde_json::from_slice::<Value>(&plain.stdout).unwrap(), plan);
}
