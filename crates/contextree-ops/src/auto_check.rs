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
    /// The rule set whose check ran: `pi@0.73`, `pi@1.6`, `omp@13` or `omp@18`.
    pub rule_set: &'static str,
    /// The id of the assistant message checked (the context's last); `null` without one.
    pub assistant_id: Option<String>,
    /// That message's `stopReason`.
    pub stop_reason: Option<String>,
    /// What the agent would start: `none`, `threshold`, `overflow` or (omp 18) `incomplete`.
    pub decision: &'static str,
    /// Why the check stopped before the threshold test (`noAssistant`, `disabled`, `stale`,
    /// …); `null` when it did not.
    pub skipped: Option<&'static str>,
    /// One sentence for people: the decision and why.
    pub reason: String,
    /// The message's provider and model are the current model's.
    pub same_model: bool,
    /// No current model was given, so the message's own model was assumed.
    pub model_assumed: bool,
    /// The message predates the latest compaction on the path (omp `<`, pi `≤`).
    pub stale: bool,
    /// Why the agent sees a context overflow (checked whatever the other gates say); `null`
    /// when it does not.
    pub overflow: Option<OverflowReport>,
    /// `calculateContextTokens` of the message's usage (pi's error path: the estimate);
    /// `null` without usage.
    pub usage_tokens: Option<JsNumber>,
    /// omp: tokens the pruning run before the threshold test saves (`tokensSaved`).
    pub pruning_savings: u64,
    /// omp: tool results that pruning run prunes.
    pub pruned_count: usize,
    /// The token count compared with the threshold (after pruning); `null` when the check
    /// stopped before.
    pub context_tokens: Option<JsNumber>,
    /// The threshold in tokens; `null` when the threshold rule never fires.
    pub threshold_tokens: Option<JsNumber>,
    /// The context window the check used, in tokens.
    pub window: u64,
    /// `willRetry` of the automatic compaction: the agent retries the turn after compacting
    /// (recovery from an overflow or a `length` stop, per rule set; never for the threshold).
    pub will_retry: bool,
    /// omp: context promotion is tried first (a configured larger model instead of compacting).
    pub context_promotion: bool,
    /// Things the file cannot tell, or that change the outcome.
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
    /// Tool results omp 18's per-turn stale pass prunes before the gate.
    pub stale_pruned_count: usize,
    /// That pass's `tokensSaved` (not subtracted from the input).
    pub stale_savings: u64,
    /// The stored estimate compared besides the usage: the context's messages after both
    /// pruning passes (no system prompt or tool definitions, which the file lacks).
    pub stored_estimate: Option<u64>,
    /// The walk of `methodOrder` for the compaction the check reached (threshold, overflow
    /// or `length` recovery); `null` when it reached none.
    pub method: Option<MethodReport>,
}

/// Why the agent sees an overflow.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum OverflowReport {
    /// The error message matched one of its patterns.
    ErrorMessage {
        /// The JS source of the first matching pattern (e.g. `/prompt is too long/i`).
        pattern: &'static str,
    },
    /// The provider's error id.
    ErrorId {
        /// omp 18's `errorId`, which carries the `ContextOverflow` flag.
        error_id: u64,
    },
    /// The usage reached the window.
    Usage {
        /// The input tokens compared (omp: input + cacheRead + cacheWrite; pi: input +
        /// cacheRead).
        input_tokens: JsNumber,
        /// The rule, as the agent's code writes it.
        rule: &'static str,
    },
}

/// omp 18's method choice: the first surely usable method of `methodOrder`, the methods
/// looked at on the way, and what contextree writes instead (an LLM summary, `soft`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MethodReport {
    /// Why the compaction runs: `threshold`, `overflow` or `incomplete`.
    pub reason: &'static str,
    /// The first surely usable method (`remote`, `snapcompact`, `handoff`, `shake`, `soft`);
    /// `null` when none surely is.
    pub agent_method: Option<&'static str>,
    /// The methods looked at, in `methodOrder`, up to the first surely usable one.
    pub order: Vec<MethodStep>,
    /// The method contextree itself uses: always `soft` (an LLM summary).
    pub contextree_writes: &'static str,
    /// One sentence: what omp 18 would run, and what contextree writes.
    pub text: String,
}

/// One method looked at: `usable` true, false (with `why`) or null (with the condition, `if`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MethodStep {
    /// The method's setting name (`remote`, `snapcompact`, `handoff`, `shake`, `soft`).
    pub method: &'static str,
    /// Whether omp 18 can use it; `null` when that depends on the model, which the file
    /// does not tell.
    pub usable: Option<bool>,
    /// With `usable: false`: why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<&'static str>,
    /// `if` in JSON, with `usable: null`: the condition it is usable under.
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
        assistant_id: c.assistant.and_then(|n| s.entry(n).id().map(str::to_owned)),
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
