//! `isContextOverflow` of each agent's pi-ai: whether a reply says the
//! context did not fit, by its error message, its `errorId` flags or its
//! usage. Both the check and the reports (`overflow_pattern`) need the
//! answer, and each agent version draws the line differently.

use super::check::Assistant;
use super::patterns::{
    omp18_evidence, omp18_patterns, omp18_payload_patterns, omp_patterns, pi16_cerebras, pi16_patterns, pi_non_overflow, pi_patterns,
    Patterns,
};
use super::report::Overflow;
use crate::session::{MessageMeta, Usage};
use crate::Dialect;

/// The error-message half of pi 1.6.0's `isContextOverflow` (`provider`: the
/// message's, for the Cerebras pattern).
pub fn pi16_overflow_pattern(error_message: &str, provider: Option<&str>) -> Option<&'static str> {
    if error_message.is_empty() {
        return None;
    }
    let text = error_message.to_ascii_lowercase();
    if pi_non_overflow().iter().any(|(_, r)| r.is_match(&text)) {
        return None;
    }
    let first = |ps: &'static Patterns| ps.iter().find(|(_, r)| r.is_match(&text)).map(|(js, _)| *js);
    first(pi16_patterns()).or_else(|| first(pi16_cerebras()).filter(|_| provider == Some("cerebras")))
}
/// omp 18 pi-ai `errorId` flags.
const FLAG_CONTEXT_OVERFLOW: u64 = 0x0080_0000;
const FLAG_PAYLOAD_REJECTED: u64 = 0x8000_0000;

/// omp 18's `matchesOverflowText`: the JS source of the first matching pattern.
pub fn omp18_overflow_pattern(error_message: &str) -> Option<&'static str> {
    let text = error_message.to_ascii_lowercase();
    omp18_patterns().iter().find(|(_, r)| r.is_match(&text)).map(|(js, _)| *js)
}

/// omp 18's `matchesPayloadRejectionText`: a 413-style pattern without
/// token-context wording.
pub fn omp18_payload_pattern(error_message: &str) -> Option<&'static str> {
    let text = error_message.to_ascii_lowercase();
    let hit = omp18_payload_patterns().iter().find(|(_, r)| r.is_match(&text)).map(|(js, _)| *js)?;
    (!omp18_evidence().iter().any(|(_, r)| r.is_match(&text))).then_some(hit)
}

/// omp 18's `AIError.isContextOverflow(A, window)`: the `errorId` flag, a
/// usage above the window (input + cacheRead + cacheWrite, any stop
/// reason), or an `error` whose message matches.
pub fn omp18_overflow(
    stop_reason: Option<&str>,
    error_message: Option<&str>,
    error_id: Option<u64>,
    usage: Option<Usage>,
    window: u64,
) -> Option<Overflow> {
    if let Some(id) = error_id.filter(|id| id & FLAG_CONTEXT_OVERFLOW != 0) {
        return Some(Overflow::ErrorId { error_id: id });
    }
    if let Some(u) = usage.filter(|_| window > 0) {
        let input = u.input + u.cache_read + u.cache_write;
        if input > window as f64 {
            return Some(Overflow::Usage { input_tokens: input, rule: "input + cacheRead + cacheWrite > contextWindow" });
        }
    }
    let message = error_message.filter(|m| !m.is_empty() && stop_reason == Some("error"))?;
    omp18_overflow_pattern(message).map(|pattern| Overflow::ErrorMessage { pattern })
}

/// omp 18's `AIError.isPayloadRejection(A)`.
pub(super) fn omp18_payload_rejection(a: &Assistant) -> Option<String> {
    if let Some(id) = a.error_id.filter(|id| id & FLAG_PAYLOAD_REJECTED != 0) {
        return Some(format!("errorId {id:#x} has the PayloadRejected flag"));
    }
    let message = a.error_message.as_deref().filter(|m| !m.is_empty() && a.meta.reply.stop_reason.as_deref() == Some("error"))?;
    omp18_payload_pattern(message).map(|p| format!("error message matches {p}"))
}

/// The error-message half of `isContextOverflow`: the JS source of the first
/// matching pattern, or None (pi: also None for throttling / rate limits).
pub fn overflow_pattern(dialect: Dialect, error_message: &str) -> Option<&'static str> {
    if error_message.is_empty() {
        return None;
    }
    let text = error_message.to_ascii_lowercase();
    let first = |ps: &'static Patterns| ps.iter().find(|(_, r)| r.is_match(&text)).map(|(js, _)| *js);
    match dialect {
        Dialect::Pi if first(pi_non_overflow()).is_some() => None,
        Dialect::Pi => first(pi_patterns()),
        Dialect::Omp => first(omp_patterns()),
    }
}

/// `isContextOverflow(A, window)` of the dialect's pi-ai.
pub fn context_overflow(
    dialect: Dialect,
    stop_reason: Option<&str>,
    error_message: Option<&str>,
    usage: Option<Usage>,
    window: u64,
) -> Option<Overflow> {
    if stop_reason == Some("error") {
        if let Some(pattern) = error_message.and_then(|m| overflow_pattern(dialect, m)) {
            return Some(Overflow::ErrorMessage { pattern });
        }
    }
    // `contextWindow &&`: a zero window disables the usage rules. A missing
    // usage would throw in JS; the agents always write one.
    let u = usage.filter(|_| window > 0)?;
    let w = window as f64;
    match dialect {
        Dialect::Omp => {
            let input = u.input + u.cache_read + u.cache_write;
            (input > w).then_some(Overflow::Usage { input_tokens: input, rule: "input + cacheRead + cacheWrite > contextWindow" })
        }
        Dialect::Pi => {
            let input = u.input + u.cache_read;
            match stop_reason {
                Some("stop") if input > w => {
                    Some(Overflow::Usage { input_tokens: input, rule: "stopReason stop and input + cacheRead > contextWindow" })
                }
                Some("length") if u.output == 0.0 && input >= w * 0.99 => Some(Overflow::Usage {
                    input_tokens: input,
                    rule: "stopReason length, output 0 and input + cacheRead >= 99% of contextWindow",
                }),
                _ => None,
            }
        }
    }
}

/// pi 1.6's `isContextOverflow(A, window)`: its own pattern list (and the
/// Cerebras no-body pattern), the usage rules of 0.73.
pub(super) fn pi16_overflow(meta: &MessageMeta, error_message: Option<&str>, window: u64) -> Option<Overflow> {
    let stop = meta.reply.stop_reason.as_deref();
    let provider = meta.reply.model.as_deref().map(|(p, _)| &**p);
    let by_text = error_message
        .filter(|_| stop == Some("error"))
        .and_then(|m| pi16_overflow_pattern(m, provider))
        .map(|pattern| Overflow::ErrorMessage { pattern });
    by_text.or_else(|| context_overflow(Dialect::Pi, stop, None, meta.reply.usage, window))
}
