//! An opened session file, as the app's title bar and status line show it (`open_session`, the
//! live reload's `session-changed`).

use contextree_core::dialect::RuleChoiceWire;
use contextree_core::session::{Diagnostic, NodeId, Session};
use contextree_core::{RuleChoice, RuleRequest};
use serde::Serialize;
use ts_rs::TS;

use crate::rule_sets::{rule_sets, RuleSetRow};

/// An opened session.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionReport {
    /// Absolute path of the file that was opened.
    pub path: String,
    /// Its file name, for the title bar.
    pub file_name: String,
    /// The agent whose rules apply (`pi`, `omp`).
    pub dialect: &'static str,
    /// The agent the file itself says; differs from `dialect` when it was forced.
    pub detected_dialect: &'static str,
    /// The rule set that ran and why (docs/decisions.md D22).
    #[ts(as = "RuleChoiceWire")]
    pub rule_set: RuleChoice,
    /// What the user forced (`pi`, `omp@18`, …), `None` when detected.
    pub requested: Option<String>,
    /// The rule sets one can switch to.
    pub rule_sets: Vec<RuleSetRow>,
    /// Number of entries.
    pub entry_count: usize,
    /// Sum of the entries' token estimates.
    pub total_tokens: u64,
    /// The file's own leaf (its last entry), the leaf shown first.
    pub leaf_id: Option<String>,
    /// Problems found while reading the file.
    pub diagnostics: Vec<Diagnostic>,
}

impl SessionReport {
    /// The report of `s`, read from `path` with the user's `request` (if any).
    pub fn new(path: &std::path::Path, s: &Session, request: Option<RuleRequest>) -> Self {
        let n = s.entries().len();
        Self {
            path: path.display().to_string(),
            file_name: path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default(),
            dialect: s.dialect().name(),
            detected_dialect: s.detection().detected.name(),
            rule_set: s.rule_choice().clone(),
            requested: request.map(|r| r.to_string()),
            rule_sets: rule_sets(),
            entry_count: n,
            total_tokens: (0..n as u32).map(|i| s.entry_tokens(NodeId(i))).sum(),
            leaf_id: s.leaf().map(|n| s.entry(n).id.to_string()),
            diagnostics: s.diagnostics().to_vec(),
        }
    }
}
