//! How full the context is, as the agents themselves judge it (context.md §3.2):
//! the last reported usage plus the estimate of what came after it.

use super::build::{Context, Item};
use super::materialize::ContextTokens;
use crate::session::{Session, Usage};
use crate::Dialect;

/// The agents' `estimateContextTokens` of a context.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContextEstimate {
    /// The estimate.
    pub tokens: u64,
    /// The usage part (0 without usage).
    pub usage_tokens: u64,
    /// The estimate of the messages after the usage.
    pub trailing_tokens: u64,
    /// Index (in the context's messages) of the message whose usage was used.
    pub last_usage_index: Option<usize>,
    /// A compaction is on the path and no assistant message after it reported
    /// usable usage: the agents show the size as unknown.
    pub unknown_after_compaction: bool,
}

/// pi: the last assistant message with usable usage (`calculateContextTokens`);
/// omp: the last assistant message with any usage (`calculatePromptTokens`).
pub fn estimate_context_tokens(session: &Session, ctx: &Context, tokens: &ContextTokens) -> ContextEstimate {
    let dialect = session.dialect();
    let usage_of = |item: Item| -> Option<Usage> {
        let Item::Entry(n) = item else { return None };
        let m = session.entry(n).message()?;
        match dialect {
            Dialect::Pi => m.usable_usage(),
            Dialect::Omp => m.usage,
        }
    };
    let last = ctx.items.iter().rposition(|&i| usage_of(i).is_some());
    let estimates = || tokens.messages.iter().map(|m| m.2);
    let (usage_tokens, trailing) = match last {
        None => (0, estimates().sum()),
        Some(i) => {
            let u = usage_of(ctx.items[i]).unwrap_or_default();
            let used = match dialect {
                Dialect::Pi => u.context_tokens(),
                Dialect::Omp => u.prompt_tokens(),
            };
            (used.max(0.0) as u64, estimates().skip(i + 1).sum())
        }
    };
    let unknown_after_compaction = ctx.compaction.is_some_and(|c| {
        let after = ctx.path.iter().skip_while(|&&n| n != c).skip(1);
        !after.filter_map(|&n| session.entry(n).message()).any(|m| m.usable_usage().is_some_and(|u| u.context_tokens() > 0.0))
    });
    // Saturating: usage numbers are whatever the file says (`as u64` already saturates a huge
    // one), and a wrapped or panicking sum would be worse than the ceiling (found by the fuzz
    // test: two usage fields of 1.2e19 plus a trailing message overflowed).
    ContextEstimate { tokens: usage_tokens.saturating_add(trailing), usage_tokens, trailing_tokens: trailing, last_usage_index: last, unknown_after_compaction }
}
