//! omp's own settings and folder: `modelRoles`, tried in omp's order as its compaction tries
//! them, and where its `models.yml` lives.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::types::ModelRef;

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

/// The folder omp keeps `models.yml` in: `~/.omp/agent`.
pub fn omp_agent_dir(home: &Path) -> PathBuf {
    home.join(".omp/agent")
}
