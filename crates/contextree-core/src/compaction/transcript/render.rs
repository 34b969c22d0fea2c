//! What the transcript formats share: the prepared messages, literal writers, and the two
//! generic layouts (`Human:`/`Assistant:` text, ChatML).

use std::collections::HashSet;

use serde_json::Value;

use crate::js::{is_truthy, js_entries, number_to_js_string, push_js_string, stringify, to_js_string};
use crate::session::call_key;

/// One message as the formats see it, after the summary's preparation.
pub(super) enum Msg<'a> {
    /// Text blocks concatenated, thinking blocks joined by `\n`, tool-call blocks in order.
    Assistant { text: String, thinking: String, calls: Vec<&'a Value> },
    /// A tool result: its text only, already cut to the summary's length.
    ToolResult(ToolResult),
    /// `user`, `developer` (custom messages) or any other role, with its content as text
    /// (images as `[Image: type]`).
    Plain { role: String, text: String },
}

/// A tool result.
pub(super) struct ToolResult {
    pub id: String,
    pub name: String,
    pub text: String,
    pub is_error: bool,
}

/// The preparation `serializeConversation` does when given a dialect.
pub(super) fn prepare(llm: &[Value], drop_thinking: bool) -> Vec<Msg<'_>> {
    let useless: HashSet<u64> = llm.iter().filter_map(useless_key).collect();
    prepare_with(llm, drop_thinking, &useless)
}

/// The call id of a tool result flagged useless (and not an error), as a key of the set
/// [`prepare_with`] leaves out (an object id is in the agent's set but equal to no other id).
pub(super) fn useless_key(m: &Value) -> Option<u64> {
    let flagged = role(m) == "toolResult" && m.get("useless") == Some(&Value::Bool(true)) && m.get("isError") != Some(&Value::Bool(true));
    flagged.then(|| call_key(m.get("toolCallId"))).flatten()
}

/// [`prepare`] with the useless results' call ids already known (each message is prepared
/// alone: preparing a list is preparing its parts one after the other).
pub(super) fn prepare_with<'a>(llm: &'a [Value], drop_thinking: bool, useless: &HashSet<u64>) -> Vec<Msg<'a>> {
    let is_useless = |id: Option<&Value>| call_key(id).is_some_and(|k| useless.contains(&k));
    let mut out = Vec::with_capacity(llm.len());
    for msg in llm {
        match role(msg) {
            "assistant" => {
                let blocks = msg.get("content").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
                let kept: Vec<&Value> = blocks
                    .iter()
                    .filter(|b| match block_type(b) {
                        "toolCall" => !is_useless(b.get("id")),
                        "thinking" => !drop_thinking,
                        _ => true,
                    })
                    .collect();
                if kept.is_empty() {
                    continue;
                }
                let (mut text, mut thinking, mut calls) = (String::new(), Vec::new(), Vec::new());
                for b in kept {
                    match block_type(b) {
                        "text" => push_js_string(b.get("text"), &mut text),
                        "thinking" => thinking.push(join_item(b.get("thinking"))),
                        "toolCall" => calls.push(b),
                        _ => {}
                    }
                }
                out.push(Msg::Assistant { text, thinking: thinking.join("\n"), calls });
            }
            "toolResult" => {
                if is_useless(msg.get("toolCallId")) {
                    continue;
                }
                let text = crate::context::serialize::tool_result_summary_text(msg);
                if text.is_empty() {
                    continue;
                }
                out.push(Msg::ToolResult(ToolResult {
                    id: to_js_string(msg.get("toolCallId")),
                    name: to_js_string(msg.get("toolName")),
                    text,
                    is_error: is_truthy(msg.get("isError")),
                }));
            }
            r => {
                out.push(Msg::Plain { role: r.to_owned(), text: content_text(msg.get("content")) });
            }
        }
    }
    out
}

pub(super) fn role(msg: &Value) -> &str {
    msg.get("role").and_then(Value::as_str).unwrap_or("")
}

fn block_type(b: &Value) -> &str {
    b.get("type").and_then(Value::as_str).unwrap_or("")
}

/// An element of JS `join`: null and undefined are empty.
fn join_item(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        v => to_js_string(v),
    }
}

/// `messageContentText`: a string content as is; else text blocks' texts and `[Image: type]`
/// (`[Image]` without a type) for images, concatenated.
pub(super) fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            let mut out = String::new();
            for b in blocks {
                match block_type(b) {
                    "text" if b.get("text").is_some() => push_js_string(b.get("text"), &mut out),
                    "image" => {
                        let mime = b.get("mimeType");
                        if is_truthy(mime) {
                            out.push_str("[Image: ");
                            push_js_string(mime, &mut out);
                            out.push(']');
                        } else {
                            out.push_str("[Image]");
                        }
                    }
                    _ => {}
                }
            }
            out
        }
        _ => String::new(),
    }
}

/// A tool call's name as interpolated.
pub(super) fn call_name(call: &Value) -> String {
    to_js_string(call.get("name"))
}

/// A tool call's arguments in JS property order (`for … in`, `Object.entries`).
pub(super) fn call_args(call: &Value) -> Vec<(&String, &Value)> {
    match call.get("arguments") {
        Some(Value::Object(m)) => js_entries(m),
        _ => Vec::new(),
    }
}

/// `JSON.stringify(call.arguments) ?? "null"`.
pub(super) fn call_args_json(call: &Value) -> String {
    match call.get("arguments") {
        None => "null".to_owned(),
        Some(v) => stringify(v),
    }
}

/// A JSON number as JS prints it (`String(n)`).
pub(super) fn js_number(n: &serde_json::Number) -> String {
    number_to_js_string(n.as_f64().unwrap_or(f64::NAN))
}

/// A value as a Python literal (`True`/`False`/`None`, double-quoted escaped strings).
pub(super) fn py_value(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("None"),
        Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Value::Number(n) => out.push_str(&js_number(n)),
        Value::String(s) => py_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                py_value(item, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, item)) in js_entries(m).into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                py_string(k, out);
                out.push_str(": ");
                py_value(item, out);
            }
            out.push('}');
        }
    }
}

fn py_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
}

pub(super) fn escape_xml_attr(s: &str) -> String {
    s.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

pub(super) fn escape_xml_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// `<tool_response>\n…\n</tool_response>` per result, joined by `\n`.
pub(super) fn tool_response_results(results: &[&ToolResult]) -> String {
    results.iter().map(|r| format!("<tool_response>\n{}\n</tool_response>", r.text)).collect::<Vec<_>>().join("\n")
}

/// The run of consecutive tool results starting at `start`, and the index after it.
pub(super) fn result_run<'m>(msgs: &'m [Msg], start: usize) -> (Vec<&'m ToolResult>, usize) {
    let mut run = Vec::new();
    let mut next = start;
    while let Some(Msg::ToolResult(r)) = msgs.get(next) {
        run.push(r);
        next += 1;
    }
    (run, next)
}

fn ascii_ws(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ')
}

fn trim_end_at(text: &str, start: usize, end: usize) -> usize {
    let b = text.as_bytes();
    let mut i = end;
    while i > start && ascii_ws(b[i - 1]) {
        i -= 1;
    }
    i
}

fn trim_start_at(text: &str, start: usize, end: usize) -> usize {
    let b = text.as_bytes();
    let mut i = start;
    while i < end && ascii_ws(b[i]) {
        i += 1;
    }
    i
}

/// The matching close of an open delimiter whose body starts at `start` (nesting counted).
fn matching_close(open: &str, close: &str, text: &str, start: usize, end: usize) -> Option<usize> {
    let mut depth = 1;
    let mut cursor = start;
    while cursor < end {
        let next_close = text[cursor..].find(close).map(|i| i + cursor).filter(|&i| i < end)?;
        if let Some(next_open) = text[cursor..].find(open).map(|i| i + cursor) {
            if next_open < next_close {
                depth += 1;
                cursor = next_open + open.len();
                continue;
            }
        }
        depth -= 1;
        if depth == 0 {
            return Some(next_close);
        }
        cursor = next_close + close.len();
    }
    None
}

/// Thinking that is already wholly wrapped in the delimiters is unwrapped (recursively, blocks
/// joined by `\n`); anything else stays as is.
fn unwrap_delimited(open: &str, close: &str, text: &str) -> String {
    let end = trim_end_at(text, 0, text.len());
    let mut cursor = trim_start_at(text, 0, end);
    if cursor >= end || !text[cursor..].starts_with(open) {
        return text.to_owned();
    }
    let mut segments = Vec::new();
    while cursor < end {
        if !text[cursor..].starts_with(open) {
            return text.to_owned();
        }
        let inner_start = cursor + open.len();
        let Some(inner_end) = matching_close(open, close, text, inner_start, end) else { return text.to_owned() };
        let e = trim_end_at(text, inner_start, inner_end);
        let s = trim_start_at(text, inner_start, e);
        segments.push(unwrap_delimited(open, close, &text[s..e]));
        cursor = trim_start_at(text, inner_end + close.len(), end);
    }
    segments.join("\n")
}

/// `open\n<thinking, unwrapped>\nclose`, or nothing for empty thinking.
pub(super) fn delimited_thinking(open: &str, close: &str, text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    format!("{open}\n{}\n{close}", unwrap_delimited(open, close, text))
}

/// How a text-layout format writes thinking, calls and results.
pub(super) trait TextLayout {
    fn thinking(&self, text: &str) -> String;
    fn calls(&self, calls: &[&Value]) -> String;
    fn results(&self, results: &[&ToolResult]) -> String;
}

/// The `Human:` / `Assistant:` layout: each turn after a blank line (so the text starts with
/// one); a developer message as plain text after a blank line (none when empty, no separator
/// at the very start).
pub(super) fn text_layout(msgs: &[Msg], f: &dyn TextLayout) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < msgs.len() {
        match &msgs[i] {
            Msg::Assistant { text, thinking, calls } => {
                out.push_str("\n\nAssistant: ");
                out.push_str(&f.thinking(thinking));
                out.push_str(text);
                out.push_str(&f.calls(calls));
                i += 1;
            }
            Msg::ToolResult(_) => {
                let (run, next) = result_run(msgs, i);
                out.push_str("\n\nHuman: ");
                out.push_str(&f.results(&run));
                i = next;
            }
            Msg::Plain { role, text } => {
                if role == "developer" {
                    if !text.is_empty() {
                        if !out.is_empty() {
                            out.push_str("\n\n");
                        }
                        out.push_str(text);
                    }
                } else {
                    out.push_str("\n\nHuman: ");
                    out.push_str(text);
                }
                i += 1;
            }
        }
    }
    out
}

/// `<|im_start|>role\nbody<|im_end|>\n`.
pub(super) fn chatml_turn(role: &str, body: &str) -> String {
    format!("<|im_start|>{role}\n{body}<|im_end|>\n")
}
