//! The only reads of the disk: an agent folder's models and auth files, each missing file an
//! empty list and each unreadable or malformed one a warning, never a failure.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use contextree_core::Dialect;

use super::models_file::{strip_json_comments, AgentFileError, ModelsFile};
use super::pi::{parse_pi_auth_json, parse_pi_models_json};
use super::resolve::{resolve_model, Places};
use super::types::{AgentModels, ModelRef};

/// `path` with the home folder shown as `~`.
pub(crate) fn shown(path: &Path, home: Option<&Path>) -> String {
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

/// The agent's models file in `agent_dir` (pi `models.json`; omp `models.yml`, else
/// `models.yaml`, else `models.json`) and what it holds: empty when missing, and when
/// malformed, with a warning.
pub(crate) fn models_file(agent: Dialect, agent_dir: &Path, home: Option<&Path>, warnings: &mut Vec<String>) -> (PathBuf, ModelsFile) {
    let (path, parsed) = match agent {
        Dialect::Pi => {
            let p = agent_dir.join("models.json");
            let parsed = read(&p, home, warnings).map(|t| parse_pi_models_json(&t));
            (p, parsed)
        }
        Dialect::Omp => {
            let p = ["models.yml", "models.yaml", "models.json"]
                .iter()
                .map(|n| agent_dir.join(n))
                .find(|p| p.exists())
                .unwrap_or_else(|| agent_dir.join("models.yml"));
            let parsed = read(&p, home, warnings).map(|t| {
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
    let models = match parsed {
        Some(Ok(m)) => m,
        Some(Err(why)) => {
            warnings.push(format!("{}: {why}; ignored", shown(&path, home)));
            ModelsFile::default()
        }
        None => ModelsFile::default(),
    };
    (path, models)
}

/// The models of `refs` (from the agent's merged settings, see
/// [`pi_model_ref`](super::pi_model_ref) and [`omp_model_refs`](super::omp_model_refs)) as the
/// agent folder `agent_dir` (pi: `~/.pi/agent` or `$PI_CODING_AGENT_DIR`; omp: `~/.omp/agent`)
/// and `env` make them. Only reads.
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
    let (models_path, models) = models_file(agent, agent_dir, home, &mut out.warnings);
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
