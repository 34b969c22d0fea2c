//! [`RawJson`]: a JSON value contextree passes through without reading it — an entry as stored in
//! the file, an agent message, the payload of a hook, the `details` or `preserveData` a hook
//! hands back to be stored as given — typed as "some JSON", not as a tree to take apart.

use serde::Serialize;
use serde_json::value::RawValue;

/// JSON text known to be valid, serialized as it is. Built from a value
/// ([`RawJson::from_serialize`]) or from text ([`RawJson::from_text`], which writes it back the
/// way serde_json writes it: the same JSON, compact).
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// `value` as JSON text.
    pub fn from_serialize<T: Serialize + ?Sized>(value: &T) -> Result<RawJson, serde_json::Error> {
        serde_json::value::to_raw_value(value).map(RawJson)
    }

    /// The JSON of `text` (one value), written back compact.
    pub fn from_text(text: &str) -> Result<RawJson, serde_json::Error> {
        RawJson::from_serialize(&serde_json::from_str::<serde_json::Value>(text)?)
    }

    /// The value, for the few places that take it apart: an entry written by JavaScript's rules
    /// (`JSON.stringify`), omp's merge of `preserveData` objects. Fails only where reading
    /// any JSON text can: nesting deeper than serde_json reads (128 levels).
    pub fn to_value(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::from_str(self.get())
    }

    /// `null`.
    pub fn null() -> RawJson {
        RawJson(RawValue::NULL.to_owned())
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &RawJson) -> bool {
        self.get() == other.get()
    }
}

impl std::fmt::Display for RawJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.get())
    }
}
