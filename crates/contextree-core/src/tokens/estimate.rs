//! The agents' own per-message token estimate, `estimateTokens` (context.md
//! §3.1): UTF-16 characters / 4, rounded up. This is the number the agents
//! decide compaction with, so it must match exactly; it is not a token count.
//!
//! Measured on agent messages (before `convertToLlm`): summaries count their
//! raw summary, not the wrapped text. Fields of an unexpected type, on which
//! the agents would throw or produce NaN, count 0 here.

use serde_json::{Map, Value};

use crate::js::{stringify_len, utf16_len};
use crate::{Dialect, RuleSet};

/// Characters (UTF-16 units) one image counts as (= 1200 tokens).
const IMAGE_CHARS: u64 = 4800;

/// The characters `estimateTokens` counts for one agent message.
pub(crate) fn estimate_message_chars(msg: &Map<String, Value>, rules: RuleSet) -> u64 {
    let mut chars = 0;
    for_each_fragment(msg, rules, &mut |frag| {
        chars += match frag {
            Fragment::Text(s) => utf16_len(s) as u64,
            Fragment::Json(v) => stringify_len(v) as u64,
            Fragment::Image => IMAGE_CHARS,
        }
    });
    chars
}

/// The rule set's estimate of one agent or LLM message: `ceil(chars / 4)`,
/// or under omp ≥ 18 its fragment count (`omp18_message_tokens`).
pub fn estimate_message(msg: &Map<String, Value>, rules: RuleSet) -> u64 {
    if rules.counts_utf8_fragments() {
        return omp18_message_tokens(msg);
    }
    estimate_message_chars(msg, rules).div_ceil(4)
}

/// Tokens one image counts in omp 18's `Tokenizer` (`IMAGE_TOKEN_ESTIMATE`).
pub(crate) const OMP18_IMAGE_TOKENS: u64 = 1200;

/// Tokens one snapcompact frame counts (`snapcompact.FRAME_TOKEN_ESTIMATE`).
pub(crate) const OMP18_FRAME_TOKENS: u64 = 5024;

/// omp's model-less count of one text fragment: `(UTF-8 bytes + 3) >> 2`.
pub(crate) fn utf8_fragment_tokens(bytes: u64) -> u64 {
    (bytes + 3) >> 2
}

/// omp 18's `Tokenizer.countMessage` without a model (omp-18.md §4.2): Σ over
/// the message's text fragments of `(UTF-8 bytes + 3) >> 2`, rounded per
/// fragment, plus 1200 per image (5024 per snapcompact frame of a
/// compaction summary). A lone surrogate in a text counts 3 bytes (Node's
/// `Buffer.byteLength` encodes it as U+FFFD); serde strings cannot hold one.
pub(crate) fn omp18_message_tokens(msg: &Map<String, Value>) -> u64 {
    let mut n = 0;
    omp18_parts(msg, &mut |_, t| n += t);
    n
}

/// [`omp18_message_tokens`] part by part: `f` gets each counted piece's tokens.
fn omp18_parts<'a>(msg: &'a Map<String, Value>, f: &mut dyn FnMut(PartKind<'a>, u64)) {
    let t = |s: &str| utf8_fragment_tokens(s.len() as u64);
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map_or(0, t);
    let blocks = || msg.get("content").and_then(Value::as_array).into_iter().flatten();
    let ty = |b: &Value| b.get("type").and_then(Value::as_str).map(str::to_owned);
    match msg.get("role").and_then(Value::as_str).unwrap_or("") {
        "bashExecution" => f(PartKind::Text, text(msg.get("command")) + text(msg.get("output"))),
        "user" | "developer" | "custom" | "hookMessage" | "toolResult" => match msg.get("content") {
            Some(Value::String(s)) => f(PartKind::Text, t(s)),
            _ => {
                for b in blocks() {
                    match ty(b).as_deref() {
                        Some("text") => f(PartKind::Text, text(b.get("text"))),
                        Some("image") => f(PartKind::Image, OMP18_IMAGE_TOKENS),
                        _ => {}
                    }
                }
            }
        },
        "assistant" => {
            for b in blocks() {
                match ty(b).as_deref() {
                    Some("text") => f(PartKind::Text, text(b.get("text"))),
                    Some("thinking") => f(PartKind::Thinking, text(b.get("thinking")) + text(b.get("thinkingSignature"))),
                    Some("toolCall") => {
                        let args = b.get("arguments").map_or_else(|| "null".to_owned(), crate::js::stringify);
                        f(PartKind::ToolCall(b.get("name").and_then(Value::as_str)), text(b.get("name")) + t(&args));
                    }
                    Some("redactedThinking") => f(PartKind::Thinking, text(b.get("data"))),
                    Some("anthropicServerTool") => {
                        let block = b.get("block").map_or_else(|| "null".to_owned(), crate::js::stringify);
                        f(PartKind::ToolCall(None), t(&block));
                    }
                    _ => {}
                }
            }
        }
        "branchSummary" => f(PartKind::Text, text(msg.get("summary"))),
        "compactionSummary" => {
            f(PartKind::Text, text(msg.get("summary")));
            if let Some(blocks) = msg.get("blocks").and_then(Value::as_array) {
                for b in blocks {
                    match ty(b).as_deref() {
                        Some("text") => f(PartKind::Text, text(b.get("text"))),
                        _ => f(PartKind::Image, OMP18_FRAME_TOKENS),
                    }
                }
            } else if let Some(images) = msg.get("images").and_then(Value::as_array) {
                f(PartKind::Image, images.len() as u64 * OMP18_FRAME_TOKENS);
            }
        }
        _ => {}
    }
}

/// Which part of a message a counted piece is, for the breakdown of an estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartKind<'a> {
    /// Text: a user's, an assistant's reply, a tool's output, a summary, a command.
    Text,
    /// An assistant's thinking (omp ≥ 18: with its signature, and redacted thinking).
    Thinking,
    /// A tool call (its name and arguments), with the tool's name.
    ToolCall(Option<&'a str>),
    /// An image (omp ≥ 18: also a snapcompact frame).
    Image,
    /// pi ≥ 0.86: a system message's prompt section, by name.
    Section(&'a str),
    /// pi ≥ 0.86: a system message's tool declarations.
    ToolDefinitions,
}

/// The parts of a message the rule set's estimate counts, in order, each with its weight in
/// the estimate's own unit: UTF-16 characters (an image 4800) whose sum `ceil(/ 4)` is the
/// estimate, or under omp ≥ 18 tokens already rounded per fragment, whose sum is the estimate.
/// A part can come more than once (two text blocks).
pub fn message_parts<'a>(msg: &'a Map<String, Value>, rules: RuleSet, f: &mut dyn FnMut(PartKind<'a>, u64)) {
    if rules.counts_utf8_fragments() {
        return omp18_parts(msg, f);
    }
    for_each_part(msg, rules, &mut |kind, frag| {
        f(
            kind,
            match frag {
                Fragment::Text(s) => utf16_len(s) as u64,
                Fragment::Json(v) => stringify_len(v) as u64,
                Fragment::Image => IMAGE_CHARS,
            },
        )
    });
}

/// One piece of a message that the estimate measures.
#[derive(Debug)]
pub(crate) enum Fragment<'a> {
    /// Text as it is.
    Text(&'a str),
    /// A value measured as `JSON.stringify` (tool-call arguments).
    Json(&'a Value),
    /// An image.
    Image,
}

/// Calls `f` for every fragment the rule set's `estimateTokens` measures in
/// an agent or LLM message (context.md §3.1, pi-1.6.md §3.1).
pub(crate) fn for_each_fragment<'a>(msg: &'a Map<String, Value>, rules: RuleSet, f: &mut dyn FnMut(Fragment<'a>)) {
    for_each_part(msg, rules, &mut |_, frag| f(frag));
}

/// [`for_each_fragment`], each fragment with the part of the message it belongs to.
fn for_each_part<'a>(msg: &'a Map<String, Value>, rules: RuleSet, f: &mut dyn FnMut(PartKind<'a>, Fragment<'a>)) {
    let dialect = rules.dialect();
    let role = msg.get("role").and_then(Value::as_str).unwrap_or("");
    let content = msg.get("content");
    let text = |kind: PartKind<'a>, v: Option<&'a Value>, f: &mut dyn FnMut(PartKind<'a>, Fragment<'a>)| {
        if let Some(s) = v.and_then(Value::as_str) {
            f(kind, Fragment::Text(s));
        }
    };
    let blocks = || content.and_then(Value::as_array).into_iter().flatten();
    let ty = |b: &Value| b.get("type").and_then(Value::as_str).map(str::to_owned);
    match (role, dialect) {
        ("user", _) => match content {
            Some(Value::String(s)) => f(PartKind::Text, Fragment::Text(s)),
            _ => {
                for b in blocks() {
                    match ty(b).as_deref() {
                        Some("text") => text(PartKind::Text, b.get("text"), f),
                        // pi ≥ 0.76 counts user images like tool-result images.
                        Some("image") if rules.counts_user_images() => f(PartKind::Image, Fragment::Image),
                        _ => {}
                    }
                }
            }
        },
        ("system", Dialect::Pi) if rules.projects_context_edits() => system_fragments(msg, f),
        ("assistant", _) => {
            for b in blocks() {
                match ty(b).as_deref() {
                    Some("text") => text(PartKind::Text, b.get("text"), f),
                    Some("thinking") => text(PartKind::Thinking, b.get("thinking"), f),
                    Some("toolCall") => {
                        let call = PartKind::ToolCall(b.get("name").and_then(Value::as_str));
                        text(call, b.get("name"), f);
                        if let Some(args) = b.get("arguments") {
                            f(call, Fragment::Json(args));
                        }
                    }
                    _ => {}
                }
            }
        }
        ("toolResult", _) | ("custom", Dialect::Pi) | ("hookMessage", Dialect::Omp) => match content {
            Some(Value::String(s)) => f(PartKind::Text, Fragment::Text(s)),
            _ => {
                for b in blocks() {
                    match ty(b).as_deref() {
                        Some("text") => text(PartKind::Text, b.get("text"), f),
                        Some("image") => f(PartKind::Image, Fragment::Image),
                        _ => {}
                    }
                }
            }
        },
        ("bashExecution", _) => {
            text(PartKind::Text, msg.get("command"), f);
            text(PartKind::Text, msg.get("output"), f);
        }
        ("branchSummary" | "compactionSummary", _) => text(PartKind::Text, msg.get("summary"), f),
        _ => {}
    }
}

/// pi ≥ 0.86's estimate of a system message: its content (string, or text
/// blocks and images), every non-empty section value, and the tool
/// declarations it adds as `JSON.stringify` (removals do not count).
fn system_fragments<'a>(msg: &'a Map<String, Value>, f: &mut dyn FnMut(PartKind<'a>, Fragment<'a>)) {
    match msg.get("content") {
        Some(Value::String(s)) => f(PartKind::Text, Fragment::Text(s)),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(s) = b.get("text").and_then(Value::as_str) {
                            f(PartKind::Text, Fragment::Text(s));
                        }
                    }
                    Some("image") => f(PartKind::Image, Fragment::Image),
                    _ => {}
                }
            }
        }
        _ => {}
    }
    for (name, v) in msg.get("sections").and_then(Value::as_object).into_iter().flatten() {
        if let Some(s) = v.as_str().filter(|s| !s.is_empty()) {
            f(PartKind::Section(name), Fragment::Text(s));
        }
    }
    if let Some(tools) = msg.get("toolsAdded").filter(|t| !t.is_null()) {
        f(PartKind::ToolDefinitions, Fragment::Json(tools));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn est(v: Value, d: RuleSet) -> u64 {
        estimate_message(v.as_object().unwrap(), d)
    }

    #[test]
    fn spec_examples() {
        // E01 a1: 14 + 4 + 16 = 34 chars → 9.
        let a1 = json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "User wants ls."},
            {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "ls"}}]});
        assert_eq!(estimate_message_chars(a1.as_object().unwrap(), RuleSet::Pi073), 34);
        assert_eq!(est(a1, RuleSet::Omp13), 9);
        // E16 u1: 24 + 22 units, the image counts nothing → 12.
        let u1 = json!({"role": "user", "content": [{"type": "text", "text": "Look at this screenshot "},
            {"type": "image", "data": "x", "mimeType": "image/png"}, {"type": "text", "text": "and fix the 😀 layout."}]});
        assert_eq!(est(u1, RuleSet::Pi073), 12);
        // E16 r2: one image → 1200.
        let r2 = json!({"role": "toolResult", "content": [{"type": "image", "data": "AAAA"}]});
        assert_eq!(est(r2, RuleSet::Omp13), 1200);
    }

    #[test]
    fn roles_per_dialect() {
        let custom = json!({"role": "custom", "content": "12345"});
        assert_eq!(est(custom.clone(), RuleSet::Pi073), 2);
        assert_eq!(est(custom, RuleSet::Omp13), 0);
        let hook = json!({"role": "hookMessage", "content": [{"type": "text", "text": "12345"}]});
        assert_eq!(est(hook.clone(), RuleSet::Pi073), 0);
        assert_eq!(est(hook, RuleSet::Omp13), 2);
        let bash = json!({"role": "bashExecution", "command": "ls", "output": "abc", "excludeFromContext": true});
        assert_eq!(est(bash, RuleSet::Omp13), 2);
        let summary = json!({"role": "compactionSummary", "summary": "123456789"});
        assert_eq!(est(summary, RuleSet::Pi073), 3);
        for role in ["developer", "fileMention", "pythonExecution", "other"] {
            assert_eq!(est(json!({"role": role, "content": "abcdef"}), RuleSet::Omp13), 0);
        }
        let redacted = json!({"role": "assistant", "content": [{"type": "redactedThinking", "data": "zzzz"}]});
        assert_eq!(est(redacted, RuleSet::Pi073), 0);
    }
}
