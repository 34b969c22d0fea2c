//! Gemini: `<bos>`, then `<start_of_turn>user|model\n…<end_of_turn>\n`; developer text is held
//! and joined (by `\n`) before the next user turn's text, or sent as a user turn of its own;
//! thinking as a ```` ```thinking ```` fence, calls as Python calls
//! `default_api.name(k=literal)` in a ```` ```tool_code ```` fence — one call bare, otherwise a
//! list, so a reply without calls still carries ```` ```tool_code\n[]\n``` ```` — and results in
//! ```` ```tool_outputs ```` fences.

use serde_json::Value;

use super::render::{call_args, call_name, py_value, result_run, Msg};

fn call(c: &Value) -> String {
    let mut out = format!("default_api.{}(", call_name(c));
    for (i, (k, v)) in call_args(c).into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(k);
        out.push('=');
        py_value(v, &mut out);
    }
    out.push(')');
    out
}

fn calls_block(calls: &[&Value]) -> String {
    let body =
        if calls.len() == 1 { call(calls[0]) } else { format!("[{}]", calls.iter().map(|c| call(c)).collect::<Vec<_>>().join(", ")) };
    format!("```tool_code\n{body}\n```")
}

fn turn(role: &str, body: &str) -> String {
    format!("<start_of_turn>{role}\n{body}<end_of_turn>\n")
}

fn join_bodies(left: &str, right: &str) -> String {
    match (left.is_empty(), right.is_empty()) {
        (true, _) => right.to_owned(),
        (_, true) => left.to_owned(),
        _ => format!("{left}\n{right}"),
    }
}

/// Written once, before the first message.
pub(super) const PREFIX: &str = "<bos>";

pub(super) fn transcript(msgs: &[Msg]) -> String {
    if msgs.is_empty() {
        return String::new();
    }
    let mut out = PREFIX.to_owned();
    let mut pending = String::new();
    let mut i = 0;
    while i < msgs.len() {
        if let Msg::Plain { role, text } = &msgs[i] {
            if role == "developer" {
                pending = join_bodies(&pending, text);
                i += 1;
                continue;
            }
            if role == "user" {
                out.push_str(&turn("user", &join_bodies(&pending, text)));
                pending.clear();
                i += 1;
                continue;
            }
        }
        if !pending.is_empty() {
            out.push_str(&turn("user", &pending));
            pending.clear();
        }
        match &msgs[i] {
            Msg::Assistant { text, thinking, calls } => {
                let think = if thinking.is_empty() { String::new() } else { format!("```thinking\n{thinking}\n```\n") };
                out.push_str(&turn("model", &format!("{think}{text}{}", calls_block(calls))));
                i += 1;
            }
            _ => {
                // Tool results; any other role is read as a run of none and skipped the same way.
                let (run, next) = result_run(msgs, i);
                let parts: Vec<String> = run.iter().map(|r| format!("```tool_outputs\n{}\n```", r.text)).collect();
                out.push_str(&turn("user", &parts.join("\n")));
                i = next.max(i + 1);
            }
        }
    }
    if !pending.is_empty() {
        out.push_str(&turn("user", &pending));
    }
    out
}
