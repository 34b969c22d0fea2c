//! Harmony (OpenAI models, gpt-oss): `<|start|>role<|message|>text<|end|>`; a reply as an
//! `analysis` message (thinking), a `final` message (text) and one `commentary` message per
//! call addressed `to=functions.name` ending `<|call|>` (an empty `final` when it has none of
//! these); results from `functions.name to=assistant` on `commentary`. The whole text's
//! reserved tokens are then escaped (`<|start|>` → `<\|start\|>`), its own included.

use super::render::{call_args_json, call_name, result_run, Msg};

fn recipient(name: &str) -> String {
    if name.starts_with("functions.") {
        name.to_owned()
    } else {
        format!("functions.{name}")
    }
}

pub(super) fn transcript(msgs: &[Msg]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < msgs.len() {
        match &msgs[i] {
            Msg::Assistant { text, thinking, calls } => {
                if !thinking.is_empty() {
                    out.push_str(&format!("<|start|>assistant<|channel|>analysis<|message|>{thinking}<|end|>"));
                }
                if !text.is_empty() {
                    out.push_str(&format!("<|start|>assistant<|channel|>final<|message|>{text}<|end|>"));
                }
                for c in calls {
                    out.push_str(&format!(
                        "<|start|>assistant<|channel|>commentary to={}<|message|>{}<|call|>",
                        recipient(&call_name(c)),
                        call_args_json(c)
                    ));
                }
                if thinking.is_empty() && text.is_empty() && calls.is_empty() {
                    out.push_str("<|start|>assistant<|channel|>final<|message|><|end|>");
                }
                i += 1;
            }
            Msg::ToolResult(_) => {
                let (run, next) = result_run(msgs, i);
                for r in run {
                    out.push_str(&format!("<|start|>{} to=assistant<|channel|>commentary<|message|>{}<|end|>", recipient(&r.name), r.text));
                }
                i = next;
            }
            Msg::Plain { role, text } => {
                out.push_str(&format!("<|start|>{role}<|message|>{text}<|end|>"));
                i += 1;
            }
        }
    }
    out
}

/// `<|start|>`, `<|end|>`, `<|message|>`, `<|channel|>`, `<|constrain|>`, `<|return|>`,
/// `<|call|>` written `<\|…\|>`.
pub(super) fn escape_control_tokens(text: &str) -> String {
    const TOKENS: [&str; 7] = ["start", "end", "message", "channel", "constrain", "return", "call"];
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut rest = text;
    while let Some(at) = rest.find("<|") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        match TOKENS.iter().find(|t| tail.starts_with(*t) && tail[t.len()..].starts_with("|>")) {
            Some(t) => {
                out.push_str("<\\|");
                out.push_str(t);
                out.push_str("\\|>");
                rest = &tail[t.len() + 2..];
            }
            None => {
                out.push_str("<|");
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}
