//! `serializeConversation` (compaction.md §6.1; identical in pi 0.73.1 and
//! omp 13.19; pi 1.6 differs, pi-1.6.md §4.5): the plain-text transcript
//! given to the summarizing model.
//!
//! Input is the output of `convertToLlm`, so only `user`, `assistant` and
//! `toolResult` produce text (pi 1.6's `system` messages produce none). Long
//! tool results are cut at 2000 UTF-16 units; a cut inside a surrogate pair
//! leaves U+FFFD under the older rules, as the agents' text becomes when sent
//! as UTF-8 ([`crate::js::slice_utf16`]), while pi 1.6 (`sliceHead`) keeps
//! the whole pair out. pi 1.6 also drops thinking blocks and reads a string
//! tool-result content as its text (`contentText`).

use serde_json::Value;

use crate::dialect::RuleSet;
use crate::js::{js_entries, push_js_string, slice_utf16, stringify_into, utf16_len};

/// Tool results longer than this (UTF-16 units) are truncated.
const TOOL_RESULT_MAX_CHARS: usize = 2000;

/// The whole transcript: every message's parts joined with a blank line.
pub fn serialize_conversation(llm: &[Value], rules: RuleSet) -> String {
    let mut out = String::new();
    let mut first = true;
    for msg in llm {
        serialize_message_into(msg, rules, &mut out, &mut first);
    }
    out
}

/// Appends one labelled part, preceded by the blank-line separator unless it is the first
/// part of the transcript (both serializers' layout).
fn push_part(out: &mut String, first: &mut bool, label: &str, body: &str) {
    if !std::mem::take(first) {
        out.push_str("\n\n");
    }
    out.push_str(label);
    out.push_str(body);
}

/// A user message's text: its string content, else its text blocks joined.
fn user_text(msg: &Value) -> String {
    match msg.get("content") {
        Some(Value::String(s)) => s.clone(),
        content => joined_texts(content),
    }
}

/// Appends one message's parts to `out`, each preceded by the blank-line
/// separator unless it is the first part of the transcript (`first` tracks
/// that across calls).
pub(crate) fn serialize_message_into(msg: &Value, rules: RuleSet, out: &mut String, first: &mut bool) {
    let pi16 = rules.serializes_without_thinking();
    let mut part = |label: &str, body: &str| push_part(out, first, label, body);
    match msg.get("role").and_then(Value::as_str) {
        Some("user") => {
            let text = user_text(msg);
            if !text.is_empty() {
                part("[User]: ", &text);
            }
        }
        Some("assistant") => {
            let (mut thinking, text, calls) = assistant_parts(msg.get("content"));
            if pi16 {
                thinking.clear();
            }
            for (label, items, sep) in
                [("[Assistant thinking]: ", thinking, "\n"), ("[Assistant]: ", text, "\n"), ("[Assistant tool calls]: ", calls, "; ")]
            {
                if !items.is_empty() {
                    part(label, &items.join(sep));
                }
            }
        }
        Some("toolResult") => {
            let text = match msg.get("content") {
                Some(Value::String(s)) if pi16 => s.clone(),
                content => joined_texts(content),
            };
            if !text.is_empty() {
                part("[Tool result]: ", &truncate_for_summary(text, pi16));
            }
        }
        _ => {}
    }
}

/// oh-my-pi ≥ 18's `serializeConversation` without a dialect (omp-18.md
/// §5.6): labels `[User]:`, `[Think]:`, `[Assistant]:`, `[Tool Call]:`,
/// `[Tool Result]:`; tool results flagged useless and their calls are left
/// out (`useless` tells whether a call id, present or not, is one of theirs),
/// `developer` is ignored.
pub(crate) fn serialize_omp18_into(msg: &Value, useless: &dyn Fn(Option<&Value>) -> bool, out: &mut String, first: &mut bool) {
    let mut part = |label: &str, body: &str| push_part(out, first, label, body);
    match msg.get("role").and_then(Value::as_str) {
        Some("user") => {
            let text = user_text(msg);
            if !text.is_empty() {
                part("[User]: ", &text);
            }
        }
        Some("assistant") => {
            let (mut thinking, mut text, mut calls) = (Vec::new(), Vec::new(), Vec::new());
            for block in msg.get("content").and_then(Value::as_array).map_or(&[][..], Vec::as_slice) {
                let mut item = String::new();
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        push_join_item(block.get("text"), &mut item);
                        text.push(item);
                    }
                    Some("thinking") => {
                        push_join_item(block.get("thinking"), &mut item);
                        thinking.push(item);
                    }
                    Some("toolCall") if !useless(block.get("id")) => calls.push(tool_call(block)),
                    _ => {}
                }
            }
            for (label, items, sep) in [("[Think]: ", thinking, "\n"), ("[Assistant]: ", text, "\n"), ("[Tool Call]: ", calls, "; ")] {
                if !items.is_empty() {
                    part(label, &items.join(sep));
                }
            }
        }
        Some("toolResult") if !useless(msg.get("toolCallId")) => {
            let text = joined_texts(msg.get("content"));
            if !text.is_empty() {
                part("[Tool Result]: ", &truncate_for_summary(text, false));
            }
        }
        _ => {}
    }
}

/// A tool result's text as the summary input shows it: the text blocks
/// joined, cut at 2000 UTF-16 units with the truncation note.
pub(crate) fn tool_result_summary_text(msg: &Value) -> String {
    let text = joined_texts(msg.get("content"));
    if text.is_empty() {
        return text;
    }
    truncate_for_summary(text, false)
}

/// The `text` of every text block, concatenated (JS `join("")`: a missing
/// text is empty).
fn joined_texts(content: Option<&Value>) -> String {
    let mut text = String::new();
    for block in content.and_then(Value::as_array).map_or(&[][..], Vec::as_slice) {
        if block.get("type").and_then(Value::as_str) == Some("text") {
            push_join_item(block.get("text"), &mut text);
        }
    }
    text
}

/// An element of JS `array.join`: `null`/`undefined` add nothing.
fn push_join_item(v: Option<&Value>, out: &mut String) {
    if !matches!(v, None | Some(Value::Null)) {
        push_js_string(v, out);
    }
}

/// Thinking texts, texts and rendered tool calls, in block order.
fn assistant_parts(content: Option<&Value>) -> (Vec<String>, Vec<String>, Vec<String>) {
    let (mut thinking, mut text, mut calls) = (Vec::new(), Vec::new(), Vec::new());
    for block in content.and_then(Value::as_array).map_or(&[][..], Vec::as_slice) {
        let mut item = String::new();
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                push_join_item(block.get("text"), &mut item);
                text.push(item);
            }
            Some("thinking") => {
                push_join_item(block.get("thinking"), &mut item);
                thinking.push(item);
            }
            Some("toolCall") => calls.push(tool_call(block)),
            _ => {}
        }
    }
    (thinking, text, calls)
}

/// `name(k1=JSON(v1), k2=JSON(v2))` over `Object.entries(arguments)`.
fn tool_call(block: &Value) -> String {
    let mut out = String::new();
    push_js_string(block.get("name"), &mut out);
    out.push('(');
    let mut first = true;
    let mut key = |out: &mut String, k: &str| {
        if !std::mem::take(&mut first) {
            out.push_str(", ");
        }
        out.push_str(k);
        out.push('=');
    };
    match block.get("arguments") {
        Some(Value::Object(args)) => {
            for (k, v) in js_entries(args) {
                key(&mut out, k);
                stringify_into(v, &mut out);
            }
        }
        Some(Value::Array(items)) => {
            for (i, v) in items.iter().enumerate() {
                key(&mut out, &i.to_string());
                stringify_into(v, &mut out);
            }
        }
        // `Object.entries` of a string: one entry per UTF-16 unit.
        Some(Value::String(s)) => {
            for (i, unit) in s.encode_utf16().enumerate() {
                key(&mut out, &i.to_string());
                push_json_utf16_unit(unit, &mut out);
            }
        }
        // Numbers and booleans have no entries; null/missing make the agents
        // throw, shown here as an empty call.
        _ => {}
    }
    out.push(')');
    out
}

/// `JSON.stringify` of a one-unit JS string; a surrogate half is escaped.
fn push_json_utf16_unit(unit: u16, out: &mut String) {
    match char::from_u32(u32::from(unit)) {
        Some(c) => stringify_into(&Value::from(c.to_string()), out),
        None => out.push_str(&format!("\"\\u{unit:04x}\"")),
    }
}

/// `text.slice(0, 2000) + "\n\n[... N more characters truncated]"` for text
/// longer than 2000 UTF-16 units; with `whole_pairs` (pi 1.6's `sliceHead`)
/// a character that would be split is left out instead. N is `len − 2000`
/// either way.
fn truncate_for_summary(text: String, whole_pairs: bool) -> String {
    let len = utf16_len(&text);
    if len <= TOOL_RESULT_MAX_CHARS {
        return text;
    }
    let mut out = if whole_pairs { slice_utf16_whole(&text, TOOL_RESULT_MAX_CHARS) } else { slice_utf16(&text, TOOL_RESULT_MAX_CHARS) };
    out.push_str(&format!("\n\n[... {} more characters truncated]", len - TOOL_RESULT_MAX_CHARS));
    out
}

/// The longest prefix of `s` of at most `end_units` UTF-16 units that ends
/// on a character boundary (pi 1.6's `sliceHead`).
fn slice_utf16_whole(s: &str, end_units: usize) -> String {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        units += c.len_utf16();
        if units > end_units {
            return s[..i].to_owned();
        }
    }
    s.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ser(msgs: Value) -> String {
        serialize_conversation(msgs.as_array().unwrap(), RuleSet::Pi073)
    }

    fn ser16(msgs: Value) -> String {
        serialize_conversation(msgs.as_array().unwrap(), RuleSet::Pi16)
    }

    #[test]
    fn parts_and_separators() {
        let msgs = json!([
            {"role": "user", "content": [{"type": "text", "text": "a "}, {"type": "image"}, {"type": "text", "text": "b"}]},
            {"role": "user", "content": ""},
            {"role": "assistant", "content": [
                {"type": "toolCall", "name": "read", "arguments": {"path": "x", "10": 1, "n": null}},
                {"type": "text", "text": "t1"}, {"type": "thinking", "thinking": "k1"},
                {"type": "redactedThinking", "data": "z"}, {"type": "text", "text": "t2"},
                {"type": "toolCall", "name": "ls", "arguments": {}}]},
            {"role": "toolResult", "content": [{"type": "image"}]},
            {"role": "developer", "content": "dev"},
            {"role": "toolResult", "content": [{"type": "text", "text": "ok"}]}
        ]);
        assert_eq!(
            ser(msgs),
            "[User]: a b\n\n[Assistant thinking]: k1\n\n[Assistant]: t1\nt2\n\n\
             [Assistant tool calls]: read(10=1, path=\"x\", n=null); ls()\n\n[Tool result]: ok"
        );
    }

    #[test]
    fn streaming_matches_whole() {
        let msgs = json!([{"role": "user", "content": "x"}, {"role": "toolResult", "content": []},
                          {"role": "user", "content": "y"}]);
        let mut out = String::new();
        let mut first = true;
        for m in msgs.as_array().unwrap() {
            serialize_message_into(m, RuleSet::Pi073, &mut out, &mut first);
        }
        assert_eq!(out, ser(msgs));
        assert_eq!(out, "[User]: x\n\n[User]: y");
    }

    #[test]
    fn tool_results_cut_at_2000_units() {
        let text = "a".repeat(2005);
        let out = ser(json!([{"role": "toolResult", "content": [{"type": "text", "text": text}]}]));
        assert_eq!(out, format!("[Tool result]: {}\n\n[... 5 more characters truncated]", "a".repeat(2000)));
        let exact = "a".repeat(2000);
        let out = ser(json!([{"role": "toolResult", "content": [{"type": "text", "text": exact}]}]));
        assert_eq!(out, format!("[Tool result]: {exact}"));
        // The cut splits the emoji (2 units): its lone half is sent as U+FFFD.
        let text = format!("{}😀b", "a".repeat(1999));
        let out = ser(json!([{"role": "toolResult", "content": [{"type": "text", "text": text}]}]));
        assert_eq!(out, format!("[Tool result]: {}\u{FFFD}\n\n[... 2 more characters truncated]", "a".repeat(1999)));
    }

    #[test]
    fn pi16_drops_thinking_and_system() {
        let msgs = json!([
            {"role": "system", "content": "you are", "sections": {"a": "b"}},
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "k"}, {"type": "text", "text": "t"}]},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "only"}]},
            {"role": "toolResult", "content": "plain"}
        ]);
        assert_eq!(ser16(msgs), "[User]: q\n\n[Assistant]: t\n\n[Tool result]: plain");
    }

    #[test]
    fn pi16_cut_keeps_surrogate_pairs_whole() {
        // pi-1.6.md §4.5's run: 1999×a + 😀 + b → 1999×a, remainder still 2.
        let text = format!("{}😀b", "a".repeat(1999));
        let out = ser16(json!([{"role": "toolResult", "content": [{"type": "text", "text": text}]}]));
        assert_eq!(out, format!("[Tool result]: {}\n\n[... 2 more characters truncated]", "a".repeat(1999)));
        let text = format!("{}😀b", "a".repeat(1998));
        let out = ser16(json!([{"role": "toolResult", "content": [{"type": "text", "text": text}]}]));
        assert_eq!(out, format!("[Tool result]: {}😀\n\n[... 1 more characters truncated]", "a".repeat(1998)));
    }

    #[test]
    fn odd_arguments_like_object_entries() {
        let call = |args: Value| tool_call(&json!({"type": "toolCall", "name": "f", "arguments": args}));
        assert_eq!(call(json!(["x", 2])), "f(0=\"x\", 1=2)");
        assert_eq!(call(json!("a😀")), "f(0=\"a\", 1=\"\\ud83d\", 2=\"\\ude00\")");
        assert_eq!(call(json!(5)), "f()");
        assert_eq!(call(json!(null)), "f()");
    }
}
