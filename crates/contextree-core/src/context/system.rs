//! pi ≥ 0.86's system prompt and tools, as the file determines them
//! (pi-1.6.md §2.5): the system messages of a context replayed into the one
//! system message a request leads with (`getCurrentSystemMessage`), and its
//! rendered prompt text (`getSystemMessageText`).

use serde_json::{Map, Value};

use super::build::{Context, Item};
use super::materialize::{agent_message, ReadBackError};
use crate::session::{Role, Session, Source};

/// Replays `messages` (agent messages in context order; other roles are
/// skipped): content texts joined by a blank line, sections patched by name
/// (`null` removes one, a removed name comes back at the end), tools removed
/// then added by name, the first system message's timestamp. `None` without
/// any system message or tool.
pub fn replay<'a>(messages: impl IntoIterator<Item = &'a Value>) -> Option<Value> {
    let mut content: Vec<String> = Vec::new();
    let mut sections: Vec<(String, Value)> = Vec::new();
    let mut tools: Vec<(String, Value)> = Vec::new();
    // `timestamp ??= message.timestamp`: a null or missing one waits for the next.
    let mut timestamp: Option<Value> = None;
    // pi gives up only when every timestamp was missing (undefined), not null.
    let mut timestamp_written = false;
    for m in messages {
        let Some(m) = m.as_object().filter(|m| m.get("role").and_then(Value::as_str) == Some("system")) else { continue };
        timestamp_written |= m.contains_key("timestamp");
        if timestamp.is_none() {
            timestamp = m.get("timestamp").cloned().filter(|t| !t.is_null());
        }
        let text = content_text(m.get("content"));
        if !text.is_empty() {
            content.push(text);
        }
        for (name, value) in m.get("sections").and_then(Value::as_object).into_iter().flatten() {
            if value.is_null() {
                sections.retain(|(n, _)| n != name);
            } else if let Some(slot) = sections.iter_mut().find(|(n, _)| n == name) {
                slot.1 = value.clone();
            } else {
                sections.push((name.clone(), value.clone()));
            }
        }
        for t in m.get("toolsRemoved").and_then(Value::as_array).into_iter().flatten() {
            let name = tool_name(t);
            tools.retain(|(n, _)| *n != name);
        }
        for t in m.get("toolsAdded").and_then(Value::as_array).into_iter().flatten() {
            let name = tool_name(t);
            match tools.iter_mut().find(|(n, _)| *n == name) {
                Some(slot) => slot.1 = t.clone(),
                None => tools.push((name, t.clone())),
            }
        }
    }
    if !timestamp_written && tools.is_empty() {
        return None;
    }
    let mut out = Map::new();
    out.insert("role".into(), "system".into());
    out.insert("content".into(), Value::String(content.join("\n\n")));
    if !sections.is_empty() {
        out.insert("sections".into(), Value::Object(sections.into_iter().collect()));
    }
    if !tools.is_empty() {
        out.insert("toolsAdded".into(), Value::Array(tools.into_iter().map(|(_, t)| t).collect()));
    }
    out.insert("timestamp".into(), timestamp.unwrap_or(Value::from(0)));
    Some(Value::Object(out))
}

/// The replayed system message of a context (its system messages read back).
pub fn current_system(session: &Session, ctx: &Context, source: &dyn Source) -> Result<Option<Value>, ReadBackError> {
    let mut messages = Vec::new();
    for &item in &ctx.items {
        if is_system_item(session, item) {
            messages.push(agent_message(session, item, source)?);
        }
    }
    Ok(replay(&messages))
}

/// Whether an item is a system message (an entry's, or a compaction's checkpoint).
pub fn is_system_item(session: &Session, item: Item) -> bool {
    match item {
        Item::SystemCheckpoint(_) => true,
        Item::Entry(n) => session.entry(n).message().is_some_and(|m| m.role == Role::System),
        _ => false,
    }
}

/// `getSystemMessageText`: the content, then each section, non-empty parts
/// joined by a blank line.
pub fn prompt_text(msg: &Value) -> String {
    let mut parts = vec![content_text(msg.get("content"))];
    for v in msg.get("sections").and_then(Value::as_object).into_iter().flat_map(|m| m.values()) {
        if let Some(s) = v.as_str() {
            parts.push(s.to_owned());
        }
    }
    parts.retain(|p| !p.is_empty());
    parts.join("\n\n")
}

/// The parts of a replayed system message with the share of pi's estimate
/// each accounts for (the total counts them together, rounded once).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemParts {
    /// `estimateTokens` of the whole message.
    pub tokens: u64,
    /// Its `content` text.
    pub content: String,
    /// Section name → text, in prompt order.
    pub sections: Vec<(String, String)>,
    /// Tool name → length of its declaration as `JSON.stringify` writes it.
    pub tools: Vec<(String, u64)>,
}

/// Splits a replayed system message into what the context panel shows.
pub fn parts(msg: &Value) -> SystemParts {
    let sections = msg
        .get("sections")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| v.as_str().map(|t| (k.clone(), t.to_owned())))
        .collect();
    let tools = msg
        .get("toolsAdded")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| (tool_name(t), crate::js::stringify_len(t) as u64))
        .collect();
    let tokens = msg.as_object().map_or(0, |m| crate::tokens::estimate::estimate_message(m, crate::RuleSet::Pi16));
    SystemParts { tokens, content: content_text(msg.get("content")), sections, tools }
}

/// `contentText`: a string as it is, else the text blocks joined by `\n`.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .map(|b| b.get("text").and_then(Value::as_str).unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn tool_name(tool: &Value) -> String {
    tool.get("name").map_or_else(String::new, |n| n.as_str().map_or_else(|| n.to_string(), str::to_owned))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn patches_replay_in_order() {
        // pi-1.6.md §4.7's run: prompt {preamble P, tools T} + tool read, then a
        // patch removing the tools section and `read`, adding skills S.
        let first = json!({"role": "system", "content": "", "sections": {"preamble": "P", "tools": "T"}, "timestamp": 5, "toolsAdded": [{"name": "read", "description": "r"}]});
        let patch = json!({"role": "system", "content": "", "sections": {"tools": null, "skills": "S"}, "timestamp": 9, "toolsRemoved": [{"name": "read"}]});
        let user = json!({"role": "user", "content": "hi"});
        let cur = replay([&first, &user, &patch]).unwrap();
        assert_eq!(cur, json!({"role": "system", "content": "", "sections": {"preamble": "P", "skills": "S"}, "timestamp": 5}));
        assert_eq!(prompt_text(&cur), "P\n\nS");
        // A re-added tool moves to the end; a redefined one keeps its place.
        let a = json!({"role": "system", "content": "base", "toolsAdded": [{"name": "a"}, {"name": "b"}], "timestamp": 1});
        let b = json!({"role": "system", "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}], "toolsAdded": [{"name": "a", "v": 2}], "timestamp": 2});
        let cur = replay([&a, &b]).unwrap();
        assert_eq!(cur["toolsAdded"], json!([{"name": "a", "v": 2}, {"name": "b"}]));
        assert_eq!(cur["content"], "base\n\nx\ny");
        let c = json!({"role": "system", "content": "", "toolsRemoved": [{"name": "a"}], "toolsAdded": [{"name": "a"}], "timestamp": 3});
        assert_eq!(replay([&a, &c]).unwrap()["toolsAdded"], json!([{"name": "b"}, {"name": "a"}]));
        assert_eq!(replay([&user]), None);
    }
}
