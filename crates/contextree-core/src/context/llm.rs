//! `convertToLlm` per dialect (context.md §2): agent messages → the
//! provider-neutral messages a model receives.
//!
//! Outputs are built key by key in the order the agents' object literals have,
//! so serialising them gives the agents' JSON. Where the agents copy a field
//! that may be missing (`timestamp`, `content`, `attribution`,
//! `providerPayload`), a missing field stays missing: JS would hold
//! `undefined`, which `JSON.stringify` leaves out. A field stored as `null`
//! is copied as `null`.

use serde_json::{Map, Value};

use crate::context::notice::{bash_text, python_text, NoticeWords};
use crate::js::{is_truthy, push_array_join, push_js_string, to_js_string};
use crate::prompts::PromptPack;
use crate::{Dialect, RuleSet};

/// Converts a whole context; messages that convert to nothing are left out.
pub fn convert_to_llm(messages: &[Value], rules: RuleSet, pack: &PromptPack) -> Vec<Value> {
    messages.iter().filter_map(|m| convert_message(m, rules, pack)).collect()
}

/// Converts one agent message into every LLM message it becomes (omp ≥ 18
/// splits custom messages with images and file mentions into two).
pub(crate) fn convert_message_all(msg: &Value, rules: RuleSet, pack: &PromptPack) -> Vec<Value> {
    if rules.sends_custom_as_developer() {
        if let Some(m) = msg.as_object() {
            if let Some(split) = convert_omp18_split(m) {
                return split.into_iter().map(Value::Object).collect();
            }
        }
    }
    convert_message(msg, rules, pack).into_iter().collect()
}

/// Converts one agent message, `None` when the dialect drops it (unknown role,
/// `excludeFromContext`, or not an object). Under omp ≥ 18 a message that
/// becomes two LLM messages gives the first ([`convert_message_all`] gives both).
pub(crate) fn convert_message(msg: &Value, rules: RuleSet, pack: &PromptPack) -> Option<Value> {
    let m = msg.as_object()?;
    let role = m.get("role").and_then(Value::as_str)?;
    if rules.sends_custom_as_developer() {
        if let Some(split) = convert_omp18_split(m) {
            return split.into_iter().next().map(Value::Object);
        }
        if let Some(converted) = convert_omp18(m, role, pack) {
            return converted.map(Value::Object);
        }
    }
    if role == "system" && rules.projects_context_edits() {
        // pi ≥ 0.86 passes system messages through (pi-1.6.md §2.6).
        return Some(msg.clone());
    }
    match rules.dialect() {
        Dialect::Pi => convert_pi(m, role, pack),
        Dialect::Omp => {
            let words = if rules.words_omp18_output_notices() { NoticeWords::Omp18 } else { NoticeWords::Omp13 };
            convert_omp(m, role, pack, words)
        }
    }
    .map(Value::Object)
}

fn convert_pi(m: &Map<String, Value>, role: &str, pack: &PromptPack) -> Option<Map<String, Value>> {
    let converted = match role {
        "user" | "assistant" | "toolResult" => m.clone(),
        "bashExecution" => {
            if is_truthy(m.get("excludeFromContext")) {
                return None;
            }
            user_message(Some(single_text(bash_text(m, NoticeWords::Pi))), None, m)
        }
        "custom" => user_message(custom_content(m), None, m),
        "branchSummary" => {
            let text = pack.wrap_branch_summary(&to_js_string(m.get("summary")));
            user_message(Some(single_text(text)), None, m)
        }
        "compactionSummary" => {
            let text = pack.wrap_compaction_summary(&to_js_string(m.get("summary")));
            user_message(Some(single_text(text)), None, m)
        }
        _ => return None,
    };
    Some(converted)
}

fn convert_omp(m: &Map<String, Value>, role: &str, pack: &PromptPack, words: NoticeWords) -> Option<Map<String, Value>> {
    let user = Some(Value::from("user"));
    let agent = Some(Value::from("agent"));
    let converted = match role {
        "assistant" => m.clone(),
        "user" => with_default_attribution(m.clone(), "user"),
        "developer" => with_default_attribution(m.clone(), "agent"),
        "toolResult" => {
            let mut out = m.clone();
            if let Some(content) = pruned_tool_result_content(m) {
                out.insert("content".to_owned(), content);
            }
            with_default_attribution(out, "agent")
        }
        "bashExecution" | "pythonExecution" => {
            if is_truthy(m.get("excludeFromContext")) {
                return None;
            }
            let text = if role == "bashExecution" { bash_text(m, words) } else { python_text(m, words) };
            user_message(Some(single_text(text)), user, m)
        }
        "custom" | "hookMessage" => user_message(custom_content(m), m.get("attribution").cloned(), m),
        "branchSummary" => {
            let text = pack.wrap_branch_summary(&template_value(m.get("summary")));
            user_message(Some(single_text(text)), agent, m)
        }
        "compactionSummary" => {
            let text = pack.wrap_compaction_summary(&template_value(m.get("summary")));
            let mut out = user_head(Some(single_text(text)), agent);
            if let Some(payload) = m.get("providerPayload") {
                out.insert("providerPayload".to_owned(), payload.clone());
            }
            push_timestamp(&mut out, m);
            out
        }
        "fileMention" => user_message(Some(file_mention_content(m)), user, m),
        _ => return None,
    };
    Some(converted)
}

/// omp ≥ 18's `convertOne` where it differs from omp 13 (omp-18.md §3):
/// `Some(None)` drops the message, `None` = as omp 13.
fn convert_omp18(m: &Map<String, Value>, role: &str, pack: &PromptPack) -> Option<Option<Map<String, Value>>> {
    let agent = || Some(Value::from("agent"));
    Some(match role {
        "custom" | "hookMessage" => {
            // `isCustomMessageContent`: anything but a string or an array is not sent.
            if !matches!(m.get("content"), Some(Value::String(_) | Value::Array(_))) {
                return Some(None);
            }
            let skill_by_user = role == "custom"
                && m.get("customType").and_then(Value::as_str) == Some("skill-prompt")
                && m.get("attribution").and_then(Value::as_str) == Some("user");
            let mut out = Map::new();
            out.insert("role".to_owned(), Value::from(if skill_by_user { "user" } else { "developer" }));
            out.insert("content".to_owned(), custom_content(m).unwrap_or(Value::Null));
            if skill_by_user {
                out.insert("attribution".to_owned(), Value::from("user"));
            } else if let Some(a) = m.get("attribution") {
                out.insert("attribution".to_owned(), a.clone());
            }
            push_timestamp(&mut out, m);
            Some(out)
        }
        "branchSummary" => {
            let text = pack.wrap_branch_summary(&template_value(m.get("summary")));
            let mut out = user_head(Some(single_text(text)), agent());
            push_history_rewrite(&mut out, m);
            push_timestamp(&mut out, m);
            Some(out)
        }
        "compactionSummary" => {
            let summary = template_value(m.get("summary"));
            let content = match m.get("blocks").and_then(Value::as_array) {
                // Snapcompact: the summary as it is, then the archive's blocks.
                Some(blocks) => std::iter::once(text_block(summary)).chain(blocks.iter().cloned()).collect(),
                None => {
                    let text = match m.get("method").and_then(Value::as_str) {
                        Some("handoff") => pack.wrap_handoff_summary(&summary),
                        _ => pack.wrap_compaction_summary(&summary),
                    };
                    let images = m.get("images").and_then(Value::as_array).into_iter().flatten().cloned();
                    std::iter::once(text_block(text)).chain(images).collect()
                }
            };
            let mut out = user_head(Some(Value::Array(content)), agent());
            push_history_rewrite(&mut out, m);
            if let Some(payload) = m.get("providerPayload") {
                out.insert("providerPayload".to_owned(), payload.clone());
            }
            push_timestamp(&mut out, m);
            Some(out)
        }
        "bashExecution" => {
            if is_truthy(m.get("excludeFromContext")) {
                return Some(None);
            }
            let mut content = vec![text_block(bash_text(m, NoticeWords::Omp18))];
            content.extend(m.get("images").and_then(Value::as_array).into_iter().flatten().cloned());
            let mut out = user_head(Some(Value::Array(content)), Some(Value::from("user")));
            push_timestamp(&mut out, m);
            Some(out)
        }
        "toolResult" if m.contains_key("prunedAt") => {
            let mut out = m.clone();
            if let Some(content) = pruned_tool_result_content_omp18(m) {
                out.insert("content".to_owned(), content);
            }
            Some(with_default_attribution(out, "agent"))
        }
        _ => return None,
    })
}

/// omp ≥ 18: messages that become two LLM messages — a custom message with
/// images (its text as `developer`, then a `user` message with the images)
/// and a file mention (text files as `developer`, image files as `user`).
fn convert_omp18_split(m: &Map<String, Value>) -> Option<Vec<Map<String, Value>>> {
    let role = m.get("role").and_then(Value::as_str)?;
    let with = |role: &str, content: Value, attribution: Option<&Value>| {
        let mut out = user_head(Some(content), attribution.cloned());
        out.insert("role".to_owned(), Value::from(role));
        push_timestamp(&mut out, m);
        out
    };
    match role {
        "custom" | "hookMessage" => {
            let blocks = m.get("content")?.as_array()?;
            if role == "custom"
                && m.get("customType").and_then(Value::as_str) == Some("skill-prompt")
                && m.get("attribution").and_then(Value::as_str) == Some("user")
            {
                return None;
            }
            let of = |t: &str| blocks.iter().filter(|b| b.get("type").and_then(Value::as_str) == Some(t)).cloned().collect::<Vec<_>>();
            let (texts, images) = (of("text"), of("image"));
            if images.is_empty() {
                return None;
            }
            let mut out = Vec::new();
            if !texts.is_empty() {
                out.push(with("developer", Value::Array(texts), m.get("attribution")));
            }
            let mut note = String::from("Images attached to ");
            push_js_string(m.get("customType"), &mut note);
            note.push('.');
            out.push(with("user", Value::Array(std::iter::once(text_block(note)).chain(images).collect()), m.get("attribution")));
            Some(out)
        }
        "fileMention" => {
            let files: &[Value] = m.get("files").and_then(Value::as_array).map_or(&[], Vec::as_slice);
            let wrap = |file: &Value| {
                let mut text = String::from("<file path=\"");
                push_js_string(file.get("path"), &mut text);
                text.push_str("\">\n");
                if is_truthy(file.get("content")) {
                    push_js_string(file.get("content"), &mut text);
                    text.push('\n');
                }
                text.push_str("</file>");
                text
            };
            let join = |fs: &[&Value]| fs.iter().map(|f| wrap(f)).collect::<Vec<_>>().join("\n");
            let (images, texts): (Vec<&Value>, Vec<&Value>) = files.iter().partition(|f| is_truthy(f.get("image")));
            let user = Value::from("user");
            let mut out = Vec::new();
            if !texts.is_empty() {
                out.push(with("developer", single_text(join(&texts)), Some(&user)));
            }
            if !images.is_empty() {
                let content =
                    std::iter::once(text_block(join(&images))).chain(images.iter().filter_map(|f| f.get("image").cloned())).collect();
                out.push(with("user", Value::Array(content), Some(&user)));
            }
            Some(out)
        }
        _ => None,
    }
}

/// `historyRewriteAt`: the summary's own `historyRewriteAt` (omp ≥ 18.3's Anthropic-native
/// compactions), else its timestamp (omp ≥ 18).
fn push_history_rewrite(out: &mut Map<String, Value>, source: &Map<String, Value>) {
    let at = source.get("historyRewriteAt").filter(|v| !v.is_null()).or_else(|| source.get("timestamp"));
    if let Some(ts) = at {
        out.insert("historyRewriteAt".to_owned(), ts.clone());
    }
}

/// omp ≥ 18's `getPrunedToolResultContent`: the text blocks joined into the
/// first text block's place, other blocks (images) kept; no text block → the
/// joined text (or the notice) first.
fn pruned_tool_result_content_omp18(m: &Map<String, Value>) -> Option<Value> {
    let blocks = m.get("content")?.as_array()?;
    let is_text = |b: &Value| b.get("type").and_then(Value::as_str) == Some("text");
    let texts: Vec<Value> = blocks.iter().filter(|b| is_text(b)).map(|b| b.get("text").cloned().unwrap_or(Value::Null)).collect();
    let mut text = String::new();
    push_array_join(&texts, "", &mut text);
    if text.is_empty() {
        text.push_str("[Output truncated]");
    }
    let Some(first) = blocks.iter().position(is_text) else {
        return Some(Value::Array(std::iter::once(text_block(text)).chain(blocks.iter().cloned()).collect()));
    };
    let mut text = Some(text);
    let content = blocks
        .iter()
        .enumerate()
        .filter_map(|(i, b)| match is_text(b) {
            false => Some(b.clone()),
            true if i == first => text.take().map(text_block),
            true => None,
        })
        .collect();
    Some(Value::Array(content))
}

/// `{role: "user", content, attribution?, timestamp}` with the source's timestamp.
fn user_message(content: Option<Value>, attribution: Option<Value>, source: &Map<String, Value>) -> Map<String, Value> {
    let mut out = user_head(content, attribution);
    push_timestamp(&mut out, source);
    out
}

fn user_head(content: Option<Value>, attribution: Option<Value>) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("role".to_owned(), Value::from("user"));
    if let Some(content) = content {
        out.insert("content".to_owned(), content);
    }
    if let Some(attribution) = attribution {
        out.insert("attribution".to_owned(), attribution);
    }
    out
}

fn push_timestamp(out: &mut Map<String, Value>, source: &Map<String, Value>) {
    if let Some(ts) = source.get("timestamp") {
        out.insert("timestamp".to_owned(), ts.clone());
    }
}

/// `{...m, attribution: m.attribution ?? default}`: an existing key keeps its
/// place, a new one goes last.
fn with_default_attribution(mut m: Map<String, Value>, default: &str) -> Map<String, Value> {
    match m.get_mut("attribution") {
        Some(v) if !v.is_null() => {}
        Some(v) => *v = Value::from(default),
        None => {
            m.insert("attribution".to_owned(), Value::from(default));
        }
    }
    m
}

fn single_text(text: String) -> Value {
    Value::Array(vec![text_block(text)])
}

fn text_block(text: String) -> Value {
    let mut block = Map::new();
    block.insert("type".to_owned(), Value::from("text"));
    block.insert("text".to_owned(), Value::from(text));
    Value::Object(block)
}

/// String content becomes one text block; anything else is passed through.
fn custom_content(m: &Map<String, Value>) -> Option<Value> {
    match m.get("content") {
        Some(Value::String(s)) => Some(single_text(s.clone())),
        other => other.cloned(),
    }
}

/// Handlebars `{{summary}}` (omp): `null`/missing renders empty, anything
/// else as JS `String(x)`.
fn template_value(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        some => to_js_string(some),
    }
}

/// omp: a tool result with `prunedAt` (any value, even `null`) is sent as one
/// text block joining its text blocks, or a fixed notice when there are none.
/// `None` = content unchanged (not pruned, or content not an array, where omp
/// itself would throw).
fn pruned_tool_result_content(m: &Map<String, Value>) -> Option<Value> {
    m.get("prunedAt")?;
    let blocks = m.get("content")?.as_array()?;
    let texts: Vec<Value> = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .map(|b| b.get("text").cloned().unwrap_or(Value::Null))
        .collect();
    let mut text = String::new();
    push_array_join(&texts, "", &mut text);
    if text.is_empty() {
        text.push_str("[Output truncated]");
    }
    Some(single_text(text))
}

/// `<system-reminder>` text listing every file, then each file's image.
fn file_mention_content(m: &Map<String, Value>) -> Value {
    let files: &[Value] = m.get("files").and_then(Value::as_array).map_or(&[], Vec::as_slice);
    let mut text = String::from("<system-reminder>\n");
    for (i, file) in files.iter().enumerate() {
        if i > 0 {
            text.push_str("\n\n");
        }
        text.push_str("<file path=\"");
        push_js_string(file.get("path"), &mut text);
        text.push_str("\">\n");
        if is_truthy(file.get("content")) {
            push_js_string(file.get("content"), &mut text);
            text.push('\n');
        }
        text.push_str("</file>");
    }
    text.push_str("\n</system-reminder>");
    let mut content = vec![text_block(text)];
    content.extend(files.iter().filter_map(|f| f.get("image")).filter(|i| is_truthy(Some(i))).cloned());
    Value::Array(content)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompts::{PackOrigin, PromptId};
    use serde_json::json;

    fn pack(dialect: Dialect) -> PromptPack {
        PromptPack::from_templates(
            dialect,
            PackOrigin::Custom("test".into()),
            [
                (PromptId::CompactionSummaryContext, "C[{{summary}}]".to_owned()),
                (PromptId::BranchSummaryContext, "B[{{summary}}]".to_owned()),
            ],
        )
    }

    fn conv(m: Value, d: Dialect) -> Option<String> {
        convert_message(&m, crate::RuleSet::oldest(d), &pack(d)).map(|v| serde_json::to_string(&v).unwrap())
    }

    #[test]
    fn user_attribution_keeps_key_position() {
        let m = json!({"role": "user", "content": "hi", "timestamp": 5});
        assert_eq!(conv(m.clone(), Dialect::Pi).unwrap(), r#"{"role":"user","content":"hi","timestamp":5}"#);
        assert_eq!(conv(m, Dialect::Omp).unwrap(), r#"{"role":"user","content":"hi","timestamp":5,"attribution":"user"}"#);
        let m = json!({"role": "user", "attribution": null, "content": "hi"});
        assert_eq!(conv(m, Dialect::Omp).unwrap(), r#"{"role":"user","attribution":"user","content":"hi"}"#);
        let m = json!({"role": "developer", "content": "d"});
        assert_eq!(conv(m.clone(), Dialect::Pi), None);
        assert_eq!(conv(m, Dialect::Omp).unwrap(), r#"{"role":"developer","content":"d","attribution":"agent"}"#);
    }

    #[test]
    fn tool_results_and_pruning() {
        let m = json!({"role": "toolResult", "toolCallId": "c", "content": [{"type": "text", "text": "a"},
            {"type": "image", "data": "x", "mimeType": "image/png"}, {"type": "text", "text": "b"}],
            "isError": false, "prunedAt": 7, "timestamp": 1});
        assert_eq!(conv(m.clone(), Dialect::Pi).unwrap(), serde_json::to_string(&m).unwrap());
        assert_eq!(
            conv(m, Dialect::Omp).unwrap(),
            r#"{"role":"toolResult","toolCallId":"c","content":[{"type":"text","text":"ab"}],"isError":false,"prunedAt":7,"timestamp":1,"attribution":"agent"}"#
        );
        let m = json!({"role": "toolResult", "content": [{"type": "image"}], "prunedAt": null});
        assert_eq!(
            conv(m, Dialect::Omp).unwrap(),
            r#"{"role":"toolResult","content":[{"type":"text","text":"[Output truncated]"}],"prunedAt":null,"attribution":"agent"}"#
        );
    }

    #[test]
    fn summaries() {
        let m = json!({"role": "compactionSummary", "summary": "S", "tokensBefore": 9, "timestamp": 3});
        assert_eq!(conv(m.clone(), Dialect::Pi).unwrap(), r#"{"role":"user","content":[{"type":"text","text":"C[S]"}],"timestamp":3}"#);
        assert_eq!(
            conv(m, Dialect::Omp).unwrap(),
            r#"{"role":"user","content":[{"type":"text","text":"C[S]"}],"attribution":"agent","timestamp":3}"#
        );
        let m = json!({"role": "compactionSummary", "summary": "S", "providerPayload": {"type": "t"}, "timestamp": 3});
        assert_eq!(
            conv(m, Dialect::Omp).unwrap(),
            r#"{"role":"user","content":[{"type":"text","text":"C[S]"}],"attribution":"agent","providerPayload":{"type":"t"},"timestamp":3}"#
        );
        let m = json!({"role": "branchSummary", "fromId": "x"});
        assert_eq!(conv(m.clone(), Dialect::Pi).unwrap(), r#"{"role":"user","content":[{"type":"text","text":"B[undefined]"}]}"#);
        assert_eq!(conv(m, Dialect::Omp).unwrap(), r#"{"role":"user","content":[{"type":"text","text":"B[]"}],"attribution":"agent"}"#);
    }

    #[test]
    fn custom_and_hook_messages() {
        let m = json!({"role": "custom", "customType": "t", "content": "x", "display": false, "timestamp": 2});
        assert_eq!(conv(m.clone(), Dialect::Pi).unwrap(), r#"{"role":"user","content":[{"type":"text","text":"x"}],"timestamp":2}"#);
        assert_eq!(conv(m, Dialect::Omp).unwrap(), r#"{"role":"user","content":[{"type":"text","text":"x"}],"timestamp":2}"#);
        let m = json!({"role": "hookMessage", "content": [{"type": "text", "text": "y"}], "attribution": "agent"});
        assert_eq!(conv(m.clone(), Dialect::Pi), None);
        assert_eq!(conv(m, Dialect::Omp).unwrap(), r#"{"role":"user","content":[{"type":"text","text":"y"}],"attribution":"agent"}"#);
    }

    #[test]
    fn executions() {
        let m = json!({"role": "bashExecution", "command": "ls", "output": "", "exitCode": 0, "excludeFromContext": true});
        assert_eq!(conv(m, Dialect::Omp), None);
        let m = json!({"role": "bashExecution", "command": "ls", "output": "a", "exitCode": 0, "timestamp": 1});
        assert_eq!(
            conv(m, Dialect::Omp).unwrap(),
            r#"{"role":"user","content":[{"type":"text","text":"Ran `ls`\n```\na\n```"}],"attribution":"user","timestamp":1}"#
        );
        let m = json!({"role": "pythonExecution", "code": "1", "output": "", "timestamp": 1});
        assert_eq!(conv(m.clone(), Dialect::Pi), None);
        assert!(conv(m, Dialect::Omp).unwrap().contains("Ran Python:"));
    }

    #[test]
    fn file_mentions() {
        let img = json!({"type": "image", "data": "AA", "mimeType": "image/png"});
        let m = json!({"role": "fileMention", "files": [
            {"path": "a.txt", "content": "A"}, {"path": "b.png", "content": "", "image": img}], "timestamp": 4});
        let v = convert_message(&m, crate::RuleSet::Omp13, &pack(Dialect::Omp)).unwrap();
        assert_eq!(
            v["content"][0]["text"],
            "<system-reminder>\n<file path=\"a.txt\">\nA\n</file>\n\n<file path=\"b.png\">\n</file>\n</system-reminder>"
        );
        assert_eq!(v["content"][1], img);
        assert_eq!(v["attribution"], "user");
        assert_eq!(convert_message(&m, crate::RuleSet::Pi073, &pack(Dialect::Pi)), None);
    }
}
