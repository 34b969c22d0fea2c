//! Context windows of common models (docs/decisions.md D19): sessions do not store the window, so a
//! small built-in table answers it; 128,000 when the model is unknown. A user-given window
//! (per session, in the app) overrides it.

use crate::context::build::ModelState;
use crate::Dialect;

/// The window assumed when the model is unknown or not on the path.
pub const DEFAULT_WINDOW: u64 = 128_000;

/// Model-id prefixes and their context windows; the longest matching prefix wins.
const WINDOWS: &[(&str, u64)] = &[
    ("claude-", 200_000),
    ("claude-sonnet-4", 200_000),
    ("claude-opus-4", 200_000),
    ("claude-haiku-4", 200_000),
    ("gpt-4o", 128_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4-turbo", 128_000),
    ("gpt-5", 400_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("gemini-1.5-pro", 2_097_152),
    ("gemini-2.0-flash", 1_048_576),
    ("gemini-2.5", 1_048_576),
    ("gemini-3", 1_048_576),
    ("grok-4", 256_000),
    ("deepseek-", 128_000),
    ("kimi-k2", 262_144),
    ("qwen3-coder", 262_144),
    ("glm-4.6", 200_000),
    ("mistral-large", 128_000),
];

/// The table's window for `model_id` (a bare id, or `provider/id`), `None` when unknown.
pub fn known_window(model_id: &str) -> Option<u64> {
    let id = model_id.rsplit('/').next().unwrap_or(model_id).to_ascii_lowercase();
    WINDOWS.iter().filter(|(prefix, _)| id.starts_with(prefix)).max_by_key(|(prefix, _)| prefix.len()).map(|&(_, w)| w)
}

/// The model the agent runs at the end of a path, as `provider/id` (or a bare id): pi's last
/// model, omp's `default` role (else the first role set).
pub fn current_model(state: &ModelState, dialect: Dialect) -> Option<String> {
    match dialect {
        Dialect::Pi => {
            let (provider, id) = state.pi.as_ref()?;
            let id = id.as_deref().filter(|id| !id.is_empty())?;
            Some(match provider.as_deref().filter(|p| !p.is_empty()) {
                Some(p) => format!("{p}/{id}"),
                None => id.to_owned(),
            })
        }
        Dialect::Omp => state.omp.iter().find(|(role, _)| role == "default").or_else(|| state.omp.first()).map(|(_, model)| model.clone()),
    }
}

/// Where a context window came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowSource {
    /// Given by the user.
    Override,
    /// The built-in table, for the path's model.
    Model,
    /// [`DEFAULT_WINDOW`]: no model on the path, or one the table does not know.
    Default,
}

impl WindowSource {
    /// Wire name: `override`, `model`, `default`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Override => "override",
            Self::Model => "model",
            Self::Default => "default",
        }
    }
}

/// The window to use: `user` if given, else the table's for `model`, else [`DEFAULT_WINDOW`].
pub fn resolve_window(user: Option<u64>, model: Option<&str>) -> (u64, WindowSource) {
    if let Some(w) = user.filter(|&w| w > 0) {
        return (w, WindowSource::Override);
    }
    match model.and_then(known_window) {
        Some(w) => (w, WindowSource::Model),
        None => (DEFAULT_WINDOW, WindowSource::Default),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        assert_eq!(known_window("claude-sonnet-4-5"), Some(200_000));
        assert_eq!(known_window("anthropic/claude-opus-4-5-20251101"), Some(200_000));
        assert_eq!(known_window("openai/gpt-5.1-codex"), Some(400_000));
        assert_eq!(known_window("gpt-4.1-mini"), Some(1_047_576));
        assert_eq!(known_window("gemini-2.5-pro"), Some(1_048_576));
        assert_eq!(known_window("my-local-model"), None);
    }

    #[test]
    fn resolve() {
        assert_eq!(resolve_window(Some(50_000), Some("gpt-5")), (50_000, WindowSource::Override));
        assert_eq!(resolve_window(None, Some("gpt-5")), (400_000, WindowSource::Model));
        assert_eq!(resolve_window(None, Some("nope")), (DEFAULT_WINDOW, WindowSource::Default));
        assert_eq!(resolve_window(Some(0), None), (DEFAULT_WINDOW, WindowSource::Default));
    }

    #[test]
    fn model_of_state() {
        let pi = ModelState { pi: Some((Some("anthropic".into()), Some("claude-sonnet-4-5".into()))), omp: vec![] };
        assert_eq!(current_model(&pi, Dialect::Pi).as_deref(), Some("anthropic/claude-sonnet-4-5"));
        let omp = ModelState { pi: None, omp: vec![("smol".into(), "a/x".into()), ("default".into(), "openai/gpt-5".into())] };
        assert_eq!(current_model(&omp, Dialect::Omp).as_deref(), Some("openai/gpt-5"));
        assert_eq!(current_model(&ModelState::default(), Dialect::Pi), None);
    }
}
