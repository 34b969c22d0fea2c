//! The analytics reports on every fixture under every rule set: the breakdown sums to the
//! context's estimate.

use std::path::{Path, PathBuf};

use contextree_core::context::{build, Leaf};
use contextree_core::prompts::PromptPack;
use contextree_core::session::Session;
use contextree_core::RuleSet;
use contextree_read::{ContextOptions, ContextReport};
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

fn context_json(s: &Session, bytes: &Vec<u8>, breakdown: bool) -> Value {
    let ctx = build(s, Leaf::Last);
    let pack = PromptPack::own_for(s.rules());
    let options = ContextOptions { tokenizer: None, text_chars: None, breakdown };
    let report = ContextReport::new(s, &ctx, &pack, bytes, options).unwrap();
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
            // Asked or not, everything else is the same document.
            assert_eq!(json, context_json(&s, &bytes, false), "{at}");
            with_rows += usize::from(!rows.is_empty());
        }
        assert!(with_rows > 50, "{rules}: only {with_rows} fixtures have messages");
    }
}
