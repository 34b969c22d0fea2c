//! Gemma: `<bos>`, then `<|turn>role\n…<turn|>` (developer → `system`, assistant → `model`);
//! thinking in `<|channel>thought\n…<channel|>`, calls as `<|tool_call>call:name{k:v,…}
//! <tool_call|>`, results as `<|tool_response>response:name{output:v}<tool_response|>` — the
//! result text read as JSON when it parses — inside the model turn they follow.
//! Values: strings between `<|"|>` marks, numbers as JS prints them, `null`, `true`/`false`,
//! `[a,b]`, `{k:v}`.

use serde_json::Value;

use super::render::{call_args, call_name, js_number, result_run, Msg, ToolResult};
use crate::js::js_entries;

const STRING: &str = "<|\"|>";

fn value(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&js_number(n)),
        Value::String(s) => {
            out.push_str(STRING);
            out.push_str(s);
            out.push_str(STRING);
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                value(item, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, item)) in js_entries(m).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(k);
                out.push(':');
                value(item, out);
            }
            out.push('}');
        }
    }
}

fn call(c: &Value) -> String {
    let mut out = format!("<|tool_call>call:{}{{", call_name(c));
    for (i, (k, v)) in call_args(c).into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(k);
        out.push(':');
        value(v, &mut out);
    }
    out.push_str("}<tool_call|>");
    out
}

fn results(run: &[&ToolResult]) -> String {
    let mut out = String::new();
    for r in run {
        out.push_str(&format!("<|tool_response>response:{}{{output:", r.name));
        // `JSON.parse` of the text, else the text itself.
        match serde_json::from_str::<Value>(&r.text) {
            Ok(v) => value(&v, &mut out),
            Err(_) => value(&Value::String(r.text.clone()), &mut out),
        }
        out.push_str("}<tool_response|>");
    }
    out
}

fn turn(role: &str, body: &str) -> String {
    format!("<|turn>{role}\n{body}<turn|>")
}

/// Written once, before the first message.
pub(super) const PREFIX: &str = "<bos>";

pub(super) fn transcript(msgs: &[Msg]) -> String {
    if msgs.is_empty() {
        return String::new();
    }
    let mut out = PREFIX.to_owned();
    let mut i = 0;
    while i < msgs.len() {
        match &msgs[i] {
            Msg::Assistant { text, thinking, calls } => {
                let mut body = String::new();
                if !thinking.is_empty() {
                    body.push_str(&format!("<|channel>thought\n{thinking}<channel|>"));
                }
                body.push_str(text);
                for c in calls {
                    body.push_str(&call(c));
                }
                let (run, next) = result_run(msgs, i + 1);
                body.push_str(&results(&run));
                out.push_str(&turn("model", &body));
                i = next;
            }
            Msg::ToolResult(_) => {
                let (run, next) = result_run(msgs, i);
                out.push_str(&turn("model", &results(&run)));
                i = next;
            }
            Msg::Plain { role, text } => {
                out.push_str(&turn(if role == "developer" { "system" } else { role }, text));
                i += 1;
            }
        }
    }
    out
}
