//! What the callers get: the models an agent's files name, as contextree can use them, with
//! keys wrapped so that no `Debug` print or log line can show one.

use std::fmt;

use contextree_core::Dialect;

/// An API key. `Debug` prints `Secret(<redacted>)`; there is no `Display`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub(super) String);

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
