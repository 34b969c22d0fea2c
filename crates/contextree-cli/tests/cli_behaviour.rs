//! The command line's contract beyond the numbers: exit codes, error messages
//! that name the file and the problem, one JSON document on stdout.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(rel)
}

fn contextree(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_contextree")).args(args).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_missing_file_exits_2_and_names_the_file() {
    let out = contextree(&["info", "/nonexistent/session.jsonl", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("/nonexistent/session.jsonl"), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
}

#[test]
fn an_unknown_leaf_exits_2_and_names_the_id() {
    let file = fixture("synthetic/E08.jsonl");
    let out = contextree(&["context", file.to_str().unwrap(), "--leaf", "no-such-id", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no-such-id"), "{}", stderr(&out));
}

#[test]
fn a_bad_flag_value_exits_2() {
    let file = fixture("synthetic/E08.jsonl");
    let out = contextree(&["info", file.to_str().unwrap(), "--dialect", "gpt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("gpt"), "{}", stderr(&out));
}

#[test]
fn malformed_lines_are_diagnostics_with_line_numbers_not_failures() {
    let file = fixture("edge/edge-concat-middle.jsonl");
    for dialect in ["pi", "omp"] {
        let out = contextree(&["info", file.to_str().unwrap(), "--json", "--dialect", dialect]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let diags = doc["diagnostics"].as_array().unwrap();
        assert!(diags.iter().any(|d| d["line"].as_u64().is_some_and(|l| l > 1) && d["severity"] == "error"), "{dialect}: {diags:?}");
    }
}

#[test]
fn an_invalid_header_is_reported_and_the_file_left_alone() {
    let file = fixture("edge/edge-invalid-header.jsonl");
    let before = std::fs::read(&file).unwrap();
    let out = contextree(&["info", file.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["valid"], false);
    assert!(doc["diagnostics"][0]["message"].as_str().unwrap().contains("not a session"));
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

#[test]
fn tokenizer_counts_come_only_when_asked() {
    let file = fixture("synthetic/E16.jsonl");
    let plain = contextree(&["context", file.to_str().unwrap(), "--json", "--prompts", "own"]);
    let doc: Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert!(doc.get("tokenizer").is_none());
    for name in ["o200k_base", "cl100k_base"] {
        let out = contextree(&["context", file.to_str().unwrap(), "--json", "--prompts", "own", "--tokenizer", name]);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["tokenizer"]["name"], name);
        // E16 holds 2,000+ characters of text and an image (a flat 1,200).
        let n = doc["tokenizer"]["llmTokens"].as_u64().unwrap();
        assert!(n > 1200 && n < doc["llmTokens"].as_u64().unwrap() + 1200, "{name}: {n}");
    }
}

#[test]
fn serialize_prints_the_text_and_nothing_else() {
    let file = fixture("synthetic/E16.jsonl");
    let raw = contextree(&["serialize", file.to_str().unwrap(), "--prompts", "own"]);
    let json = contextree(&["serialize", file.to_str().unwrap(), "--prompts", "own", "--json"]);
    let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(String::from_utf8(raw.stdout).unwrap(), doc["text"].as_str().unwrap());
    assert!(doc["text"].as_str().unwrap().starts_with("[User]: Look at this screenshot and fix the 😀 layout."));
}
