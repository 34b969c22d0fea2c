//! `convertToLlm`, `estimateTokens` and `serializeConversation` against the
//! golden outputs of both agents (`tests/fixtures/synthetic/expected/`).
//!
//! Inputs: `tests/fixtures/llm-input/<name>.<pi|omp>.json` holds the agent
//! messages of the golden's leaf as the agent's `buildSessionContext` returned
//! them, and `<name>.<impl>.llm.json` the agent's own `convertToLlm` output
//! for them, field for field and in the agent's key order, with the prompt
//! prose replaced by the golden's placeholder text (docs/decisions.md D8). Both
//! were produced once with the oracle (`context FILE --leaf LEAF --full`,
//! `fullMessages` / `fullLlm`; `messages[].tokens` → `context-estimates.json`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use contextree_core::context::{convert_to_llm, serialize_conversation};
use contextree_core::prompts::PromptPack;
use contextree_core::tokens::estimate_message;
use contextree_core::Dialect;
use serde_json::Value;

fn fixtures() -> PathBuf {
    contextree_testkit::repo().join("tests/fixtures")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One golden case: `E09.omp` → (name `E09`, dialect omp).
struct Case {
    base: String,
    name: String,
    dialect: Dialect,
    golden: Value,
    messages: Vec<Value>,
    full_llm: Value,
}

fn cases() -> Vec<Case> {
    let dir = fixtures().join("llm-input");
    let mut bases: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| f.strip_suffix(".json").map(str::to_owned))
        .filter(|b| b.ends_with(".pi") || b.ends_with(".omp"))
        .collect();
    bases.sort();
    assert!(bases.len() >= 50, "expected the inputs of all 50 golden files, found {}", bases.len());
    bases
        .into_iter()
        .map(|base| {
            let (name, dialect) = base.rsplit_once('.').unwrap();
            let Value::Array(messages) = read_json(&dir.join(format!("{base}.json"))) else {
                panic!("{base}: not an array");
            };
            Case {
                name: name.to_owned(),
                dialect: dialect.parse().unwrap(),
                golden: read_json(&fixtures().join(format!("synthetic/expected/{base}.json"))),
                full_llm: read_json(&dir.join(format!("{base}.llm.json"))),
                messages,
                base,
            }
        })
        .collect()
}

/// The golden files' rendering of an LLM message: `{role, content}` with
/// string content kept and text blocks as plain strings.
fn golden_form(msg: &Value) -> Value {
    let content = match &msg["content"] {
        Value::Array(blocks) => Value::Array(
            blocks
                .iter()
                .map(|b| match b.get("type").and_then(Value::as_str) {
                    Some("text") => b["text"].clone(),
                    _ => b.clone(),
                })
                .collect(),
        ),
        other => other.clone(),
    };
    serde_json::json!({"role": msg["role"], "content": content})
}

#[test]
fn convert_to_llm_matches_both_agents() {
    for case in cases() {
        let pack = PromptPack::placeholders(case.dialect);
        let llm = convert_to_llm(&case.messages, contextree_core::RuleSet::oldest(case.dialect), &pack);
        assert_eq!(
            serde_json::to_string(&llm).unwrap(),
            serde_json::to_string(&case.full_llm).unwrap(),
            "{}: convertToLlm output (fields and key order)",
            case.base
        );
        let rendered: Vec<Value> = llm.iter().map(golden_form).collect();
        assert_eq!(Value::Array(rendered), case.golden["llm"], "{}: golden llm", case.base);
    }
}

/// Every `message` entry of the session file with the golden's id: the
/// entry's own id, or `#<entry index>` for the version-1 file. Messages of
/// files older than version 3 get the one migration step that matters for
/// estimates: role `hookMessage` becomes `custom` (session-format.md §5).
fn message_entries(name: &str) -> Vec<(String, Value)> {
    let file = name.split('-').next().unwrap();
    let path = fixtures().join(format!("synthetic/{file}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let migrates = header["version"].as_u64().unwrap_or(1) < 3;
    lines
        .enumerate()
        .filter_map(|(i, line)| {
            let entry: Value = serde_json::from_str(line).unwrap();
            (entry["type"] == "message").then(|| {
                let id = entry["id"].as_str().map_or_else(|| format!("#{i}"), str::to_owned);
                let mut msg = entry["message"].clone();
                if migrates && msg["role"] == "hookMessage" {
                    msg["role"] = Value::from("custom");
                }
                (id, msg)
            })
        })
        .collect()
}

#[test]
fn estimates_match_both_agents() {
    let mut checked = 0;
    for case in cases() {
        let Some(expected) = case.golden.get("estimates") else {
            continue;
        };
        let expected: BTreeMap<String, u64> = serde_json::from_value(expected.clone()).unwrap();
        let ours: BTreeMap<String, u64> = message_entries(&case.name)
            .into_iter()
            .map(|(id, msg)| (id, estimate_message(msg.as_object().unwrap(), contextree_core::RuleSet::oldest(case.dialect))))
            .collect();
        assert_eq!(ours, expected, "{}: estimates", case.base);
        checked += 1;
    }
    assert!(checked >= 48, "only {checked} golden files had estimates");
}

/// The context's agent messages include synthesized ones (summaries, custom
/// messages) that have no entry estimate in the goldens;
/// `llm-input/context-estimates.json` has the agent's estimate of every
/// context message (oracle `context`, `messages[].tokens`).
#[test]
fn context_message_estimates_match() {
    let all = read_json(&fixtures().join("llm-input/context-estimates.json"));
    for case in cases() {
        let ours: Vec<u64> = case
            .messages
            .iter()
            .map(|m| estimate_message(m.as_object().unwrap(), contextree_core::RuleSet::oldest(case.dialect)))
            .collect();
        let expected: Vec<u64> = serde_json::from_value(all[&case.base].clone()).unwrap();
        assert_eq!(ours, expected, "{}: context message estimates", case.base);
    }
}

#[test]
fn serialize_conversation_matches_e16() {
    for case in cases().into_iter().filter(|c| c.golden.get("serializedAll").is_some()) {
        let pack = PromptPack::placeholders(case.dialect);
        let llm = convert_to_llm(&case.messages, contextree_core::RuleSet::oldest(case.dialect), &pack);
        assert_eq!(
            serialize_conversation(&llm, contextree_core::RuleSet::oldest(case.dialect)),
            case.golden["serializedAll"].as_str().unwrap(),
            "{}: serializedAll",
            case.base
        );
    }
}
