//! Which providers to ask, in which order, and how: [`ProviderConfig`], [`Candidates`], and
//! contextree's own config file (`~/.config/contextree/config.json`, see the crate README).
//!
//! API keys live in [`ApiKey`], whose `Debug` never shows the key; nothing in this crate
//! prints or logs one.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::error::LlmError;

/// Default idle timeout (see [`ProviderConfig::timeout`]).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// Default number of retries per candidate (omp's `retry.maxRetries`).
pub const DEFAULT_MAX_RETRIES: u32 = 3;
/// Default base of the exponential backoff (omp's `retry.baseDelayMs`).
pub const DEFAULT_RETRY_BASE_DELAY: Duration = Duration::from_millis(2000);
/// Default total deadline of one summary call (see [`Candidates::deadline`]). Five minutes:
/// a hosted model writes a summary in well under one, a local one on a laptop in a few; with
/// only the idle timeout and retries a silent server could hold a call for eight minutes.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(300);
/// The longest deadline the config file accepts (a week: "practically none").
const MAX_DEADLINE_SECS: f64 = 7.0 * 86_400.0;

/// The wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum ProviderKind {
    /// `POST <base>/chat/completions`, streamed: Ollama, llama.cpp, vLLM, LM Studio, OpenAI.
    #[serde(rename = "openai-compatible")]
    OpenAiCompatible,
    /// Anthropic Messages, `POST <base>/v1/messages`, streamed.
    #[serde(rename = "anthropic")]
    Anthropic,
    /// omp's remote summarization endpoint: `POST <url>` with `{systemPrompt, prompt}`,
    /// answered by `{summary}`; not streamed (compaction.md §6.5).
    #[serde(rename = "remote")]
    Remote,
}

impl ProviderKind {
    /// The name used in the config file and in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenAiCompatible => "openai-compatible",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Remote => "remote",
        }
    }

    /// The base URL used when the config gives none (none for [`ProviderKind::Remote`]).
    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            ProviderKind::OpenAiCompatible => Some("https://api.openai.com/v1"),
            ProviderKind::Anthropic => Some("https://api.anthropic.com"),
            ProviderKind::Remote => None,
        }
    }

    /// The environment variable read for the key when the config names none.
    pub fn default_api_key_env(self) -> Option<&'static str> {
        match self {
            ProviderKind::OpenAiCompatible => Some("OPENAI_API_KEY"),
            ProviderKind::Anthropic => Some("ANTHROPIC_API_KEY"),
            ProviderKind::Remote => None,
        }
    }
}

/// An API key. `Debug` prints `ApiKey(<redacted>)`; there is no `Display`.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    /// The key itself, for the one place that puts it into a request header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// One candidate model: where it is, how to authenticate, how patient to be.
#[derive(Debug, Clone)]
pub struct ProviderConfig {
    /// A label for messages (`"local ollama"`); [`ProviderConfig::label`] falls back to the kind.
    pub name: Option<String>,
    /// The wire format.
    pub kind: ProviderKind,
    /// OpenAI-compatible: the API base, e.g. `http://127.0.0.1:11434/v1`;
    /// Anthropic: e.g. `https://api.anthropic.com`; remote: the full endpoint URL.
    /// See [`crate::request::endpoint_url`] for how the path is completed.
    pub base_url: String,
    /// The model id (`qwen2.5:7b`, `claude-sonnet-4-5`); empty for a remote endpoint.
    pub model: String,
    /// The environment variable holding the key; defaults per kind
    /// ([`ProviderKind::default_api_key_env`]).
    pub api_key_env: Option<String>,
    /// A key written in the user's config file; wins over the environment.
    pub api_key: Option<ApiKey>,
    /// Idle timeout: the longest wait for the connection, for the response headers, or
    /// between two pieces of a streamed body. Not a limit on the whole generation, which
    /// may take minutes while text keeps arriving. For a remote endpoint (not streamed) it is
    /// the limit for the whole answer.
    pub timeout: Duration,
    /// Retries after the first attempt for retryable errors ([`LlmError::is_retryable`]).
    pub max_retries: u32,
    /// Delay before retry `n` (0-based) is `retry_base_delay × 2ⁿ`, at least the server's
    /// `retry-after`.
    pub retry_base_delay: Duration,
    /// The model's context window (config key `contextWindow`), when the user gives it:
    /// oh-my-pi 18's summary input budget depends on it (otherwise contextree's table of
    /// common models, else omp's fallback of 200000).
    pub context_window: Option<u64>,
}

impl ProviderConfig {
    /// A provider with the default timeout and retry policy and the key from the environment.
    pub fn new(kind: ProviderKind, base_url: impl Into<String>, model: impl Into<String>) -> Self {
        ProviderConfig {
            name: None,
            kind,
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: None,
            api_key: None,
            timeout: DEFAULT_TIMEOUT,
            max_retries: DEFAULT_MAX_RETRIES,
            retry_base_delay: DEFAULT_RETRY_BASE_DELAY,
            context_window: None,
        }
    }

    /// The name given in the config, else the kind (`anthropic`).
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or(self.kind.as_str())
    }

    /// The environment variable the key is read from, if any. An empty `api_key_env` means
    /// none, not the kind's default (a candidate whose key was looked up elsewhere, such as
    /// the agent's own model, must not pick up `OPENAI_API_KEY`).
    pub fn api_key_env_name(&self) -> Option<&str> {
        match self.api_key_env.as_deref() {
            Some("") => None,
            Some(var) => Some(var),
            None => self.kind.default_api_key_env(),
        }
    }

    /// The key to send: [`ProviderConfig::api_key`] if set and non-empty, else the
    /// non-empty value of the environment variable, looked up through `env`.
    pub fn resolve_api_key(&self, env: &dyn Fn(&str) -> Option<String>) -> Option<ApiKey> {
        if let Some(key) = self.api_key.as_ref().filter(|k| !k.0.is_empty()) {
            return Some(key.clone());
        }
        let var = self.api_key_env_name()?;
        env(var).filter(|v| !v.is_empty()).map(ApiKey)
    }

    /// Whether a request without a key is pointless, so the candidate is skipped
    /// (as omp skips models without a key): always for Anthropic, and for the OpenAI API
    /// itself. Local OpenAI-compatible servers and remote endpoints need none.
    pub fn requires_api_key(&self) -> bool {
        match self.kind {
            ProviderKind::Anthropic => true,
            ProviderKind::OpenAiCompatible => crate::request::is_openai_host(&self.base_url),
            ProviderKind::Remote => false,
        }
    }
}

/// The candidate models, tried in order until one succeeds, and how long one summary call
/// may take in all.
#[derive(Debug, Clone)]
pub struct Candidates {
    /// The models, in the order they are tried.
    pub providers: Vec<ProviderConfig>,
    /// The total deadline of one summary call: every candidate, attempt and backoff sleep
    /// counts against it, so a server that accepts and then never answers costs at most this
    /// (config key `summaryDeadlineSecs`, default [`DEFAULT_DEADLINE`]).
    pub deadline: Duration,
}

impl Default for Candidates {
    fn default() -> Self {
        Candidates::new(Vec::new())
    }
}

impl Candidates {
    /// `providers` with the default deadline.
    pub fn new(providers: Vec<ProviderConfig>) -> Candidates {
        Candidates { providers, deadline: DEFAULT_DEADLINE }
    }

    /// Reads contextree's config file text (JSON, see the README).
    pub fn from_json(text: &str) -> Result<Candidates, LlmError> {
        parse(text, "<text>")
    }

    /// Reads a config file. A missing file is an error here; see [`Candidates::load_default`].
    pub fn load(path: &Path) -> Result<Candidates, LlmError> {
        let text =
            std::fs::read_to_string(path).map_err(|err| LlmError::Config { path: path.display().to_string(), reason: err.to_string() })?;
        parse(&text, &path.display().to_string())
    }

    /// Reads [`default_path`]; no file (or no home directory) means no candidates.
    pub fn load_default() -> Result<Candidates, LlmError> {
        match default_path() {
            Some(path) if path.exists() => Candidates::load(&path),
            _ => Ok(Candidates::default()),
        }
    }

    /// Whether no candidate is configured.
    pub fn is_empty(&self) -> bool {
        self.providers.is_empty()
    }
}

/// `$XDG_CONFIG_HOME/contextree/config.json`, else `$HOME/.config/contextree/config.json`.
pub fn default_path() -> Option<PathBuf> {
    let non_empty = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty());
    let base = match non_empty("XDG_CONFIG_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(non_empty("HOME")?).join(".config"),
    };
    Some(base.join("contextree").join("config.json"))
}

/// The file as written. Unknown top-level keys are allowed (the app may keep other settings
/// in the same file); unknown keys inside a provider are typos and rejected.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileConfig {
    #[serde(default)]
    providers: Vec<FileProvider>,
    summary_deadline_secs: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FileProvider {
    name: Option<String>,
    kind: ProviderKind,
    #[serde(alias = "url")]
    base_url: Option<String>,
    model: Option<String>,
    api_key: Option<String>,
    api_key_env: Option<String>,
    timeout_secs: Option<f64>,
    max_retries: Option<u32>,
    retry_base_delay_ms: Option<u64>,
    context_window: Option<u64>,
}

fn parse(text: &str, path: &str) -> Result<Candidates, LlmError> {
    let config_error = |reason: String| LlmError::Config { path: path.to_owned(), reason };
    // serde_json's messages quote unexpected values, which could be a key: keep the message
    // only when it names identifiers (fields, the kind), else only its category.
    let file: FileConfig = serde_json::from_str(text).map_err(|err| {
        let message = err.to_string();
        let what = if ["unknown field", "missing field", "unknown variant"].iter().any(|p| message.starts_with(p)) {
            message.split(" at line ").next().unwrap_or_default().to_owned()
        } else {
            format!("{:?} error", err.classify())
        };
        config_error(format!("{what} at line {} column {}", err.line(), err.column()))
    })?;
    let deadline = match file.summary_deadline_secs {
        None => DEFAULT_DEADLINE,
        Some(secs) if secs.is_finite() && secs > 0.0 && secs <= MAX_DEADLINE_SECS => Duration::from_secs_f64(secs),
        Some(_) => {
            return Err(config_error(format!("`summaryDeadlineSecs` must be a number of seconds > 0 and at most {MAX_DEADLINE_SECS}")))
        }
    };
    let mut res = Vec::with_capacity(file.providers.len());
    for (idx, p) in file.providers.into_iter().enumerate() {
        let at = |what: &str| config_error(format!("providers[{idx}]: {what}"));
        let base_url = match (p.base_url, p.kind.default_base_url()) {
            (Some(url), _) => url,
            (None, Some(url)) => url.to_owned(),
            (None, None) => return Err(at("a remote provider needs `baseUrl`")),
        };
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(at("`baseUrl` must start with http:// or https://"));
        }
        let model = p.model.unwrap_or_default();
        if model.is_empty() && p.kind != ProviderKind::Remote {
            return Err(at("`model` is required"));
        }
        let timeout = match p.timeout_secs {
            None => DEFAULT_TIMEOUT,
            Some(secs) if secs.is_finite() && secs > 0.0 && secs < 1e9 => Duration::from_secs_f64(secs),
            Some(_) => return Err(at("`timeoutSecs` must be a positive number")),
        };
        res.push(ProviderConfig {
            name: p.name,
            kind: p.kind,
            base_url,
            model,
            api_key_env: p.api_key_env,
            api_key: p.api_key.map(ApiKey),
            timeout,
            max_retries: p.max_retries.unwrap_or(DEFAULT_MAX_RETRIES),
            retry_base_delay: p.retry_base_delay_ms.map_or(DEFAULT_RETRY_BASE_DELAY, Duration::from_millis),
            context_window: p.context_window.filter(|&w| w > 0),
        });
    }
    Ok(Candidates { providers: res, deadline })
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = r#"{
  "providers": [
    { "name": "local", "kind": "openai-compatible", "baseUrl": "http://127.0.0.1:11434/v1",
      "model": "qwen2.5:7b", "timeoutSecs": 300, "maxRetries": 1 },
    { "kind": "anthropic", "model": "claude-sonnet-4-5", "apiKeyEnv": "MY_ANTHROPIC_KEY" },
    { "kind": "openai-compatible", "model": "gpt-4.1-mini", "apiKey": "sk-from-file" },
    { "kind": "remote", "baseUrl": "https://summarizer.example.com/compact",
      "retryBaseDelayMs": 500 }
  ],
  "ui": { "theme": "dark" }
}"#;

    #[test]
    fn the_readme_example_parses_with_defaults_filled_in() {
        let c = Candidates::from_json(EXAMPLE).unwrap();
        assert_eq!(c.providers.len(), 4);
        let local = &c.providers[0];
        assert_eq!(local.label(), "local");
        assert_eq!(local.kind, ProviderKind::OpenAiCompatible);
        assert_eq!(local.timeout, Duration::from_secs(300));
        assert_eq!(local.max_retries, 1);
        assert!(!local.requires_api_key());
        assert_eq!(c.deadline, DEFAULT_DEADLINE, "no summaryDeadlineSecs: the default");
        let anthropic = &c.providers[1];
        assert_eq!(anthropic.base_url, "https://api.anthropic.com");
        assert_eq!(anthropic.label(), "anthropic");
        assert_eq!(anthropic.api_key_env_name(), Some("MY_ANTHROPIC_KEY"));
        assert_eq!(anthropic.timeout, DEFAULT_TIMEOUT);
        assert!(anthropic.requires_api_key());
        let openai = &c.providers[2];
        assert_eq!(openai.base_url, "https://api.openai.com/v1");
        assert!(openai.requires_api_key());
        let remote = &c.providers[3];
        assert_eq!(remote.model, "");
        assert_eq!(remote.retry_base_delay, Duration::from_millis(500));
        assert_eq!(remote.api_key_env_name(), None);
    }

    #[test]
    fn keys_come_from_the_file_first_then_the_configured_or_default_variable() {
        let c = Candidates::from_json(EXAMPLE).unwrap();
        let env = |var: &str| match var {
            "MY_ANTHROPIC_KEY" => Some("ant-env".to_owned()),
            "OPENAI_API_KEY" => Some("oa-env".to_owned()),
            _ => None,
        };
        assert_eq!(c.providers[1].resolve_api_key(&env), Some(ApiKey::new("ant-env")));
        assert_eq!(c.providers[2].resolve_api_key(&env), Some(ApiKey::new("sk-from-file")));
        assert_eq!(c.providers[0].resolve_api_key(&env), Some(ApiKey::new("oa-env")));
        assert_eq!(c.providers[3].resolve_api_key(&env), None);
        let empty = |_: &str| Some(String::new());
        assert_eq!(c.providers[1].resolve_api_key(&empty), None);
    }

    #[test]
    fn debug_output_never_shows_a_key() {
        let c = Candidates::from_json(EXAMPLE).unwrap();
        let text = format!("{c:?}");
        assert!(!text.contains("sk-from-file"), "{text}");
        assert!(text.contains("ApiKey(<redacted>)"));
    }

    #[test]
    fn invalid_files_say_where_without_quoting_values() {
        let err = Candidates::from_json(r#"{"providers":[{"kind":"anthropic"}]}"#).unwrap_err();
        assert_eq!(err.to_string(), "invalid config <text>: providers[0]: `model` is required");
        let err = Candidates::from_json(r#"{"providers":[{"kind":"remote"}]}"#).unwrap_err();
        assert!(err.to_string().contains("needs `baseUrl`"), "{err}");
        let err = Candidates::from_json(r#"{"providers":[{"kind":"remote","baseUrl":"x","apiKey":"sk-oops"}]}"#).unwrap_err();
        assert!(err.to_string().contains("must start with http"), "{err}");
        // A typo next to a key: the message must not echo the key.
        let err = Candidates::from_json(r#"{"providers":[{"kind":"anthropic","model":"m","apikey":"sk-typo"}]}"#).unwrap_err();
        let text = err.to_string();
        assert!(!text.contains("sk-typo"), "{text}");
        assert!(text.contains("unknown field `apikey`"), "{text}");
        assert!(text.contains("line 1"), "{text}");
        let err = Candidates::from_json(r#"{"providers":[{"kind":"gemini","model":"m"}]}"#).unwrap_err();
        assert!(err.to_string().contains("unknown variant `gemini`"), "{err}");
        let err = Candidates::from_json(r#"{"providers":[{"kind":"remote","baseUrl":"http://x","maxRetries":"sk-1"}]}"#).unwrap_err();
        let text = err.to_string();
        assert!(!text.contains("sk-1"), "{text}");
        assert!(text.starts_with("invalid config <text>: Data error at line 1"), "{text}");
    }

    #[test]
    fn an_empty_file_object_has_no_candidates() {
        assert!(Candidates::from_json("{}").unwrap().is_empty());
    }

    #[test]
    fn the_summary_deadline_is_read_and_checked() {
        let c = Candidates::from_json(r#"{"summaryDeadlineSecs": 90.5, "providers": []}"#).unwrap();
        assert_eq!(c.deadline, Duration::from_millis(90_500));
        for bad in ["0", "-1", "1e12"] {
            let err = Candidates::from_json(&format!(r#"{{"summaryDeadlineSecs": {bad}}}"#)).unwrap_err();
            assert!(err.to_string().contains("summaryDeadlineSecs"), "{bad}: {err}");
        }
    }
}
