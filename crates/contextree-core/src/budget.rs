//! The budget bar's numbers for a leaf: the context window (docs/decisions.md D19), the agent's own
//! estimate of the context's size, the reserve, the dialect's auto-compaction threshold, the
//! keep-recent marker, and whether the agent would auto-compact now.

use crate::compaction::settings::{effective_reserve_tokens, omp18_budget_reserve};
use crate::compaction::{auto_check, should_compact_under, threshold_tokens_under, AutoDecision, CompactionSettings};
use crate::context::build::Context;
use crate::context::materialize::ReadBackError;
use crate::context::usage::ContextEstimate;
use crate::models::{current_model, resolve_window, WindowSource};
use crate::session::{Session, Source};
use crate::Dialect;

/// How full a leaf's context is, against the window and the compaction rules.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    /// The context window used.
    pub window: u64,
    /// Where it came from.
    pub window_source: WindowSource,
    /// The model on the path (`provider/id`), if any.
    pub model: Option<String>,
    /// The agent's `estimateContextTokens`.
    pub used: u64,
    /// The agents show the size as unknown (a compaction with no usage after it).
    pub unknown_after_compaction: bool,
    /// Room kept free for the reply: pi's `reserveTokens`, omp's effective reserve.
    pub reserve: u64,
    /// The largest size that does not trigger compaction (`None`: the rule never fires).
    pub threshold: Option<f64>,
    /// `keepRecentTokens` as configured.
    pub keep_recent: u64,
    /// Where the kept-recent region would start on the bar: `used − keepRecentTokens`, at least 0.
    pub keep_recent_from: u64,
    /// `shouldCompact(used, window)`: over the threshold.
    pub over_threshold: bool,
    /// The post-run automatic check would start a compaction (`threshold`, `overflow`, omp 18 `incomplete`).
    pub would_compact: bool,
    /// `none`, `threshold`, `overflow` or `incomplete`.
    pub decision: &'static str,
    /// The check's sentence for people.
    pub reason: String,
    /// The agent's own number misleads (docs/decisions.md D24): what the estimate says instead, and
    /// why. `used` stays the agent's number.
    pub misleading: Option<Misleading>,
}

/// An agent's estimate that is plainly wrong, shown beside the agent's own (D24).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misleading {
    /// The estimate without the agent's mistake.
    pub estimate: u64,
    /// Why the agent's number is off.
    pub note: String,
}

/// pi ≤ 0.85 takes an assistant's usage as the context size even when every field of it is 0
/// (fixed in 0.80 for pi 1.6's rules): the estimate then ignores that record, as pi 1.6 does.
fn zero_usage_mistake(session: &Session, ctx: &Context, estimate: &ContextEstimate, tokens: &[u64]) -> Option<Misleading> {
    if session.dialect() != Dialect::Pi || session.rules().ignores_zero_usage() {
        return None;
    }
    let i = estimate.last_usage_index?;
    let usage_of = |k: usize| session.entry(ctx.items[k].node()).message().and_then(|m| m.usable_usage());
    if usage_of(i)?.context_tokens() > 0.0 {
        return None;
    }
    let real = (0..ctx.items.len()).rev().find(|&k| usage_of(k).is_some_and(|u| u.context_tokens() > 0.0));
    let fixed = match real {
        Some(k) => usage_of(k).map_or(0.0, |u| u.context_tokens()).max(0.0) as u64 + tokens[k + 1..].iter().sum::<u64>(),
        None => tokens.iter().sum(),
    };
    Some(Misleading {
        estimate: fixed,
        note: format!(
            "pi 0.73 takes the last reply's usage as the context size, and that reply recorded 0 tokens (all usage fields zero), so the agent counts {}; without that record the estimate is {} (pi ≥ 0.80 ignores such records)",
            estimate.tokens, fixed
        ),
    })
}

/// The budget of `ctx`, whose size `estimate` is (`message_tokens`: the estimate of each
/// message); `window` overrides the model table.
pub fn budget(
    session: &Session,
    ctx: &Context,
    estimate: &ContextEstimate,
    message_tokens: &[u64],
    settings: &CompactionSettings,
    window: Option<u64>,
    source: &dyn Source,
) -> Result<Budget, ReadBackError> {
    let dialect = session.dialect();
    let settings = &settings.for_session(session);
    let model = current_model(&ctx.model, dialect);
    let (window, window_source) = resolve_window(window, model.as_deref());
    let check = auto_check(session, ctx, settings, window, None, source)?;
    let used = estimate.tokens;
    Ok(Budget {
        window,
        window_source,
        model,
        used,
        unknown_after_compaction: estimate.unknown_after_compaction,
        reserve: match dialect {
            Dialect::Pi => settings.reserve_tokens,
            Dialect::Omp if session.rules().floors_threshold_with_estimate() => omp18_budget_reserve(window, settings),
            Dialect::Omp => effective_reserve_tokens(window, settings),
        },
        threshold: threshold_tokens_under(window, settings, session.rules()),
        keep_recent: settings.keep_recent_tokens,
        keep_recent_from: used.saturating_sub(settings.keep_recent_tokens),
        over_threshold: should_compact_under(used as f64, window, settings, session.rules()),
        would_compact: check.decision != AutoDecision::None,
        decision: check.decision.name(),
        reason: check.reason,
        misleading: zero_usage_mistake(session, ctx, estimate, message_tokens),
    })
}
