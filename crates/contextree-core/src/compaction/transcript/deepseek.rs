//! DeepSeek: one `<｜begin▁of▁sentence｜>`, then `<｜User｜>text`,
//! `<｜Assistant｜>…<｜end▁of▁sentence｜>`, calls as `<｜tool▁call▁begin｜>name<｜tool▁sep｜>JSON
//! <｜tool▁call▁end｜>` inside `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`, results as
//! `<｜tool▁output▁begin｜>…<｜tool▁output▁end｜>` joined by `\n`; developer text bare.

use super::render::{call_args_json, call_name, result_run, Msg};

const CALLS_BEGIN: &str = "<｜tool▁calls▁begin｜>";
const CALLS_END: &str = "<｜tool▁calls▁end｜>";
const CALL_BEGIN: &str = "<｜tool▁call▁begin｜>";
const CALL_END: &str = "<｜tool▁call▁end｜>";
const SEP: &str = "<｜tool▁sep｜>";
const OUTPUT_BEGIN: &str = "<｜tool▁output▁begin｜>";
const OUTPUT_END: &str = "<｜tool▁output▁end｜>";
const BOS: &str = "<｜begin▁of▁sentence｜>";
const USER: &str = "<｜User｜>";
const ASSISTANT: &str = "<｜Assistant｜>";
const EOS: &str = "<｜end▁of▁sentence｜>";

/// Written once, before the first message.
pub(super) const PREFIX: &str = BOS;

pub(super) fn transcript(msgs: &[Msg]) -> String {
    if msgs.is_empty() {
        return String::new();
    }
    let mut out = PREFIX.to_owned();
    let mut i = 0;
    while i < msgs.len() {
        match &msgs[i] {
            Msg::Assistant { text, thinking, calls } => {
                out.push_str(ASSISTANT);
                if !thinking.is_empty() {
                    out.push_str(&format!("<think>\n{thinking}\n</think>"));
                }
                out.push_str(text);
                if !calls.is_empty() {
                    out.push_str(CALLS_BEGIN);
                    for c in calls {
                        out.push_str(&format!("{CALL_BEGIN}{}{SEP}{}{CALL_END}", call_name(c), call_args_json(c)));
                    }
                    out.push_str(CALLS_END);
                }
                out.push_str(EOS);
                i += 1;
            }
            Msg::ToolResult(_) => {
                let (run, next) = result_run(msgs, i);
                let parts: Vec<String> = run.iter().map(|r| format!("{OUTPUT_BEGIN}{}{OUTPUT_END}", r.text)).collect();
                out.push_str(&parts.join("\n"));
                i = next;
            }
            Msg::Plain { role, text } => {
                if role != "developer" {
                    out.push_str(USER);
                }
                out.push_str(text);
                i += 1;
            }
        }
    }
    out
}
