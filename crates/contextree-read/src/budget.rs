//! How full a leaf's context is against the window and the compaction rules: the app's budget
//! bar and `contextree budget`.

use contextree_core::budget::budget;
use contextree_core::compaction::CompactionSettings;
use contextree_core::context::{context_tokens, estimate_projected_context_tokens, Context, ReadBackError};
use contextree_core::dialect::RuleChoiceWire;
use contextree_core::js::JsNumber;
use contextree_core::prompts::PromptPack;
use contextree_core::session::{Session, Source};
use contextree_core::RuleChoice;
use serde::Serialize;
use ts_rs::TS;

/// The budget of a leaf (see `contextree_core::budget::Budget`).
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BudgetReport {
    /// The agent whose rules ran.
    pub dialect: &'static str,
    /// The rule set that ran and why.
    #[ts(as = "RuleChoiceWire")]
    pub rule_set: RuleChoice,
    /// The leaf.
    pub leaf_id: Option<String>,
    /// Context window.
    pub window: u64,
    /// `override`, `model` or `default`.
    pub window_source: &'static str,
    /// The path's model (`provider/id`).
    pub model: Option<String>,
    /// The agent's estimate of the context (what it shows).
    pub used: u64,
    /// The agents show the size as unknown.
    pub unknown_after_compaction: bool,
    /// Reserve tokens.
    pub reserve: u64,
    /// Auto-compaction threshold (`None`: never).
    #[ts(type = "number | null")]
    pub threshold: Option<JsNumber>,
    /// `keepRecentTokens`.
    pub keep_recent: u64,
    /// Where the kept-recent region starts on the bar.
    pub keep_recent_from: u64,
    /// Over the threshold.
    pub over_threshold: bool,
    /// The agent's post-run check would compact now.
    pub would_compact: bool,
    /// `none`, `threshold`, `overflow` or `incomplete`.
    pub decision: &'static str,
    /// Why, in one sentence.
    pub reason: String,
    /// The agent's number misleads (docs/decisions.md D24): the estimate beside it, and why.
    pub misleading: Option<Misleading>,
}

/// An agent's number shown as the agent's, with the estimate beside it (D24).
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Misleading {
    /// The estimate without the agent's mistake.
    pub estimate: u64,
    /// Why the agent's number is off.
    pub note: String,
}

impl BudgetReport {
    /// The budget of `ctx` under the agent's compaction `settings`; `window` overrides the
    /// model table (docs/decisions.md D19).
    pub fn new(
        s: &Session,
        ctx: &Context,
        pack: &PromptPack,
        source: &dyn Source,
        settings: &CompactionSettings,
        window: Option<u64>,
    ) -> Result<Self, ReadBackError> {
        let tokens = context_tokens(s, ctx, pack, source)?;
        // What the agent shows (pi ≥ 0.86: the projected estimate, pi-1.6.md §3.4).
        let estimate = estimate_projected_context_tokens(s, ctx, &tokens, source)?;
        let per_message: Vec<u64> = tokens.messages.iter().map(|m| m.2).collect();
        let b = budget(s, ctx, &estimate, &per_message, settings, window, source)?;
        Ok(Self {
            dialect: s.dialect().name(),
            rule_set: s.rule_choice().clone(),
            leaf_id: ctx.leaf.and_then(|n| s.entry(n).id().map(str::to_owned)),
            window: b.window,
            window_source: b.window_source.name(),
            model: b.model,
            used: b.used,
            unknown_after_compaction: b.unknown_after_compaction,
            reserve: b.reserve,
            threshold: b.threshold.map(JsNumber),
            keep_recent: b.keep_recent,
            keep_recent_from: b.keep_recent_from,
            over_threshold: b.over_threshold,
            would_compact: b.would_compact,
            decision: b.decision,
            reason: b.reason,
            misleading: b.misleading.map(|m| Misleading { estimate: m.estimate, note: m.note }),
        })
    }
}
