//! GLM: `[gMASK]<sop>`, then `<|role|>\n` turns; calls as `<tool_call>name` with
//! `<arg_key>`/`<arg_value>` pairs (JSON values), results as `<tool_response>` blocks after
//! `<|observation|>\n`, thinking as `\n<think>\n…\n</think>`.

use serde_json::Value;

use super::render::{call_args, call_name, result_run, tool_response_results, Msg};
use crate::js::stringify;

fn invocation(c: &Value) -> String {
    let mut out = format!("<tool_call>{}", call_name(c));
    for (k, v) in call_args(c) {
        out.push_str(&format!("\n<arg_key>{k}</arg_key>\n<arg_value>{}</arg_value>", stringify(v)));
    }
    out.push_str("\n</tool_call>");
    out
}

/// Written once, before the first message.
pub(super) const PREFIX: &str = "[gMASK]<sop>";

pub(super) fn transcript(msgs: &[Msg]) -> String {
    if msgs.is_empty() {
        return String::new();
    }
    let mut out = PREFIX.to_owned();
    let mut i = 0;
    while i < msgs.len() {
        match &msgs[i] {
            Msg::Assistant { text, thinking, calls } => {
                out.push_str("<|assistant|>\n");
                if !thinking.is_empty() {
                    out.push_str(&format!("\n<think>\n{thinking}\n</think>"));
                }
                out.push_str(text);
                out.push_str(&calls.iter().map(|c| invocation(c)).collect::<Vec<_>>().join("\n"));
                i += 1;
            }
            Msg::ToolResult(_) => {
                let (run, next) = result_run(msgs, i);
                out.push_str("<|observation|>\n");
                out.push_str(&tool_response_results(&run));
                i = next;
            }
            Msg::Plain { role, text } => {
                let role = if role == "developer" { "system" } else { role };
                out.push_str(&format!("<|{role}|>\n{text}"));
                i += 1;
            }
        }
    }
    out
}
