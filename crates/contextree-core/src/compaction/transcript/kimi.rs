//! Kimi: `<|im_role|>name<|im_middle|>body<|im_end|>` turns (developer → system/system);
//! calls as `<|tool_call_begin|>id<|tool_call_argument_begin|>JSON<|tool_call_end|>` inside a
//! `<|tool_calls_section_begin|>…<|tool_calls_section_end|>` section, each result a system turn
//! named after its tool, `## Return of id\n…`. An id is the call id when it (trimmed) starts
//! with `functions.`, else `functions.name:index` (index within the reply, or the result run).

use super::render::{call_args_json, call_name, result_run, Msg};
use crate::js::{js_trim, to_js_string};

fn call_id(name: &str, id: &str, index: usize) -> String {
    let trimmed = js_trim(id);
    if trimmed.starts_with("functions.") {
        trimmed.to_owned()
    } else {
        format!("functions.{name}:{index}")
    }
}

fn turn(role: &str, name: &str, body: &str) -> String {
    format!("<|im_{role}|>{name}<|im_middle|>{body}<|im_end|>")
}

pub(super) fn transcript(msgs: &[Msg]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < msgs.len() {
        match &msgs[i] {
            Msg::Assistant { text, thinking, calls } => {
                let mut body = String::new();
                if !thinking.is_empty() {
                    body.push_str(&format!("<think>\n{thinking}\n</think>"));
                }
                body.push_str(text);
                if !calls.is_empty() {
                    body.push_str("<|tool_calls_section_begin|>");
                    for (index, c) in calls.iter().enumerate() {
                        let name = call_name(c);
                        let id = call_id(&name, &to_js_string(c.get("id")), index);
                        body.push_str(&format!(
                            "<|tool_call_begin|>{id}<|tool_call_argument_begin|>{}<|tool_call_end|>",
                            call_args_json(c)
                        ));
                    }
                    body.push_str("<|tool_calls_section_end|>");
                }
                out.push_str(&turn("assistant", "assistant", &body));
                i += 1;
            }
            Msg::ToolResult(_) => {
                let (run, next) = result_run(msgs, i);
                for (index, r) in run.iter().enumerate() {
                    let body = format!("## Return of {}\n{}", call_id(&r.name, &r.id, index), r.text);
                    out.push_str(&turn("system", &r.name, &body));
                }
                i = next;
            }
            Msg::Plain { role, text } => {
                let role = if role == "developer" { "system" } else { role };
                out.push_str(&turn(role, role, text));
                i += 1;
            }
        }
    }
    out
}
