//! omp 13.19's `#checkCompaction` after a run: the overflow path, the gates,
//! then pruning and the threshold with the pruning savings subtracted.

use super::check::{before, Assistant};
use super::report::{AutoCheck, AutoDecision, Skip};
use crate::compaction::settings::{CompactionSettings, Strategy};
use crate::context::materialize::ReadBackError;
use crate::context::Context;
use crate::prune::{plan_prune_in, PruneConfig};
use crate::session::Session;

pub(super) fn omp_check(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    a: &Assistant,
    compaction_ms: Option<f64>,
    mut out: AutoCheck,
) -> Result<AutoCheck, ReadBackError> {
    const PROMOTION: &str = "would try context promotion first if a larger model is configured (contextPromotion.enabled, default true)";
    // 1. Aborted messages are skipped after a run.
    if a.meta.reply.stop_reason.as_deref() == Some("aborted") {
        return Ok(out.stop(
            Skip::Aborted,
            "the last assistant message was aborted: skipped after the run (the check before the next prompt does not skip it)",
        ));
    }
    // 2–3. Overflow path.
    out.stale = before(a.timestamp, compaction_ms, false);
    let off = !settings.enabled || settings.strategy == Strategy::Off;
    if out.same_model && !out.stale && out.overflow.is_some() {
        out.context_promotion = true;
        let what = out.overflow_text();
        if off {
            let (skip, why) = if settings.enabled { (Skip::StrategyOff, "strategy off") } else { (Skip::Disabled, "compaction disabled") };
            return Ok(out.stop(skip, format!("context overflow ({what}); {PROMOTION}; otherwise nothing ({why})")));
        }
        out.decision = AutoDecision::Overflow;
        out.will_retry = true;
        out.reason = format!("context overflow ({what}); {PROMOTION}; otherwise auto-compaction, reason overflow, willRetry true");
        return Ok(out);
    }
    if out.overflow.is_some() {
        let why = if out.same_model { "it predates the latest compaction" } else { "it came from another model" };
        out.notes.push(format!("isContextOverflow is true but the overflow path is not taken: {why}"));
    }
    // 4. Gates.
    if !settings.enabled {
        return Ok(out.stop(Skip::Disabled, "compaction disabled"));
    }
    if settings.strategy == Strategy::Off {
        return Ok(out.stop(Skip::StrategyOff, "compaction strategy off"));
    }
    if a.meta.reply.stop_reason.as_deref() == Some("error") {
        return Ok(out.stop(
            Skip::ErrorWithoutOverflow,
            "the last assistant message is an error that is not a context overflow: no threshold check",
        ));
    }
    // 5. Pruning, then the threshold.
    let prune = plan_prune_in(session, ctx, &PruneConfig::default());
    out.pruning_savings = prune.tokens_saved();
    out.pruned_count = prune.pruned_count();
    let usage = a.meta.reply.usage.map_or(0.0, |u| u.context_tokens());
    out.usage_tokens = Some(usage);
    let tokens = (usage - out.pruning_savings as f64).max(0.0);
    let what = if out.pruning_savings > 0 {
        format!("context tokens {usage} − pruning savings {} =", out.pruning_savings)
    } else {
        "context tokens".to_owned()
    };
    let mut out = out.threshold_test(tokens, settings, &what);
    if out.decision == AutoDecision::Threshold {
        out.context_promotion = true;
        out.reason = format!("{}; {PROMOTION}", out.reason);
        if settings.strategy == Strategy::Handoff {
            out.notes.push("strategy handoff: a handoff document and a new session instead of a summary".into());
        }
    }
    if out.pruned_count > 0 {
        out.notes.push(format!(
            "omp prunes {} tool outputs (rewriting the file) before this test, whether or not it compacts",
            out.pruned_count
        ));
    }
    Ok(out)
}
