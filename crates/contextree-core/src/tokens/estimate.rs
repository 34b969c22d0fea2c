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
    let mut chars = 0;
    for_each_fragment(msg, dialect, &mut |frag| {
        chars += match frag {
            Fragment::Text(s) => utf16_len(s) as u64,
            Fragment::Json(v) => stringify_len(v) as u64,
            Fragment::Image => IMAGE_CHARS,
        }
    });
    chars
}

/// `ceil(chars / 4)`.
pub fn estimate_message(msg: &Map<String, Value>, dialect: Dialect) -> u64 {
    estimate_message_chars(msg, dialect).div_ceil(4)
}

/// One piece of a message that the estimate measures.
#[derive(Debug)]
pub enum Fragment<'a> {
    /// Text as it is.
    Text(&'a str),
    /// A value measured as `JSON.stringify` (tool-call arguments).
    Json(&'a Value),
    /// An image.
    Image,
}

/// Calls `f` for every fragment the dialect's `estimateTokens` measures in an
/// agent or LLM message (context.md §3.1).
pub fn for_each_fragment<'a>(msg: &'a Map<String, Value>, dialect: Dialect, f: &mut dyn FnMut(Fragment<'a>)) {
    let role = msg.get("role").and_then(Value::as_str).unwrap_or("");
    let content = msg.get("content");
    let text = |v: Option<&'a Value>, f: &mut dyn FnMut(Fragment<'a>)| {
        if let Some(s) = v.and_then(Value::as_str) {
            f(Fragment::Text(s));
        }
    };
    let blocks = || content.and_then(Value::as_array).into_iter().flatten();
    let ty = |b: &Value| b.get("type").and_then(Value::as_str).map(str::to_owned);
    match (role, dialect) {
        ("user", _) => match content {
            Some(Value::String(s)) => f(Fragment::Text(s)),
            _ => blocks().filter(|b| ty(b).as_deref() == Some("text")).for_each(|b| text(b.get("text"), f)),
        },
        ("assistant", _) => {
            for b in blocks() {
                match ty(b).as_deref() {
                    Some("text") => text(b.get("text"), f),
                    Some("thinking") => text(b.get("thinking"), f),
                    Some("toolCall") => {
                        text(b.get("name"), f);
                        if let Some(args) = b.get("arguments") {
                            f(Fragment::Json(args));
                        }
                    }
                    _ => {}
                }
            }
        }
        ("toolResult", _) | ("custom", Dialect::Pi) | ("hookMessage", Dialect::Omp) => match content {
            Some(Value::String(s)) => f(Fragment::Text(s)),
            _ => {
                for b in blocks() {
                    match ty(b).as_deref() {
                        Some("text") => text(b.get("text"), f),
                        Some("image") => f(Fragment::Image),
                        _ => {}
                    }
                }
            }
        },
        ("bashExecution", _) => {
            text(msg.get("command"), f);
            text(msg.get("output"), f);
        }
        ("branchSummary" | "compactionSummary", _) => text(msg.get("summary"), f),
        _ => {}
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
