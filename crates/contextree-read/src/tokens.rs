//! The rule set's estimate of every entry: `contextree tokens`.

use contextree_core::context::Item;
use contextree_core::context::{item_estimate, ReadBackError};
use contextree_core::dialect::RuleChoiceWire;
use contextree_core::session::{Entry, NodeId, Session, Source};
use contextree_core::RuleChoice;
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crate::rows::{Ordered, Rows};

/// Every entry's estimate (when it makes a message), the total and the sums per type. The
/// rows are made while written; the totals come from a first pass.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TokensReport<'a> {
    /// The agent whose rules ran.
    pub dialect: &'static str,
    /// The rule set that ran and why.
    #[ts(as = "RuleChoiceWire")]
    pub rule_set: &'a RuleChoice,
    /// Sum over the entries that make a message.
    pub total_tokens: u64,
    /// Per `type` (`message:role` for messages), in first-seen order.
    #[ts(type = "Record<string, number>")]
    pub tokens_by_type: Ordered<u64>,
    /// One per entry, in file order.
    #[ts(type = "Array<EntryTokens>")]
    pub entries: Rows<Box<dyn Iterator<Item = EntryTokens<'a>> + 'a>>,
}

/// One entry's estimate.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EntryTokens<'a> {
    /// Its index in the file.
    pub i: usize,
    /// Its id.
    pub id: Option<&'a str>,
    /// Its `type`.
    #[serde(rename = "type")]
    pub kind: Option<&'a str>,
    /// The role of the message the entry produces.
    pub role: Option<String>,
    /// Its estimate, when it produces a message.
    pub tokens: Option<u64>,
    /// pi ≥ 0.87: a compaction's system checkpoint (counted in `tokens`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub system_tokens: Option<u64>,
}

impl<'a> TokensReport<'a> {
    /// The estimates of `s`; pi ≥ 0.87's compaction checkpoints are read back through `source`
    /// (the only numbers that are).
    pub fn new(s: &'a Session, source: &dyn Source) -> Result<Self, ReadBackError> {
        let projected = s.rules().projects_context_edits();
        let mut systems: Vec<(usize, u64)> = Vec::new();
        for (i, e) in s.entries().iter().enumerate() {
            // pi ≥ 0.87: a compaction's system checkpoint is one of its messages.
            if projected && has_checkpoint(e) {
                systems.push((i, item_estimate(s, Item::SystemCheckpoint(NodeId(i as u32)), source)?));
            }
        }
        let mut by_type = Ordered::default();
        let mut total = 0;
        for (i, e) in s.entries().iter().enumerate() {
            let r = entry_tokens(s, &systems, i, e);
            if let Some(n) = r.tokens {
                total += n;
                let key = match (&r.role, e.message()) {
                    (Some(role), Some(_)) => format!("{}:{role}", e.entry_type),
                    _ => e.entry_type.to_string(),
                };
                *by_type.entry(&key) += n;
            }
        }
        let rows = s.entries().iter().enumerate().map(move |(i, e)| entry_tokens(s, &systems, i, e));
        Ok(Self {
            dialect: s.dialect().name(),
            rule_set: s.rule_choice(),
            total_tokens: total,
            tokens_by_type: by_type,
            entries: Rows::new(Box::new(rows)),
        })
    }
}

/// Entry `i`'s row; `systems` are the checkpoints' estimates by entry index.
fn entry_tokens<'a>(s: &'a Session, systems: &[(usize, u64)], i: usize, e: &'a Entry) -> EntryTokens<'a> {
    // The role of the message the entry produces, as the oracle reports it.
    let role = match (e.message(), &*e.entry_type) {
        (Some(m), _) => Some(m.role.as_str().to_owned()),
        (None, "custom_message") => Some("custom".to_owned()),
        (None, "compaction") => Some("compactionSummary".to_owned()),
        (None, "branch_summary") => Some("branchSummary".to_owned()),
        _ => None,
    };
    let system = systems.binary_search_by_key(&i, |&(at, _)| at).ok().map(|k| systems[k].1);
    let projected = s.rules().projects_context_edits();
    let produces = produces_message(&e.entry_type) && !(projected && is_empty_branch_summary(e));
    let tokens = produces.then(|| s.entry_tokens(NodeId(i as u32)) + system.unwrap_or(0));
    EntryTokens { i, id: e.id(), kind: e.kind_name(), role, tokens, system_tokens: system }
}

/// Entry types that turn into a message when they are on a path.
fn produces_message(entry_type: &str) -> bool {
    matches!(entry_type, "message" | "custom_message" | "branch_summary" | "compaction")
}

/// A compaction with a (truthy) `systemMessage` checkpoint.
fn has_checkpoint(e: &Entry) -> bool {
    e.entry_type == "compaction"
        && e.object()
            .and_then(|m| m.get("systemMessage"))
            .is_some_and(|v| !matches!(v, Value::Null | Value::Bool(false)) && v.as_str() != Some("") && v.as_f64() != Some(0.0))
}

/// pi ≥ 0.87: a branch summary with an empty summary produces no message.
fn is_empty_branch_summary(e: &Entry) -> bool {
    e.entry_type == "branch_summary" && e.str_field("summary").is_none_or(str::is_empty)
}
