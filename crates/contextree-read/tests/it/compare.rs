//! The comparison of two leaves, under every rule set, on branched fixtures: its snapshot, and
//! each side against the context report of its leaf (the numbers the parity suites tie to the
//! agents).

use contextree_core::context::{build, Leaf};
use contextree_core::prompts::PromptPack;
use contextree_core::session::{Session, Source};
use contextree_core::RuleSet;
use contextree_read::{CompareOptions, CompareReport, ContextOptions, ContextReport};
use serde_json::Value;

use crate::reports::open;

/// `(fixture, rule set, leaf A, leaf B, snapshot name)`: two branches of one session each,
/// where one leaf summarized (or hid) what the other still sends.
const CASES: [(&str, RuleSet, &str, &str, &str); 4] = [
    ("synthetic/E11.jsonl", RuleSet::Pi073, "a2", "u3", "pi073-E11"),
    ("pi16/pi16-system.jsonl", RuleSet::Pi16, "e4", "f3", "pi16-system"),
    ("synthetic/E11.jsonl", RuleSet::Omp13, "a2", "u3", "omp13-E11"),
    ("edge/edge-omp-compaction.jsonl", RuleSet::Omp18, "f5", "a6", "omp18-edge-omp-compaction"),
];

/// The comparison of leaves `a` and `b` as a JSON value, with or without the text.
fn compare_json(s: &Session, source: &dyn Source, a: &str, b: &str, text: Option<usize>) -> Value {
    let (ctx_a, ctx_b) = (build(s, Leaf::At(s.node(a).unwrap())), build(s, Leaf::At(s.node(b).unwrap())));
    let pack = PromptPack::own_for(s.rules());
    let report = CompareReport::new(s, &ctx_a, &ctx_b, &pack, source, CompareOptions { text_chars: text }).unwrap();
    let json = serde_json::to_value(&report).unwrap();
    report.finish().unwrap();
    json
}

/// The context report of `leaf`, with the text cut at `text`.
fn context_json(s: &Session, source: &dyn Source, leaf: &str, text: usize) -> Value {
    let ctx = build(s, Leaf::At(s.node(leaf).unwrap()));
    let pack = PromptPack::own_for(s.rules());
    let report =
        ContextReport::new(s, &ctx, &pack, source, ContextOptions { tokenizer: None, text_chars: Some(text), breakdown: false }).unwrap();
    let json = serde_json::to_value(&report).unwrap();
    report.finish().unwrap();
    json
}

#[test]
fn the_compare_report_of_two_branches_under_every_rule_set() {
    for (rel, rules, a, b, name) in CASES {
        let (s, bytes) = open(rel, rules);
        let json = compare_json(&s, &bytes, a, b, Some(80));
        assert_eq!(json["ruleSet"]["name"], rules.name());
        insta::assert_snapshot!(format!("compare-{name}"), serde_json::to_string_pretty(&json).unwrap());
    }
}

/// Each side's totals and notes are its leaf's context report's, and each of that report's
/// messages stands on exactly one row of its side, in order, with its role, entry, tokens and
/// text.
#[test]
fn each_side_is_the_context_of_its_leaf() {
    for (rel, rules, a, b, _) in CASES {
        let (s, bytes) = open(rel, rules);
        let cmp = compare_json(&s, &bytes, a, b, Some(80));
        for (side, leaf) in [("a", a), ("b", b)] {
            let ctx = context_json(&s, &bytes, leaf, 80);
            for key in [
                "leafId",
                "leafIndex",
                "pathLength",
                "model",
                "messageCount",
                "messageTokens",
                "llmCount",
                "llmTokens",
                "estimateContextTokens",
                "estimateProjectedContextTokens",
                "providerReplay",
                "tokenCount",
                "notReproducible",
            ] {
                assert_eq!(cmp[side].get(key), ctx.get(key), "{rel} under {rules}, side {side}: {key}");
            }
            let sent: Vec<&Value> =
                cmp["rows"].as_array().unwrap().iter().filter_map(|r| r[side].get("message").filter(|m| !m.is_null())).collect();
            let cells: Vec<&Value> = cmp["rows"].as_array().unwrap().iter().map(|r| &r[side]).filter(|c| !c["message"].is_null()).collect();
            let messages = ctx["messages"].as_array().unwrap();
            assert_eq!(sent.len(), messages.len(), "{rel} side {side}");
            for ((m, cell), want) in sent.iter().zip(&cells).zip(messages) {
                assert_eq!((&m["i"], &m["role"], &m["tokens"]), (&want["i"], &want["role"], &want["tokens"]), "{rel} side {side}");
                assert_eq!((&m["llmTokens"], &m["text"], &m["truncated"]), (&want["llmTokens"], &want["text"], &want["truncated"]));
                assert_eq!(&cell["entryId"], &want["entryId"], "{rel} side {side}");
            }
        }
    }
}

/// The counts add up: every row is same, changed or diverged; a side's LLM tokens are the same
/// rows' and its own; the shared prefix ends where the rows diverge.
#[test]
fn the_counts_add_up_over_the_rows() {
    for (rel, rules, a, b, _) in CASES {
        let (s, bytes) = open(rel, rules);
        for (x, y) in [(a, b), (b, a)] {
            let cmp = compare_json(&s, &bytes, x, y, None);
            let rows = cmp["rows"].as_array().unwrap();
            let n = |op: &str| rows.iter().filter(|r| r["op"] == op).count() as u64;
            assert_eq!(cmp["rowCount"], rows.len() as u64);
            assert_eq!(
                (cmp["sameCount"].as_u64(), cmp["changedCount"].as_u64(), cmp["divergedCount"].as_u64()),
                (Some(n("same")), Some(n("changed")), Some(n("diverged")))
            );
            let shared = rows.iter().take_while(|r| r["op"] == "same").count();
            assert_eq!(cmp["sharedCount"], shared as u64, "{rel}");
            assert_eq!(cmp["divergeAt"], if shared < rows.len() { Value::from(shared) } else { Value::Null });
            for side in ["a", "b"] {
                let total = cmp["sameTokens"].as_u64().unwrap() + cmp[side]["onlyTokens"].as_u64().unwrap();
                assert_eq!(cmp[side]["llmTokens"].as_u64(), Some(total), "{rel} under {rules}, side {side}");
            }
            // A diverged cell is an entry off the other leaf's path; a changed row's entry is on both.
            for r in rows {
                match r["op"].as_str().unwrap() {
                    "changed" => assert_eq!(r["a"]["entryId"], r["b"]["entryId"], "{rel}: {r}"),
                    "same" => {
                        // Alike but for each message's place in its own context.
                        let without_place = |cell: &Value| {
                            let mut cell = cell.clone();
                            cell["message"].as_object_mut().unwrap().remove("i");
                            cell
                        };
                        assert_eq!(without_place(&r["a"]), without_place(&r["b"]), "{rel}: {r}");
                    }
                    _ => assert!(["a", "b"].iter().all(|k| r[k].is_null() || !r[k]["message"].is_null()), "{rel}: {r}"),
                }
            }
        }
    }
}

/// A leaf against itself: one shared run, no divergence, the leaf its own ancestor.
#[test]
fn a_leaf_against_itself_is_all_shared() {
    for (rel, rules, a, _, _) in CASES {
        let (s, bytes) = open(rel, rules);
        let cmp = compare_json(&s, &bytes, a, a, None);
        assert_eq!(cmp["divergeAt"], Value::Null, "{rel}");
        assert_eq!(cmp["commonAncestorId"], a);
        assert_eq!(cmp["sharedCount"], cmp["a"]["messageCount"]);
        assert_eq!(cmp["difference"]["llmTokens"], 0);
    }
}

/// Without text asked (the CLI) the cells carry numbers only; with it (the app) each sent one
/// carries its text, and everything else is the same document.
#[test]
fn text_adds_to_the_cells_and_changes_nothing_else() {
    for (rel, rules, a, b, _) in CASES {
        let (s, bytes) = open(rel, rules);
        let bare = compare_json(&s, &bytes, a, b, None);
        let mut with = compare_json(&s, &bytes, a, b, Some(80));
        for r in with["rows"].as_array_mut().unwrap() {
            for side in ["a", "b"] {
                if let Some(m) = r[side].get_mut("message").and_then(Value::as_object_mut) {
                    assert!(m.remove("text").is_some() && m.remove("truncated").is_some(), "{rel}: no text with text asked");
                }
            }
        }
        assert_eq!(bare, with, "{rel} under {rules}");
    }
}
