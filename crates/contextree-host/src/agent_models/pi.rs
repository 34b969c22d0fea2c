//! pi's own files (0.73 and 1.6 read the same ones): the model its settings name, its
//! `models.json` and its `auth.json`.

use std::collections::BTreeMap;

use serde_json::Value;

use super::models_file::{strip_json_comments, AgentFileError, ModelsFile};
use super::types::{ModelRef, Secret};

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

/// pi's `models.json` text: JSON with `//` line comments and trailing commas (pi strips them
/// first, `stripJsonComments`), maybe with a byte-order mark.
pub fn parse_pi_models_json(text: &str) -> Result<ModelsFile, AgentFileError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc: Value = serde_json::from_str(&strip_json_comments(text)).map_err(AgentFileError::json)?;
    ModelsFile::from_value(&doc)
}

/// One stored credential of pi's `auth.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// `{"type": "api_key", "key"?, "env"?}`: the key as written (a config value, see the
    /// module docs) and the variables it may interpolate.
    ApiKey {
        /// The non-empty `key` string: a literal key, `$NAME` template, variable name or
        /// `!command`, resolved later; `None` when absent or empty.
        key: Option<Secret>,
        /// The `env` object's string values by name: the variables `key` names are looked up
        /// here first, then in the process environment.
        env: BTreeMap<String, Secret>,
    },
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
