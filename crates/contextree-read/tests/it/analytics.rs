//! The analytics reports on every fixture under every rule set: the breakdown sums to the
//! context's estimate, each turn's size is its last entry's context.

use std::path::{Path, PathBuf};

use contextree_core::context::{build, Leaf};
use contextree_core::prompts::PromptPack;
use contextree_core::session::{Session, Source};
use contextree_core::RuleSet;
use contextree_read::{ContextOptions, ContextReport, WeightReport};
use serde_json::Value;

/// Every session file under `tests/fixtures`, sorted.
pub(crate) fn fixtures() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![contextree_testkit::repo().join("tests/fixtures")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    assert!(out.len() > 50, "fixtures not found");
    out
}

fn context_json(s: &Session, source: &dyn Source, breakdown: bool) -> Value {
    context_json_with(s, source, Leaf::Last, breakdown)
}

fn context_json_at(s: &Session, source: &dyn Source, leaf: Leaf) -> Value {
    context_json_with(s, source, leaf, false)
}

fn context_json_with(s: &Session, source: &dyn Source, leaf: Leaf, breakdown: bool) -> Value {
    let ctx = build(s, leaf);
    let pack = PromptPack::own_for(s.rules());
    let options = ContextOptions { tokenizer: None, text_chars: None, breakdown };
    let report = ContextReport::new(s, &ctx, &pack, source, options).unwrap();
    let json = serde_json::to_value(&report).unwrap();
    report.finish().unwrap();
    json
}

fn rel(p: &Path) -> String {
    p.strip_prefix(contextree_testkit::repo().join("tests/fixtures")).unwrap_or(p).display().to_string()
}

#[test]
fn the_breakdown_sums_to_the_messages_estimate_on_every_fixture() {
    for rules in RuleSet::ALL {
        let mut with_rows = 0;
        for path in fixtures() {
            let bytes = std::fs::read(&path).unwrap();
            let s = Session::parse(&bytes, Some(rules));
            let mut json = context_json(&s, &bytes, true);
            let rows = json.as_object_mut().unwrap().remove("breakdown").unwrap();
            let rows = rows.as_array().unwrap();
            let tokens: u64 = rows.iter().map(|r| r["tokens"].as_u64().unwrap()).sum();
            let messages: u64 = rows.iter().map(|r| r["messages"].as_u64().unwrap()).sum();
            let at = format!("{} under {rules}", rel(&path));
            assert_eq!(tokens, json["messageTokens"].as_u64().unwrap(), "{at}");
            assert_eq!(messages, json["messageCount"].as_u64().unwrap(), "{at}");
            // Each message names the rows it has a part in; every row has a message in it.
            let mut seen = vec![false; rows.len()];
            for m in json["messages"].as_array_mut().unwrap() {
                let of = m.as_object_mut().unwrap().remove("breakdownRows").unwrap();
                for k in of.as_array().unwrap() {
                    seen[k.as_u64().unwrap() as usize] = true;
                }
            }
            assert!(seen.iter().all(|&s| s), "{at}: a row no message is in");
            // Asked or not, everything else is the same document.
            assert_eq!(json, context_json(&s, &bytes, false), "{at}");
            with_rows += usize::from(!rows.is_empty());
        }
        assert!(with_rows > 50, "{rules}: only {with_rows} fixtures have messages");
    }
}

/// The context after each turn is the context of its last entry taken as the leaf, whether
/// the report extended the previous turn's or built it again; the turns' deltas add up to it.
#[test]
fn each_turns_size_is_its_last_entrys_context_on_every_fixture() {
    for rules in RuleSet::ALL {
        let mut turns = 0;
        for path in fixtures() {
            let bytes = std::fs::read(&path).unwrap();
            let s = Session::parse(&bytes, Some(rules));
            let report = WeightReport::new(&s, Leaf::Last, 5, &bytes).unwrap();
            let at = format!("{} under {rules}", rel(&path));
            for t in &report.turns {
                let leaf = contextree_core::session::NodeId(t.last_entry_index);
                let json = context_json_at(&s, &bytes, Leaf::At(leaf));
                assert_eq!(t.tokens, json["messageTokens"].as_u64().unwrap(), "{at}, turn {}", t.turn);
                assert!(t.added <= t.tokens, "{at}, turn {}", t.turn);
            }
            let sum: i64 = report.turns.iter().map(|t| t.delta).sum();
            assert_eq!(sum, report.context_tokens as i64, "{at}");
            assert_eq!(report.context_tokens, context_json(&s, &bytes, false)["messageTokens"].as_u64().unwrap(), "{at}");
            assert!(report.top.windows(2).all(|w| w[0].tokens >= w[1].tokens), "{at}");
            turns += report.turns.len();
        }
        assert!(turns > 500, "{rules}: only {turns} turns");
    }
}

/// A pi session of one request: three reads, two of the same file.
fn three_reads() -> Vec<u8> {
    let mut lines = vec![r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#.to_owned()];
    let msg = |id: &str, parent: Option<&str>, m: String| {
        let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
        format!(r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2025-01-01T00:00:01.000Z","message":{m}}}"#)
    };
    lines.push(msg("u1", None, r#"{"role":"user","content":"read them","timestamp":1}"#.to_owned()));
    let mut parent = "u1".to_owned();
    for (k, (path, chars)) in [("src/a.rs", 40), ("src/b.rs", 8), ("src/a.rs", 80)].into_iter().enumerate() {
        let call = format!(
            r#"{{"role":"assistant","content":[{{"type":"toolCall","id":"c{k}","name":"read","arguments":{{"path":"{path}"}}}}],"stopReason":"toolUse","timestamp":2}}"#
        );
        lines.push(msg(&format!("a{k}"), Some(&parent), call));
        let result = format!(
            r#"{{"role":"toolResult","toolCallId":"c{k}","toolName":"read","content":[{{"type":"text","text":"{}"}}],"isError":false,"timestamp":3}}"#,
            "x".repeat(chars)
        );
        lines.push(msg(&format!("r{k}"), Some(&format!("a{k}")), result));
        parent = format!("r{k}");
    }
    (lines.join("\n") + "\n").into_bytes()
}

#[test]
fn a_file_read_twice_costs_its_earlier_read() {
    let bytes = three_reads();
    let s = Session::parse(&bytes, Some(RuleSet::Pi073));
    let report = WeightReport::new(&s, Leaf::Last, 2, &bytes).unwrap();
    let reads = &report.repeated_reads;
    assert_eq!(reads.len(), 1, "{reads:?}");
    // 40 characters → 10 tokens, 80 → 20: the earlier read is the repeat.
    assert_eq!((reads[0].path.as_str(), reads[0].reads, reads[0].tokens, reads[0].repeat_tokens), ("src/a.rs", 2, 30, 10));
    assert_eq!(reads[0].entry_ids, ["r0", "r2"]);
    // One request, one turn: everything after it.
    assert_eq!(report.turns.len(), 1);
    assert_eq!((report.turns[0].entries, report.turns[0].tokens), (7, report.context_tokens));
    // The largest two: the 80-character read, then the 40-character one.
    let top: Vec<_> = report.top.iter().map(|t| (t.entry_id.as_deref().unwrap(), t.tokens)).collect();
    assert_eq!(top, [("r2", 20), ("r0", 10)]);
}
