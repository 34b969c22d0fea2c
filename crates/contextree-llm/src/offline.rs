//! A deterministic, extractive summary written without any model: for when no provider is
//! configured or reachable, or the user asks for it. Pure.
//!
//! Input is the serialized conversation of compaction.md §6.1: parts such as
//! `[User]: …`, `[Assistant]: …`, `[Assistant tool calls]: read(path="…"); …`,
//! `[Tool result]: …`, separated by blank lines. A part ends where a blank line is followed
//! by the next part's prefix, so blank lines inside a message are kept.
//!
//! The summary quotes, it does not interpret: the first user request is the goal, the file
//! lists follow the agents' rules (compaction.md §5: `read` / `write` / `edit` calls with a
//! string `path`; modified = written ∪ edited, read = read − modified, both sorted), and the
//! recent requests, questions, commands and last reply are copied from the text.

use std::collections::BTreeSet;

use serde_json::Value;

/// The line every offline summary starts with.
pub const OFFLINE_LABEL: &str = "_Offline summary written by contextree: extracted from the conversation, no model was asked._";

/// How many recent user requests are listed.
const N_RECENT_REQUESTS: usize = 5;
/// How many questions and commands are listed (the latest ones).
const N_QUESTIONS: usize = 10;
const N_COMMANDS: usize = 10;
/// Character limits for quoted texts.
const GOAL_CHARS: usize = 1500;
const REQUEST_CHARS: usize = 500;
const REPLY_CHARS: usize = 1000;
const LINE_CHARS: usize = 300;

/// The kinds of part in a serialized conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartKind {
    /// `[User]: `
    User,
    /// `[Assistant thinking]: `
    Thinking,
    /// `[Assistant]: `
    Assistant,
    /// `[Assistant tool calls]: `
    ToolCalls,
    /// `[Tool result]: `
    ToolResult,
}

const PREFIXES: [(&str, PartKind); 5] = [
    ("[User]: ", PartKind::User),
    ("[Assistant thinking]: ", PartKind::Thinking),
    ("[Assistant]: ", PartKind::Assistant),
    ("[Assistant tool calls]: ", PartKind::ToolCalls),
    ("[Tool result]: ", PartKind::ToolResult),
];

/// One tool call read back from an `[Assistant tool calls]` part.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name.
    pub name: String,
    /// The arguments in their serialized order.
    pub args: Vec<(String, Value)>,
}

impl ToolCall {
    fn arg_str(&self, name: &str) -> Option<&str> {
        self.args.iter().find(|(k, _)| k == name).and_then(|(_, v)| v.as_str())
    }
}

/// Writes the offline summary of a serialized conversation (Markdown).
pub fn summarize_offline(conversation: &str) -> String {
    let mut requests = Vec::new();
    let mut commands = Vec::new();
    let mut last_reply = None;
    let (mut read, mut written, mut edited) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for (kind, text) in parts(conversation) {
        match kind {
            PartKind::User => {
                if let Some(command) = user_command(text) {
                    commands.push(command.to_owned());
                } else if !is_wrapped_summary(text) && !text.trim().is_empty() {
                    requests.push(text.trim());
                }
            }
            PartKind::Assistant if !text.trim().is_empty() => last_reply = Some(text.trim()),
            PartKind::ToolCalls => {
                for call in parse_tool_calls(text) {
                    if let Some(path) = call.arg_str("path") {
                        match call.name.as_str() {
                            "read" => read.insert(path.to_owned()),
                            "write" => written.insert(path.to_owned()),
                            "edit" => edited.insert(path.to_owned()),
                            _ => false,
                        };
                    }
                    if call.name == "bash" {
                        if let Some(command) = call.arg_str("command") {
                            commands.push(command.to_owned());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let modified: BTreeSet<String> = edited.into_iter().chain(written).collect();
    let read: Vec<String> = read.into_iter().filter(|p| !modified.contains(p)).collect();
    let questions: Vec<&str> = requests.iter().flat_map(|r| r.lines()).map(str::trim).filter(|line| line.ends_with('?')).collect();

    let mut out = String::new();
    out.push_str(OFFLINE_LABEL);
    out.push_str("\n\n## Goal\n");
    match requests.first() {
        Some(goal) => out.push_str(&clip(goal, GOAL_CHARS)),
        None => out.push_str("(no user request in the summarized part)"),
    }
    section(&mut out, "Recent User Requests");
    let recent = requests.get(1..).unwrap_or_default();
    let recent = &recent[recent.len().saturating_sub(N_RECENT_REQUESTS)..];
    list(&mut out, recent.iter().map(|r| clip(r, REQUEST_CHARS)), true);
    section(&mut out, "Open Questions");
    list(&mut out, dedup_latest(&questions, N_QUESTIONS).map(|q| clip(q, LINE_CHARS)), false);
    section(&mut out, "Files Read");
    list(&mut out, read.iter().map(|p| format!("`{p}`")), false);
    section(&mut out, "Files Modified");
    list(&mut out, modified.iter().map(|p| format!("`{p}`")), false);
    section(&mut out, "Commands Run");
    let commands: Vec<&str> = commands.iter().map(String::as_str).collect();
    list(&mut out, dedup_latest(&commands, N_COMMANDS).map(|c| format!("`{}`", one_line(c))), false);
    section(&mut out, "Last Assistant Reply");
    match last_reply {
        Some(reply) => out.push_str(&clip(reply, REPLY_CHARS)),
        None => out.push_str("(none)"),
    }
    out
}

/// Splits a serialized conversation into its parts (prefix removed).
pub fn parts(conversation: &str) -> Vec<(PartKind, &str)> {
    let prefix_at = |idx: usize| PREFIXES.iter().find(|(p, _)| conversation[idx..].starts_with(p)).map(|(p, kind)| (idx, p.len(), *kind));
    let mut starts: Vec<(usize, usize, PartKind)> = Vec::new();
    starts.extend(prefix_at(0));
    for (idx, _) in conversation.match_indices("\n\n") {
        starts.extend(prefix_at(idx + 2));
    }
    let mut res = Vec::with_capacity(starts.len());
    for (n, &(start, prefix_len, kind)) in starts.iter().enumerate() {
        let end = starts.get(n + 1).map_or(conversation.len(), |next| next.0 - 2);
        if start + prefix_len <= end {
            res.push((kind, &conversation[start + prefix_len..end]));
        }
    }
    res
}

/// Reads `name(key=<json>, …); name(…)` back into calls; stops at the first thing that does
/// not fit that shape (a call whose arguments `JSON.stringify` could not render).
pub fn parse_tool_calls(text: &str) -> Vec<ToolCall> {
    let mut res = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('(') {
        let name = rest[..open].trim().to_owned();
        rest = &rest[open + 1..];
        let mut args = Vec::new();
        loop {
            if let Some(after) = rest.strip_prefix(')') {
                rest = after;
                break;
            }
            let Some(eq) = rest.find('=') else { return res };
            let key = rest[..eq].to_owned();
            let Some((value, len)) = json_value_prefix(&rest[eq + 1..]) else {
                return res;
            };
            rest = &rest[eq + 1 + len..];
            args.push((key, value));
            rest = rest.strip_prefix(", ").unwrap_or(rest);
        }
        res.push(ToolCall { name, args });
        match rest.strip_prefix("; ") {
            Some(after) => rest = after,
            None => break,
        }
    }
    res
}

/// The JSON value at the start of `text` and its length. Strings, arrays and objects delimit
/// themselves; a scalar runs to the next `,` or `)` (`undefined` and other non-JSON scalars
/// read as `null`).
fn json_value_prefix(text: &str) -> Option<(Value, usize)> {
    if text.starts_with(['"', '[', '{']) {
        let mut values = serde_json::Deserializer::from_str(text).into_iter::<Value>();
        let value = values.next()?.ok()?;
        return Some((value, values.byte_offset()));
    }
    let len = text.find([',', ')']).unwrap_or(text.len());
    Some((serde_json::from_str(&text[..len]).unwrap_or(Value::Null), len))
}

/// `Ran \`cmd\`` user parts are commands the user ran in the agent (bash executions).
fn user_command(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("Ran `")?;
    let line = rest.lines().next()?;
    line.strip_suffix('`')
}

/// Compaction and branch summaries reach the conversation as user messages wrapping a
/// `<summary>` block; they are context, not requests.
fn is_wrapped_summary(text: &str) -> bool {
    text.contains("\n<summary>\n") && text.trim_end().ends_with("</summary>")
}

fn section(out: &mut String, title: &str) {
    out.push_str("\n\n## ");
    out.push_str(title);
    out.push('\n');
}

fn list(out: &mut String, items: impl Iterator<Item = String>, numbered: bool) {
    let mut n = 0;
    for item in items {
        if n > 0 {
            out.push('\n');
        }
        n += 1;
        if numbered {
            out.push_str(&format!("{n}. "));
        } else {
            out.push_str("- ");
        }
        // Continuation lines stay inside the list item.
        out.push_str(&item.replace('\n', "\n   "));
    }
    if n == 0 {
        out.push_str("(none)");
    }
}

/// The last `n` distinct items, in order of their last occurrence.
fn dedup_latest<'a>(items: &[&'a str], n: usize) -> impl Iterator<Item = &'a str> {
    let mut seen = BTreeSet::new();
    let mut latest: Vec<&str> = items.iter().rev().filter(|item| seen.insert(**item)).copied().take(n).collect();
    latest.reverse();
    latest.into_iter()
}

fn clip(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((idx, _)) => format!("{}…", text[..idx].trim_end()),
        None => text.to_owned(),
    }
}

fn one_line(text: &str) -> String {
    let first = text.lines().next().unwrap_or_default();
    let clipped = clip(first, LINE_CHARS);
    if first.len() < text.trim_end().len() && !clipped.ends_with('…') {
        format!("{clipped} …")
    } else {
        clipped
    }
}

#[cfg(test)]
mod tests;
