//! An opened session file: `contextree info --json` (its text output renders the same report),
//! the app's `open_session` and the live reload's `session-changed`.

use contextree_core::dialect::RuleChoiceWire;
use contextree_core::session::{Diagnostic, NodeId, Session};
use contextree_core::{RuleChoice, RuleRequest};
use serde::Serialize;
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::rows::Ordered;
use crate::rule_sets::{rule_sets, RuleSetRow};

/// An opened session: what the file is, how it was read, its tree's shape and its problems.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionReport {
    /// The agent whose rules apply (`pi`, `omp`).
    pub dialect: &'static str,
    /// The rule set that ran and why (docs/decisions.md D22).
    #[ts(as = "RuleChoiceWire")]
    pub rule_set: RuleChoice,
    /// The file, as it was opened (the app: an absolute path).
    pub file: String,
    /// Its size when it was read.
    pub bytes: u64,
    /// The agent the file itself says; differs from `dialect` when it was forced.
    pub detected_dialect: &'static str,
    /// What the detection saw.
    pub dialect_signals: Vec<String>,
    /// The file has a session header.
    pub valid: bool,
    /// The header as stored.
    #[ts(type = "Record<string, unknown> | null")]
    pub header: Option<Map<String, Value>>,
    /// The session's title (omp 18: the title line's).
    #[ts(type = "unknown")]
    pub title: Option<Value>,
    /// omp 18's title line.
    pub title_slot: Option<TitleSlotReport>,
    /// The format version after migration (3).
    pub version: u32,
    /// The version the file says.
    pub original_version: u32,
    /// The file was migrated from v1 / v2 as the agents do on load.
    pub migrated: bool,
    /// Number of entries.
    pub entry_count: usize,
    /// The file's own leaf (its last entry), the leaf shown first.
    pub leaf_id: Option<String>,
    /// Its entry number.
    pub leaf_index: Option<u32>,
    /// Entries per `type`, in first-seen order.
    #[ts(type = "Record<string, number>")]
    pub types: Ordered<u64>,
    /// Messages per role, in first-seen order.
    #[ts(type = "Record<string, number>")]
    pub roles: Ordered<u64>,
    /// The tree's roots.
    pub roots: Vec<Option<String>>,
    /// The tree's leaves.
    pub leaves: Vec<Option<String>>,
    /// Entries with more than one child.
    pub branch_points: Vec<BranchPoint>,
    /// Label per entry id.
    #[ts(type = "Record<string, string>")]
    pub labels: Ordered<String>,
    /// Entries from the root to the file's leaf.
    pub leaf_path_length: usize,
    /// Problems found while reading the file.
    pub diagnostics: Vec<Diagnostic>,
    /// Lines of the file.
    pub lines: u32,
    /// The file's name, for a title bar.
    pub file_name: String,
    /// What the user asked for (`pi`, `omp@18`, …), `None` when detected.
    pub requested: Option<String>,
    /// Sum of the entries' token estimates.
    pub total_tokens: u64,
    /// The rule sets one can switch to.
    pub rule_sets: Vec<RuleSetRow>,
}

/// omp 18's title line.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TitleSlotReport {
    /// The title (empty: none).
    pub title: String,
    /// `auto` or `user`.
    pub source: Option<String>,
    /// When it was set.
    pub updated_at: String,
    /// Its line (1).
    pub line: u32,
    /// Its length with the newline.
    pub bytes: u32,
}

/// An entry with more than one child.
#[derive(Debug, Clone, Serialize, TS)]
pub struct BranchPoint {
    /// The entry.
    pub id: Option<String>,
    /// How many children it has.
    pub children: usize,
}

impl SessionReport {
    /// The report of `s`, read from `file` (`bytes` long) with the user's `request` (if any).
    pub fn new(file: &std::path::Path, bytes: u64, s: &Session, request: Option<RuleRequest>) -> Self {
        let id = |n: NodeId| s.entry(n).id().map(str::to_owned);
        let mut types = Ordered::default();
        let mut roles = Ordered::default();
        for e in s.entries() {
            // The agents count a typeless value under `String(undefined)`.
            *types.entry(e.kind_name().unwrap_or("undefined")) += 1;
            if let Some(m) = e.message() {
                *roles.entry(m.role.as_str()) += 1;
            }
        }
        let tree = s.tree();
        let n = s.entries().len();
        let branch_points = (0..n as u32)
            .map(NodeId)
            .filter_map(|node| {
                let kids = tree.children(node).count();
                (kids > 1).then(|| BranchPoint { id: id(node), children: kids })
            })
            .collect();
        let mut labels = Ordered::default();
        for (node, l) in s.labels() {
            labels.set(&s.entry(*node).id, l.clone());
        }
        let leaf = s.leaf();
        Self {
            dialect: s.dialect().name(),
            rule_set: s.rule_choice().clone(),
            file: file.display().to_string(),
            bytes,
            detected_dialect: s.detection().detected.name(),
            dialect_signals: s.detection().signals.clone(),
            valid: s.header().is_some(),
            header: s.header().cloned(),
            title: s.header().and_then(|h| h.get("title")).cloned(),
            title_slot: s.title_slot().map(|t| TitleSlotReport {
                title: t.title.clone(),
                source: t.source.clone(),
                updated_at: t.updated_at.clone(),
                line: 1,
                bytes: t.span.len + 1,
            }),
            version: s.version(),
            original_version: s.original_version(),
            migrated: s.original_version() < 3 && s.header().is_some(),
            entry_count: n,
            leaf_id: leaf.and_then(id),
            leaf_index: leaf.map(|l| l.0),
            types,
            roles,
            roots: tree.roots().iter().map(|&r| id(r)).collect(),
            leaves: tree.leaves().into_iter().map(id).collect(),
            branch_points,
            labels,
            leaf_path_length: leaf.map_or(0, |l| contextree_core::context::path_to(s, l).len()),
            diagnostics: s.diagnostics().to_vec(),
            lines: s.n_lines(),
            file_name: file.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default(),
            requested: request.map(|r| r.to_string()),
            total_tokens: (0..n as u32).map(|i| s.entry_tokens(NodeId(i))).sum(),
            rule_sets: rule_sets(),
        }
    }
}
