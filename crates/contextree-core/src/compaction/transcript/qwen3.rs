//! Qwen3: ChatML turns; calls as `<tool_call>\n{"name":…,"arguments":…}\n</tool_call>`,
//! results as `<tool_response>` blocks in a `user` turn, thinking in `<think>`.

use super::render::{chatml_turn, result_run, tool_response_results, Msg};
use crate::js::stringify;
use serde_json::Value;

/// `JSON.stringify({ name, arguments })` (an absent field is left out).
fn call(c: &Value) -> String {
    let mut m = serde_json::Map::new();
    for key in ["name", "arguments"] {
        if let Some(v) = c.get(key) {
            m.insert(key.to_owned(), v.clone());
        }
    }
    format!("<tool_call>\n{}\n</tool_call>", stringify(&Value::Object(m)))
}

pub(super) fn transcript(msgs: &[Msg]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < msgs.len() {
        match &msgs[i] {
            Msg::Assistant { text, thinking, calls } => {
                let think = if thinking.is_empty() { String::new() } else { format!("<think>\n{thinking}\n</think>") };
                let calls = calls.iter().map(|c| call(c)).collect::<Vec<_>>().join("\n");
                out.push_str(&chatml_turn("assistant", &format!("{think}{text}{calls}")));
                i += 1;
            }
            Msg::ToolResult(_) => {
                let (run, next) = result_run(msgs, i);
                out.push_str(&chatml_turn("user", &tool_response_results(&run)));
                i = next;
            }
            Msg::Plain { role, text } => {
                out.push_str(&chatml_turn(if role == "developer" { "system" } else { role }, text));
                i += 1;
            }
        }
    }
    out
}
