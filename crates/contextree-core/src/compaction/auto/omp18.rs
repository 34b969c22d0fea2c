//! omp 18's `checkCompaction` after a run (omp-18.md §5.1–5.2, §6): it added
//! payload rejections, `length` recovery, a per-turn stale pass before the
//! gates, and a threshold on the larger of the usage and a stored estimate.

use std::collections::HashMap;
use std::ops::ControlFlow;

use serde_json::Value;

use super::check::{before, Assistant};
use super::method::MethodChoice;
use super::overflow::omp18_payload_rejection;
use super::report::{AutoCheck, AutoDecision, CheckInputs, Skip};
use crate::compaction::settings::CompactionSettings;
use crate::context::materialize::{agent_message, context_message, item_estimate, ReadBackError};
use crate::context::{Context, Item};
use crate::prune::{plan_prune_after, plan_stale_reachable, PruneConfig, StaleConfig, StalePlan, CACHE_WARM_SUFFIX_TOKENS};
use crate::session::{NodeId, Role, Session, Source};
use crate::tokens::estimate::omp18_message_tokens;

/// omp 18's `calculateContextTokens(usage)` on the stored object:
/// `contextTokens` when present, else `totalTokens || Σ components` minus the
/// orchestration's input + output + cacheRead, at least 0.
fn omp18_context_tokens(usage: Option<&Value>) -> f64 {
    let Some(u) = usage else { return 0.0 };
    let n = |v: Option<&Value>| v.and_then(Value::as_f64).unwrap_or(0.0);
    if let Some(c) = u.get("contextTokens").filter(|v| !v.is_null()) {
        return c.as_f64().unwrap_or(0.0).max(0.0);
    }
    let o = u.get("orchestration").filter(|v| v.is_object());
    let orchestration = o.map_or(0.0, |o| n(o.get("input")) + n(o.get("output")) + n(o.get("cacheRead")));
    let total = n(u.get("totalTokens"));
    let raw = if total != 0.0 && !total.is_nan() {
        total
    } else {
        n(u.get("input")) + n(u.get("output")) + n(u.get("cacheRead")) + n(u.get("cacheWrite"))
    };
    (raw - orchestration).max(0.0)
}

/// omp 18's `#estimateStoredContextTokens` without the system prompt and
/// tool definitions (not in the file): the context's messages counted with
/// `excludeEncryptedReasoning` (no thinking signatures, redacted thinking or
/// server-tool blocks), the results in `pruned` at their notices' counts.
fn omp18_stored_estimate(
    session: &Session,
    ctx: &Context,
    pruned: &HashMap<NodeId, u64>,
    source: &dyn Source,
) -> Result<u64, ReadBackError> {
    let mut total = 0;
    for &item in &ctx.items {
        let node = item.node();
        let is_entry = matches!(item, Item::Entry(_));
        let role = session.entry(node).message().filter(|_| is_entry).map(|m| m.role.clone());
        total += match (pruned.get(&node).filter(|_| is_entry), role) {
            (Some(&t), _) => t,
            // Without encrypted reasoning (and unchanged by the context) the index's count stands;
            // the bytes are looked at, not parsed.
            (None, Some(Role::Assistant)) if ctx.stripped_calls(item).is_none() && !has_encrypted_reasoning(session, node, source)? => {
                item_estimate(session, item, source)?
            }
            (None, Some(Role::Assistant)) => {
                // The message as the context emits it (omp 18 strips dangling tool calls).
                let mut msg = context_message(session, ctx, item, source)?;
                if let Some(blocks) = msg.get_mut("content").and_then(Value::as_array_mut) {
                    blocks.retain(|b| !matches!(b.get("type").and_then(Value::as_str), Some("redactedThinking" | "anthropicServerTool")));
                    for b in blocks.iter_mut().filter_map(Value::as_object_mut) {
                        b.remove("thinkingSignature");
                    }
                }
                msg.as_object().map_or(0, omp18_message_tokens)
            }
            (None, _) => item_estimate(session, item, source)?,
        };
    }
    Ok(total)
}

/// Whether an entry's line names a field `excludeEncryptedReasoning` leaves out.
fn has_encrypted_reasoning(session: &Session, node: NodeId, source: &dyn Source) -> Result<bool, ReadBackError> {
    let e = session.entry(node);
    let bytes = source.bytes(e.span).map_err(|x| ReadBackError::at(e.line, x))?;
    let has = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    // A JSON escape inside a key (`\u0074hinkingSignature`) is read back to be sure.
    Ok(has(b"hinkingSignature") || has(b"edactedThinking") || has(b"nthropicServerTool") || has(b"\\u"))
}

/// What omp 18 tries before compacting at all.
const PROMOTION: &str = "would try context promotion first if a larger model is configured (contextPromotion.enabled)";

/// omp 18's `checkCompaction` after a run (omp-18.md §5.1–5.2, §6), step by
/// step: payload rejection, overflow, `length` recovery, the per-turn stale
/// pass, the gates, overflow pruning, then the threshold on
/// `max(usage, stored estimate)` — pruning savings not subtracted.
#[allow(clippy::too_many_arguments)]
pub(super) fn omp18_check(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    a: &Assistant,
    compaction_ms: Option<f64>,
    inputs: &CheckInputs,
    source: &dyn Source,
    mut out: AutoCheck,
) -> Result<AutoCheck, ReadBackError> {
    out.notes.push("omp 18 also adds the system prompt and the tool definitions to the stored estimate; the file holds neither, so the estimate here counts the messages only".into());
    // 1. Aborted messages are skipped after a run.
    if a.meta.reply.stop_reason.as_deref() == Some("aborted") {
        return Ok(out.stop(
            Skip::Aborted,
            "the last assistant message was aborted: skipped after the run (the check before the next prompt does not skip it)",
        ));
    }
    let stop = a.meta.reply.stop_reason.as_deref();
    out.stale = before(a.timestamp, compaction_ms, false);
    // 2–4. A payload rejection, an overflow or a `length` stop ends the check here.
    let mut out = match omp18_recovery(session, ctx, settings, a, inputs, source, out)? {
        ControlFlow::Break(done) => return Ok(done),
        ControlFlow::Continue(out) => out,
    };
    // 5. The per-turn stale pass, before any gate.
    let stale = omp18_stale_pass(session, ctx, settings, inputs, source, &mut out)?;
    // 6. Gates.
    if !settings.enabled {
        return Ok(out.stop(Skip::Disabled, "compaction disabled"));
    }
    if settings.method_order.is_empty() {
        return Ok(out.stop(Skip::NoMethod, "compaction.methodOrder names no method"));
    }
    if stop == Some("error") {
        return Ok(out.stop(
            Skip::ErrorWithoutOverflow,
            "the last assistant message is an error that is not a context overflow: no threshold check",
        ));
    }
    // 7. Overflow pruning on what the stale pass left, then the threshold.
    omp18_threshold(session, ctx, settings, a, inputs, source, &stale, out)
}

/// Steps 2–4 of [`omp18_check`], the paths that recover from a failed reply: `Break` with the
/// result when one is taken, `Continue` to the stale pass otherwise.
fn omp18_recovery(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    a: &Assistant,
    inputs: &CheckInputs,
    source: &dyn Source,
    mut out: AutoCheck,
) -> Result<ControlFlow<AutoCheck, AutoCheck>, ReadBackError> {
    let stop = a.meta.reply.stop_reason.as_deref();
    let window = out.window;
    let fresh = out.same_model && !out.stale;
    // 2. Payload rejection (HTTP 413 bytes/media): with local headroom, a notice and no compaction.
    let payload = omp18_payload_rejection(a).filter(|_| fresh);
    let usage = a.meta.reply.usage.unwrap_or_default();
    let reported_input = usage.input + usage.cache_read + usage.cache_write;
    let usage_backed = window > 0 && reported_input > window as f64;
    let mut exclude_media = false;
    if let Some(why) = &payload {
        let stored = omp18_stored_estimate(session, ctx, &HashMap::new(), source)?;
        out.stored_estimate = Some(stored);
        let trusted = window > 0 && reported_input <= window as f64 && (stored as f64) < window as f64 * 0.9;
        exclude_media = !usage_backed;
        out.notes.push(format!(
            "payload rejection ({why}); the agent also withholds it when the error names a media limit, which is not modelled here"
        ));
        if trusted {
            return Ok(ControlFlow::Break(out.stop(
                Skip::PayloadRejected,
                format!("payload rejection ({why}) with local headroom (stored estimate {stored} < 90 % of {window}): the agent shows a notice, blocks automatic continuation and does not compact"),
            )));
        }
    }
    // 3. Overflow (or an untrusted payload rejection): promotion, then recovery compaction.
    if (fresh && out.overflow.is_some()) || payload.is_some() {
        out.context_promotion = true;
        let what = if out.overflow.is_some() { out.overflow_text() } else { payload.clone().unwrap_or_default() };
        let choice = MethodChoice::walk("overflow", settings, inputs, exclude_media);
        let available = settings.enabled && choice.available();
        out.method = Some(choice);
        if !available {
            let (skip, why) = if settings.enabled {
                (Skip::NoUsableMethod, "no method of methodOrder is usable for an overflow")
            } else {
                (Skip::Disabled, "compaction disabled")
            };
            return Ok(ControlFlow::Break(out.stop(skip, format!("context overflow ({what}); {PROMOTION}; otherwise nothing ({why})"))));
        }
        out.decision = AutoDecision::Overflow;
        out.will_retry = true;
        out.reason = format!("context overflow ({what}); {PROMOTION}; otherwise recovery compaction, reason overflow, then a retry");
        return Ok(ControlFlow::Break(out));
    }
    if out.overflow.is_some() {
        let why = if out.same_model { "it predates the latest compaction" } else { "it came from another model" };
        out.notes.push(format!("isContextOverflow is true but the overflow path is not taken: {why}"));
    }
    // 4. A `length` stop: the model spent its output budget; recovery like an overflow.
    if fresh && stop == Some("length") {
        if session.rules().keeps_length_stops_below_threshold() {
            out = match length_stop_below_threshold(session, settings, a, source, out)? {
                ControlFlow::Break(done) => return Ok(ControlFlow::Break(done)),
                ControlFlow::Continue(out) => out,
            };
        }
        out.context_promotion = true;
        if !settings.enabled || settings.method_order.is_empty() {
            return Ok(ControlFlow::Break(out.stop(
                Skip::NoMethod,
                format!("length stop (response incomplete); {PROMOTION}; otherwise nothing (compaction disabled or no method)"),
            )));
        }
        out.method = Some(MethodChoice::walk("incomplete", settings, inputs, false));
        out.decision = AutoDecision::Incomplete;
        out.will_retry = true;
        out.reason = format!("length stop (response incomplete); {PROMOTION}; otherwise recovery compaction, reason incomplete, then a retry (at most 3 in a row without output)");
        return Ok(ControlFlow::Break(out));
    }
    Ok(ControlFlow::Continue(out))
}

/// omp ≥ 18.3's `length` stop with the window not exhausted (usage at or below the threshold,
/// a known window): a delivered turn is kept, an empty one is retried without compacting
/// after promotion is tried (omp-18.3.md §2.2). `Continue` when the window is exhausted: the
/// recovery of omp 18 follows.
fn length_stop_below_threshold(
    session: &Session,
    settings: &CompactionSettings,
    a: &Assistant,
    source: &dyn Source,
    mut out: AutoCheck,
) -> Result<ControlFlow<AutoCheck, AutoCheck>, ReadBackError> {
    let window = out.window;
    let used = omp18_context_tokens(a.usage.as_ref());
    let threshold = crate::compaction::settings::omp18_threshold(window, settings);
    if window == 0 || used > threshold {
        return Ok(ControlFlow::Continue(out));
    }
    let below = format!("length stop (response incomplete) with context tokens {used} ≤ threshold {threshold} (window {window})");
    let message = agent_message(session, Item::Entry(a.node), source)?;
    if delivered(&message) {
        let done = out.stop(
            Skip::LengthKept,
            format!("{below}: the output cap truncated a delivered turn; the agent keeps it with a warning and does not compact"),
        );
        return Ok(ControlFlow::Break(done));
    }
    out.context_promotion = true;
    let mut done = if settings.enabled && !settings.method_order.is_empty() {
        let mut done = out.stop(
            Skip::LengthRetry,
            format!("{below} and nothing delivered: {PROMOTION}; otherwise the turn is dropped and retried without compacting (at most 3 in a row)"),
        );
        done.will_retry = true;
        done
    } else {
        out.stop(Skip::NoMethod, format!("{below}: {PROMOTION}; otherwise nothing (compaction disabled or no method)"))
    };
    done.notes.push(
        "how many length stops in a row came before is the agent's memory, not the file's: after 3 the agent gives up instead of retrying"
            .into(),
    );
    Ok(ControlFlow::Break(done))
}

/// `assistantTurnDelivered`: a tool call, an image, or text that is not blank.
fn delivered(message: &Value) -> bool {
    message.get("content").and_then(Value::as_array).is_some_and(|blocks| {
        blocks.iter().any(|b| match b.get("type").and_then(Value::as_str) {
            Some("toolCall" | "image") => true,
            Some("text") => b.get("text").and_then(Value::as_str).is_some_and(|t| !t.trim().is_empty()),
            _ => false,
        })
    })
}

/// Step 5 of [`omp18_check`]: the per-turn stale pass, which the agent runs (rewriting the
/// file) before any gate, whatever the gates then decide.
fn omp18_stale_pass(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    inputs: &CheckInputs,
    source: &dyn Source,
    out: &mut AutoCheck,
) -> Result<StalePlan, ReadBackError> {
    let now = inputs.now_ms.or_else(|| last_message_ms(session, ctx, source).ok().flatten()).unwrap_or(0.0);
    let stale_config = StaleConfig {
        supersede_reads: settings.supersede_reads,
        drop_useless: settings.drop_useless,
        ..StaleConfig::agent(inputs.prefix_bound, now)
    };
    let stale = plan_stale_reachable(session, ctx, &stale_config, source)?;
    out.stale_pruned_count = stale.pruned_count();
    out.stale_savings = stale.tokens_saved();
    if inputs.now_ms.is_none() {
        out.notes.push("no current time given: the stale pass runs as right after the reply (warm cache)".into());
    }
    if out.stale_pruned_count > 0 {
        out.notes.push(format!("the per-turn stale pass prunes {} tool results (superseded reads, useless results; rewriting the file) before any gate, saving {}", out.stale_pruned_count, out.stale_savings));
    }
    Ok(stale)
}

/// Step 7 of [`omp18_check`]: overflow pruning on what the stale pass left, then the threshold
/// on the larger of the usage and the stored estimate.
#[allow(clippy::too_many_arguments)]
fn omp18_threshold(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    a: &Assistant,
    inputs: &CheckInputs,
    source: &dyn Source,
    stale: &StalePlan,
    mut out: AutoCheck,
) -> Result<AutoCheck, ReadBackError> {
    let mut pruned = stale.after();
    let config = PruneConfig {
        prune_useless: settings.drop_useless,
        cache_warm_suffix_tokens: Some(if inputs.prefix_bound { 0 } else { CACHE_WARM_SUFFIX_TOKENS }),
        ..PruneConfig::agent(session.rules())
    };
    let prune = plan_prune_after(session, ctx, &config, &pruned);
    out.pruning_savings = prune.tokens_saved();
    out.pruned_count = prune.pruned_count();
    for r in prune.pruned() {
        pruned.insert(r.node, crate::tokens::estimate::utf8_fragment_tokens(r.notice().len() as u64));
    }
    let usage_tokens = if out.stale { 0.0 } else { omp18_context_tokens(a.usage.as_ref()) };
    out.usage_tokens = Some(usage_tokens);
    let stored = omp18_stored_estimate(session, ctx, &pruned, source)?;
    out.stored_estimate = Some(stored);
    let tokens = usage_tokens.max(stored as f64);
    let what = format!(
        "max(context tokens {usage_tokens}{}, stored estimate {stored}) =",
        if out.stale { " (the reply predates the latest compaction)" } else { "" }
    );
    let mut out = out.threshold_test(tokens, settings, &what);
    if out.pruned_count > 0 {
        out.notes.push(format!(
            "omp prunes {} tool outputs (rewriting the file) before this test, whether or not it compacts; the savings are not subtracted",
            out.pruned_count
        ));
    }
    if out.decision == AutoDecision::Threshold {
        out.context_promotion = true;
        let choice = MethodChoice::walk("threshold", settings, inputs, false);
        out.reason = format!("{}; {PROMOTION}; {}", out.reason, choice.describe());
        out.method = Some(choice);
    }
    Ok(out)
}

/// The last `message` entry's message timestamp on the path.
fn last_message_ms(session: &Session, ctx: &Context, source: &dyn Source) -> Result<Option<f64>, ReadBackError> {
    let Some(&last) = ctx.path.iter().rev().find(|&&n| session.entry(n).message().is_some()) else { return Ok(None) };
    Ok(agent_message(session, Item::Entry(last), source)?.get("timestamp").and_then(Value::as_f64))
}
