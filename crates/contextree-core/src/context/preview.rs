//! A one-line preview of what an entry says, for tree rows.

use serde_json::Value;

use super::build::Item;
use super::materialize::agent_message;
use crate::session::{NodeId, Session, Source};

/// The first line of the entry's text, at most `max` characters.
pub fn entry_preview(session: &Session, node: NodeId, source: &dyn Source, max: usize) -> String {
    let e = session.entry(node);
    let text = match &*e.entry_type {
        "message" | "custom_message" | "branch_summary" => agent_message(session, Item::Entry(node), source).ok().map(|m| message_text(&m)),
        "compaction" => e.str_field("summary").map(str::to_owned),
        "label" => e.str_field("label").map(|_| format!("label → {}", e.str_field("targetId").unwrap_or(""))).or(Some("label cleared".into())),
        "model_change" => e.str_field("model").or(e.str_field("modelId")).map(str::to_owned),
        "thinking_level_change" => e.str_field("thinkingLevel").map(str::to_owned),
        "session_info" => e.str_field("name").map(str::to_owned),
        "custom" => e.str_field("customType").map(str::to_owned),
        _ => None,
    };
    let text = text.unwrap_or_default();
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    if line.chars().count() > max {
        let cut: String = line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}

/// The readable text of an agent message: text blocks, tool calls, commands.
pub fn message_text(msg: &Value) -> String {
    let s = |k: &str| msg.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    match msg.get("role").and_then(Value::as_str) {
        Some("bashExecution") => format!("$ {}", s("command")),
        Some("pythonExecution") => s("code"),
        Some("branchSummary" | "compactionSummary") => s("summary"),
        _ => match msg.get("content") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(blocks)) => {
                let parts: Vec<String> = blocks
                    .iter()
                    .filter_map(|b| match b.get("type").and_then(Value::as_str) {
                        Some("text") => b.get("text").and_then(Value::as_str).map(str::to_owned),
                        Some("toolCall") => Some(format!("→ {}", b.get("name").and_then(Value::as_str).unwrap_or("?"))),
                        Some("image") => Some("[image]".to_owned()),
                        _ => None,
                    })
                    .collect();
                parts.join(" ")
            }
            _ => String::new(),
        },
    }
}
