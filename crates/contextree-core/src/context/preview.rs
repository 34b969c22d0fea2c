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
        "label" => {
            e.str_field("label").map(|_| format!("label → {}", e.str_field("targetId").unwrap_or(""))).or(Some("label cleared".into()))
        }
        "model_change" => e.str_field("model").or(e.str_field("modelId")).map(str::to_owned),
        "thinking_level_change" => e.str_field("thinkingLevel").map(str::to_owned),
        "session_info" => e.str_field("name").map(str::to_owned),
        "custom" => e.str_field("customType").map(str::to_owned),
        "context_edit" => {
            let target = e.str_field("targetId").unwrap_or("?");
            match e.object().and_then(|m| m.get("replacement")) {
                Some(Value::Null) => Some(format!("hides {target}")),
                Some(r) => Some(format!("replaces {target}: {}", message_text(r))),
                None => Some(format!("edits {target}")),
            }
        }
        "usage" => {
            let f = |k: &str| e.str_field(k).unwrap_or("");
            let total = e.object().and_then(|m| m.get("usage")).and_then(|u| u.get("totalTokens")).and_then(Value::as_f64);
            Some(format!("{} · {}/{}{}", f("kind"), f("provider"), f("model"), total.map_or(String::new(), |t| format!(" · {t} tokens"))))
        }
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
pub(crate) fn message_text(msg: &Value) -> String {
    let s = |k: &str| msg.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    match msg.get("role").and_then(Value::as_str) {
        Some("bashExecution") => format!("$ {}", s("command")),
        Some("pythonExecution") => s("code"),
        Some("branchSummary" | "compactionSummary") => s("summary"),
        Some("system") => system_text(msg),
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

/// A system message in one line of words: its content, else what it sets.
fn system_text(msg: &Value) -> String {
    let content = match msg.get("content") {
        Some(Value::String(t)) => t.clone(),
        _ => String::new(),
    };
    if !content.trim().is_empty() {
        return content;
    }
    let names = |k: &str, keep: fn(&Value) -> bool| -> Vec<String> {
        msg.get(k).and_then(Value::as_object).into_iter().flatten().filter(|(_, v)| keep(v)).map(|(n, _)| n.clone()).collect()
    };
    let tools = |k: &str| -> Vec<String> {
        msg.get(k)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| t.get("name").and_then(Value::as_str))
            .map(str::to_owned)
            .collect()
    };
    let mut parts = Vec::new();
    let (set, removed) = (names("sections", |v| !v.is_null()), names("sections", Value::is_null));
    if !set.is_empty() {
        parts.push(format!("sections {}", set.join(", ")));
    }
    if !removed.is_empty() {
        parts.push(format!("removes {}", removed.join(", ")));
    }
    let (added, dropped) = (tools("toolsAdded"), tools("toolsRemoved"));
    if !added.is_empty() {
        parts.push(format!("tools +{}", added.join(" +")));
    }
    if !dropped.is_empty() {
        parts.push(format!("tools −{}", dropped.join(" −")));
    }
    format!("system prompt: {}", if parts.is_empty() { "no change".to_owned() } else { parts.join("; ") })
}
