//! What a model costs per token, for the compaction plan's cost lines: the price the agent's
//! own models file declares for it (pi `models.json`, omp `models.yml`: a model's `cost`), else
//! core's built-in table, whose date is said. Read only, like every agent file.

use contextree_core::prices::{known_prices, Prices, PRICES_DATE};
use contextree_core::Dialect;

use crate::agent_models::{models_file, omp_agent_dir, shown};
use crate::settings::pi_agent_dir;
use crate::HostEnv;

/// A model's prices and where they come from.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPrices {
    /// The prices, in dollars per million tokens.
    pub prices: Prices,
    /// `agent` (the agent's models file) or `builtIn` (core's table).
    pub source: &'static str,
    /// The file (home shown as `~`), or the table's date.
    pub detail: String,
}

/// The prices of `model` (`provider/id` or a bare id) for a session of `dialect`'s agent;
/// `None` when neither its models file nor the table knows the model.
pub fn model_prices(env: &HostEnv, dialect: Dialect, model: &str) -> Option<ModelPrices> {
    let home = env.var("HOME").map(std::path::PathBuf::from);
    let dir = match dialect {
        Dialect::Pi => pi_agent_dir(home.as_deref(), &|k| env.var(k)).map(|(d, _)| d),
        Dialect::Omp => home.as_deref().map(omp_agent_dir),
    };
    if let Some(dir) = dir {
        // A broken file is the settings' business to report; here it only has no price.
        let (path, file) = models_file(dialect, &dir, home.as_deref(), &mut Vec::new());
        if let Some(prices) = file.model_prices(model) {
            return Some(ModelPrices { prices, source: "agent", detail: shown(&path, home.as_deref()) });
        }
    }
    known_prices(model).map(|prices| ModelPrices { prices, source: "builtIn", detail: format!("built-in table of {PRICES_DATE}") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agents_file_wins_over_the_table() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join(".pi/agent");
        std::fs::create_dir_all(&dir).unwrap();
        let file = r#"{"providers": {"anthropic": {"models": [
            {"id": "claude-sonnet-4-5", "cost": {"input": 2, "output": 10, "cacheRead": 0.2, "cacheWrite": 2.5}}]}}}"#;
        std::fs::write(dir.join("models.json"), file).unwrap();
        let env = HostEnv::isolated(home.path());
        let got = model_prices(&env, Dialect::Pi, "anthropic/claude-sonnet-4-5").unwrap();
        assert_eq!((got.source, got.detail.as_str()), ("agent", "~/.pi/agent/models.json"));
        assert_eq!(got.prices, Prices { input: 2.0, output: 10.0, cache_read: 0.2, cache_write: 2.5 });
        // Another model of the same session: the table, with its date.
        let other = model_prices(&env, Dialect::Pi, "openai/gpt-5").unwrap();
        assert_eq!(other.source, "builtIn");
        assert!(other.detail.contains(PRICES_DATE));
        assert_eq!(model_prices(&env, Dialect::Omp, "local/unknown-model"), None);
    }
}
