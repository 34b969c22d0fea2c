//! One entry as the file has it: the app's entry panel and `contextree entry`.

use contextree_core::context::ReadBackError;
use contextree_core::session::{Diagnostic, NodeId, Session, Source};
use serde::Serialize;
use ts_rs::TS;

/// One entry's line.
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EntryReport {
    /// Entry id.
    pub id: String,
    /// 1-based line.
    pub line: u32,
    /// The entry's `type`.
    pub entry_type: String,
    /// The line's JSON, pretty-printed (key order kept); the raw text if it does not parse.
    pub json: String,
    /// Migration changed the entry: the agents see it differently from the file's bytes.
    pub migrated: bool,
    /// Diagnostics on this line.
    pub diagnostics: Vec<Diagnostic>,
}

impl EntryReport {
    /// Entry `node` of `s`, its line read back through `source`.
    pub fn new(s: &Session, node: NodeId, source: &dyn Source) -> Result<Self, ReadBackError> {
        let e = s.entry(node);
        let bytes = source.bytes(e.span).map_err(|x| ReadBackError::at(e.line, x))?;
        let raw = String::from_utf8_lossy(&bytes);
        let json = serde_json::from_str::<serde_json::Value>(&raw)
            .and_then(|v| serde_json::to_string_pretty(&v))
            .unwrap_or_else(|_| raw.clone().into_owned());
        Ok(Self {
            id: e.id.to_string(),
            line: e.line,
            entry_type: e.entry_type.to_string(),
            json,
            migrated: e.migrated,
            diagnostics: s.diagnostics().iter().filter(|d| d.line == e.line).cloned().collect(),
        })
    }
}
