//! One model as contextree can use it, decided from the agent's parsed files and an
//! environment lookup alone (pure), so every reason a model is unusable is testable without a
//! disk or a network.

use std::collections::BTreeMap;

use contextree_core::Dialect;
use serde_json::Value;

use super::builtins::{builtin, wire_of, LOGIN_ONLY};
use super::key::{resolve_value, Resolved};
use super::models_file::ModelsFile;
use super::pi::Credential;
use super::types::{AgentModel, ModelRef, Secret, Wire};

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
    // What the files say about the model itself.
    let why = unusable(&m, custom, base.is_some(), places);
    add_notes(&mut m, custom, model_def, places);

    // The key, in the agent's order.
    let env_vars: &[&str] = base.map_or(&[], |b| b.env);
    match find_key(agent, &r.provider, str_of(custom, "apiKey"), env_vars, auth, places, env) {
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
        None => m.key_source = format!("none found ({})", key_places(agent, env_vars, places)),
    }
    if why.is_some() {
        m.unavailable = why;
    }
    m
}

/// A non-empty string field of a provider or model entry.
fn str_of(v: Option<&Value>, k: &str) -> Option<String> {
    v.and_then(|v| v.get(k)).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned)
}

/// Why contextree cannot call `m` whatever the key (`custom`: its provider's entry in the models
/// file), or `None`.
fn unusable(m: &AgentModel, custom: Option<&Value>, has_builtin: bool, places: &Places) -> Option<String> {
    let who = m.agent.name();
    let (provider, api, base_url) = (&m.provider, &m.api, &m.base_url);
    if custom.is_none() && !has_builtin {
        Some(format!("{who} knows no provider `{provider}` (not built in, not in {})", places.models))
    } else if LOGIN_ONLY.contains(&provider.as_str()) && custom.and_then(|p| p.get("baseUrl")).is_none() {
        Some(format!("`{provider}` needs {who}'s own subscription login"))
    } else if api.is_empty() {
        Some(format!("{} names no `api` for `{provider}`", places.models))
    } else if m.wire.is_none() {
        Some(format!("contextree cannot speak {api} yet"))
    } else if base_url.is_empty() {
        Some(format!(
            "no base URL for `{provider}`: {who} builds it from settings contextree does not read; set `baseUrl` in {}",
            places.models
        ))
    } else if base_url.contains('{') {
        Some(format!("the base URL of `{provider}` has placeholders {who} fills in; set `baseUrl` in {}", places.models))
    } else if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        Some(format!("the base URL of `{provider}` does not start with http:// or https://"))
    } else {
        None
    }
}

/// What contextree does differently from the agent for `m` (the request shape, headers).
fn add_notes(m: &mut AgentModel, custom: Option<&Value>, model_def: Option<&Value>, places: &Places) {
    if m.api == "openai-responses" {
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
}

/// The key for `provider` and where it came from, looked up in the agent's order: `Err` when the
/// place that owns the key holds one contextree cannot use, `None` when no place has one.
/// `configured` is the models file's `apiKey`, `env_vars` the built-in provider's variables.
fn find_key(
    agent: Dialect,
    provider: &str,
    configured: Option<String>,
    env_vars: &[&str],
    auth: &BTreeMap<String, Credential>,
    places: &Places,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<Result<(Secret, String), String>> {
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
    match agent {
        Dialect::Pi => match auth.get(provider) {
            // A stored credential owns the provider (pi-ai auth/resolve).
            Some(Credential::OAuth) => Some(Err(format!(
                "signed in to `{}` with a subscription (OAuth in {}): only pi's own login flow can use it",
                provider, places.auth
            ))),
            Some(Credential::Other) => Some(Err(format!("{} holds a credential of an unknown type for `{}`", places.auth, provider))),
            Some(Credential::ApiKey { key: Some(k), env: extra }) => Some(from_value(&k.0, extra, &places.auth)),
            Some(Credential::ApiKey { key: None, .. }) | None => {
                configured.as_deref().map(|v| from_value(v, &none, &format!("`apiKey` in {}", places.models))).or_else(from_env)
            }
        },
        Dialect::Omp => configured.as_deref().map(|v| from_value(v, &none, &format!("`apiKey` in {}", places.models))).or_else(from_env),
    }
}

/// Where the agent would look for a key, for the message when none was found.
fn key_places(agent: Dialect, env_vars: &[&str], places: &Places) -> String {
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
}
