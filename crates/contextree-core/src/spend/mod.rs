//! What a session cost: the usage the agents record (tokens in, out, read from and written to
//! the prompt cache, and the provider's cost), summed per session, per branch (each leaf's
//! path) and per model, and the context size each reply reports, in file order, with the
//! compactions marked.
//!
//! Records read: an assistant message's `usage`; pi ≥ 0.86's `usage` entries (cache
//! warming); the `usage` of a compaction or branch summary (the summary's generation) and of a
//! tool result (nested model calls); omp 18's `model_usage` entries (side calls such as title
//! generation). Each record is counted once, where it sits in the file.
//!
//! omp's subagents write transcripts of their own; the parent's `task` results name them
//! ([`spawns`]), and each branch lists the ones started on its path.

mod spawns;

pub use spawns::{child_init, ChildInit, Spawn};

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::context::materialize::{ReadBackCause, ReadBackError};
use crate::dialect::Dialect;
use crate::session::{EntryKind, Role, Session, Source};

/// The tokens and cost of one usage record, or of several summed. Costs are the providers' own
/// numbers as recorded (dollars).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Amounts {
    /// Prompt tokens not read from the cache.
    pub input: f64,
    /// Completion tokens.
    pub output: f64,
    /// Prompt tokens read from the cache.
    pub cache_read: f64,
    /// Prompt tokens written to the cache.
    pub cache_write: f64,
    /// `totalTokens` as recorded (0 when absent).
    pub total_tokens: f64,
    /// `cost.total` as recorded (0 when absent).
    pub cost: f64,
}

/// Sums of usage records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    /// Usage records summed.
    pub records: u64,
    /// Their amounts, added up.
    #[serde(flatten)]
    pub sum: Amounts,
}

impl Totals {
    /// Count one record.
    pub fn add(&mut self, a: &Amounts) {
        let s = &mut self.sum;
        self.records += 1;
        s.input += a.input;
        s.output += a.output;
        s.cache_read += a.cache_read;
        s.cache_write += a.cache_write;
        s.total_tokens += a.total_tokens;
        s.cost += a.cost;
    }

    /// Add another sum (its records too).
    pub fn merge(&mut self, other: &Totals) {
        self.add(&other.sum);
        self.records = self.records - 1 + other.records;
    }
}

/// The amounts of a `usage` object as the agents record it (absent fields are 0).
fn amounts_of(usage: &Value) -> Amounts {
    let n = |k: &str| usage.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    Amounts {
        input: n("input"),
        output: n("output"),
        cache_read: n("cacheRead"),
        cache_write: n("cacheWrite"),
        total_tokens: n("totalTokens"),
        cost: usage.get("cost").and_then(|c| c.get("total")).and_then(Value::as_f64).unwrap_or(0.0),
    }
}

/// Where a usage record comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum CallKind {
    /// A reply of the model.
    Assistant,
    /// A `usage` entry (pi's prompt-cache warming) or `model_usage` (omp's side calls).
    SideCall,
    /// The generation of a compaction's or a branch summary's text.
    Summary,
    /// Model calls made inside a tool (pi's codemode).
    Tool,
}

/// One usage record of the file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "UsageRecord"))]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// The entry holding it.
    pub entry_id: String,
    /// Its position in the file (0-based entry index).
    pub index: u32,
    /// What kind of call.
    pub kind: CallKind,
    /// `provider/model` when the record names it.
    pub model: Option<String>,
    /// Its tokens and cost.
    #[serde(flatten)]
    pub amounts: Amounts,
    /// For a reply: the context size it reports (`totalTokens`, else the sum of the parts).
    pub context_tokens: Option<f64>,
}

/// The sums of one model.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelTotals {
    /// `provider/model` (`unknown` when the record does not say).
    pub model: String,
    /// Its sums.
    #[serde(flatten)]
    pub totals: Totals,
}

/// The sums along one leaf's path.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BranchTotals {
    /// The leaf.
    pub leaf_id: String,
    /// Entries on its path.
    pub path_length: usize,
    /// Its sums.
    #[serde(flatten)]
    pub totals: Totals,
    /// The subagents started on its path: positions in [`SpendReport::spawns`].
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub spawns: Vec<usize>,
}

/// A compaction, for the context-size chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CompactionMark {
    /// The compaction entry.
    pub entry_id: String,
    /// Its position in the file.
    pub index: u32,
    /// `tokensBefore` as recorded.
    pub tokens_before: Option<f64>,
}

/// One usage record as [`SpendReport`] keeps it: no strings (the entry's id is looked up, the
/// model is a number into the report's models), 64 bytes, so a million-reply file's records stay
/// a fraction of the entries (docs/benchmarks.md "Memory with many small entries").
#[derive(Debug, Clone, Copy)]
struct CompactRecord {
    index: u32,
    /// Its row of `by_model` (`unknown` when the record names no model) in the report's models.
    model: u32,
    /// The record names its model.
    named: bool,
    kind: CallKind,
    amounts: Amounts,
}

/// The sums of a session with its records held compactly: they become [`Record`]s one at a time
/// ([`SpendReport::records`]), for writing a large report without holding it.
#[derive(Debug, Clone)]
pub struct SpendReport {
    /// The whole file.
    pub totals: Totals,
    /// By kind of call.
    pub by_kind: BTreeMap<&'static str, Totals>,
    /// By model, most expensive first.
    pub by_model: Vec<ModelTotals>,
    /// Per leaf, in the tree's order of leaves.
    pub branches: Vec<BranchTotals>,
    /// The compactions, in file order.
    pub compactions: Vec<CompactionMark>,
    /// The subagents omp's `task` calls started, in file order (each agent id once).
    pub spawns: Vec<Spawn>,
    records: Vec<CompactRecord>,
    models: Vec<String>,
}

impl SpendReport {
    /// Number of usage records.
    pub fn record_count(&self) -> usize {
        self.records.len()
    }

    /// Records of replies, which report a context size.
    pub fn reply_count(&self) -> usize {
        self.records.iter().filter(|r| r.kind == CallKind::Assistant).count()
    }

    /// Every record, in file order (`session` is the one the report was made of).
    pub fn records<'a>(&'a self, session: &'a Session) -> impl Iterator<Item = Record> + 'a {
        self.records.iter().map(move |r| {
            let a = r.amounts;
            let context_tokens = (r.kind == CallKind::Assistant).then_some(if a.total_tokens != 0.0 {
                a.total_tokens
            } else {
                a.input + a.output + a.cache_read + a.cache_write
            });
            Record {
                entry_id: session.entries()[r.index as usize].id.to_string(),
                index: r.index,
                kind: r.kind,
                model: r.named.then(|| self.models[r.model as usize].clone()),
                amounts: a,
                context_tokens,
            }
        })
    }
}

/// The usage of `session` (what `contextree usage` and the app report), reading the entries
/// that hold usage back through `source`; the records are held compactly.
pub fn spend_report(session: &Session, source: &dyn Source) -> Result<SpendReport, ReadBackError> {
    let mut records: Vec<CompactRecord> = Vec::new();
    let mut models: Vec<String> = Vec::new();
    let mut model_numbers: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut compactions = Vec::new();
    let mut spawns: Vec<Spawn> = Vec::new();
    for (i, e) in session.entries().iter().enumerate() {
        let kind = match (&e.kind, &*e.entry_type) {
            (EntryKind::Message(m), _) if m.role == Role::Assistant && m.reply.usage.is_some() => CallKind::Assistant,
            (EntryKind::Message(m), _) if m.role == Role::ToolResult => CallKind::Tool,
            (EntryKind::Other(_), "usage" | "model_usage") => CallKind::SideCall,
            (EntryKind::Other(_), "compaction" | "branch_summary") => CallKind::Summary,
            _ => continue,
        };
        if &*e.entry_type == "compaction" {
            let tokens_before = e.object().and_then(|m| m.get("tokensBefore")).and_then(Value::as_f64);
            compactions.push(CompactionMark { entry_id: e.id.to_string(), index: i as u32, tokens_before });
        }
        // Small entries keep their whole object; messages are read back.
        let value: Value = match e.object() {
            Some(map) => Value::Object(map.clone()),
            None => {
                let bytes = source.bytes(e.span).map_err(|x| ReadBackError::at(e.line, x))?;
                serde_json::from_slice(&bytes).map_err(|x| ReadBackError::at(e.line, ReadBackCause::NoLongerParses(x)))?
            }
        };
        if kind == CallKind::Tool && session.dialect() == Dialect::Omp && e.message().and_then(|m| m.tool_name.as_deref()) == Some("task") {
            if let Some(msg) = value.get("message") {
                for s in spawns::spawns_of(msg, &e.id, i as u32) {
                    if !spawns.iter().any(|t| t.agent_id == s.agent_id) {
                        spawns.push(s);
                    }
                }
            }
        }
        let (holder, model) = match kind {
            CallKind::Assistant | CallKind::Tool => {
                let msg = value.get("message").cloned().unwrap_or(Value::Null);
                let model = model_name(msg.get("provider"), msg.get("model"));
                (msg, model)
            }
            _ => {
                let model = model_name(value.get("provider"), value.get("model"));
                (value, model)
            }
        };
        let Some(usage) = holder.get("usage").filter(|u| u.is_object()) else { continue };
        let named = model.is_some();
        let model = *model_numbers.entry(model.unwrap_or_else(|| "unknown".into())).or_insert_with_key(|name| {
            models.push(name.clone());
            (models.len() - 1) as u32
        });
        let amounts = amounts_of(usage);
        records.push(CompactRecord { index: i as u32, model, named, kind, amounts });
    }

    let mut totals = Totals::default();
    let mut by_kind: BTreeMap<&'static str, Totals> = BTreeMap::new();
    let mut model_totals: Vec<Totals> = vec![Totals::default(); models.len()];
    for r in &records {
        totals.add(&r.amounts);
        let name = match r.kind {
            CallKind::Assistant => "replies",
            CallKind::SideCall => "sideCalls",
            CallKind::Summary => "summaries",
            CallKind::Tool => "toolCalls",
        };
        by_kind.entry(name).or_default().add(&r.amounts);
        model_totals[r.model as usize].add(&r.amounts);
    }
    let mut by_model: Vec<ModelTotals> =
        models.iter().zip(model_totals).map(|(model, totals)| ModelTotals { model: model.clone(), totals }).collect();
    by_model.sort_by(|a, b| b.totals.sum.cost.total_cmp(&a.totals.sum.cost).then_with(|| a.model.cmp(&b.model)));

    let branches = session
        .tree()
        .leaves()
        .into_iter()
        .map(|leaf| {
            let path = session.tree().path_to(leaf);
            let mut t = Totals::default();
            let mut on_path = Vec::new();
            for n in &path {
                if let Ok(r) = records.binary_search_by_key(&n.0, |r| r.index) {
                    t.add(&records[r].amounts);
                }
                // Spawns are few and in file order; one call may start several.
                let first = spawns.partition_point(|s| s.index < n.0);
                on_path.extend((first..spawns.len()).take_while(|&k| spawns[k].index == n.0));
            }
            BranchTotals { leaf_id: session.entry(leaf).id.to_string(), path_length: path.len(), totals: t, spawns: on_path }
        })
        .collect();
    Ok(SpendReport { totals, by_kind, by_model, branches, compactions, spawns, records, models })
}

fn model_name(provider: Option<&Value>, model: Option<&Value>) -> Option<String> {
    fn s(v: Option<&Value>) -> Option<&str> {
        v.and_then(Value::as_str).filter(|s| !s.is_empty())
    }
    match (s(provider), s(model)) {
        (Some(p), Some(m)) => Some(format!("{p}/{m}")),
        (None, Some(m)) => Some(m.to_owned()),
        _ => None,
    }
}
