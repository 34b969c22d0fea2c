//! The `Human:` / `Assistant:` formats with `<invoke>` calls: anthropic (calls inside
//! `<function_calls>`, results inside `<function_results>`), minimax (calls inside
//! `<minimax:tool_call>`, same results) and the xml fallback (bare invokes, `<tool_response>`
//! results). Thinking is `<thinking>`-delimited in all three.

use serde_json::Value;

use super::render::{
    call_args, call_name, delimited_thinking, escape_xml_attr, escape_xml_text, text_layout, tool_response_results, Msg, TextLayout,
    ToolResult,
};
use crate::js::stringify;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Flavor {
    Anthropic,
    Minimax,
    Xml,
}

/// `<invoke name="n"><parameter name="k">JSON</parameter>…</invoke>` (no tool schemas are
/// known to the summarizer, so every value is JSON).
fn invoke(call: &Value) -> String {
    let mut out = format!("<invoke name=\"{}\">", escape_xml_attr(&call_name(call)));
    for (k, v) in call_args(call) {
        out.push_str(&format!("<parameter name=\"{}\">{}</parameter>", escape_xml_attr(k), stringify(v)));
    }
    out.push_str("</invoke>");
    out
}

/// `<result>`/`<error>` blocks with the tool name and stdout/stderr.
fn function_results(results: &[&ToolResult]) -> String {
    let body: Vec<String> = results
        .iter()
        .map(|r| {
            let (tag, stream) = if r.is_error { ("error", "stderr") } else { ("result", "stdout") };
            format!("<{tag}>\n<tool_name>{}</tool_name>\n<{stream}>{}</{stream}>\n</{tag}>", escape_xml_text(&r.name), r.text)
        })
        .collect();
    format!("<function_results>\n{}\n</function_results>", body.join("\n"))
}

impl TextLayout for Flavor {
    fn thinking(&self, text: &str) -> String {
        delimited_thinking("<thinking>", "</thinking>", text)
    }

    fn calls(&self, calls: &[&Value]) -> String {
        let body = calls.iter().map(|c| invoke(c)).collect::<Vec<_>>().join("\n");
        match self {
            Flavor::Xml => body,
            _ if calls.is_empty() => String::new(),
            Flavor::Anthropic => format!("<function_calls>\n{body}\n</function_calls>"),
            Flavor::Minimax => format!("<minimax:tool_call>\n{body}\n</minimax:tool_call>"),
        }
    }

    fn results(&self, results: &[&ToolResult]) -> String {
        match self {
            Flavor::Xml => tool_response_results(results),
            _ => function_results(results),
        }
    }
}

pub(super) fn transcript(msgs: &[Msg], flavor: Flavor) -> String {
    text_layout(msgs, &flavor)
}
