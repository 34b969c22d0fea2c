//! The providers file both agents share the shape of (pi `models.json`, omp `models.yml`) and
//! what can be wrong with an agent's files, reported without quoting a value (it may be a key).

use std::collections::BTreeMap;

use serde_json::Value;

/// Why an agent's models or auth file is not used (then it is a warning, and the file is
/// skipped). The JSON errors give the place only: the text around it may be a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentFileError {
    /// The file (comments and trailing commas stripped, for a models file) is not valid JSON.
    #[error("invalid JSON at line {line} column {column}")]
    Json {
        /// serde_json's line of the error, from 1.
        line: usize,
        /// serde_json's column of the error, from 1 (0 when the error is at a newline).
        column: usize,
    },
    /// omp's `models.yml` / `models.yaml` is not valid YAML, or uses what contextree's
    /// YAML-to-JSON reading refuses (an alias, a mapping key that is not a scalar); the text
    /// says which.
    #[error("{0}")]
    Yaml(String),
    /// The document is not a JSON object (pi's `auth.json`).
    #[error("not an object at the top level")]
    NotAnObject,
    /// A models file has a `providers` key that is neither an object nor `null`.
    #[error("`providers` is not an object")]
    ProvidersNotAnObject,
}

impl AgentFileError {
    pub(super) fn json(e: serde_json::Error) -> AgentFileError {
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
    pub(super) fn from_value(doc: &Value) -> Result<ModelsFile, AgentFileError> {
        match doc.get("providers") {
            None | Some(Value::Null) => Ok(ModelsFile::default()),
            Some(Value::Object(map)) => Ok(ModelsFile { providers: map.iter().map(|(k, v)| (k.clone(), v.clone())).collect() }),
            Some(_) => Err(AgentFileError::ProvidersNotAnObject),
        }
    }

    pub(super) fn provider(&self, id: &str) -> Option<&Value> {
        self.providers.get(id).filter(|v| v.is_object())
    }

    /// The `cost` the file declares for a model (`provider/id`, or a bare id looked up in every
    /// provider, in name order): `{input, output, cacheRead, cacheWrite}` in dollars per million
    /// tokens, as pi-ai's `Model.cost`; a missing cache price counts 0.
    pub fn model_prices(&self, model: &str) -> Option<contextree_core::prices::Prices> {
        let (provider, id) = match model.split_once('/') {
            Some((p, id)) => (Some(p), id),
            None => (None, model),
        };
        let in_provider = |p: &Value| {
            let models = p.get("models")?.as_array()?;
            let cost = models.iter().find(|m| m.get("id").and_then(Value::as_str) == Some(id))?.get("cost")?;
            let price = |k: &str| cost.get(k).and_then(Value::as_f64);
            Some(contextree_core::prices::Prices {
                input: price("input")?,
                output: price("output")?,
                cache_read: price("cacheRead").unwrap_or(0.0),
                cache_write: price("cacheWrite").unwrap_or(0.0),
            })
        };
        match provider {
            Some(p) => self.provider(p).and_then(in_provider),
            None => self.providers.values().filter(|v| v.is_object()).find_map(in_provider),
        }
    }
}

/// pi's `stripJsonComments`: drops `//` to the end of the line and commas before `}` / `]`,
/// outside strings.
pub(super) fn strip_json_comments(text: &str) -> String {
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
