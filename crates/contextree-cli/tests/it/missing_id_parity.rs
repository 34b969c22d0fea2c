//! An entry without an `id` (docs/decisions.md D25), against the real agents run live: the
//! file's last line is a message without one, so the agents' leaf id is undefined and their
//! context ends at that line. Its context is the agents' under every rule set, and every report
//! names the id-less entry `null`.
//!
//! The file has no golden (scripts/golden.py `NO_GOLDEN`): the agents' `getBranch()` is empty
//! for such a leaf, which the harness's other commands (cut, branch, prune) and its mapping of
//! messages to entries depend on.

use serde_json::Value;

use crate::support::oracle::oracle_impl;
use crate::support::{fixture, pick, run_rules};

const FILE: &str = "edge-missing-id-leaf";

/// Each rule set and the oracle's `--impl` of its agent.
const RULE_SETS: [(&str, &str); 4] = [("pi@0.73", "pi"), ("pi@1.6", "pi16"), ("omp@13", "omp13"), ("omp@18", "omp18")];

#[test]
fn a_message_whose_entry_has_no_id_is_in_the_agents_context_and_named_null() {
    let file = fixture(FILE);
    for (rules, imp) in RULE_SETS {
        let ours = run_rules("context", &file, rules, &[]).unwrap();
        let theirs = oracle_impl(imp, "context", &file, &[]);
        assert_eq!(pick(&ours["messages"], &["role", "tokens"]), pick(&theirs["messages"], &["role", "tokens"]), "{rules}: messages");
        assert_eq!(ours["messageTokens"], theirs["messageTokens"], "{rules}: messageTokens");
        let (mine, agents) = (ours["messages"].as_array().unwrap(), theirs["messages"].as_array().unwrap());
        for (i, (m, t)) in mine.iter().zip(agents).enumerate() {
            assert!(m.get("entryId").is_some(), "{rules}: message {i} has no entryId key");
            // The harness names a message's entry where it finds it (pi 1.6's projection keeps
            // it; the others look on `getBranch()`, empty here). An id it leaves out is null.
            if !t["entryIndex"].is_null() {
                assert_eq!(m["entryIndex"], t["entryIndex"], "{rules}: message {i}");
                assert_eq!(m["entryId"], t.get("entryId").cloned().unwrap_or(Value::Null), "{rules}: message {i}");
            }
        }
        let last = mine.last().expect("the context is not empty");
        assert_eq!(last.get("entryId"), Some(&Value::Null), "{rules}: the id-less message");
        for cmd in ["info", "context", "tree", "budget", "cut"] {
            let doc = if cmd == "context" { ours.clone() } else { run_rules(cmd, &file, rules, &[]).unwrap() };
            assert_eq!(doc.get("leafId"), Some(&Value::Null), "{rules} {cmd}: leafId");
        }
    }
}
