//! What `compact` and `navigate` share about where a summary comes from:
//! the candidate models (flags, contextree's config file, omp's remote
//! endpoint) and the hooks of contextree's config file.

use contextree_host::hooks::{self, Hooks};
use contextree_host::settings::AgentSettings;
use contextree_llm::{Candidates, ProviderConfig, ProviderKind};

use crate::common::CliError;

/// The name the candidate made from omp's `compaction.remoteEndpoint` goes by.
pub const REMOTE_ENDPOINT_NAME: &str = "omp compaction.remoteEndpoint";

/// The summarizer flags both subcommands take.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProviderFlags<'a> {
    /// `--offline`: no candidate at all.
    pub offline: bool,
    /// `--provider KIND`.
    pub provider: Option<&'a str>,
    /// `--model ID`.
    pub model: Option<&'a str>,
    /// `--base-url URL`.
    pub base_url: Option<&'a str>,
}

/// The models to ask, in order:
/// 1. none with `--offline`;
/// 2. `--provider`/`--model`/`--base-url`;
/// 3. the providers of contextree's config file;
/// 4. when that lists none, omp's `compaction.remoteEndpoint` from the agent's
///    settings (kind `remote`), as omp would use it.
///
/// Empty: the caller writes the offline summary.
pub fn candidates(flags: ProviderFlags<'_>, agent: &AgentSettings) -> Result<Candidates, CliError> {
    if flags.offline {
        return Ok(Candidates::default());
    }
    let Some(kind) = flags.provider else {
        let configured = Candidates::load_default().map_err(|e| CliError::Input(e.to_string()))?;
        return Ok(with_remote_endpoint(configured, agent));
    };
    let kind = match kind {
        "openai-compatible" | "openai" => ProviderKind::OpenAiCompatible,
        "anthropic" => ProviderKind::Anthropic,
        "remote" => ProviderKind::Remote,
        other => return Err(CliError::Input(format!("--provider {other}: expected openai-compatible, anthropic or remote"))),
    };
    let base = flags.base_url.map(str::to_owned).or_else(|| kind.default_base_url().map(str::to_owned));
    let base = base.ok_or_else(|| CliError::Input("--provider remote needs --base-url (the endpoint's URL)".into()))?;
    let model = flags.model.unwrap_or_default().to_owned();
    // A remote endpoint picks its own model; the others need one named.
    if model.is_empty() && kind != ProviderKind::Remote {
        return Err(CliError::Input(format!("--provider {}: --model is required", kind.as_str())));
    }
    Ok(Candidates(vec![ProviderConfig::new(kind, base, model)]))
}

/// `configured`, or, when it is empty, the agent's remote endpoint as the one
/// candidate (omp only: pi's settings never give one).
pub fn with_remote_endpoint(configured: Candidates, agent: &AgentSettings) -> Candidates {
    match &agent.remote_endpoint {
        Some(url) if configured.is_empty() => {
            let mut remote = ProviderConfig::new(ProviderKind::Remote, url.clone(), "");
            remote.name = Some(REMOTE_ENDPOINT_NAME.to_owned());
            Candidates(vec![remote])
        }
        _ => configured,
    }
}

/// The hooks in contextree's config file (none when it does not exist). A
/// broken hooks section is an error: a hook the user relies on (to cancel,
/// say) must not be skipped silently.
pub fn load_hooks() -> Result<Hooks, CliError> {
    match contextree_llm::config::default_path() {
        Some(path) => hooks::load_hooks(&path).map_err(CliError::Input),
        None => Ok(Hooks::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_remote_endpoint_is_offered_only_when_nothing_is_configured() {
        let agent = AgentSettings { remote_endpoint: Some("https://x.example/compact".into()), ..AgentSettings::default() };
        let c = with_remote_endpoint(Candidates::default(), &agent);
        assert_eq!(c.0.len(), 1);
        assert_eq!((c.0[0].kind, c.0[0].base_url.as_str(), c.0[0].label()), (ProviderKind::Remote, "https://x.example/compact", REMOTE_ENDPOINT_NAME));
        let configured = Candidates(vec![ProviderConfig::new(ProviderKind::Anthropic, "https://a", "m")]);
        let c = with_remote_endpoint(configured, &agent);
        assert_eq!((c.0.len(), c.0[0].kind), (1, ProviderKind::Anthropic), "the config file wins");
        assert!(with_remote_endpoint(Candidates::default(), &AgentSettings::default()).is_empty());
        let offline = candidates(ProviderFlags { offline: true, ..Default::default() }, &agent).unwrap();
        assert!(offline.is_empty(), "--offline asks nobody");
        let flagged = candidates(ProviderFlags { provider: Some("remote"), base_url: Some("http://h/c"), ..Default::default() }, &agent).unwrap();
        assert_eq!(flagged.0[0].base_url, "http://h/c", "flags win");
    }
}
