//! Where a summary comes from: the candidate models (given provider, contextree's config file,
//! omp's remote endpoint, the agent's own model) and the hooks of contextree's config file; and
//! the read-only list of configured providers the app's settings show (keys masked).

use std::path::PathBuf;

use contextree_host::agent_models::{AgentModel, Wire};
use contextree_host::hooks::Hooks;
use contextree_host::settings::AgentSettings;
use contextree_host::HostEnv;
use contextree_llm::config::ApiKey;
use contextree_llm::{Candidates, ProviderConfig, ProviderKind};
use serde::Serialize;

use crate::OpsError;

/// contextree's config file of the process: `$XDG_CONFIG_HOME/contextree/config.json`, else
/// `$HOME/.config/contextree/config.json` (providers, hooks, and the app's settings). The flows
/// read the one of their [`HostEnv`] (`config_path`).
pub use contextree_llm::config::default_path as config_path;

/// The name the candidate made from omp's `compaction.remoteEndpoint` goes by.
pub(crate) const REMOTE_ENDPOINT_NAME: &str = "omp compaction.remoteEndpoint";

/// The summarizer choice of a write (the CLI's `--offline` / `--provider` / `--model` /
/// `--base-url`, the app's `SummarySource`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderFlags {
    /// No candidate at all: the offline summary.
    pub offline: bool,
    /// `openai-compatible` (or `openai`), `anthropic` or `remote`.
    pub provider: Option<String>,
    /// The model for `provider`.
    pub model: Option<String>,
    /// Base URL for `provider` (default: the provider's public API).
    pub base_url: Option<String>,
    /// Only this one of the config file's candidates (the app's `SummarySource.candidate`);
    /// ignored when `provider` is given.
    pub candidate: Option<CandidatePick>,
}

/// One entry of contextree's config file: its place in the list (0-based, the order
/// [`providers`] shows) or its name as [`providers`] shows it ([`ProviderConfig::label`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CandidatePick {
    /// 0-based position in the config file's `providers`.
    Index(usize),
    /// The candidate's name (its kind when it has none); the first one of that name.
    Name(String),
}

impl std::fmt::Display for CandidatePick {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CandidatePick::Index(i) => write!(f, "#{i}"),
            CandidatePick::Name(n) => write!(f, "{n:?}"),
        }
    }
}

/// Why the summarizer a write names cannot be asked. The messages name the configured
/// entries, never a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PickError {
    /// contextree's config file lists no provider at all (and the pick names none of the
    /// agent's own models).
    #[error("no configured summarizer {pick}: contextree's config file lists none")]
    NoneConfigured {
        /// The pick as displayed (`#2`, `"name"`).
        pick: String,
    },
    /// No configured provider (and none of the agent's models) has that index or name.
    #[error("no configured summarizer {pick} (configured: {configured})")]
    Unknown {
        /// The pick as displayed (`#2`, `"name"`).
        pick: String,
        /// The configured entries, `#<index> "<name>"`, comma-separated.
        configured: String,
    },
    /// One of the agent's own models, which contextree cannot call.
    #[error("{name} cannot be used: {why}")]
    AgentModel {
        /// Its label (`pi's own: anthropic/claude-sonnet-4-5`).
        name: String,
        /// Why it cannot be called.
        why: Unusable,
    },
}

/// Why contextree cannot call one of the agent's own models.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unusable {
    /// What reading the agent's files found (a subscription login, a `!command` key, ...).
    #[error("{0}")]
    Agent(String),
    /// The model's api kind has no wire format in contextree.
    #[error("contextree cannot speak {api} yet")]
    Api {
        /// The agent's api kind (empty when unknown).
        api: String,
    },
    /// The provider needs a key and the agent's files and environment give none.
    #[error("no API key: {looked}")]
    NoKey {
        /// Where the agent would look for one.
        looked: String,
    },
}

/// The one candidate of `configured` that `pick` names (key, timeout and retries as
/// configured), or why there is none (a message naming the configured entries, never a key).
pub fn pick_candidate(configured: Candidates, pick: &CandidatePick) -> Result<Candidates, PickError> {
    pick_candidate_or_agent(configured, pick, &[])
}

/// [`pick_candidate`], where a name not in the config file may also be one of the agent's own
/// models ([`AgentModel::label`], `pi's own: anthropic/claude-sonnet-4-5`); an unavailable one
/// is an error giving the reason.
pub fn pick_candidate_or_agent(configured: Candidates, pick: &CandidatePick, agent: &[AgentModel]) -> Result<Candidates, PickError> {
    let position = match pick {
        CandidatePick::Index(i) => (*i < configured.providers.len()).then_some(*i),
        CandidatePick::Name(name) => configured.providers.iter().position(|p| p.label() == name),
    };
    if let (None, CandidatePick::Name(name)) = (position, pick) {
        if let Some(m) = agent.iter().find(|m| &m.label() == name) {
            return agent_candidate(m)
                .map(|p| Candidates { providers: vec![p], deadline: configured.deadline })
                .map_err(|why| PickError::AgentModel { name: name.clone(), why });
        }
    }
    match position {
        Some(i) => Ok(Candidates { providers: vec![configured.providers[i].clone()], deadline: configured.deadline }),
        None if configured.is_empty() => Err(PickError::NoneConfigured { pick: pick.to_string() }),
        None => {
            let names: Vec<String> = configured.providers.iter().enumerate().map(|(i, p)| format!("#{i} {:?}", p.label())).collect();
            Err(PickError::Unknown { pick: pick.to_string(), configured: names.join(", ") })
        }
    }
}

/// The candidates of `env`'s config file (none when it does not exist).
pub fn configured(env: &HostEnv) -> Result<Candidates, OpsError> {
    match &env.config_path {
        Some(path) if path.exists() => Candidates::load(path).map_err(OpsError::Providers),
        _ => Ok(Candidates::default()),
    }
}

/// The models to ask, in order:
/// 1. none when `offline`;
/// 2. the given provider / model / base URL;
/// 3. the providers of contextree's config file (only `candidate` when given, which may also
///    name one of the agent's own models; an unknown one is an error, never a silent fallback
///    to the others);
/// 4. when that lists none (and no `candidate` is given), omp's `compaction.remoteEndpoint` from
///    the agent's settings (kind `remote`), as omp would use it: a user who set one wants the
///    conversation to go there, not to a model provider;
/// 5. else the agent's own models that contextree can call (pi: `defaultProvider` /
///    `defaultModel`; omp: its `modelRoles`, `default` first), with the keys the agent would
///    use ([`contextree_host::agent_models`]).
///
/// Empty: the caller writes the offline summary.
pub fn candidates(flags: &ProviderFlags, agent: &AgentSettings, env: &HostEnv) -> Result<Candidates, OpsError> {
    if flags.offline {
        return Ok(Candidates::default());
    }
    let Some(kind) = flags.provider.as_deref() else {
        let configured = configured(env)?;
        return match &flags.candidate {
            Some(pick) => Ok(pick_candidate_or_agent(configured, pick, &agent.models.models)?),
            None => Ok(with_agent_models(with_remote_endpoint(configured, agent), agent)),
        };
    };
    let kind = match kind {
        "openai-compatible" | "openai" => ProviderKind::OpenAiCompatible,
        "anthropic" => ProviderKind::Anthropic,
        "remote" => ProviderKind::Remote,
        other => return Err(OpsError::Config(format!("--provider {other}: expected openai-compatible, anthropic or remote"))),
    };
    let base = flags.base_url.clone().or_else(|| kind.default_base_url().map(str::to_owned));
    let base = base.ok_or_else(|| OpsError::Config("--provider remote needs --base-url (the endpoint's URL)".into()))?;
    let model = flags.model.clone().unwrap_or_default();
    // A remote endpoint picks its own model; the others need one named.
    if model.is_empty() && kind != ProviderKind::Remote {
        return Err(OpsError::Config(format!("--provider {}: --model is required", kind.as_str())));
    }
    // The call's deadline is still the config file's (`summaryDeadlineSecs`). A file that
    // cannot be read leaves the default: these flags never needed the file before, and its
    // providers section is reported wherever it is used.
    let deadline = configured(env).map_or(contextree_llm::config::DEFAULT_DEADLINE, |c| c.deadline);
    Ok(Candidates { providers: vec![ProviderConfig::new(kind, base, model)], deadline })
}

/// `configured`, or, when it is empty, the agent's remote endpoint as the one
/// candidate (omp only: pi's settings never give one).
pub(crate) fn with_remote_endpoint(configured: Candidates, agent: &AgentSettings) -> Candidates {
    match &agent.remote_endpoint {
        Some(url) if configured.is_empty() => {
            let mut remote = ProviderConfig::new(ProviderKind::Remote, url.clone(), "");
            remote.name = Some(REMOTE_ENDPOINT_NAME.to_owned());
            Candidates { providers: vec![remote], deadline: configured.deadline }
        }
        _ => configured,
    }
}

/// `configured`, or, when it is empty, the agent's own models that contextree can call.
pub(crate) fn with_agent_models(configured: Candidates, agent: &AgentSettings) -> Candidates {
    if !configured.is_empty() {
        return configured;
    }
    let providers = agent.models.models.iter().filter_map(|m| agent_candidate(m).ok()).collect();
    Candidates { providers, deadline: configured.deadline }
}

/// Why a write with no candidate summarizes offline: `--offline`, or nothing given or
/// configured, with the agent's own models that could not be used and why.
pub fn offline_why(flags: &ProviderFlags, agent: &AgentSettings) -> String {
    if flags.offline {
        return "--offline".to_owned();
    }
    let mut why = "no provider given or configured".to_owned();
    let skipped: Vec<String> =
        agent.models.models.iter().filter_map(|m| agent_candidate(m).err().map(|e| format!("{}: {e}", m.label()))).collect();
    if !skipped.is_empty() {
        why.push_str(&format!("; not usable: {}", skipped.join("; ")));
    }
    why
}

/// One of the agent's models as a candidate, or why contextree cannot call it.
pub fn agent_candidate(m: &AgentModel) -> Result<ProviderConfig, Unusable> {
    if let Some(why) = &m.unavailable {
        return Err(Unusable::Agent(why.clone()));
    }
    let kind = match m.wire {
        Some(Wire::Anthropic) => ProviderKind::Anthropic,
        Some(Wire::OpenAiCompatible) => ProviderKind::OpenAiCompatible,
        None => return Err(Unusable::Api { api: m.api.clone() }),
    };
    let mut p = ProviderConfig::new(kind, m.base_url.clone(), m.model.clone());
    p.name = Some(m.label());
    p.api_key = m.key.as_ref().map(|k| ApiKey::new(k.expose()));
    // The agent's own lookup found the key (or none); the kind's default variable
    // (OPENAI_API_KEY) must not be sent to another provider's server.
    p.api_key_env = Some(String::new());
    if p.api_key.is_none() && p.requires_api_key() {
        return Err(Unusable::NoKey { looked: m.key_source.clone() });
    }
    Ok(p)
}

/// The hooks in `env`'s config file (none when it does not exist). A
/// broken hooks section is an error: a hook the user relies on (to cancel,
/// say) must not be skipped silently.
pub fn load_hooks(env: &HostEnv) -> Result<Hooks, OpsError> {
    Ok(env.hooks()?)
}

/// The configured summarizers, for display: never a whole key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Providers {
    /// contextree's config file (whether or not it exists), if a home directory is known.
    pub config_path: Option<String>,
    /// The config file's candidates, in the order they are tried.
    pub candidates: Vec<ProviderInfo>,
    /// omp's `compaction.remoteEndpoint`, used when the config file lists no candidate.
    pub remote_endpoint: Option<String>,
    /// The agent's own models, in the order they are tried when neither the config file nor
    /// a remote endpoint names a summarizer; unavailable ones say why.
    pub agent_models: Vec<AgentModelInfo>,
    /// Problems reading the agent's model files (never quoting a value).
    pub agent_warnings: Vec<String>,
}

/// One of the agent's own models as the settings screen and the summarizer choice show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentModelInfo {
    /// `pi's own: anthropic/claude-sonnet-4-5`: the name a `candidate` pick uses.
    pub name: String,
    /// `pi` or `omp`.
    pub agent: String,
    /// The setting naming it (`defaultProvider/defaultModel`, `modelRoles.default`).
    pub setting: String,
    /// The agent's provider id.
    pub provider: String,
    /// The model id sent to the provider.
    pub model: String,
    /// The agent's api kind (`anthropic-messages`, `openai-completions`, …; empty if unknown).
    pub api: String,
    /// The provider kind contextree would call it as (`anthropic`, `openai-compatible`);
    /// `None` when it cannot.
    pub kind: Option<String>,
    /// Where requests go.
    pub base_url: String,
    /// The key, masked (`None` without a key).
    pub key: Option<String>,
    /// Where the key comes from, or where the agent would look.
    pub key_source: String,
    /// Why contextree cannot use it (`None`: usable).
    pub unavailable: Option<String>,
    /// What contextree does differently from the agent.
    pub notes: Vec<String>,
}

impl AgentModelInfo {
    /// The listing of `m`: key masked, availability as [`agent_candidate`] decides it.
    pub fn of(m: &AgentModel) -> AgentModelInfo {
        let usable = agent_candidate(m);
        AgentModelInfo {
            name: m.label(),
            agent: m.agent.name().to_owned(),
            setting: m.setting.clone(),
            provider: m.provider.clone(),
            model: m.model.clone(),
            api: m.api.clone(),
            kind: usable.as_ref().ok().map(|p| p.kind.as_str().to_owned()),
            base_url: m.base_url.clone(),
            key: m.key.as_ref().map(|k| mask(k.expose())),
            key_source: m.key_source.clone(),
            unavailable: usable.err().map(|why| why.to_string()),
            notes: m.notes.clone(),
        }
    }
}

/// One candidate as the settings screen shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderInfo {
    /// The candidate's label.
    pub name: String,
    /// `openai-compatible`, `anthropic` or `remote`.
    pub kind: String,
    /// The model (empty for a remote endpoint).
    pub model: String,
    /// Where requests go.
    pub base_url: String,
    /// The key, masked: first 3 characters, `…`, last 4 (`None` without a key).
    pub key: Option<String>,
    /// `environment`, `config` or `none`.
    pub key_source: &'static str,
}

/// Reads `env`'s config file, omp's remote endpoint and the agent's own models (from
/// `agent`, pi's and omp's together when the caller merged them); keys named by a variable are
/// looked up in `env`.
pub fn providers(agent: &AgentSettings, env: &HostEnv) -> Result<Providers, OpsError> {
    let path: Option<PathBuf> = env.config_path.clone();
    let configured = configured(env)?;
    let env = |var: &str| env.var(var);
    let candidates = configured
        .providers
        .iter()
        .map(|p| {
            let (key, key_source) = match (&p.api_key, p.resolve_api_key(&env)) {
                (Some(k), _) => (Some(mask(k.expose())), "config"),
                (None, Some(k)) => (Some(mask(k.expose())), "environment"),
                (None, None) => (None, "none"),
            };
            ProviderInfo {
                name: p.label().to_owned(),
                kind: p.kind.as_str().to_owned(),
                model: p.model.clone(),
                base_url: p.base_url.clone(),
                key,
                key_source,
            }
        })
        .collect();
    Ok(Providers {
        config_path: path.map(|p| p.display().to_string()),
        candidates,
        remote_endpoint: agent.remote_endpoint.clone(),
        agent_models: agent.models.models.iter().map(AgentModelInfo::of).collect(),
        agent_warnings: agent.models.warnings.clone(),
    })
}

/// `sk-…abcd`: enough to tell keys apart, never enough to use one. Short keys show less.
pub(crate) fn mask(key: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    if chars.len() < 12 {
        return "…".to_owned();
    }
    let head: String = chars[..3].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}…{tail}")
}

/// omp@18 writes a summary's input in the summary model's own transcript format
/// (`preferredDialect`, omp-18.md §5.5), so one request fits only the candidates of one format.
/// The model decides: the first candidate's; with none, the model of the path (`path_model`,
/// `provider/id` or a bare id), as a preview of what the agent would send. Candidates of
/// another format than the first are left out, each with a warning. `None` under other rules,
/// or when no model is known (the fallback format is then used; a warning says so).
pub fn omp18_summary_model(
    session: &contextree_core::session::Session,
    path_model: Option<String>,
    candidates: &mut Candidates,
    warnings: &mut Vec<String>,
) -> Option<contextree_core::compaction::SummaryModel> {
    use contextree_core::compaction::{preferred_dialect, SummaryModel};
    if !session.rules().summarizes_with_model_transcript() {
        return None;
    }
    // A remote endpoint (no model named) summarizes with the session's model.
    let first = candidates.providers.first().filter(|p| !p.model.is_empty());
    let given_window = first.and_then(|p| p.context_window);
    let id = match first {
        Some(first) => first.model.clone(),
        None => match path_model {
            // omp's `provider/id`: the id is what follows the provider.
            Some(m) => m.split_once('/').map_or(m.clone(), |(_, id)| id.to_owned()),
            None => {
                warnings.push("no summary model is known (no candidate, no model on the path): the conversation is shown in omp 18's fallback transcript format (xml)".to_owned());
                return None;
            }
        },
    };
    let format = preferred_dialect(&id);
    let before = candidates.providers.len();
    candidates.providers.retain(|p| {
        let same = p.model.is_empty() || preferred_dialect(&p.model) == format;
        if !same {
            warnings.push(format!(
                "candidate model {} is left out: oh-my-pi 18 writes the summary input in the summary model's transcript format, and the request was written for {} ({})",
                p.model,
                id,
                format.name()
            ));
        }
        same
    });
    debug_assert!(candidates.providers.len() <= before);
    Some(SummaryModel { context_window: given_window.or_else(|| contextree_core::models::known_window(&id)), id })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_remote_endpoint_is_offered_only_when_nothing_is_configured() {
        let agent = AgentSettings { remote_endpoint: Some("https://x.example/compact".into()), ..AgentSettings::default() };
        let c = with_remote_endpoint(Candidates::default(), &agent);
        assert_eq!(c.providers.len(), 1);
        assert_eq!(
            (c.providers[0].kind, c.providers[0].base_url.as_str(), c.providers[0].label()),
            (ProviderKind::Remote, "https://x.example/compact", REMOTE_ENDPOINT_NAME)
        );
        let configured = Candidates::new(vec![ProviderConfig::new(ProviderKind::Anthropic, "https://a", "m")]);
        let c = with_remote_endpoint(configured, &agent);
        assert_eq!((c.providers.len(), c.providers[0].kind), (1, ProviderKind::Anthropic), "the config file wins");
        assert!(with_remote_endpoint(Candidates::default(), &AgentSettings::default()).is_empty());
        let home = contextree_testkit::Scratch::new("ops-summarizer");
        let env = HostEnv::isolated(home.path());
        let offline = candidates(&ProviderFlags { offline: true, ..Default::default() }, &agent, &env).unwrap();
        assert!(offline.is_empty(), "offline asks nobody");
        let flagged = candidates(
            &ProviderFlags { provider: Some("remote".into()), base_url: Some("http://h/c".into()), ..Default::default() },
            &agent,
            &env,
        )
        .unwrap();
        assert_eq!(flagged.providers[0].base_url, "http://h/c", "flags win");
    }

    #[test]
    fn a_picked_candidate_is_the_only_one_asked() {
        let mut cheap = ProviderConfig::new(ProviderKind::OpenAiCompatible, "http://a/v1", "small");
        cheap.name = Some("cheap".into());
        cheap.api_key = Some(contextree_llm::config::ApiKey::new("sk-contextree-secret-0123456789"));
        let strong = ProviderConfig::new(ProviderKind::Anthropic, "https://b", "big");
        let both = || Candidates::new(vec![cheap.clone(), strong.clone()]);
        let by_name = pick_candidate(both(), &CandidatePick::Name("anthropic".into())).unwrap();
        assert_eq!((by_name.providers.len(), by_name.providers[0].model.as_str()), (1, "big"), "an unnamed one goes by its kind");
        let by_index = pick_candidate(both(), &CandidatePick::Index(0)).unwrap();
        assert_eq!(by_index.providers[0].label(), "cheap");
        assert!(by_index.providers[0].api_key.is_some(), "its configured key comes along");
        let err = pick_candidate(both(), &CandidatePick::Index(2)).unwrap_err();
        assert_eq!(err.to_string(), "no configured summarizer #2 (configured: #0 \"cheap\", #1 \"anthropic\")");
        assert!(matches!(err, PickError::Unknown { .. }) && !err.to_string().contains("0123456789"), "{err}");
        let err = pick_candidate(Candidates::default(), &CandidatePick::Name("cheap".into())).unwrap_err();
        assert!(matches!(err, PickError::NoneConfigured { .. }) && err.to_string().contains("lists none"), "{err}");
    }

    fn agent_model(provider: &str, unavailable: Option<&str>, key: Option<&str>) -> AgentModel {
        AgentModel {
            agent: contextree_core::Dialect::Pi,
            setting: "defaultProvider/defaultModel".into(),
            provider: provider.into(),
            model: "m".into(),
            api: "anthropic-messages".into(),
            base_url: "http://127.0.0.1:9".into(),
            wire: Some(Wire::Anthropic),
            key: key.map(contextree_host::agent_models::Secret::new),
            key_source: if key.is_some() { "~/.pi/agent/auth.json".into() } else { "none found (…)".into() },
            unavailable: unavailable.map(str::to_owned),
            notes: Vec::new(),
        }
    }

    #[test]
    fn the_agents_own_model_comes_after_the_config_file_and_the_remote_endpoint() {
        let mut agent = AgentSettings::default();
        agent.models.models = vec![
            agent_model("oauthed", Some("signed in with a subscription"), None),
            agent_model("keyless", None, None),
            agent_model("good", None, Some("sk-canary-0123456789abcdef")),
        ];
        let c = with_agent_models(with_remote_endpoint(Candidates::default(), &agent), &agent);
        assert_eq!(c.providers.len(), 1, "only the usable one: {c:?}");
        let p = &c.providers[0];
        assert_eq!((p.label(), p.kind, p.base_url.as_str()), ("pi's own: good/m", ProviderKind::Anthropic, "http://127.0.0.1:9"));
        assert_eq!(p.resolve_api_key(&|_| Some("sk-from-env".into())).unwrap().expose(), "sk-canary-0123456789abcdef");
        assert!(!format!("{c:?}").contains("canary"));

        let configured = Candidates::new(vec![ProviderConfig::new(ProviderKind::OpenAiCompatible, "http://a/v1", "x")]);
        assert_eq!(with_agent_models(configured, &agent).providers[0].model, "x", "the config file wins");
        let remote = AgentSettings { remote_endpoint: Some("https://x.example/c".into()), ..agent.clone() };
        let c = with_agent_models(with_remote_endpoint(Candidates::default(), &remote), &remote);
        assert_eq!((c.providers.len(), c.providers[0].kind), (1, ProviderKind::Remote), "omp's remote endpoint wins");

        // Picked by name; an unavailable one says why.
        let picked =
            pick_candidate_or_agent(Candidates::default(), &CandidatePick::Name("pi's own: good/m".into()), &agent.models.models).unwrap();
        assert_eq!(picked.providers[0].label(), "pi's own: good/m");
        let err = pick_candidate_or_agent(Candidates::default(), &CandidatePick::Name("pi's own: oauthed/m".into()), &agent.models.models)
            .unwrap_err();
        assert!(matches!(&err, PickError::AgentModel { why: Unusable::Agent(_), .. }) && err.to_string().contains("subscription"), "{err}");
        let err = pick_candidate_or_agent(Candidates::default(), &CandidatePick::Name("pi's own: keyless/m".into()), &agent.models.models)
            .unwrap_err();
        assert!(
            matches!(&err, PickError::AgentModel { why: Unusable::NoKey { .. }, .. }) && err.to_string().contains("no API key"),
            "{err}"
        );

        // The listing masks the key and gives the reasons.
        let infos: Vec<AgentModelInfo> = agent.models.models.iter().map(AgentModelInfo::of).collect();
        assert_eq!(infos[2].key.as_deref(), Some("sk-…cdef"));
        assert_eq!(infos[2].kind.as_deref(), Some("anthropic"));
        assert!(infos[0].unavailable.as_deref().unwrap().contains("subscription"));
        assert!(infos[1].unavailable.as_deref().unwrap().starts_with("no API key"));
        assert!(!serde_json::to_string(&infos).unwrap().contains("0123456789"));
    }

    #[test]
    fn an_agent_model_without_a_key_never_takes_openai_api_key() {
        let mut m = agent_model("local", None, None);
        m.api = "openai-completions".into();
        m.wire = Some(Wire::OpenAiCompatible);
        let p = agent_candidate(&m).unwrap();
        assert_eq!(p.resolve_api_key(&|_| Some("sk-someone-elses".into())), None);
    }

    #[test]
    fn keys_are_masked() {
        assert_eq!(mask("sk-ant-0123456789abcdef"), "sk-…cdef");
        assert_eq!(mask("short"), "…");
    }
}
