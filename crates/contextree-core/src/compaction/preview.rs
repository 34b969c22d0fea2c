//! What a compaction would cost and save, before any model is called.
//!
//! `estimated_tokens_after` is an upper bound in the dialect's own estimate
//! (chars/4, docs/decisions.md D5), of the context right after appending the entry
//! — the summary message followed by the kept messages, as `buildSessionContext`
//! would give it and as the agents measure agent messages (the raw summary,
//! not its wrapper):
//!
//! ```text
//! estimated_tokens_after = kept_tokens + summary_budget
//! kept_tokens    = Σ estimate(message) over the kept part (firstKept … leaf)
//! summary_budget = history + turn_prefix + ceil(fixed_chars / 4)
//!   history      = maxTokens of the history call (0.8 × reserveTokens),
//!                  or ceil(len / 4) of the literal used instead of a call
//!   turn_prefix  = maxTokens of the turn-prefix call (0.5 × reserveTokens), split turns only
//!   fixed_chars  = the split-turn separator (if any) + the file tags the
//!                  dialect appends, in UTF-16 units
//! ```
//!
//! A reply cannot exceed `maxTokens` model tokens, and one model token is
//! taken as one estimate token (four characters), so the real summary is
//! usually far smaller; the bound says how much room the compaction frees at
//! the least. omp's short summary is never part of the context and is not
//! counted.

use super::entry::tagged_summary;
use super::plan::{CompactionPlan, NothingToCompact};
use super::prompt::{HistoryStep, SummarizerCall, SummaryRequests, SPLIT_TURN_SEPARATOR};
use crate::context::entry_estimate;
use crate::js::utf16_len;
use crate::session::Session;

/// Stands in for the round-1 summary in the previewed short-summary prompt:
/// the real prompt quotes the model's answer, unknown before the call.
pub const SHORT_PREVIEW_MARKER: &str = "<<summary returned by the calls above>>";

/// A compaction's numbers and prompts before it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionPreview {
    /// `tokensBefore` as the dialect computes it (D3).
    pub tokens_before: f64,
    /// Estimate of the kept messages.
    pub kept_tokens: u64,
    /// Upper bound of the summary message's estimate (see the module doc).
    pub summary_budget: u64,
    /// `kept_tokens + summary_budget`.
    pub estimated_tokens_after: u64,
    /// Messages summarized: history plus turn prefix.
    pub messages_summarized: usize,
    /// Of those, in the split turn's prefix.
    pub turn_prefix_messages: usize,
    /// Messages kept verbatim after the summary.
    pub messages_kept: usize,
    /// omp: messages the previous compaction kept that are now lost (D2).
    pub messages_dropped: usize,
    /// Every call in order; omp's short call quotes [`SHORT_PREVIEW_MARKER`].
    pub calls: Vec<SummarizerCall>,
}

/// The preview of `plan` with the requests built for it.
pub fn preview(session: &Session, plan: &CompactionPlan, requests: &SummaryRequests) -> Result<CompactionPreview, NothingToCompact> {
    let mut pv = preview_numbers(session, plan, requests)?;
    pv.calls = requests.first_calls().into_iter().cloned().collect();
    pv.calls.extend(requests.short_call(SHORT_PREVIEW_MARKER));
    Ok(pv)
}

/// [`preview`] without its calls (empty): the numbers only, nothing copied from the requests.
pub fn preview_numbers(
    session: &Session,
    plan: &CompactionPlan,
    requests: &SummaryRequests,
) -> Result<CompactionPreview, NothingToCompact> {
    let prepared = plan.outcome.as_ref().map_err(|&r| r)?;
    let dialect = plan.dialect;
    let kept_tokens: u64 = prepared.recent.iter().map(|&n| entry_estimate(session.entry(n), session.rules())).sum();
    let quarter = |chars: usize| (chars as u64).div_ceil(4);
    let history = match &requests.history {
        HistoryStep::Call(c) => c.max_tokens,
        HistoryStep::Literal(text) => quarter(utf16_len(text)),
    };
    let prefix = requests.turn_prefix.as_ref().map_or(0, |c| c.max_tokens);
    // The tags as appended to a one-character summary, minus that character.
    let tags = utf16_len(&tagged_summary(dialect, "x", &prepared.file_ops.lists())) - 1;
    let separator = if requests.turn_prefix.is_some() { utf16_len(SPLIT_TURN_SEPARATOR) } else { 0 };
    let summary_budget = history + prefix + quarter(tags + separator);
    Ok(CompactionPreview {
        tokens_before: plan.tokens_before,
        kept_tokens,
        summary_budget,
        estimated_tokens_after: kept_tokens + summary_budget,
        messages_summarized: prepared.messages_to_summarize.len() + prepared.turn_prefix.len(),
        turn_prefix_messages: prepared.turn_prefix.len(),
        messages_kept: prepared.recent.len(),
        messages_dropped: prepared.dropped.len(),
        calls: Vec::new(),
    })
}
