//! The budget bar's numbers for a leaf: the context window (decisions.md D19), the agent's own
//! estimate of the context's size, the reserve, the dialect's auto-compaction threshold, the
//! keep-recent marker, and whether the agent would auto-compact now.

use crate::compaction::settings::effective_reserve_tokens;
use crate::compaction::{auto_check, should_compact, threshold_tokens, AutoDecision, CompactionSettings};
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
    /// The post-run automatic check would start a compaction (`threshold` or `overflow`).
    pub would_compact: bool,
    /// `none`, `threshold` or `overflow`.
    pub decision: &'static str,
    /// The check's sentence for people.
    pub reason: String,
}

/// The budget of `ctx`, whose size `estimate` is; `window` overrides the model table.
pub fn budget(
    session: &Session,
    ctx: &Context,
    estimate: &ContextEstimate,
    settings: &CompactionSettings,
    window: Option<u64>,
    source: &dyn Source,
) -> Result<Budget, ReadBackError> {
    let dialect = session.dialect();
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
            Dialect::Omp => effective_reserve_tokens(window, settings),
        },
        threshold: threshold_tokens(window, settings, dialect),
        keep_recent: settings.keep_recent_tokens,
        keep_recent_from: used.saturating_sub(settings.keep_recent_tokens),
        over_threshold: should_compact(used as f64, window, settings, dialect),
        would_compact: check.decision != AutoDecision::None,
        decision: check.decision.name(),
        reason: check.reason,
    })
}
