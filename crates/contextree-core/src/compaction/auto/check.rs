//! The entry point: finds the assistant message the agent would check, reads
//! the facts the index does not keep, and hands over to the rule set's own
//! order of steps (`omp.rs`, `omp18.rs`, `pi.rs`).

use serde_json::Value;

use super::omp::omp_check;
use super::omp18::omp18_check;
use super::overflow::{context_overflow, omp18_overflow, pi16_overflow};
use super::pi::pi_check;
use super::report::{AutoCheck, AutoDecision, CheckInputs, Overflow, Skip};
use crate::compaction::settings::{recorded_threshold, threshold_tokens_under, CompactionSettings};
use crate::context::materialize::{agent_message, ReadBackError};
use crate::context::{Context, Item};
use crate::session::{MessageMeta, NodeId, Role, Session, Source};
use crate::Dialect;

/// The facts of one assistant message the check reads (some read back).
pub(super) struct Assistant<'a> {
    pub(super) node: NodeId,
    pub(super) meta: &'a MessageMeta,
    pub(super) error_message: Option<String>,
    pub(super) timestamp: Option<f64>,
    /// omp 18: `errorId` (the error classification flags).
    pub(super) error_id: Option<u64>,
    /// The stored `usage` object.
    pub(super) usage: Option<Value>,
}

pub(super) fn read_assistant<'a>(session: &'a Session, node: NodeId, source: &dyn Source) -> Result<Assistant<'a>, ReadBackError> {
    let meta = session.entry(node).message().expect("an assistant message entry");
    let value = agent_message(session, Item::Entry(node), source)?;
    // `errorMessage` is tested for truthiness, then as a string.
    let error_message = match value.get("errorMessage") {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    let timestamp = value.get("timestamp").and_then(Value::as_f64);
    let error_id = value.get("errorId").and_then(Value::as_f64).filter(|n| n.fract() == 0.0 && *n >= 0.0).map(|n| n as u64);
    let usage = value.get("usage").cloned();
    Ok(Assistant { node, meta, error_message, timestamp, error_id, usage })
}

/// The automatic check for the leaf of `ctx` (post-run variant).
///
/// `current_model` is `(provider, modelId)` of the model the agent runs now;
/// None assumes A's own model. `source` gives the entry bytes (A's
/// `errorMessage` and `timestamp` are not in the index).
pub fn auto_check(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    window: u64,
    current_model: Option<(&str, &str)>,
    source: &dyn Source,
) -> Result<AutoCheck, ReadBackError> {
    auto_check_with(session, ctx, settings, window, current_model, &CheckInputs::default(), source)
}

/// [`auto_check`] with the facts about the current model and time that the
/// file does not hold (they matter under omp 18: the stale pass's clock and
/// prefix binding, the method's model capabilities).
pub fn auto_check_with(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    window: u64,
    current_model: Option<(&str, &str)>,
    inputs: &CheckInputs,
    source: &dyn Source,
) -> Result<AutoCheck, ReadBackError> {
    let dialect = session.dialect();
    let rules = session.rules();
    let settings = &settings.for_session(session);
    let mut out = AutoCheck {
        dialect,
        assistant: None,
        stop_reason: None,
        decision: AutoDecision::None,
        skipped: None,
        reason: String::new(),
        same_model: false,
        model_assumed: current_model.is_none(),
        stale: false,
        overflow: None,
        usage_tokens: None,
        pruning_savings: 0,
        pruned_count: 0,
        context_tokens: None,
        threshold: threshold_tokens_under(window, settings, rules),
        window,
        will_retry: false,
        context_promotion: false,
        notes: Vec::new(),
        rules,
        stale_pruned_count: 0,
        stale_savings: 0,
        stored_estimate: None,
        method: None,
    };
    if let Some((percent, tokens)) = recorded_threshold(session) {
        let show = |v: Option<f64>| v.map_or_else(|| "unset".to_owned(), |v| v.to_string());
        out.notes.push(format!(
            "the threshold is the one recorded in the file's session_init entry (a subagent's override: thresholdPercent {}, thresholdTokens {}), not the settings files'",
            show(percent),
            show(tokens)
        ));
    }
    let is_assistant = |i: &Item| matches!(i, Item::Entry(n) if session.entry(*n).message().is_some_and(|m| m.role == Role::Assistant));
    // omp 18 rebuilds its context without error and aborted replies (omp-18.md §2.4), but checks
    // the reply the run just produced: the last assistant entry on the path.
    let a_node = if rules.floors_threshold_with_estimate() {
        ctx.path.iter().rev().copied().find(|&n| is_assistant(&Item::Entry(n)))
    } else {
        ctx.items.iter().rposition(is_assistant).map(|i| ctx.items[i].node())
    };
    let Some(a_node) = a_node else {
        return Ok(out.stop(Skip::NoAssistant, "no assistant message in the context: the agent runs no check"));
    };
    let a = read_assistant(session, a_node, source)?;
    out.assistant = Some(a.node);
    out.stop_reason = a.meta.reply.stop_reason.as_deref().map(str::to_owned);
    let a_model = a.meta.reply.model.as_deref().map(|(p, m)| (&**p, &**m));
    out.same_model = match current_model {
        Some(cur) => a_model == Some(cur),
        None => true,
    };
    if current_model.is_none() {
        out.notes.push("no current model given: assumed to be the assistant message's own model".into());
    }
    let compaction_ms = latest_compaction(session, ctx).map(|c| session.entry(c).timestamp_ms.get().unwrap_or(f64::NAN));
    if rules.floors_threshold_with_estimate() {
        out.overflow =
            omp18_overflow(a.meta.reply.stop_reason.as_deref(), a.error_message.as_deref(), a.error_id, a.meta.reply.usage, window);
        return omp18_check(session, ctx, settings, &a, compaction_ms, inputs, source, out);
    }
    out.overflow = context_overflow(dialect, a.meta.reply.stop_reason.as_deref(), a.error_message.as_deref(), a.meta.reply.usage, window);
    if rules.recovers_length_stops() {
        out.overflow = pi16_overflow(a.meta, a.error_message.as_deref(), window);
        // `assistantUsageMatchesProjection`: a context edit after the reply makes its usage
        // describe another context, so only an error message still counts.
        let after = ctx.path.iter().position(|&n| n == a.node).map_or(&[][..], |i| &ctx.path[i + 1..]);
        if after.iter().any(|&n| &*session.entry(n).entry_type == "context_edit") && matches!(out.overflow, Some(Overflow::Usage { .. })) {
            out.overflow = None;
            out.notes.push(
                "the reply's usage exceeds the window, but a context edit follows it: pi 1.6 does not take its usage as an overflow".into(),
            );
        }
    }
    match dialect {
        Dialect::Omp => omp_check(session, ctx, settings, &a, compaction_ms, out),
        Dialect::Pi => pi_check(session, ctx, settings, &a, compaction_ms, inputs, source, out),
    }
}

/// `getLatestCompactionEntry(getBranch())`.
fn latest_compaction(session: &Session, ctx: &Context) -> Option<NodeId> {
    ctx.path.iter().rev().copied().find(|&n| &*session.entry(n).entry_type == "compaction")
}

/// JS `a < b` / `a <= b` with undefined / NaN operands false.
pub(super) fn before(ts: Option<f64>, compaction_ms: Option<f64>, or_equal: bool) -> bool {
    match (ts, compaction_ms) {
        (Some(t), Some(c)) => t < c || (or_equal && t == c),
        _ => false,
    }
}
