//! The automatic compaction check as a typed document (`contextree cut --window`, `contextree
//! compact --dry-run`): what the agent of the session's rule set would do after its last run,
//! and under omp 18 its stale pass, stored estimate and compaction method (omp-18.md §5.1,
//! §5.2, §6).

use contextree_core::compaction::{AutoCheck, MethodChoice, Overflow, Usable};
use contextree_core::session::Session;
use serde::Serialize;

use crate::report::JsNumber;

/// compaction.md §1.2 for the last assistant message (see `AutoCheck`), as the JSON shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AutoCheckReport {
    pub rule_set: &'static str,
    pub assistant_id: Option<String>,
    pub stop_reason: Option<String>,
    pub decision: &'static str,
    pub skipped: Option<&'static str>,
    pub reason: String,
    pub same_model: bool,
    pub model_assumed: bool,
    pub stale: bool,
    pub overflow: Option<OverflowReport>,
    pub usage_tokens: Option<JsNumber>,
    pub pruning_savings: u64,
    pub pruned_count: usize,
    pub context_tokens: Option<JsNumber>,
    pub threshold_tokens: Option<JsNumber>,
    pub window: u64,
    pub will_retry: bool,
    pub context_promotion: bool,
    pub notes: Vec<String>,
    /// omp 18 only: the stale pass, the stored estimate, the method (savings are not subtracted).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    // ts-rs cannot flatten an Option: omp 18's fields are left out of the UI's type (no UI
    // module reads them; `contextree cut --window --json` prints them).
    #[cfg_attr(feature = "ts", ts(skip))]
    pub omp18: Option<Omp18Check>,
}

/// omp 18's part of the check.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Omp18Check {
    pub stale_pruned_count: usize,
    pub stale_savings: u64,
    pub stored_estimate: Option<u64>,
    pub method: Option<MethodReport>,
}

/// Why the agent sees an overflow.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum OverflowReport {
    /// The error message matched one of its patterns.
    ErrorMessage { pattern: &'static str },
    /// The provider's error id.
    ErrorId { error_id: u64 },
    /// The usage reached the window.
    Usage { input_tokens: JsNumber, rule: &'static str },
}

/// omp 18's method choice: the first surely usable method of `methodOrder`, the methods
/// looked at on the way, and what contextree writes instead (an LLM summary, `soft`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MethodReport {
    pub reason: &'static str,
    pub agent_method: Option<&'static str>,
    pub order: Vec<MethodStep>,
    pub contextree_writes: &'static str,
    pub text: String,
}

/// One method looked at: `usable` true, false (with `why`) or null (with the condition, `if`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MethodStep {
    pub method: &'static str,
    pub usable: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<&'static str>,
    #[serde(rename = "if", skip_serializing_if = "Option::is_none")]
    pub condition: Option<&'static str>,
}

/// The check `c` of session `s`, as reported.
pub fn auto_check_report(s: &Session, c: &AutoCheck) -> AutoCheckReport {
    let overflow = c.overflow.as_ref().map(|o| match o {
        Overflow::ErrorMessage { pattern } => OverflowReport::ErrorMessage { pattern },
        Overflow::ErrorId { error_id } => OverflowReport::ErrorId { error_id: *error_id },
        Overflow::Usage { input_tokens, rule } => OverflowReport::Usage { input_tokens: JsNumber(*input_tokens), rule },
    });
    AutoCheckReport {
        rule_set: c.rules.name(),
        assistant_id: c.assistant.map(|n| s.entry(n).id.to_string()),
        stop_reason: c.stop_reason.clone(),
        decision: c.decision.name(),
        skipped: c.skipped.map(|k| k.name()),
        reason: c.reason.clone(),
        same_model: c.same_model,
        model_assumed: c.model_assumed,
        stale: c.stale,
        overflow,
        usage_tokens: c.usage_tokens.map(JsNumber),
        pruning_savings: c.pruning_savings,
        pruned_count: c.pruned_count,
        context_tokens: c.context_tokens.map(JsNumber),
        threshold_tokens: c.threshold.map(JsNumber),
        window: c.window,
        will_retry: c.will_retry,
        context_promotion: c.context_promotion,
        notes: c.notes.clone(),
        omp18: c.rules.floors_threshold_with_estimate().then(|| Omp18Check {
            stale_pruned_count: c.stale_pruned_count,
            stale_savings: c.stale_savings,
            stored_estimate: c.stored_estimate,
            method: c.method.as_ref().map(method_report),
        }),
    }
}

/// omp 18's method choice as reported.
pub fn method_report(m: &MethodChoice) -> MethodReport {
    let order = m
        .steps
        .iter()
        .map(|(method, usable)| {
            let (usable, why, condition) = match usable {
                Usable::Yes => (Some(true), None, None),
                Usable::No(why) => (Some(false), Some(*why), None),
                Usable::Unknown(cond) => (None, None, Some(*cond)),
            };
            MethodStep { method: method.name(), usable, why, condition }
        })
        .collect();
    MethodReport { reason: m.reason, agent_method: m.method.map(|x| x.name()), order, contextree_writes: "soft", text: m.describe() }
}
