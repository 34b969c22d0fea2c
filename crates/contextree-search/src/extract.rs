//! What one session line gives the index: the searchable text of the entry and its filter
//! fields. The line is parsed on its own (not through a whole-session load) so that a file an
//! agent appended to is indexed from the offset it had reached, never read again from the top.

use std::borrow::Cow;

use serde_json::Value;

/// The index's view of one entry line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extracted {
    /// The entry id (`None` for lines without one, e.g. v1 files before migration).
    pub entry_id: Option<String>,
    /// A message's role, else the entry type (`compaction`, `label`, …).
    pub role: String,
    /// Tool names: the calls an assistant message makes, a tool result's tool.
    pub tools: Vec<String>,
    /// The model that wrote an assistant message, or that a `model_change` selects.
    pub model: Option<String>,
    /// Milliseconds since the epoch (the entry's `timestamp`, else the message's).
    pub time_ms: Option<i64>,
    /// Everything searchable, blocks separated by blank lines.
    pub text: String,
}

/// The header line's facts (`type: "session"`), or `None` for any other line.
pub fn header(v: &Value) -> Option<Header> {
    (v.get("type")?.as_str()? == "session").then(|| Header {
        id: v.get("id").and_then(Value::as_str).map(str::to_owned),
        cwd: v.get("cwd").and_then(Value::as_str).map(str::to_owned),
        version: v.get("version").map(|v| v.to_string().trim_matches('"').to_owned()),
    })
}

/// A session file's first line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// The session id.
    pub id: Option<String>,
    /// The project folder.
    pub cwd: Option<String>,
    /// The format version as written.
    pub version: Option<String>,
}

/// The entry on `line`, or `None` when it is not a JSON object (a torn or blank line) or the
/// header.
pub fn entry(line: &[u8]) -> Option<Extracted> {
    let v: Value = serde_json::from_slice(line).ok()?;
    let obj = v.as_object()?;
    let kind = obj.get("type")?.as_str()?;
    if kind == "session" {
        return None;
    }
    let mut out = Extracted {
        entry_id: obj.get("id").and_then(Value::as_str).map(str::to_owned),
        role: kind.to_owned(),
        time_ms: obj.get("timestamp").and_then(time_ms),
        ..Extracted::default()
    };
    let mut parts: Vec<Cow<'_, str>> = Vec::new();
    let s = |k: &str| obj.get(k).and_then(Value::as_str);
    match kind {
        "message" => {
            if let Some(m) = obj.get("message") {
                message(m, &mut out, &mut parts);
            }
        }
        "compaction" | "branch_summary" => parts.extend(s("summary").map(Cow::Borrowed)),
        "custom_message" => content(obj.get("content"), &mut parts, &mut out.tools),
        "label" => parts.extend(s("label").map(Cow::Borrowed)),
        "session_info" => parts.extend(s("name").map(Cow::Borrowed)),
        "model_change" => out.model = s("model").or(s("modelId")).map(str::to_owned),
        _ => {}
    }
    out.text = parts.join("\n\n");
    Some(out)
}

fn time_ms(v: &Value) -> Option<i64> {
    match v {
        Value::String(s) => contextree_core::session::parse_iso_ms(s).map(|ms| ms as i64),
        Value::Number(n) => n.as_f64().map(|ms| ms as i64),
        _ => None,
    }
}

fn message<'a>(m: &'a Value, out: &mut Extracted, parts: &mut Vec<Cow<'a, str>>) {
    let s = |k: &str| m.get(k).and_then(Value::as_str);
    let role = s("role").unwrap_or("message");
    out.role = role.to_owned();
    if out.time_ms.is_none() {
        out.time_ms = m.get("timestamp").and_then(time_ms);
    }
    out.model = s("model").map(str::to_owned);
    match role {
        "bashExecution" => parts.extend([s("command"), s("output")].into_iter().flatten().map(Cow::Borrowed)),
        "pythonExecution" => parts.extend([s("code"), s("output")].into_iter().flatten().map(Cow::Borrowed)),
        "branchSummary" | "compactionSummary" => parts.extend(s("summary").map(Cow::Borrowed)),
        _ => {
            if let Some(t) = s("toolName") {
                out.tools.push(t.to_owned());
            }
            content(m.get("content"), parts, &mut out.tools);
        }
    }
}

/// Text, thinking and tool-call blocks (a call as its name then its arguments' JSON).
fn content<'a>(c: Option<&'a Value>, parts: &mut Vec<Cow<'a, str>>, tools: &mut Vec<String>) {
    match c {
        Some(Value::String(t)) => parts.push(Cow::Borrowed(t)),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                let f = |k: &str| b.get(k).and_then(Value::as_str);
                match f("type") {
                    Some("text") => parts.extend(f("text").map(Cow::Borrowed)),
                    Some("thinking") => parts.extend(f("thinking").map(Cow::Borrowed)),
                    Some("toolCall" | "tool_use") => {
                        if let Some(name) = f("name") {
                            tools.push(name.to_owned());
                            parts.push(Cow::Borrowed(name));
                        }
                        // Arguments are kept as raw JSON text: the tokenizer splits it into
                        // the words people search for (commands, paths).
                        if let Some(args) = b.get("arguments").or(b.get("input")) {
                            parts.push(args_text(args));
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// A call's arguments as text: a string as it is, anything else as its JSON.
fn args_text(v: &Value) -> Cow<'_, str> {
    match v {
        Value::String(s) => Cow::Borrowed(s),
        _ => Cow::Owned(v.to_string()),
    }
}
