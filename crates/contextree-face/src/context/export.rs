//! The context of a leaf as one text to copy or save: JSON (every LLM message as it is sent,
//! the agent message where `convertToLlm` drops it), Markdown (one section per message) or a
//! self-contained HTML page (the branch's entries with their states, then the exact context;
//! every session text escaped, no script at all, a CSP that forbids any). Nothing is cut.
//! Pure: the command gathers the messages, this formats them.

use std::str::FromStr;

use serde_json::{json, Value};

use crate::CommandError;

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Markdown,
    Html,
}

impl FromStr for Format {
    type Err = CommandError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "json" => Ok(Format::Json),
            "markdown" | "md" => Ok(Format::Markdown),
            "html" => Ok(Format::Html),
            other => Err(CommandError::InvalidArgument(format!("unknown export format `{other}` (expected `json`, `markdown` or `html`)"))),
        }
    }
}

/// What the export says about the whole context.
#[derive(Debug, Clone)]
pub struct Head {
    pub leaf_id: Option<String>,
    pub dialect: &'static str,
    /// The prompt pack that wrote the wrapper text around summaries.
    pub prompts: String,
    pub message_tokens: u64,
    pub llm_count: usize,
    pub llm_tokens: u64,
    /// The rule set and why (`pi@1.6: the file shows …`).
    pub rules: String,
    /// The leaf's path, root first: each entry with its state for the leaf.
    pub branch: Vec<BranchRow>,
}

/// One entry of the exported branch.
#[derive(Debug, Clone)]
pub struct BranchRow {
    pub entry_id: String,
    /// `user`, `assistant`, `compaction`, `model_change`, …
    pub kind: String,
    /// `kept`, `summarized`, `hidden`, … (core `EntryState::name`).
    pub state: &'static str,
}

/// One message of the export.
#[derive(Debug, Clone)]
pub struct Message {
    pub role: String,
    pub entry_id: String,
    /// The dialect's estimate of the agent message.
    pub tokens: u64,
    /// Role after `convertToLlm`; `None`: not sent.
    pub llm_role: Option<String>,
    pub llm_tokens: u64,
    /// The LLM message; the agent message when it is not sent.
    pub message: Value,
    /// Its readable text, uncut.
    pub text: String,
}

/// The export in `format`.
pub fn render(format: Format, head: &Head, messages: &[Message]) -> String {
    match format {
        Format::Json => to_json(head, messages),
        Format::Markdown => to_markdown(head, messages),
        Format::Html => to_html(head, messages),
    }
}

/// Text made safe for HTML element content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn to_html(head: &Head, messages: &[Message]) -> String {
    let leaf = escape(head.leaf_id.as_deref().unwrap_or("(none)"));
    let mut out = String::new();
    out.push_str("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    // Nothing may run or load: the page is data only, whatever the session says.
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n");
    out.push_str(&format!("<title>contextree · context of leaf {leaf}</title>\n"));
    out.push_str("<style>body{font:14px/1.4 sans-serif;margin:2em;max-width:70em}pre{white-space:pre-wrap;background:#f4f5f7;padding:.6em;border-radius:4px}\
        .state{display:inline-block;min-width:8em;font-size:12px;color:#555}.s-kept{color:#2f7d62}.s-summarized{color:#7a3db8}.s-hidden,.s-excluded{color:#c0392b}\
        table{border-collapse:collapse}td{padding:1px 8px;border-bottom:1px solid #eee;font-family:monospace}h2{font-size:15px;margin-top:1.5em}</style>\n");
    out.push_str("</head><body>\n");
    out.push_str(&format!("<h1>Context of leaf {leaf}</h1>\n"));
    out.push_str(&format!(
        "<p>{} dialect · rules {} · {} messages · {} tokens (estimate) · sent: {} messages · {} tokens · wrapper text: {}</p>\n",
        escape(head.dialect),
        escape(&head.rules),
        messages.len(),
        head.message_tokens,
        head.llm_count,
        head.llm_tokens,
        escape(&head.prompts),
    ));
    out.push_str(&format!("<h2>The branch: {} entries, root first</h2>\n<table>\n", head.branch.len()));
    for r in &head.branch {
        out.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td class=\"state s-{}\">{}</td></tr>\n",
            escape(&r.entry_id),
            escape(&r.kind),
            escape(r.state),
            escape(r.state)
        ));
    }
    out.push_str("</table>\n<h2>The context, as sent</h2>\n");
    for (i, m) in messages.iter().enumerate() {
        let sent = match &m.llm_role {
            Some(role) if role == &m.role => format!("{} tokens", m.llm_tokens),
            Some(role) => format!("sent as {} · {} tokens", escape(role), m.llm_tokens),
            None => "not sent".to_owned(),
        };
        out.push_str(&format!(
            "<section><h2>{}. {} · entry {} · {sent}</h2>\n<pre>{}</pre></section>\n",
            i + 1,
            escape(&m.role),
            escape(&m.entry_id),
            escape(&m.text)
        ));
    }
    out.push_str("</body></html>\n");
    out
}

fn to_json(head: &Head, messages: &[Message]) -> String {
    let list: Vec<Value> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            json!({
                "i": i,
                "role": m.role,
                "entryId": m.entry_id,
                "tokens": m.tokens,
                "sent": m.llm_role.is_some(),
                "llmRole": m.llm_role,
                "llmTokens": m.llm_tokens,
                "message": m.message,
            })
        })
        .collect();
    let doc = json!({
        "leafId": head.leaf_id,
        "dialect": head.dialect,
        "prompts": head.prompts,
        "messageCount": messages.len(),
        "messageTokens": head.message_tokens,
        "llmCount": head.llm_count,
        "llmTokens": head.llm_tokens,
        "messages": list,
    });
    // serde_json's pretty printer cannot fail on a `Value`.
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}

fn to_markdown(head: &Head, messages: &[Message]) -> String {
    let mut out = format!(
        "# Context of leaf {}\n\n{} dialect · {} messages · {} tokens (estimate) · sent: {} messages · {} tokens · wrapper text: {}\n",
        head.leaf_id.as_deref().unwrap_or("(none)"),
        head.dialect,
        messages.len(),
        head.message_tokens,
        head.llm_count,
        head.llm_tokens,
        head.prompts,
    );
    for (i, m) in messages.iter().enumerate() {
        let sent = match &m.llm_role {
            Some(role) if role == &m.role => format!("{} tokens", m.llm_tokens),
            Some(role) => format!("sent as {role} · {} tokens", m.llm_tokens),
            None => "not sent".to_owned(),
        };
        out.push_str(&format!("\n## {}. {} · entry {} · {sent}\n\n", i + 1, m.role, m.entry_id));
        let fence = fence(&m.text);
        out.push_str(&fence);
        out.push('\n');
        out.push_str(&m.text);
        if !m.text.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&fence);
        out.push('\n');
    }
    out
}

/// A backtick fence longer than any run of backticks in `text` (at least three), so the text
/// cannot close its block early.
pub fn fence(text: &str) -> String {
    let (mut longest, mut run) = (0, 0);
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head() -> Head {
        Head {
            leaf_id: Some("a2".into()),
            dialect: "pi",
            prompts: "contextree's own wording".into(),
            message_tokens: 12,
            llm_count: 1,
            llm_tokens: 7,
            rules: "pi@0.73 (asked for explicitly)".into(),
            branch: vec![
                BranchRow { entry_id: "u1".into(), kind: "user".into(), state: "kept" },
                BranchRow { entry_id: "b1".into(), kind: "bashExecution".into(), state: "excluded" },
            ],
        }
    }

    fn messages() -> Vec<Message> {
        vec![
            Message {
                role: "user".into(),
                entry_id: "u1".into(),
                tokens: 7,
                llm_role: Some("user".into()),
                llm_tokens: 7,
                message: json!({"role": "user", "content": "run ```js\nx``` and ````"}),
                text: "run ```js\nx``` and ````".into(),
            },
            Message {
                role: "bashExecution".into(),
                entry_id: "b1".into(),
                tokens: 5,
                llm_role: None,
                llm_tokens: 0,
                message: json!({"role": "bashExecution", "command": "ls", "excludeFromContext": true}),
                text: "$ ls\n".into(),
            },
        ]
    }

    #[test]
    fn fences_are_longer_than_any_backtick_run() {
        assert_eq!(fence("plain"), "```");
        assert_eq!(fence("a `b` c"), "```");
        assert_eq!(fence("```rust\n```"), "````");
        assert_eq!(fence("x ````` y ``"), "``````");
    }

    #[test]
    fn markdown_has_one_section_per_message_with_the_whole_text() {
        let md = render(Format::Markdown, &head(), &messages());
        let expected = concat!(
            "# Context of leaf a2\n\n",
            "pi dialect · 2 messages · 12 tokens (estimate) · sent: 1 messages · 7 tokens · wrapper text: contextree's own wording\n",
            "\n## 1. user · entry u1 · 7 tokens\n\n",
            "`````\nrun ```js\nx``` and ````\n`````\n",
            "\n## 2. bashExecution · entry b1 · not sent\n\n",
            "```\n$ ls\n```\n",
        );
        assert_eq!(md, expected);
    }

    #[test]
    fn json_keeps_every_message_as_sent() {
        let doc: Value = serde_json::from_str(&render(Format::Json, &head(), &messages())).unwrap();
        assert_eq!(doc["leafId"], "a2");
        assert_eq!(doc["messageCount"], 2);
        assert_eq!(doc["llmTokens"], 7);
        assert_eq!(doc["messages"][0]["message"]["content"], "run ```js\nx``` and ````");
        assert_eq!(doc["messages"][0]["sent"], true);
        assert_eq!(doc["messages"][1]["sent"], false);
        assert_eq!(doc["messages"][1]["llmRole"], Value::Null);
        assert_eq!(doc["messages"][1]["entryId"], "b1");
    }

    #[test]
    fn formats_are_named_json_markdown_and_html() {
        assert_eq!("json".parse::<Format>().unwrap(), Format::Json);
        assert_eq!("markdown".parse::<Format>().unwrap(), Format::Markdown);
        assert_eq!("html".parse::<Format>().unwrap(), Format::Html);
        let err = "pdf".parse::<Format>().unwrap_err();
        assert!(err.to_string().contains("pdf"), "{err}");
    }

    #[test]
    fn html_is_self_contained_and_runs_nothing_from_the_session() {
        let mut msgs = messages();
        msgs[0].text = "<script>alert('x')</script> <img src=x onerror=alert(1)> & \"q\"".into();
        let html = render(Format::Html, &head(), &msgs);
        assert!(!html.to_lowercase().contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt; &amp; &quot;q&quot;"));
        assert!(html.contains("default-src 'none'"), "a CSP forbids scripts and loads");
        assert!(!html.contains("src=\"http") && !html.contains("href="), "nothing is loaded");
        // The branch with its states, then one section per message.
        assert!(html.contains("<td>b1</td><td>bashExecution</td><td class=\"state s-excluded\">excluded</td>"));
        assert_eq!(html.matches("<section>").count(), 2);
        assert!(html.contains("2. bashExecution · entry b1 · not sent"));
    }
}
