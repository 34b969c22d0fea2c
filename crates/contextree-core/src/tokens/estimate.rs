//! The agents' own per-message token estimate, `estimateTokens` (context.md
//! §3.1): UTF-16 characters / 4, rounded up. This is the number the agents
//! decide compaction with, so it must match exactly; it is not a token count.
//!
//! Measured on agent messages (before `convertToLlm`): summaries count their
//! raw summary, not the wrapped text. Fields of an unexpected type, on which
//! the agents would throw or produce NaN, count 0 here.

use serde_json::{Map, Value};

use crate::js::{stringify_len, utf16_len};
use crate::Dialect;

/// Characters (UTF-16 units) one image counts as (= 1200 tokens).
const IMAGE_CHARS: u64 = 4800;

/// The characters `estimateTokens` counts for one agent message.
pub fn estimate_message_chars(msg: &Map<String, Value>, dialect: Dialect) -> u64 {
    let role = msg.get("role").and_then(Value::as_str).unwrap_or("");
    match (role, dialect) {
        ("user", _) => user_chars(msg.get("content")),
        ("assistant", _) => assistant_chars(msg.get("content")),
        ("toolResult", _) | ("custom", Dialect::Pi) | ("hookMessage", Dialect::Omp) => {
            tool_result_chars(msg.get("content"))
        }
        ("bashExecution", _) => str_len(msg.get("command")) + str_len(msg.get("output")),
        ("branchSummary" | "compactionSummary", _) => str_len(msg.get("summary")),
        _ => 0,
    }
}

/// `ceil(chars / 4)`.
pub fn estimate_message(msg: &Map<String, Value>, dialect: Dialect) -> u64 {
    estimate_message_chars(msg, dialect).div_ceil(4)
}

fn str_len(v: Option<&Value>) -> u64 {
    v.and_then(Value::as_str).map_or(0, |s| utf16_len(s) as u64)
}

fn blocks(content: Option<&Value>) -> &[Value] {
    content.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn is_type(block: &Value, ty: &str) -> bool {
    block.get("type").and_then(Value::as_str) == Some(ty)
}

/// String content, or the text blocks; images count nothing in user messages.
fn user_chars(content: Option<&Value>) -> u64 {
    match content {
        Some(Value::String(s)) => utf16_len(s) as u64,
        _ => blocks(content)
            .iter()
            .filter(|b| is_type(b, "text"))
            .map(|b| str_len(b.get("text")))
            .sum(),
    }
}

/// Text, thinking, and tool calls as name + `JSON.stringify(arguments)`.
fn assistant_chars(content: Option<&Value>) -> u64 {
    blocks(content)
        .iter()
        .map(|b| match b.get("type").and_then(Value::as_str) {
            Some("text") => str_len(b.get("text")),
            Some("thinking") => str_len(b.get("thinking")),
            Some("toolCall") => {
                str_len(b.get("name")) + b.get("arguments").map_or(0, |a| stringify_len(a) as u64)
            }
            _ => 0,
        })
        .sum()
}

/// String content, or text blocks plus a flat amount per image.
fn tool_result_chars(content: Option<&Value>) -> u64 {
    match content {
        Some(Value::String(s)) => utf16_len(s) as u64,
        _ => blocks(content)
            .iter()
            .map(|b| {
                if is_type(b, "text") {
                    str_len(b.get("text"))
                } else if is_type(b, "image") {
                    IMAGE_CHARS
                } else {
                    0
                }
            })
            .sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn est(v: Value, d: Dialect) -> u64 {
        estimate_message(v.as_object().unwrap(), d)
    }

    #[test]
    fn spec_examples() {
        // E01 a1: 14 + 4 + 16 = 34 chars → 9.
        let a1 = json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "User wants ls."},
            {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "ls"}}]});
        assert_eq!(
            estimate_message_chars(a1.as_object().unwrap(), Dialect::Pi),
            34
        );
        assert_eq!(est(a1, Dialect::Omp), 9);
        // E16 u1: 24 + 22 units, the image counts nothing → 12.
        let u1 = json!({"role": "user", "content": [{"type": "text", "text": "Look at this screenshot "},
            {"type": "image", "data": "x", "mimeType": "image/png"}, {"type": "text", "text": "and fix the 😀 layout."}]});
        assert_eq!(est(u1, Dialect::Pi), 12);
        // E16 r2: one image → 1200.
        let r2 = json!({"role": "toolResult", "content": [{"type": "image", "data": "AAAA"}]});
        assert_eq!(est(r2, Dialect::Omp), 1200);
    }

    #[test]
    fn roles_per_dialect() {
        let custom = json!({"role": "custom", "content": "12345"});
        assert_eq!(est(custom.clone(), Dialect::Pi), 2);
        assert_eq!(est(custom, Dialect::Omp), 0);
        let hook = json!({"role": "hookMessage", "content": [{"type": "text", "text": "12345"}]});
        assert_eq!(est(hook.clone(), Dialect::Pi), 0);
        assert_eq!(est(hook, Dialect::Omp), 2);
        let bash = json!({"role": "bashExecution", "command": "ls", "output": "abc", "excludeFromContext": true});
        assert_eq!(est(bash, Dialect::Omp), 2);
        let summary = json!({"role": "compactionSummary", "summary": "123456789"});
        assert_eq!(est(summary, Dialect::Pi), 3);
        for role in ["developer", "fileMention", "pythonExecution", "other"] {
            assert_eq!(
                est(json!({"role": role, "content": "abcdef"}), Dialect::Omp),
                0
            );
        }
        let redacted =
            json!({"role": "assistant", "content": [{"type": "redactedThinking", "data": "zzzz"}]});
        assert_eq!(est(redacted, Dialect::Pi), 0);
    }
}
