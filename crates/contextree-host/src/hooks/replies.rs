//! A hook's result: the shape checked as a whole (a malformed result is a
//! warning and an earlier good one stands), then read into typed decisions.

use contextree_core::branch_summary::SuppliedBranchSummary;
use contextree_core::compaction::{CompactingHook, SuppliedCompaction};
use serde_json::{Map, Value};

use crate::RawJson;

use super::{Dispatch, HookEvent};

/// Why a hook's result is not used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplyError {
    /// A field is present (not `null`) but of the wrong type.
    #[error("\"{field}\" must be {want}")]
    Wrong {
        /// The field's path in the result (`cancel`, `compaction.tokensBefore`, …).
        field: String,
        /// What it must be, for the message (`a string`, `true or false`, …).
        want: &'static str,
    },
    /// A required field is absent or `null` (`compaction.summary`, `summary.summary`).
    #[error("\"{field}\" is missing")]
    Missing {
        /// The field's path in the result.
        field: String,
    },
    /// A value to be stored as it is (`preserveData`, `details`) could not be turned back
    /// into JSON text.
    #[error("\"{field}\" cannot be kept: {message}")]
    Unkeepable {
        /// The field's path in the result.
        field: &'static str,
        /// serde_json's error.
        message: String,
    },
}

impl ReplyError {
    fn wrong(field: &str, want: &'static str) -> ReplyError {
        ReplyError::Wrong { field: field.to_owned(), want }
    }

    fn missing(field: &str) -> ReplyError {
        ReplyError::Missing { field: field.to_owned() }
    }
}

/// A hook's result, read after its shape was checked as a whole.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// `session_before_compact`: `{cancel?, compaction?}`.
    BeforeCompact(BeforeCompact),
    /// `session.compacting`: `{prompt?, context?, preserveData?}`.
    Compacting(CompactingHook),
    /// `session_before_tree`: `{cancel?, summary?, customInstructions?, replaceInstructions?, label?}`.
    BeforeTree(BeforeTree),
}

/// The typed reading of one hook's result for `event`, or why it is not used (a malformed one
/// is rejected as a whole, so that an earlier good result stands); `None` for a notification
/// event, whose results count for nothing.
pub(super) fn read_result(event: HookEvent, m: &Map<String, Value>) -> Result<Option<Reply>, ReplyError> {
    check_result(event, m)?;
    let text = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
    let cancel = m.get("cancel") == Some(&Value::Bool(true));
    Ok(match event {
        HookEvent::BeforeCompact => Some(Reply::BeforeCompact(BeforeCompact {
            cancel,
            compaction: m.get("compaction").filter(|v| !v.is_null()).map(supplied_compaction).transpose()?,
        })),
        HookEvent::Compacting => Some(Reply::Compacting(CompactingHook {
            prompt: text("prompt"),
            context: m
                .get("context")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
                .unwrap_or_default(),
            preserve_data: m.get("preserveData").filter(|v| v.is_object()).map(|v| raw("preserveData", v)).transpose()?,
        })),
        HookEvent::BeforeTree => Some(Reply::BeforeTree(BeforeTree {
            cancel,
            summary: m.get("summary").filter(|v| !v.is_null()).map(supplied_branch_summary).transpose()?,
            custom_instructions: text("customInstructions"),
            replace_instructions: m.get("replaceInstructions").and_then(Value::as_bool),
            label: text("label"),
        })),
        HookEvent::Compact | HookEvent::Tree => None,
    })
}

/// The shape checks of a result, so that a malformed one is rejected as a
/// whole (and an earlier good result stands) rather than half used.
fn check_result(event: HookEvent, m: &Map<String, Value>) -> Result<(), ReplyError> {
    let is = |key: &str, ok: fn(&Value) -> bool, want: &'static str| match m.get(key) {
        Some(v) if !v.is_null() && !ok(v) => Err(ReplyError::Wrong { field: key.to_owned(), want }),
        _ => Ok(()),
    };
    match event {
        HookEvent::BeforeCompact => {
            is("cancel", Value::is_boolean, "true or false")?;
            if let Some(c) = m.get("compaction").filter(|v| !v.is_null()) {
                supplied_compaction(c).map(drop)?;
            }
        }
        HookEvent::Compacting => {
            is("prompt", Value::is_string, "a string")?;
            is("context", |v| v.as_array().is_some_and(|a| a.iter().all(Value::is_string)), "a list of strings")?;
            is("preserveData", Value::is_object, "an object")?;
        }
        HookEvent::BeforeTree => {
            is("cancel", Value::is_boolean, "true or false")?;
            if let Some(v) = m.get("summary").filter(|v| !v.is_null()) {
                supplied_branch_summary(v).map(drop)?;
            }
            for key in ["customInstructions", "label"] {
                is(key, Value::is_string, "a string")?;
            }
            is("replaceInstructions", Value::is_boolean, "true or false")?;
        }
        HookEvent::Compact | HookEvent::Tree => {}
    }
    Ok(())
}

/// A `session_before_compact` result's `compaction` (`CompactionResult`) as a
/// supplied compaction; `summary` is required, the rest default to the plan's.
fn supplied_compaction(v: &Value) -> Result<SuppliedCompaction, ReplyError> {
    let m = v.as_object().ok_or_else(|| ReplyError::wrong("compaction", "an object"))?;
    let field = |k: &str| m.get(k).filter(|v| !v.is_null());
    let string = |k: &str| match field(k) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ReplyError::wrong(&format!("compaction.{k}"), "a string")),
    };
    let summary = string("summary")?.ok_or_else(|| ReplyError::missing("compaction.summary"))?;
    let tokens_before = match field("tokensBefore") {
        None => None,
        Some(v) => Some(v.as_f64().ok_or_else(|| ReplyError::wrong("compaction.tokensBefore", "a number"))?),
    };
    let preserve_data = match field("preserveData") {
        None => None,
        Some(v) if v.is_object() => Some(raw("compaction.preserveData", v)?),
        Some(_) => return Err(ReplyError::wrong("compaction.preserveData", "an object")),
    };
    Ok(SuppliedCompaction {
        summary,
        short_summary: string("shortSummary")?,
        first_kept_entry_id: string("firstKeptEntryId")?,
        tokens_before,
        details: field("details").map(|v| raw("compaction.details", v)).transpose()?,
        preserve_data,
    })
}

/// What `session_before_compact` decided.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BeforeCompact {
    /// Stop: manual compaction fails with `Compaction cancelled`.
    pub cancel: bool,
    /// Use this instead of asking a model.
    pub compaction: Option<SuppliedCompaction>,
}

/// The typed reading of a `session_before_compact` dispatch.
pub fn before_compact(d: &Dispatch) -> BeforeCompact {
    let Some(Reply::BeforeCompact(r)) = &d.result else { return BeforeCompact::default() };
    BeforeCompact { cancel: d.cancelled, compaction: r.compaction.clone() }
}

/// The typed reading of a `session.compacting` dispatch.
pub fn compacting(d: &Dispatch) -> CompactingHook {
    match &d.result {
        Some(Reply::Compacting(c)) => c.clone(),
        _ => CompactingHook::default(),
    }
}

/// A `session_before_tree` result's `summary` (`{summary, details?}`).
/// `details` is kept as given, `null` included (JavaScript stores it so);
/// only a missing key leaves it out.
fn supplied_branch_summary(v: &Value) -> Result<SuppliedBranchSummary, ReplyError> {
    let m = v.as_object().ok_or_else(|| ReplyError::wrong("summary", "an object {summary, details?}"))?;
    let summary = match m.get("summary") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => return Err(ReplyError::missing("summary.summary")),
        Some(_) => return Err(ReplyError::wrong("summary.summary", "a string")),
    };
    Ok(SuppliedBranchSummary { summary, details: m.get("details").map(|v| raw("summary.details", v)).transpose()? })
}

/// A part of a hook's result kept as given (its text is written back the same).
fn raw(field: &'static str, v: &Value) -> Result<RawJson, ReplyError> {
    RawJson::from_serialize(v).map_err(|e| ReplyError::Unkeepable { field, message: e.to_string() })
}

/// What `session_before_tree` decided.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BeforeTree {
    /// Stop: navigation is cancelled and nothing is written.
    pub cancel: bool,
    /// Use this instead of the summarizer (only when the user asked for a summary).
    pub summary: Option<SuppliedBranchSummary>,
    /// pi: replaces the navigation's custom instructions.
    pub custom_instructions: Option<String>,
    /// pi: replaces `replaceInstructions`.
    pub replace_instructions: Option<bool>,
    /// pi: replaces the label.
    pub label: Option<String>,
}

/// The typed reading of a `session_before_tree` dispatch. The overrides are
/// read for both dialects; omp has none, so its caller ignores them.
pub fn before_tree(d: &Dispatch) -> BeforeTree {
    let Some(Reply::BeforeTree(r)) = &d.result else { return BeforeTree::default() };
    BeforeTree { cancel: d.cancelled, ..r.clone() }
}
