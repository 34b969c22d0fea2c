//! pi's `_checkCompaction` after a run (0.73.1, and 1.6's additions: an
//! overflow of a successful reply, recoverable `length` stops, a projected
//! threshold input), with its in-memory one-recovery flag replayed from the path.

use super::check::{before, read_assistant, Assistant};
use super::overflow::{context_overflow, pi16_overflow};
use super::report::{AutoCheck, AutoDecision, CheckInputs, Skip};
use crate::compaction::settings::CompactionSettings;
use crate::context::materialize::{message_tokens, ReadBackError};
use crate::context::usage::{estimate_context_tokens, estimate_projected_context_tokens};
use crate::context::{entry_estimate, Context, Item};
use crate::session::{MessageMeta, NodeId, Role, Session, Source};
use crate::Dialect;

/// pi 1.6's `isRecoverableLength(A, model.maxTokens)`: a `length` stop whose
/// output stayed below the model's output limit (None: the limit is unknown).
fn pi16_recoverable_length(meta: &MessageMeta, max_output: Option<u64>) -> Option<bool> {
    if meta.reply.stop_reason.as_deref() != Some("length") {
        return Some(false);
    }
    let output = meta.reply.usage.map_or(0.0, |u| u.output);
    max_output.map(|m| m > 0 && output < m as f64)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn pi_check(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    a: &Assistant,
    compaction_ms: Option<f64>,
    inputs: &CheckInputs,
    source: &dyn Source,
    out: AutoCheck,
) -> Result<AutoCheck, ReadBackError> {
    // 1. Disabled: no overflow path either.
    if !settings.enabled {
        return Ok(out.stop(Skip::Disabled, "compaction disabled (pi: the overflow path too)"));
    }
    // 2. Aborted.
    if a.meta.reply.stop_reason.as_deref() == Some("aborted") {
        return Ok(out.stop(
            Skip::Aborted,
            "the last assistant message was aborted: skipped after the run (the check before the next prompt does not skip it)",
        ));
    }
    // 3. Stale.
    let mut out = out;
    out.stale = before(a.timestamp, compaction_ms, true);
    if out.stale {
        return Ok(out.stop(Skip::Stale, "the last assistant message is not newer than the latest compaction: stale, no check"));
    }
    // 4. Overflow; pi 1.6 also a recoverable `length` stop, and an overflow of a successful
    //    (`stop`) reply compacts without a retry.
    let pi16 = session.rules().recovers_length_stops();
    let length = if pi16 && out.same_model { pi16_recoverable_length(a.meta, inputs.max_output_tokens) } else { Some(false) };
    if length.is_none() {
        out.notes.push("a `length` stop: pi 1.6 compacts and retries when the output stayed below the model's output limit (maxTokens), which the file does not hold; not assumed here".into());
    }
    let recoverable_length = length == Some(true);
    if out.same_model && (out.overflow.is_some() || recoverable_length) {
        let what = if out.overflow.is_some() { out.overflow_text() } else { "length stop below the model's output limit".to_owned() };
        if pi16 && a.meta.reply.stop_reason.as_deref() == Some("stop") {
            out.decision = AutoDecision::Overflow;
            out.reason = format!("context overflow of a successful reply ({what}): auto-compaction, reason overflow, willRetry false (a completed reply cannot be continued)");
            return Ok(out);
        }
        if recovery_attempted(session, ctx, a, out.window, inputs.max_output_tokens, source)? {
            out.notes.push("inferred from the path: an overflow recovery already ran since the last user message or successful reply (pi keeps this flag in memory)".into());
            return Ok(out.stop(
                Skip::RecoveryAlreadyAttempted,
                format!("context overflow ({what}) again: \"Context overflow recovery failed after one compact-and-retry attempt.\", no compaction"),
            ));
        }
        out.decision = AutoDecision::Overflow;
        out.will_retry = true;
        out.reason = format!("context overflow ({what}): auto-compaction, reason overflow, willRetry true (one recovery per user prompt)");
        if recoverable_length && out.overflow.is_none() {
            out.reason = format!("{what} (recoverable): auto-compaction, reason overflow, willRetry true (one recovery per user prompt)");
        }
        return Ok(out);
    }
    if out.overflow.is_some() {
        out.notes.push("isContextOverflow is true but the message came from another model".into());
    }
    // 5. Threshold.
    if session.rules().thresholds_projected_context() {
        return pi16_threshold(session, ctx, settings, a, compaction_ms, source, out);
    }
    if a.meta.reply.stop_reason.as_deref() == Some("error") {
        out.notes
            .push("pi retries retryable errors (overloaded, rate limit, 5xx, network...) before this check when retry is enabled".into());
        let Some((tokens, usage_node)) = pi_estimate(session, &ctx.items[..]) else {
            return Ok(out.stop(Skip::NoUsage, "error message and no usable usage in the context: no check"));
        };
        let usage_ts = read_assistant(session, usage_node, source)?.timestamp;
        if compaction_ms.is_some() && before(usage_ts, compaction_ms, true) {
            return Ok(out.stop(Skip::StaleUsage, "error message and the last usable usage predates the latest compaction: no check"));
        }
        out.usage_tokens = Some(tokens);
        return Ok(out.threshold_test(tokens, settings, "estimated context tokens (error message)"));
    }
    let usage = a.meta.reply.usage.map_or(0.0, |u| u.context_tokens());
    out.usage_tokens = Some(usage);
    Ok(out.threshold_test(usage, settings, "context tokens"))
}

/// pi ≥ 0.87's threshold input (pi-1.6.md §4.1): a context with a
/// `context_edit` is measured by `estimateProjectedContextTokens`; an error
/// or an all-zero usage by `estimateContextTokens` of the context (usage
/// older than the latest compaction stops the check; no usage at all is the
/// plain estimate); otherwise A's usage.
fn pi16_threshold(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    a: &Assistant,
    compaction_ms: Option<f64>,
    source: &dyn Source,
    mut out: AutoCheck,
) -> Result<AutoCheck, ReadBackError> {
    let has_edits = ctx.projected.iter().any(|p| &*session.entry(p.node).entry_type == "context_edit");
    let direct = a.meta.reply.usage.map_or(0.0, |u| u.context_tokens());
    let error = a.meta.reply.stop_reason.as_deref() == Some("error");
    if !has_edits && !error && direct != 0.0 {
        out.usage_tokens = Some(direct);
        return Ok(out.threshold_test(direct, settings, "context tokens"));
    }
    let tokens = message_tokens(session, ctx, source)?;
    if has_edits {
        let est = estimate_projected_context_tokens(session, ctx, &tokens, source)?.tokens as f64;
        out.usage_tokens = Some(est);
        return Ok(out.threshold_test(est, settings, "projected context estimate (the context has context edits)"));
    }
    if error {
        out.notes
            .push("pi retries retryable errors (overloaded, rate limit, 5xx, network...) before this check when retry is enabled".into());
    }
    let est = estimate_context_tokens(session, ctx, &tokens);
    if let Some(i) = est.last_usage_index {
        let usage_ts = read_assistant(session, ctx.items[i].node(), source)?.timestamp;
        if compaction_ms.is_some() && before(usage_ts, compaction_ms, true) {
            return Ok(out.stop(Skip::StaleUsage, "the last usable usage predates the latest compaction: no check"));
        }
    }
    let what = if error { "estimated context tokens (error message)" } else { "estimated context tokens (usage all zero)" };
    out.usage_tokens = Some(est.tokens as f64);
    Ok(out.threshold_test(est.tokens as f64, settings, what))
}

/// pi's `estimateContextTokens(messages)`: the tokens and the message whose
/// usage was used; None when no message has usable usage.
fn pi_estimate(session: &Session, items: &[Item]) -> Option<(f64, NodeId)> {
    let usage_of = |item: &Item| match item {
        Item::Entry(n) | Item::Replaced { node: n, .. } => session.entry(*n).message().and_then(|m| m.usable_usage_under(session.rules())),
        Item::CompactionSummary(_) | Item::SystemCheckpoint(_) => None,
    };
    let last = items.iter().rposition(|i| usage_of(i).is_some())?;
    let trailing: u64 = items[last + 1..].iter().map(|i| entry_estimate(session.entry(i.node()), session.rules())).sum();
    Some((usage_of(&items[last]).map_or(0.0, |u| u.context_tokens()) + trailing as f64, items[last].node()))
}

/// pi's `_overflowRecoveryAttempted`, replayed over the path up to A: set by
/// an earlier overflow that took the recovery path, cleared by a user
/// message and by a non-error assistant message.
///
/// pi 1.6: a recoverable `length` stop takes the recovery path too, a `length`
/// reply does not clear the flag, and an overflow of a `stop` reply compacts
/// without setting it.
fn recovery_attempted(
    session: &Session,
    ctx: &Context,
    a: &Assistant,
    window: u64,
    max_output: Option<u64>,
    source: &dyn Source,
) -> Result<bool, ReadBackError> {
    let pi16 = session.rules().recovers_length_stops();
    let mut attempted = false;
    let mut compaction_ms = None;
    for &n in &ctx.path {
        if n == a.node {
            break;
        }
        let e = session.entry(n);
        if &*e.entry_type == "compaction" {
            compaction_ms = Some(e.timestamp_ms.get().unwrap_or(f64::NAN));
            continue;
        }
        let Some(m) = e.message() else { continue };
        match m.role {
            Role::User => attempted = false,
            Role::Assistant if pi16 && !matches!(m.reply.stop_reason.as_deref(), Some("error" | "length")) => attempted = false,
            Role::Assistant if !pi16 && m.reply.stop_reason.as_deref() != Some("error") => attempted = false,
            Role::Assistant => {
                let prior = read_assistant(session, n, source)?;
                let same = m.reply.model == a.meta.reply.model;
                let overflow = if pi16 {
                    pi16_overflow(m, prior.error_message.as_deref(), window).is_some()
                        || pi16_recoverable_length(m, max_output) == Some(true)
                } else {
                    context_overflow(Dialect::Pi, m.reply.stop_reason.as_deref(), prior.error_message.as_deref(), m.reply.usage, window)
                        .is_some()
                };
                if same && overflow && !before(prior.timestamp, compaction_ms, true) {
                    attempted = true;
                }
            }
            _ => {}
        }
    }
    Ok(attempted)
}
