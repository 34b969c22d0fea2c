//! Pure request building: a [`SummaryRequest`] and a [`ProviderConfig`] in, the exact URL,
//! headers and JSON body out ([`HttpRequest`]). No IO.
//!
//! Wire formats:
//! - OpenAI-compatible `POST <base>/chat/completions`:
//!   `{"model", "messages": [system, user], <max tokens>?, "stream": true,
//!   "stream_options": {"include_usage": true}, "reasoning_effort"?}`.
//!   The token limit goes in `max_tokens`, which Ollama, llama.cpp, vLLM and LM Studio all
//!   read. OpenAI's own API (`api.openai.com`) gets `max_completion_tokens` instead:
//!   its reasoning models (o-series, gpt-5) reject `max_tokens`, and every chat model there
//!   accepts `max_completion_tokens`. A request without a limit (pi@1.6 sends none) has no
//!   such field: the server's default applies.
//! - Anthropic `POST <base>/v1/messages`: `{"model", "max_tokens", "system", "messages":
//!   [user], "stream": true, "thinking"?}` with `x-api-key` and
//!   `anthropic-version: 2023-06-01`. Anthropic requires `max_tokens`: a request without a
//!   limit gets [`ANTHROPIC_DEFAULT_MAX_TOKENS`] (pi-ai would send the model's own output limit,
//!   which contextree does not know).
//! - Remote endpoint (omp, compaction.md §6.5) `POST <url>`: `{"systemPrompt", "prompt"}`,
//!   answered by `{"summary"}`, not streamed.
//!
//! An empty system prompt is left out (Anthropic rejects an empty `system`); the remote body
//! always has both fields, as omp sends them.

use std::fmt;

use serde_json::{json, Map, Value};

use crate::config::{ApiKey, ProviderConfig, ProviderKind};

/// The Anthropic API version sent in `anthropic-version`.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// `max_tokens` of an Anthropic request that names no limit (the field is required there).
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u32 = 32_000;

/// What to ask a model for: a summary of `prompt` under `system_prompt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryRequest {
    /// The summarization system prompt.
    pub system_prompt: String,
    /// The user message: `<conversation>…</conversation>` plus instructions (compaction.md §6.2).
    pub prompt: String,
    /// The output limit (`floor(0.8 × reserveTokens)` for a history summary), or none
    /// (pi@1.6: the model's own limit applies).
    pub max_tokens: Option<u32>,
    /// Reasoning effort (`minimal`, `low`, `medium`, `high`, `xhigh`), or none.
    /// OpenAI-compatible: sent as `reasoning_effort` verbatim. Anthropic: extended thinking
    /// with the budget of [`anthropic_thinking_budget`], added on top of `max_tokens`
    /// (as pi-ai does) so the summary keeps its own budget. Remote: not sent.
    pub reasoning: Option<String>,
}

/// One HTTP request, ready to send. `Debug` hides the credential headers.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// The full URL to `POST` to.
    pub url: String,
    /// Header names (lowercase) and values, in sending order.
    pub headers: Vec<(&'static str, String)>,
    /// The JSON body, serialized.
    pub body: String,
}

/// Headers whose values are credentials.
const SECRET_HEADERS: [&str; 2] = ["authorization", "x-api-key"];

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(name, value)| {
                let value = if SECRET_HEADERS.contains(name) { "<redacted>" } else { value.as_str() };
                (*name, value)
            })
            .collect();
        f.debug_struct("HttpRequest").field("url", &self.url).field("headers", &headers).field("body", &self.body).finish()
    }
}

/// Builds the request `provider` expects for `request`.
pub fn build(request: &SummaryRequest, provider: &ProviderConfig, api_key: Option<&ApiKey>) -> HttpRequest {
    let url = endpoint_url(provider.kind, &provider.base_url);
    let mut headers = vec![("content-type", "application/json".to_owned())];
    let body = match provider.kind {
        ProviderKind::OpenAiCompatible => {
            headers.push(("accept", "text/event-stream".to_owned()));
            if let Some(key) = api_key {
                headers.push(("authorization", format!("Bearer {}", key.expose())));
            }
            let field = if is_openai_host(&provider.base_url) { MaxTokensField::MaxCompletionTokens } else { MaxTokensField::MaxTokens };
            openai_body(request, &provider.model, field)
        }
        ProviderKind::Anthropic => {
            headers.push(("accept", "text/event-stream".to_owned()));
            if let Some(key) = api_key {
                headers.push(("x-api-key", key.expose().to_owned()));
            }
            headers.push(("anthropic-version", ANTHROPIC_VERSION.to_owned()));
            anthropic_body(request, &provider.model)
        }
        ProviderKind::Remote => {
            headers.push(("accept", "application/json".to_owned()));
            if let Some(key) = api_key {
                headers.push(("authorization", format!("Bearer {}", key.expose())));
            }
            remote_body(request)
        }
    };
    HttpRequest { url, headers, body: body.to_string() }
}

/// Which field carries the output limit in an OpenAI-compatible body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxTokensField {
    /// `max_tokens`: local servers and most compatible APIs.
    MaxTokens,
    /// `max_completion_tokens`: OpenAI's own API.
    MaxCompletionTokens,
}

/// The OpenAI chat-completions body (streamed).
pub fn openai_body(request: &SummaryRequest, model: &str, field: MaxTokensField) -> Value {
    let mut messages = Vec::with_capacity(2);
    if !request.system_prompt.is_empty() {
        messages.push(json!({"role": "system", "content": request.system_prompt}));
    }
    messages.push(json!({"role": "user", "content": request.prompt}));
    let mut body = Map::new();
    body.insert("model".into(), model.into());
    body.insert("messages".into(), messages.into());
    let field = match field {
        MaxTokensField::MaxTokens => "max_tokens",
        MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
    };
    if let Some(max) = request.max_tokens {
        body.insert(field.into(), max.into());
    }
    body.insert("stream".into(), true.into());
    body.insert("stream_options".into(), json!({"include_usage": true}));
    if let Some(effort) = &request.reasoning {
        body.insert("reasoning_effort".into(), effort.as_str().into());
    }
    Value::Object(body)
}

/// The Anthropic Messages body (streamed).
pub fn anthropic_body(request: &SummaryRequest, model: &str) -> Value {
    let budget = request.reasoning.as_deref().and_then(anthropic_thinking_budget);
    let mut body = Map::new();
    body.insert("model".into(), model.into());
    body.insert("max_tokens".into(), (request.max_tokens.unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS) + budget.unwrap_or(0)).into());
    if !request.system_prompt.is_empty() {
        body.insert("system".into(), request.system_prompt.as_str().into());
    }
    body.insert("messages".into(), json!([{"role": "user", "content": request.prompt}]));
    body.insert("stream".into(), true.into());
    if let Some(budget) = budget {
        body.insert("thinking".into(), json!({"type": "enabled", "budget_tokens": budget}));
    }
    Value::Object(body)
}

/// The remote endpoint's body: `{"systemPrompt", "prompt"}` (compaction.md §6.5).
pub fn remote_body(request: &SummaryRequest) -> Value {
    json!({"systemPrompt": request.system_prompt, "prompt": request.prompt})
}

/// Anthropic thinking budget for an effort level (pi-ai's default budgets); `None` for
/// `off`, `none` and unknown levels, which send no `thinking` at all.
pub fn anthropic_thinking_budget(effort: &str) -> Option<u32> {
    match effort {
        "minimal" => Some(1024),
        "low" => Some(2048),
        "medium" => Some(8192),
        "high" => Some(16384),
        "xhigh" => Some(32768),
        _ => None,
    }
}

/// Completes a configured base URL to the endpoint:
/// - OpenAI-compatible: a URL already ending in `/chat/completions` is kept; a bare origin
///   (`http://127.0.0.1:11434`) gets `/v1/chat/completions`; any other path (`…/v1`,
///   `…/api/v1`) gets `/chat/completions`.
/// - Anthropic: `…/messages` is kept; `…/v1` gets `/messages`; anything else `/v1/messages`.
/// - Remote: the URL as configured.
pub fn endpoint_url(kind: ProviderKind, base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    match kind {
        ProviderKind::OpenAiCompatible if base.ends_with("/chat/completions") => base.to_owned(),
        ProviderKind::OpenAiCompatible if url_path(base).is_empty() => {
            format!("{base}/v1/chat/completions")
        }
        ProviderKind::OpenAiCompatible => format!("{base}/chat/completions"),
        ProviderKind::Anthropic if base.ends_with("/messages") => base.to_owned(),
        ProviderKind::Anthropic if base.ends_with("/v1") => format!("{base}/messages"),
        ProviderKind::Anthropic => format!("{base}/v1/messages"),
        ProviderKind::Remote => base_url.to_owned(),
    }
}

/// Whether the URL points at OpenAI's own API.
pub fn is_openai_host(base_url: &str) -> bool {
    url_host(base_url).eq_ignore_ascii_case("api.openai.com")
}

/// Whether the URL points at this machine (no proxy is used for it).
pub fn is_loopback(url: &str) -> bool {
    let host = url_host(url);
    host.eq_ignore_ascii_case("localhost") || host.starts_with("127.") || host == "[::1]"
}

/// `scheme://authority` split off; returns the authority and the rest (path, query).
fn split_url(url: &str) -> (&str, &str) {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    match rest.find(['/', '?', '#']) {
        Some(idx) => rest.split_at(idx),
        None => (rest, ""),
    }
}

fn url_host(url: &str) -> &str {
    let (authority, _) = split_url(url);
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, hp)| hp);
    if host_port.starts_with('[') {
        return host_port.find(']').map_or(host_port, |end| &host_port[..=end]);
    }
    host_port.split(':').next().unwrap_or_default()
}

fn url_path(url: &str) -> &str {
    split_url(url).1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> SummaryRequest {
        SummaryRequest {
            system_prompt: "You summarize.".into(),
            prompt: "<conversation>\n[User]: hi\n</conversation>\n\nSummarize.".into(),
            max_tokens: Some(13107),
            reasoning: None,
        }
    }

    #[test]
    fn openai_compatible_body_is_exact() {
        let p = ProviderConfig::new(ProviderKind::OpenAiCompatible, "http://127.0.0.1:11434/v1", "qwen2.5:7b");
        let req = build(&request(), &p, None);
        assert_eq!(req.url, "http://127.0.0.1:11434/v1/chat/completions");
        assert_eq!(
            req.body,
            r#"{"model":"qwen2.5:7b","messages":[{"role":"system","content":"You summarize."},{"role":"user","content":"<conversation>\n[User]: hi\n</conversation>\n\nSummarize."}],"max_tokens":13107,"stream":true,"stream_options":{"include_usage":true}}"#
        );
        // No key, no authorization header: local servers need none.
        assert_eq!(req.headers, vec![("content-type", "application/json".to_owned()), ("accept", "text/event-stream".to_owned())]);
    }

    #[test]
    fn openai_proper_gets_max_completion_tokens_and_reasoning_effort() {
        let p = ProviderConfig::new(ProviderKind::OpenAiCompatible, "https://api.openai.com/v1", "gpt-5-mini");
        let mut r = request();
        r.reasoning = Some("high".into());
        r.system_prompt.clear();
        let req = build(&r, &p, Some(&ApiKey::new("sk-test")));
        assert_eq!(
            req.body,
            r#"{"model":"gpt-5-mini","messages":[{"role":"user","content":"<conversation>\n[User]: hi\n</conversation>\n\nSummarize."}],"max_completion_tokens":13107,"stream":true,"stream_options":{"include_usage":true},"reasoning_effort":"high"}"#
        );
        assert!(req.headers.contains(&("authorization", "Bearer sk-test".to_owned())));
    }

    #[test]
    fn anthropic_body_and_headers_are_exact() {
        let p = ProviderConfig::new(ProviderKind::Anthropic, "https://api.anthropic.com", "claude-sonnet-4-5");
        let req = build(&request(), &p, Some(&ApiKey::new("ant-key")));
        assert_eq!(req.url, "https://api.anthropic.com/v1/messages");
        assert_eq!(
            req.body,
            r#"{"model":"claude-sonnet-4-5","max_tokens":13107,"system":"You summarize.","messages":[{"role":"user","content":"<conversation>\n[User]: hi\n</conversation>\n\nSummarize."}],"stream":true}"#
        );
        assert_eq!(
            req.headers,
            vec![
                ("content-type", "application/json".to_owned()),
                ("accept", "text/event-stream".to_owned()),
                ("x-api-key", "ant-key".to_owned()),
                ("anthropic-version", "2023-06-01".to_owned()),
            ]
        );
    }

    #[test]
    fn anthropic_thinking_adds_its_budget_on_top_of_max_tokens() {
        let mut r = request();
        r.reasoning = Some("high".into());
        let body = anthropic_body(&r, "m");
        assert_eq!(body["max_tokens"], 13107 + 16384);
        assert_eq!(body["thinking"], json!({"type": "enabled", "budget_tokens": 16384}));
        r.reasoning = Some("off".into());
        assert!(anthropic_body(&r, "m").get("thinking").is_none());
    }

    #[test]
    fn no_limit_means_no_limit_field_except_where_required() {
        let mut r = request();
        r.max_tokens = None;
        let body = openai_body(&r, "m", MaxTokensField::MaxTokens);
        assert!(body.get("max_tokens").is_none() && body.get("max_completion_tokens").is_none());
        assert_eq!(anthropic_body(&r, "m")["max_tokens"], ANTHROPIC_DEFAULT_MAX_TOKENS);
    }

    #[test]
    fn remote_body_is_exact() {
        let p = ProviderConfig::new(ProviderKind::Remote, "https://x.example/compact?v=1", "");
        let req = build(&request(), &p, None);
        assert_eq!(req.url, "https://x.example/compact?v=1");
        assert_eq!(req.body, r#"{"systemPrompt":"You summarize.","prompt":"<conversation>\n[User]: hi\n</conversation>\n\nSummarize."}"#);
    }

    #[test]
    fn base_urls_are_completed_to_the_endpoint() {
        use ProviderKind::*;
        let cases = [
            (OpenAiCompatible, "http://localhost:11434", "http://localhost:11434/v1/chat/completions"),
            (OpenAiCompatible, "http://localhost:11434/", "http://localhost:11434/v1/chat/completions"),
            (OpenAiCompatible, "http://localhost:8080/v1/", "http://localhost:8080/v1/chat/completions"),
            (OpenAiCompatible, "https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1/chat/completions"),
            (OpenAiCompatible, "http://h/v1/chat/completions", "http://h/v1/chat/completions"),
            (Anthropic, "https://api.anthropic.com", "https://api.anthropic.com/v1/messages"),
            (Anthropic, "https://proxy/v1", "https://proxy/v1/messages"),
            (Anthropic, "https://proxy/v1/messages", "https://proxy/v1/messages"),
        ];
        for (kind, base, want) in cases {
            assert_eq!(endpoint_url(kind, base), want, "{base}");
        }
    }

    #[test]
    fn hosts_are_recognised() {
        assert!(is_openai_host("https://api.openai.com/v1"));
        assert!(!is_openai_host("https://api.openai.com.evil.example/v1"));
        assert!(is_loopback("http://127.0.0.1:4000/v1"));
        assert!(is_loopback("http://localhost"));
        assert!(is_loopback("http://[::1]:8080/x"));
        assert!(!is_loopback("http://user@example.com:80"));
    }

    #[test]
    fn debug_hides_credentials() {
        let p = ProviderConfig::new(ProviderKind::Anthropic, "https://api.anthropic.com", "m");
        let text = format!("{:?}", build(&request(), &p, Some(&ApiKey::new("ant-secret"))));
        assert!(!text.contains("ant-secret"), "{text}");
        assert!(text.contains("<redacted>"));
    }
}
