//! The model and key the agent itself compacts with, read from the agent's own files (read only),
//! so `contextree compact` works with no contextree set-up.
//!
//! - pi (0.73 and 1.6 read the same files): `settings.json` `defaultProvider` / `defaultModel`
//!   (global, then the project's `.pi/settings.json`, merged by [`crate::settings`]);
//!   `<agent dir>/models.json` (custom providers and overrides of built-in ones: `baseUrl`,
//!   `api`, `apiKey`, `headers`, `authHeader`, `models[]`; `//` comments and trailing commas
//!   allowed, as pi strips them); `<agent dir>/auth.json` (per provider
//!   `{"type": "api_key", "key", "env"?}` or `{"type": "oauth", …}`). Keys are looked up as pi
//!   1.6 does (pi-ai `auth/resolve`: a stored credential owns the provider; then the
//!   `models.json` `apiKey`; then the provider's environment variables).
//! - omp (18): `modelRoles` of its settings (`default` first, then the other roles in omp's
//!   order, as its compaction candidate loop tries them); `~/.omp/agent/models.yml` (else
//!   `models.yaml`, else the legacy `models.json`), the same provider shape. Keys: the
//!   `models.yml` `apiKey` (omp's config override, which wins), then the environment. omp
//!   keeps `/login` keys and subscriptions in `agent.db` (SQLite), which contextree does not
//!   read.
//!
//! Key values follow the agents' config-value rules: `!command` is a shell command (never run
//! here: such a model is unavailable, with the reason); pi 1.6 interpolates `$NAME` /
//! `${NAME}` (`$$` and `$!` escape); pi 0.73 and omp read a value naming a set environment
//! variable as that variable, anything else as the key itself. A bare name is read the 0.73 /
//! omp way for pi 1.6 too: a literal key never names a set variable.
//!
//! Keys are held in [`Secret`], whose `Debug` is redacted; nothing here prints or logs one.
//! The parsing is pure (text and an environment lookup in, values out); [`read_agent_models`]
//! reads the files of an agent folder given as a parameter.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use contextree_core::Dialect;
use serde_json::Value;

/// An API key. `Debug` prints `Secret(<redacted>)`; there is no `Display`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Secret {
        Secret(key.into())
    }

    /// The key itself, for the one place that hands it to the model client.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// The wire format contextree would use for an agent's model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// `anthropic-messages`.
    Anthropic,
    /// `openai-completions`, or `openai-responses` asked through the same host's chat
    /// completions endpoint.
    OpenAiCompatible,
}

/// A model an agent's settings name: `provider` / `model`, and which setting named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    /// The agent's provider id (`anthropic`, `openrouter`, a custom one).
    pub provider: String,
    /// The model id sent to the provider.
    pub model: String,
    /// The setting: `defaultProvider/defaultModel`, `modelRoles.default`, …
    pub setting: String,
}

/// One model of the agent's, as contextree can (or cannot) use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentModel {
    /// Whose: pi or omp.
    pub agent: Dialect,
    /// The setting that names it.
    pub setting: String,
    /// The agent's provider id.
    pub provider: String,
    /// The model id.
    pub model: String,
    /// The agent's api kind (`anthropic-messages`, `openai-completions`, …; empty if unknown).
    pub api: String,
    /// Where requests go (empty if unknown).
    pub base_url: String,
    /// How contextree would call it; `None` when it cannot.
    pub wire: Option<Wire>,
    /// The key, when one was found and can be used.
    pub key: Option<Secret>,
    /// Where the key comes from (`~/.pi/agent/auth.json`, `environment variable X`, …), or
    /// where the agent would look when there is none.
    pub key_source: String,
    /// Why contextree cannot use this model (`None`: usable, as far as the files tell).
    pub unavailable: Option<String>,
    /// What contextree does differently from the agent for this model (headers not sent, …).
    pub notes: Vec<String>,
}

impl AgentModel {
    /// `pi's own: anthropic/claude-sonnet-4-5`: the name it goes by in lists and messages.
    pub fn label(&self) -> String {
        format!("{}'s own: {}/{}", self.agent.name(), self.provider, self.model)
    }
}

/// What an agent folder's model files say, and what was wrong with them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentModels {
    /// The models, in the order the agent would try them (first: the one it uses).
    pub models: Vec<AgentModel>,
    /// Files or entries that were ignored, and why (never quoting a value).
    pub warnings: Vec<String>,
}

/// One built-in provider of pi-ai 1.6.0 (`dist/models.generated.js` and `providers/data/*.json`
/// for api and base URL, `dist/env-api-keys.js` for the variables): the api kind and base URL
/// contextree uses (a provider serving several takes its `openai-completions` endpoint, which
/// serves all its models), and the environment variables pi reads the key from, in order.
/// omp's built-in providers of the same ids are the same services.
pub struct Builtin {
    /// Provider id.
    pub id: &'static str,
    /// Api kind.
    pub api: &'static str,
    /// Base URL (empty: the agent builds it from the user's settings).
    pub base_url: &'static str,
    /// Key variables, in the order pi reads them.
    pub env: &'static [&'static str],
}

macro_rules! builtins {
    ($(($id:literal, $api:literal, $url:literal, [$($env:literal),*]),)*) => {
        &[$(Builtin { id: $id, api: $api, base_url: $url, env: &[$($env),*] },)*]
    };
}

/// pi-ai 1.6.0's built-in providers (see [`Builtin`]).
pub const BUILTINS: &[Builtin] = builtins![
    ("amazon-bedrock", "bedrock-converse-stream", "https://bedrock-runtime.us-east-1.amazonaws.com", []),
    ("ant-ling", "openai-completions", "https://api.ant-ling.com/v1", ["ANT_LING_API_KEY"]),
    (
        "anthropic",
        "anthropic-messages",
        "https://api.anthropic.com",
        ["ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"]
    ),
    ("azure", "azure-openai-responses", "", ["AZURE_OPENAI_API_KEY"]),
    ("azure-openai-responses", "azure-openai-responses", "", ["AZURE_OPENAI_API_KEY"]),
    ("baseten", "openai-completions", "https://inference.baseten.co/v1", ["BASETEN_API_KEY"]),
    ("cerebras", "openai-completions", "https://api.cerebras.ai/v1", ["CEREBRAS_API_KEY"]),
    (
        "cloudflare-ai-gateway",
        "openai-completions",
        "https://gateway.ai.cloudflare.com/v1/{CLOUDFLARE_ACCOUNT_ID}/{CLOUDFLARE_GATEWAY_ID}/compat",
        ["CLOUDFLARE_API_KEY"]
    ),
    (
        "cloudflare-workers-ai",
        "openai-completions",
        "https://api.cloudflare.com/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1",
        ["CLOUDFLARE_API_KEY"]
    ),
    ("deepseek", "openai-completions", "https://api.deepseek.com", ["DEEPSEEK_API_KEY"]),
    ("fireworks", "openai-completions", "https://api.fireworks.ai/inference/v1", ["FIREWORKS_API_KEY"]),
    ("github-copilot", "github-copilot", "https://api.individual.githubcopilot.com", []),
    ("google", "google-generative-ai", "https://generativelanguage.googleapis.com/v1beta", ["GEMINI_API_KEY"]),
    ("google-vertex", "google-vertex", "https://{location}-aiplatform.googleapis.com", ["GOOGLE_CLOUD_API_KEY"]),
    ("groq", "openai-completions", "https://api.groq.com/openai/v1", ["GROQ_API_KEY"]),
    ("huggingface", "openai-completions", "https://router.huggingface.co/v1", ["HF_TOKEN"]),
    ("kimi-coding", "openai-completions", "https://api.kimi.com/coding/v1", ["KIMI_API_KEY"]),
    ("meta", "openai-responses", "https://api.meta.ai/v1", ["META_API_KEY"]),
    ("minimax", "anthropic-messages", "https://api.minimax.io/anthropic", ["MINIMAX_API_KEY"]),
    ("minimax-cn", "anthropic-messages", "https://api.minimaxi.com/anthropic", ["MINIMAX_CN_API_KEY"]),
    ("mistral", "mistral-conversations", "https://api.mistral.ai", ["MISTRAL_API_KEY"]),
    ("moonshotai", "openai-completions", "https://api.moonshot.ai/v1", ["MOONSHOT_API_KEY"]),
    ("moonshotai-cn", "openai-completions", "https://api.moonshot.cn/v1", ["MOONSHOT_API_KEY"]),
    ("nvidia", "openai-completions", "https://integrate.api.nvidia.com/v1", ["NVIDIA_API_KEY"]),
    ("openai", "openai-responses", "https://api.openai.com/v1", ["OPENAI_API_KEY"]),
    ("openai-codex", "openai-codex-responses", "https://chatgpt.com/backend-api", []),
    ("opencode", "openai-completions", "https://opencode.ai/inference/openai/v1", ["OPENCODE_API_KEY"]),
    ("opencode-go", "openai-completions", "https://opencode.ai/inference/go/openai/v1", ["OPENCODE_API_KEY"]),
    ("openrouter", "openai-completions", "https://openrouter.ai/api/v1", ["OPENROUTER_API_KEY"]),
    (
        "qwen-token-plan",
        "openai-completions",
        "https://token-plan.maas.qwencloudapi.com/compatible-mode/v1",
        ["QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"]
    ),
    (
        "qwen-token-plan-cn",
        "openai-completions",
        "https://token-plan.maas.qianwenaiapi.com/compatible-mode/v1",
        ["QWEN_TOKEN_PLAN_TEAM_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"]
    ),
    (
        "qwen-token-plan-individual",
        "openai-completions",
        "https://token-plan.maas.qwencloudapi.com/compatible-mode/v1",
        ["QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"]
    ),
    (
        "qwen-token-plan-individual-cn",
        "openai-completions",
        "https://token-plan.maas.qianwenaiapi.com/compatible-mode/v1",
        ["QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"]
    ),
    ("radius", "pi-messages", "https://radius.pi.dev/v1", ["RADIUS_API_KEY"]),
    ("together", "openai-completions", "https://api.together.ai/v1", ["TOGETHER_API_KEY"]),
    ("vercel-ai-gateway", "anthropic-messages", "https://ai-gateway.vercel.sh", ["AI_GATEWAY_API_KEY"]),
    ("xai", "openai-responses", "https://api.x.ai/v1", ["XAI_API_KEY"]),
    ("xiaomi", "openai-completions", "https://api.xiaomimimo.com/v1", ["XIAOMI_API_KEY"]),
    ("xiaomi-token-plan-ams", "openai-completions", "https://token-plan-ams.xiaomimimo.com/v1", ["XIAOMI_TOKEN_PLAN_AMS_API_KEY"]),
    ("xiaomi-token-plan-cn", "openai-completions", "https://token-plan-cn.xiaomimimo.com/v1", ["XIAOMI_TOKEN_PLAN_CN_API_KEY"]),
    ("xiaomi-token-plan-sgp", "openai-completions", "https://token-plan-sgp.xiaomimimo.com/v1", ["XIAOMI_TOKEN_PLAN_SGP_API_KEY"]),
    ("zai", "openai-completions", "https://api.z.ai/api/coding/paas/v4", ["ZAI_API_KEY"]),
    ("zai-coding-cn", "openai-completions", "https://open.bigmodel.cn/api/coding/paas/v4", ["ZAI_CODING_CN_API_KEY"]),
];

/// Providers that only a subscription login of the agent's own reaches.
const LOGIN_ONLY: &[&str] = &["github-copilot", "openai-codex"];

/// The built-in provider `id`, if pi-ai has one.
pub fn builtin(id: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.id == id)
}

/// How contextree would speak `api`, or `None`.
pub fn wire_of(api: &str) -> Option<Wire> {
    match api {
        "anthropic-messages" => Some(Wire::Anthropic),
        "openai-completions" | "openai-responses" => Some(Wire::OpenAiCompatible),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing (pure)
// ---------------------------------------------------------------------------------------------

/// pi's `defaultProvider` / `defaultModel` of its merged settings (both needed: with only a
/// provider pi picks a model of its own catalog, which contextree does not have).
pub(crate) fn pi_model_ref(settings: &Value) -> Option<ModelRef> {
    let get = |k: &str| settings.get(k).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
    Some(ModelRef {
        provider: get("defaultProvider")?.to_owned(),
        model: get("defaultModel")?.to_owned(),
        setting: "defaultProvider/defaultModel".to_owned(),
    })
}

/// omp's roles in the order its compaction tries them (`MODEL_ROLE_IDS`, config/model-roles.ts).
const OMP_ROLES: &[&str] = &["default", "smol", "slow", "vision", "plan", "commit", "tiny", "task", "advisor"];

/// The thinking selectors omp accepts after a model (`provider/id:high`).
const THINKING: &[&str] = &["off", "minimal", "low", "medium", "high", "xhigh", "max", "auto"];

/// omp's `modelRoles`, `default` first then the other roles in omp's order, each once. A role
/// naming another (`@smol`, `pi/smol`) takes that role's model; a value without a provider
/// (`claude-sonnet-4-5`) is skipped, since omp matches it against its catalog.
pub(crate) fn omp_model_refs(settings: &Value) -> Vec<ModelRef> {
    let Some(roles) = settings.get("modelRoles").and_then(Value::as_object) else { return Vec::new() };
    let value = |role: &str| roles.get(role).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
    let mut out: Vec<ModelRef> = Vec::new();
    for role in OMP_ROLES {
        let Some(mut v) = value(role) else { continue };
        // One level of role aliases.
        if let Some(other) = v.strip_prefix('@').or_else(|| v.strip_prefix("pi/")).filter(|r| OMP_ROLES.contains(r)) {
            match value(other) {
                Some(t) => v = t,
                None => continue,
            }
        }
        let v = match v.rsplit_once(':') {
            Some((head, level)) if THINKING.contains(&level) => head,
            _ => v,
        };
        let Some((provider, model)) = v.split_once('/') else { continue };
        if provider.is_empty() || model.is_empty() || out.iter().any(|r| r.provider == provider && r.model == model) {
            continue;
        }
        out.push(ModelRef { provider: provider.to_owned(), model: model.to_owned(), setting: format!("modelRoles.{role}") });
    }
    out
}

/// Why an agent's models or auth file is not used (then it is a warning, and the file is
/// skipped). The JSON errors give the place only: the text around it may be a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentFileError {
    #[error("invalid JSON at line {line} column {column}")]
    Json { line: usize, column: usize },
    #[error("{0}")]
    Yaml(String),
    #[error("not an object at the top level")]
    NotAnObject,
    #[error("`providers` is not an object")]
    ProvidersNotAnObject,
}

impl AgentFileError {
    fn json(e: serde_json::Error) -> AgentFileError {
        AgentFileError::Json { line: e.line(), column: e.column() }
    }
}

/// A models file's providers (pi `models.json`, omp `models.yml`), as JSON.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelsFile {
    providers: BTreeMap<String, Value>,
}

impl ModelsFile {
    /// From the file's document (`{"providers": {id: {…}}}`).
    fn from_value(doc: &Value) -> Result<ModelsFile, AgentFileError> {
        match doc.get("providers") {
            None | Some(Value::Null) => Ok(ModelsFile::default()),
            Some(Value::Object(map)) => Ok(ModelsFile { providers: map.iter().map(|(k, v)| (k.clone(), v.clone())).collect() }),
            Some(_) => Err(AgentFileError::ProvidersNotAnObject),
        }
    }

    fn provider(&self, id: &str) -> Option<&Value> {
        self.providers.get(id).filter(|v| v.is_object())
    }
}

/// pi's `models.json` text: JSON with `//` line comments and trailing commas (pi strips them
/// first, `stripJsonComments`), maybe with a byte-order mark.
pub fn parse_pi_models_json(text: &str) -> Result<ModelsFile, AgentFileError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc: Value = serde_json::from_str(&strip_json_comments(text)).map_err(AgentFileError::json)?;
    ModelsFile::from_value(&doc)
}

/// pi's `stripJsonComments`: drops `//` to the end of the line and commas before `}` / `]`,
/// outside strings.
fn strip_json_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut start = 0; // start of the pending unchanged run
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                out.push_str(&text[start..i]);
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                start = i;
            }
            b',' => {
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if matches!(b.get(j), Some(b'}' | b']')) {
                    out.push_str(&text[start..i]);
                    start = i + 1;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[start.min(text.len())..]);
    out
}

/// One stored credential of pi's `auth.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// `{"type": "api_key", "key"?, "env"?}`: the key as written (a config value, see the
    /// module docs) and the variables it may interpolate.
    ApiKey { key: Option<Secret>, env: BTreeMap<String, Secret> },
    /// `{"type": "oauth", …}`: a subscription login.
    OAuth,
    /// Another type.
    Other,
}

/// pi's `auth.json`: provider id → credential. A malformed file is an error (pi's read-only
/// store refuses it too); an entry of the wrong shape is [`Credential::Other`].
pub fn parse_pi_auth_json(text: &str) -> Result<BTreeMap<String, Credential>, AgentFileError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc: Value = serde_json::from_str(text).map_err(AgentFileError::json)?;
    let Value::Object(map) = doc else { return Err(AgentFileError::NotAnObject) };
    Ok(map
        .into_iter()
        .map(|(provider, c)| {
            let cred = match c.get("type").and_then(Value::as_str) {
                Some("api_key") => Credential::ApiKey {
                    key: c.get("key").and_then(Value::as_str).filter(|k| !k.is_empty()).map(Secret::new),
                    env: c
                        .get("env")
                        .and_then(Value::as_object)
                        .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), Secret::new(v.as_str()?)))).collect())
                        .unwrap_or_default(),
                },
                Some("oauth") => Credential::OAuth,
                _ => Credential::Other,
            };
            (provider, cred)
        })
        .collect())
}

/// A config value resolved: the key, a command not run, or a variable that is not set.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Resolved {
    Key(Secret, Option<String>),
    Command,
    Missing(Vec<String>),
}

/// Resolves an agent's config value (module docs), `env` first from `extra` (auth.json's
/// `env`). The second field of `Key` names the variable the key came from, if it did.
fn resolve_value(value: &str, extra: &BTreeMap<String, Secret>, env: &dyn Fn(&str) -> Option<String>) -> Resolved {
    let lookup =
        |name: &str| extra.get(name).map(|s| s.0.clone()).filter(|v| !v.is_empty()).or_else(|| env(name).filter(|v| !v.is_empty()));
    if value.starts_with('!') {
        return Resolved::Command;
    }
    if value.contains('$') {
        // pi 1.6's template: $NAME, ${NAME}, $$ → $, $! → !.
        let (mut out, mut missing, mut names) = (String::new(), Vec::new(), Vec::new());
        let b = value.as_bytes();
        let mut i = 0;
        let name_len = |s: &[u8]| {
            if s.first().is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
                s.iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count()
            } else {
                0
            }
        };
        while i < b.len() {
            if b[i] != b'$' {
                let next = value[i..].find('$').map_or(b.len(), |n| i + n);
                out.push_str(&value[i..next]);
                i = next;
                continue;
            }
            match b.get(i + 1) {
                Some(b'$') | Some(b'!') => {
                    out.push(b[i + 1] as char);
                    i += 2;
                }
                Some(b'{') => match value[i + 2..].find('}') {
                    Some(end) if name_len(&b[i + 2..i + 2 + end]) == end && end > 0 => {
                        let name = &value[i + 2..i + 2 + end];
                        names.push(name.to_owned());
                        match lookup(name) {
                            Some(v) => out.push_str(&v),
                            None => missing.push(name.to_owned()),
                        }
                        i += end + 3;
                    }
                    Some(end) => {
                        out.push_str(&value[i..i + end + 3]);
                        i += end + 3;
                    }
                    None => {
                        out.push('$');
                        i += 1;
                    }
                },
                _ => match name_len(&b[i + 1..]) {
                    0 => {
                        out.push('$');
                        i += 1;
                    }
                    n => {
                        let name = &value[i + 1..i + 1 + n];
                        names.push(name.to_owned());
                        match lookup(name) {
                            Some(v) => out.push_str(&v),
                            None => missing.push(name.to_owned()),
                        }
                        i += n + 1;
                    }
                },
            }
        }
        if !missing.is_empty() {
            return Resolved::Missing(missing);
        }
        let from = (names.len() == 1).then(|| names.remove(0));
        return Resolved::Key(Secret(out), from);
    }
    match lookup(value) {
        Some(v) => Resolved::Key(Secret(v), Some(value.to_owned())),
        None => Resolved::Key(Secret(value.to_owned()), None),
    }
}

/// Where the agent keeps what, for key sources and reasons (`~/.pi/agent/auth.json`).
#[derive(Debug, Clone)]
pub struct Places {
    /// The auth file (pi) as shown.
    pub auth: String,
    /// The models file as shown.
    pub models: String,
}

/// The model `r` names, as contextree can use it: pure, from the agent's parsed files and an
/// environment lookup.
pub fn resolve_model(
    agent: Dialect,
    r: &ModelRef,
    models: &ModelsFile,
    auth: &BTreeMap<String, Credential>,
    places: &Places,
    env: &dyn Fn(&str) -> Option<String>,
) -> AgentModel {
    let custom = models.provider(&r.provider);
    let base = builtin(&r.provider);
    let str_of = |v: Option<&Value>, k: &str| v.and_then(|v| v.get(k)).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    let model_def = custom
        .and_then(|p| p.get("models"))
        .and_then(Value::as_array)
        .and_then(|ms| ms.iter().find(|m| m.get("id").and_then(Value::as_str) == Some(r.model.as_str())));
    let api = str_of(model_def, "api").or_else(|| str_of(custom, "api")).or_else(|| base.map(|b| b.api.to_owned())).unwrap_or_default();
    let base_url = str_of(model_def, "baseUrl")
        .or_else(|| str_of(custom, "baseUrl"))
        .or_else(|| base.map(|b| b.base_url.to_owned()))
        .unwrap_or_default();
    let mut m = AgentModel {
        agent,
        setting: r.setting.clone(),
        provider: r.provider.clone(),
        model: r.model.clone(),
        api: api.clone(),
        base_url: base_url.clone(),
        wire: wire_of(&api),
        key: None,
        key_source: String::new(),
        unavailable: None,
        notes: Vec::new(),
    };
    let who = agent.name();
    // What the files say about the model itself.
    let why = if custom.is_none() && base.is_none() {
        Some(format!("{who} knows no provider `{}` (not built in, not in {})", r.provider, places.models))
    } else if LOGIN_ONLY.contains(&r.provider.as_str()) && custom.and_then(|p| p.get("baseUrl")).is_none() {
        Some(format!("`{}` needs {who}'s own subscription login", r.provider))
    } else if api.is_empty() {
        Some(format!("{} names no `api` for `{}`", places.models, r.provider))
    } else if m.wire.is_none() {
        Some(format!("contextree cannot speak {api} yet"))
    } else if base_url.is_empty() {
        Some(format!(
            "no base URL for `{}`: {who} builds it from settings contextree does not read; set `baseUrl` in {}",
            r.provider, places.models
        ))
    } else if base_url.contains('{') {
        Some(format!("the base URL of `{}` has placeholders {who} fills in; set `baseUrl` in {}", r.provider, places.models))
    } else if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        Some(format!("the base URL of `{}` does not start with http:// or https://", r.provider))
    } else {
        None
    };
    if api == "openai-responses" {
        m.notes.push("asked through the chat-completions endpoint of the same host".to_owned());
    }
    let headers =
        [custom, model_def].iter().any(|v| v.and_then(|v| v.get("headers")).and_then(Value::as_object).is_some_and(|h| !h.is_empty()));
    if headers {
        m.notes.push(format!("the custom headers of {} are not sent", places.models));
    }
    if m.wire == Some(Wire::Anthropic) && custom.and_then(|p| p.get("authHeader")).and_then(Value::as_bool) == Some(true) {
        m.notes.push("`authHeader` is ignored: the key goes in x-api-key".to_owned());
    }

    // The key, in the agent's order.
    let configured = str_of(custom, "apiKey");
    let env_vars: &[&str] = base.map_or(&[], |b| b.env);
    let none = BTreeMap::new();
    let from_value = |value: &str, extra: &BTreeMap<String, Secret>, place: &str| -> Result<(Secret, String), String> {
        match resolve_value(value, extra, env) {
            Resolved::Key(k, Some(var)) => Ok((k, format!("environment variable {var} (named in {place})"))),
            Resolved::Key(k, None) => Ok((k, place.to_owned())),
            Resolved::Command => Err(format!("the key in {place} is the output of a command (`!…`), which contextree does not run")),
            Resolved::Missing(vars) => Err(format!("the key in {place} needs environment variable {}, which is not set", vars.join(", "))),
        }
    };
    let from_env = || -> Option<Result<(Secret, String), String>> {
        env_vars.iter().find_map(|var| {
            let v = env(var).filter(|v| !v.is_empty())?;
            Some(match *var {
                "ANTHROPIC_AUTH_TOKEN" => {
                    Err("ANTHROPIC_AUTH_TOKEN is sent as `Authorization: Bearer`, which contextree does not do for Anthropic".to_owned())
                }
                "ANTHROPIC_OAUTH_TOKEN" => {
                    Err("ANTHROPIC_OAUTH_TOKEN is a subscription token: only the agent's own client can use it".to_owned())
                }
                _ => Ok((Secret(v), format!("environment variable {var}"))),
            })
        })
    };
    let wanted = || {
        let mut places_looked = Vec::new();
        if agent == Dialect::Pi {
            places_looked.push(places.auth.clone());
        }
        places_looked.push(format!("`apiKey` in {}", places.models));
        places_looked.extend(env_vars.iter().map(|v| format!("${v}")));
        let mut s = places_looked.join(", ");
        if agent == Dialect::Omp {
            s.push_str("; omp's /login keys live in agent.db, which contextree does not read");
        }
        s
    };
    let found: Option<Result<(Secret, String), String>> = match agent {
        Dialect::Pi => match auth.get(&r.provider) {
            // A stored credential owns the provider (pi-ai auth/resolve).
            Some(Credential::OAuth) => Some(Err(format!(
                "signed in to `{}` with a subscription (OAuth in {}): only pi's own login flow can use it",
                r.provider, places.auth
            ))),
            Some(Credential::Other) => Some(Err(format!("{} holds a credential of an unknown type for `{}`", places.auth, r.provider))),
            Some(Credential::ApiKey { key: Some(k), env: extra }) => Some(from_value(&k.0, extra, &places.auth)),
            Some(Credential::ApiKey { key: None, .. }) | None => {
                configured.as_deref().map(|v| from_value(v, &none, &format!("`apiKey` in {}", places.models))).or_else(from_env)
            }
        },
        Dialect::Omp => configured.as_deref().map(|v| from_value(v, &none, &format!("`apiKey` in {}", places.models))).or_else(from_env),
    };
    match found {
        Some(Ok((key, source))) => {
            if key.0.starts_with("sk-ant-oat") {
                m.unavailable =
                    Some(format!("the key from {source} is an Anthropic subscription token: only the agent's own client can use it"));
            } else {
                m.key = Some(key);
            }
            m.key_source = source;
            if agent == Dialect::Omp && m.key_source.starts_with("environment") {
                m.notes.push("omp prefers a /login key of its agent.db, if it has one".to_owned());
            }
        }
        Some(Err(reason)) => m.unavailable = Some(reason),
        None => m.key_source = format!("none found ({})", wanted()),
    }
    if why.is_some() {
        m.unavailable = why;
    }
    m
}

// ---------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------

/// `path` with the home folder shown as `~`.
fn shown(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

/// Reads a file; `None` when missing, a warning when unreadable.
fn read(path: &Path, home: Option<&Path>, warnings: &mut Vec<String>) -> Option<String> {
    match std::fs::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            warnings.push(format!("{}: cannot read: {e}", shown(path, home)));
            None
        }
    }
}

/// The models of `refs` (from the agent's merged settings, see [`pi_model_ref`] and
/// [`omp_model_refs`]) as the agent folder `agent_dir` (pi: `~/.pi/agent` or
/// `$PI_CODING_AGENT_DIR`; omp: `~/.omp/agent`) and `env` make them. Only reads.
pub fn read_agent_models(
    agent: Dialect,
    agent_dir: &Path,
    home: Option<&Path>,
    refs: &[ModelRef],
    env: &dyn Fn(&str) -> Option<String>,
) -> AgentModels {
    let mut out = AgentModels::default();
    if refs.is_empty() {
        return out;
    }
    let (models_path, models) = match agent {
        Dialect::Pi => {
            let p = agent_dir.join("models.json");
            let parsed = read(&p, home, &mut out.warnings).map(|t| parse_pi_models_json(&t));
            (p, parsed)
        }
        Dialect::Omp => {
            let p = ["models.yml", "models.yaml", "models.json"]
                .iter()
                .map(|n| agent_dir.join(n))
                .find(|p| p.exists())
                .unwrap_or_else(|| agent_dir.join("models.yml"));
            let parsed = read(&p, home, &mut out.warnings).map(|t| {
                let doc = if p.extension().is_some_and(|e| e == "json") {
                    serde_json::from_str(&strip_json_comments(&t)).map_err(AgentFileError::json)
                } else {
                    crate::settings::parse_yaml(&t).map_err(AgentFileError::Yaml)
                };
                doc.and_then(|d| ModelsFile::from_value(&d))
            });
            (p, parsed)
        }
    };
    let models = match models {
        Some(Ok(m)) => m,
        Some(Err(why)) => {
            out.warnings.push(format!("{}: {why}; ignored", shown(&models_path, home)));
            ModelsFile::default()
        }
        None => ModelsFile::default(),
    };
    let auth_path = agent_dir.join("auth.json");
    let auth = if agent == Dialect::Pi {
        match read(&auth_path, home, &mut out.warnings).map(|t| parse_pi_auth_json(&t)) {
            Some(Ok(a)) => a,
            Some(Err(why)) => {
                out.warnings.push(format!("{}: {why}; ignored", shown(&auth_path, home)));
                BTreeMap::new()
            }
            None => BTreeMap::new(),
        }
    } else {
        BTreeMap::new()
    };
    let places = Places { auth: shown(&auth_path, home), models: shown(&models_path, home) };
    out.models = refs.iter().map(|r| resolve_model(agent, r, &models, &auth, &places, env)).collect();
    out
}

/// The folder omp keeps `models.yml` in: `~/.omp/agent`.
pub fn omp_agent_dir(home: &Path) -> PathBuf {
    home.join(".omp/agent")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn places() -> Places {
        Places { auth: "~/.pi/agent/auth.json".into(), models: "~/.pi/agent/models.json".into() }
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn r(provider: &str, model: &str) -> ModelRef {
        ModelRef { provider: provider.into(), model: model.into(), setting: "defaultProvider/defaultModel".into() }
    }

    #[test]
    fn pi_settings_name_provider_and_model() {
        assert_eq!(
            pi_model_ref(&json!({"defaultProvider": "anthropic", "defaultModel": "claude-sonnet-4-5"})),
            Some(r("anthropic", "claude-sonnet-4-5"))
        );
        assert_eq!(pi_model_ref(&json!({"defaultProvider": "anthropic"})), None, "no model: pi picks from its catalog");
        assert_eq!(pi_model_ref(&json!({"defaultModel": 3, "defaultProvider": "x"})), None);
    }

    #[test]
    fn omp_roles_default_first_aliases_and_thinking_suffixes() {
        let s = json!({"modelRoles": {"smol": "openrouter/qwen/qwen3:low", "default": "anthropic/claude-opus-4-5:high", "slow": "@default", "plan": "bare-id", "commit": "openrouter/qwen/qwen3"}});
        let refs = omp_model_refs(&s);
        let got: Vec<(&str, &str, &str)> = refs.iter().map(|r| (r.provider.as_str(), r.model.as_str(), r.setting.as_str())).collect();
        assert_eq!(got, vec![("anthropic", "claude-opus-4-5", "modelRoles.default"), ("openrouter", "qwen/qwen3", "modelRoles.smol")]);
        assert!(omp_model_refs(&json!({})).is_empty());
    }

    #[test]
    fn models_json_comments_and_trailing_commas_are_stripped_outside_strings() {
        let text = "\u{feff}{\n // mine\n \"providers\": {\"local\": {\"baseUrl\": \"http://h//x\", \"apiKey\": \"a,}\", \"models\": [{\"id\": \"m\",},],},},\n}";
        let m = parse_pi_models_json(text).unwrap();
        let p = m.provider("local").unwrap();
        assert_eq!(p["baseUrl"], "http://h//x");
        assert_eq!(p["apiKey"], "a,}");
        assert_eq!(parse_pi_models_json("{\"providers\": [1]}"), Err(AgentFileError::ProvidersNotAnObject));
        let err = parse_pi_models_json("{\"providers\": {\"x\": {\"apiKey\": \"sk-secret-value\" oops}}}").unwrap_err();
        assert_eq!(err, AgentFileError::Json { line: 1, column: 50 });
        assert!(!err.to_string().contains("sk-secret"), "{err}");
    }

    #[test]
    fn auth_json_entries() {
        let a = parse_pi_auth_json(r#"{"anthropic": {"type": "api_key", "key": "sk-ant-x"}, "openai-codex": {"type": "oauth", "access": "a", "refresh": "r", "expires": 1}, "odd": {"type": "magic"}}"#).unwrap();
        assert_eq!(a["anthropic"], Credential::ApiKey { key: Some(Secret::new("sk-ant-x")), env: BTreeMap::new() });
        assert_eq!(a["openai-codex"], Credential::OAuth);
        assert_eq!(a["odd"], Credential::Other);
        assert!(format!("{a:?}").contains("Secret(<redacted>)") && !format!("{a:?}").contains("sk-ant-x"));
        assert!(parse_pi_auth_json("[]").is_err());
    }

    #[test]
    fn config_values_literal_env_template_and_command() {
        let env = |k: &str| match k {
            "MY_KEY" => Some("from-env".to_owned()),
            "A" => Some("aa".to_owned()),
            _ => None,
        };
        let none = BTreeMap::new();
        assert_eq!(resolve_value("sk-literal", &none, &env), Resolved::Key(Secret::new("sk-literal"), None));
        assert_eq!(resolve_value("MY_KEY", &none, &env), Resolved::Key(Secret::new("from-env"), Some("MY_KEY".into())));
        assert_eq!(resolve_value("$MY_KEY", &none, &env), Resolved::Key(Secret::new("from-env"), Some("MY_KEY".into())));
        assert_eq!(resolve_value("${A}-$A$$x$!y", &none, &env), Resolved::Key(Secret::new("aa-aa$x!y"), None));
        assert_eq!(resolve_value("${NOPE}", &none, &env), Resolved::Missing(vec!["NOPE".into()]));
        assert_eq!(resolve_value("!pass show key", &none, &env), Resolved::Command);
        let extra: BTreeMap<String, Secret> = [("NOPE".to_owned(), Secret::new("given"))].into();
        assert_eq!(resolve_value("$NOPE", &extra, &env), Resolved::Key(Secret::new("given"), Some("NOPE".into())));
    }

    #[test]
    fn a_custom_provider_with_a_stored_key_is_usable() {
        let models = parse_pi_models_json(r#"{"providers": {"local": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "unused", "models": [{"id": "m1"}]}}}"#).unwrap();
        let auth = parse_pi_auth_json(r#"{"local": {"type": "api_key", "key": "sk-canary-123"}}"#).unwrap();
        let m = resolve_model(Dialect::Pi, &r("local", "m1"), &models, &auth, &places(), &no_env);
        assert_eq!((m.wire, m.base_url.as_str(), m.unavailable.as_deref()), (Some(Wire::OpenAiCompatible), "http://127.0.0.1:9/v1", None));
        assert_eq!(m.key, Some(Secret::new("sk-canary-123")));
        assert_eq!(m.key_source, "~/.pi/agent/auth.json");
        assert_eq!(m.label(), "pi's own: local/m1");
        assert!(!format!("{m:?}").contains("canary"));
    }

    #[test]
    fn oauth_and_commands_are_unavailable_with_the_reason() {
        let models = parse_pi_models_json(r#"{"providers": {"vault": {"baseUrl": "https://v.example/v1", "api": "openai-completions", "apiKey": "!touch /tmp/contextree-must-not-run", "models": [{"id": "m"}]}}}"#).unwrap();
        let auth =
            parse_pi_auth_json(r#"{"anthropic": {"type": "oauth", "access": "sk-ant-oat-1", "refresh": "r", "expires": 1}}"#).unwrap();
        let oauth =
            resolve_model(Dialect::Pi, &r("anthropic", "claude-sonnet-4-5"), &models, &auth, &places(), &|_| Some("sk-env-unused".into()));
        assert!(oauth.unavailable.as_deref().unwrap().contains("subscription (OAuth in ~/.pi/agent/auth.json)"), "{oauth:?}");
        assert_eq!(oauth.key, None, "a stored login owns the provider: no fallback to the environment");
        let cmd = resolve_model(Dialect::Pi, &r("vault", "m"), &models, &auth, &places(), &no_env);
        assert!(cmd.unavailable.as_deref().unwrap().contains("output of a command"), "{cmd:?}");
        assert!(!Path::new("/tmp/contextree-must-not-run").exists());
    }

    #[test]
    fn builtins_keys_from_the_environment_and_what_contextree_cannot_speak() {
        let models = ModelsFile::default();
        let auth = BTreeMap::new();
        let env = |k: &str| (k == "ANTHROPIC_API_KEY").then(|| "sk-ant-api03-x".to_owned());
        let a = resolve_model(Dialect::Pi, &r("anthropic", "claude-sonnet-4-5"), &models, &auth, &places(), &env);
        assert_eq!(
            (a.wire, a.base_url.as_str(), a.key_source.as_str()),
            (Some(Wire::Anthropic), "https://api.anthropic.com", "environment variable ANTHROPIC_API_KEY")
        );
        assert!(a.unavailable.is_none());
        let g = resolve_model(Dialect::Pi, &r("google", "gemini-2.5-pro"), &models, &auth, &places(), &no_env);
        assert_eq!(g.unavailable.as_deref(), Some("contextree cannot speak google-generative-ai yet"));
        let none = resolve_model(Dialect::Pi, &r("openrouter", "x/y"), &models, &auth, &places(), &no_env);
        assert_eq!((none.key.is_none(), none.unavailable.is_none()), (true, true), "no key: the caller decides whether one is needed");
        assert!(none.key_source.contains("$OPENROUTER_API_KEY"), "{}", none.key_source);
        let unknown = resolve_model(Dialect::Pi, &r("nowhere", "m"), &models, &auth, &places(), &no_env);
        assert!(unknown.unavailable.unwrap().contains("knows no provider"));
        let tok = resolve_model(Dialect::Pi, &r("anthropic", "m"), &models, &auth, &places(), &|k| {
            (k == "ANTHROPIC_OAUTH_TOKEN").then(|| "sk-ant-oat01-x".into())
        });
        assert!(tok.unavailable.unwrap().contains("subscription token"));
        let codex = resolve_model(Dialect::Pi, &r("openai-codex", "gpt-5"), &models, &auth, &places(), &no_env);
        assert!(codex.unavailable.unwrap().contains("subscription login"));
    }

    #[test]
    fn a_models_json_base_url_overrides_a_builtin() {
        let models =
            parse_pi_models_json(r#"{"providers": {"anthropic": {"baseUrl": "http://127.0.0.1:1", "headers": {"x-a": "b"}}}}"#).unwrap();
        let m = resolve_model(Dialect::Pi, &r("anthropic", "claude"), &models, &BTreeMap::new(), &places(), &|k| {
            (k == "ANTHROPIC_API_KEY").then(|| "sk-ant-api03-y".into())
        });
        assert_eq!((m.api.as_str(), m.base_url.as_str()), ("anthropic-messages", "http://127.0.0.1:1"));
        assert!(m.notes.iter().any(|n| n.contains("headers")), "{:?}", m.notes);
    }

    #[test]
    fn omp_reads_models_yml_keys_and_says_what_it_cannot_see() {
        let tmp = tempfile::Builder::new().prefix("contextree-agent-models-").tempdir().unwrap();
        let t = tmp.path().to_path_buf();
        let dir = t.join(".omp/agent");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("models.yml"), "providers:\n  box:\n    baseUrl: http://127.0.0.1:7/v1\n    api: openai-completions\n    apiKey: BOX_KEY\n    models:\n      - id: m\n").unwrap();
        let refs = vec![
            ModelRef { provider: "box".into(), model: "m".into(), setting: "modelRoles.default".into() },
            ModelRef { provider: "anthropic".into(), model: "c".into(), setting: "modelRoles.smol".into() },
        ];
        let env = |k: &str| (k == "BOX_KEY").then(|| "sk-box-key-0000".to_owned());
        let got = read_agent_models(Dialect::Omp, &dir, Some(&t), &refs, &env);
        assert!(got.warnings.is_empty(), "{:?}", got.warnings);
        assert_eq!(got.models[0].key, Some(Secret::new("sk-box-key-0000")));
        assert_eq!(got.models[0].key_source, "environment variable BOX_KEY (named in `apiKey` in ~/.omp/agent/models.yml)");
        assert!(got.models[1].key_source.contains("agent.db"), "{}", got.models[1].key_source);
        let _ = std::fs::remove_dir_all(&t);
    }
}
