//! `contextree compare` against facts computed apart from it: each side's totals are what
//! `contextree context --leaf X` gives for that leaf (which the parity suites tie to the
//! agents), the common ancestor is the deepest entry `contextree tree` puts on both leaves'
//! paths, and every message of each context stands exactly once, in order, on its side.

use std::path::Path;
use std::process::{Command, Output};

use contextree_testkit::fixture;
use serde_json::Value;

use crate::support::repo;

/// `(fixture, rule set)`: branched sessions, with compactions, branch summaries and context
/// edits on some branches, one or more per rule set.
const FIXTURES: &[(&str, &str)] = &[
    ("synthetic/E11.jsonl", "pi@0.73"),
    ("synthetic/E11.jsonl", "omp@13"),
    ("generated/g-v3-branchy-s23.jsonl", "pi@0.73"),
    ("generated/g-v2-branchy-s19.jsonl", "omp@13"),
    ("pi16/pi16-system.jsonl", "pi@1.6"),
    ("pi16/g16-branchy-s97.jsonl", "pi@1.6"),
    ("edge/edge-omp-compaction.jsonl", "omp@18"),
];

/// The stored `contextree compare --json` the UI's tests render (tests/ui/compare.test.js).
const UI_FIXTURE: &str = "tests/ui/fixtures/compare-pi16-system.json";

fn contextree(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_contextree")).args(args).output().unwrap()
}

/// `contextree CMD FILE ARGS --json --dialect RULES --prompts own`, parsed.
fn json(cmd: &str, file: &Path, rules: &str, args: &[&str]) -> Value {
    let mut all = vec![cmd, file.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", "--dialect", rules, "--prompts", "own"]);
    let out = contextree(&all);
    assert!(out.status.success(), "contextree {all:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The ids of the entries on `leaf`'s path, in `contextree tree`'s order (preorder: an
/// ancestor before its descendants).
fn on_path(file: &Path, rules: &str, leaf: &str) -> Vec<String> {
    let out = contextree(&["tree", file.to_str().unwrap(), "--leaf", leaf, "--json", "--dialect", rules]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tree: Value = serde_json::from_slice(&out.stdout).unwrap();
    tree["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["state"] != "off-path")
        .map(|r| r["id"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// What `context` and `tree` say of one leaf.
struct Leaf {
    id: String,
    context: Value,
    path: Vec<String>,
}

#[test]
fn compare_agrees_with_context_and_tree_for_every_pair_of_leaves() {
    let mut pairs = 0;
    for &(rel, rules) in FIXTURES {
        let file = fixture(rel);
        let info = json("info", &file, rules, &[]);
        let leaves: Vec<Leaf> = info["leaves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let id = l.as_str().unwrap().to_owned();
                Leaf { context: json("context", &file, rules, &["--leaf", &id]), path: on_path(&file, rules, &id), id }
            })
            .collect();
        assert!(leaves.len() >= 2, "{rel} has one leaf");
        for a in &leaves {
            for b in &leaves {
                check_pair(&file, rules, a, b);
                pairs += 1;
            }
        }
    }
    assert!(pairs >= 30, "only {pairs} pairs compared");
}

fn check_pair(file: &Path, rules: &str, a: &Leaf, b: &Leaf) {
    let what = format!("{} {} {} under {rules}", file.display(), a.id, b.id);
    let cmp = json("compare", file, rules, &[&a.id, &b.id]);
    let rows = cmp["rows"].as_array().unwrap();
    for (side, leaf) in [("a", a), ("b", b)] {
        let ctx = &leaf.context;
        for key in ["leafId", "messageCount", "messageTokens", "llmCount", "llmTokens", "estimateProjectedContextTokens", "notReproducible"]
        {
            assert_eq!(cmp[side].get(key), ctx.get(key), "{what}: side {side}'s {key}");
        }
        // Every message of the context once, in order, with its entry and role.
        let sent: Vec<(&Value, &Value, &Value)> = rows
            .iter()
            .map(|r| &r[side])
            .filter(|c| !c.is_null() && !c["message"].is_null())
            .map(|c| (&c["entryId"], &c["message"]["role"], &c["message"]["tokens"]))
            .collect();
        let want: Vec<(&Value, &Value, &Value)> =
            ctx["messages"].as_array().unwrap().iter().map(|m| (&m["entryId"], &m["role"], &m["tokens"])).collect();
        assert_eq!(sent, want, "{what}: side {side}'s messages");
    }
    // The deepest entry on both paths: the last of those `tree` marks on both.
    let ancestor = a.path.iter().rfind(|id| b.path.contains(id));
    assert_eq!(cmp["commonAncestorId"].as_str(), ancestor.map(String::as_str), "{what}: the common ancestor");
    let difference = cmp["b"]["llmTokens"].as_i64().unwrap() - cmp["a"]["llmTokens"].as_i64().unwrap();
    assert_eq!(cmp["difference"]["llmTokens"], difference, "{what}");
    // The shared prefix: the messages both contexts start with, alike (same entry and role).
    let shared = cmp["sharedCount"].as_u64().unwrap() as usize;
    assert!(rows[..shared].iter().all(|r| r["op"] == "same" && r["a"]["entryId"] == r["b"]["entryId"]), "{what}");
    if a.id == b.id {
        assert_eq!((&cmp["divergeAt"], cmp["commonAncestorId"].as_str()), (&Value::Null, Some(a.id.as_str())), "{what}");
    }
}

/// The UI's tests render a real comparison: the stored document is what `contextree compare
/// --json` prints now (`CONTEXTREE_WRITE_UI_FIXTURES=1` writes it again).
#[test]
fn the_ui_tests_render_what_compare_prints() {
    let doc = json("compare", &fixture("pi16/pi16-system.jsonl"), "pi@1.6", &["e4", "f3"]);
    let path = repo().join(UI_FIXTURE);
    if std::env::var_os("CONTEXTREE_WRITE_UI_FIXTURES").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
        return;
    }
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_default()).unwrap_or_default();
    assert_eq!(stored, doc, "{UI_FIXTURE} is not what compare prints: CONTEXTREE_WRITE_UI_FIXTURES=1 writes it again");
    // It shows every kind of row the dialog draws.
    for op in ["same", "changed", "diverged"] {
        assert!(doc["rows"].as_array().unwrap().iter().any(|r| r["op"] == op), "no {op} row");
    }
}

/// Bad input: an unknown leaf is named (exit 2), and `--leaf` is refused rather than ignored.
#[test]
fn an_unknown_leaf_or_the_leaf_flag_is_bad_input() {
    let file = fixture("synthetic/E11.jsonl");
    let file = file.to_str().unwrap();
    let out = contextree(&["compare", file, "a2", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`nope`"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = contextree(&["compare", file, "a2", "u3", "--leaf", "u3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--leaf"), "{}", String::from_utf8_lossy(&out.stderr));
}
