//! How full the context is, as the agents themselves judge it (context.md §3.2):
//! the last reported usage plus the estimate of what came after it; pi ≥ 0.87
//! also distrusts usage older than the latest context edit or compaction
//! (`estimateProjectedContextTokens`, pi-1.6.md §3.3).

use std::collections::HashSet;

use super::build::{Context, Item};
use super::materialize::{ContextTokens, ReadBackError};
use super::system::current_system;
use crate::session::{Role, Session, Source, Usage};
use crate::tokens::estimate::estimate_message;
use crate::Dialect;

/// The agents' `estimateContextTokens` of a context.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
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
    /// usable usage: the agents show the size as unknown (pi ≥ 0.87: only
    /// assistants the projection still shows count, pi-1.6.md §3.4).
    pub unknown_after_compaction: bool,
}

/// The usage `estimateContextTokens` may use from an item: pi the usable
/// usage of an assistant (not aborted or an error; pi ≥ 0.80 also not all
/// zero), its content replaced or not; omp any assistant usage.
fn usage_of(session: &Session, item: Item) -> Option<Usage> {
    let (Item::Entry(n) | Item::Replaced { node: n, .. }) = item else { return None };
    let m = session.entry(n).message()?;
    match session.dialect() {
        Dialect::Pi => m.usable_usage_under(session.rules()),
        Dialect::Omp => m.reply.usage,
    }
}

/// pi: the last assistant message with usable usage (`calculateContextTokens`);
/// omp: the last assistant message with any usage (`calculatePromptTokens`).
pub fn estimate_context_tokens(session: &Session, ctx: &Context, tokens: &ContextTokens) -> ContextEstimate {
    estimate_context_tokens_of(session, ctx, &|i| tokens.messages[i].2)
}

/// [`estimate_context_tokens`] with the estimate of each of the context's messages
/// (`estimate(i)` of `ctx.items[i]`).
pub fn estimate_context_tokens_of(session: &Session, ctx: &Context, estimate: &dyn Fn(usize) -> u64) -> ContextEstimate {
    let dialect = session.dialect();
    let last = ctx.items.iter().rposition(|&i| usage_of(session, i).is_some());
    let estimates = || (0..ctx.items.len()).map(estimate);
    let (usage_tokens, trailing) = match last {
        None => (0, estimates().sum()),
        Some(i) => {
            let u = usage_of(session, ctx.items[i]).unwrap_or_default();
            let used = match dialect {
                Dialect::Pi => u.context_tokens(),
                Dialect::Omp => u.prompt_tokens(),
            };
            (used.max(0.0) as u64, estimates().skip(i + 1).sum())
        }
    };
    let unknown_after_compaction = if ctx.rules.projects_context_edits() {
        unknown_after_projected_compaction(session, ctx)
    } else {
        ctx.compaction.is_some_and(|c| {
            let after = ctx.path.iter().skip_while(|&&n| n != c).skip(1);
            !after.filter_map(|&n| session.entry(n).message()).any(|m| m.usable_usage().is_some_and(|u| u.context_tokens() > 0.0))
        })
    };
    // Saturating: usage numbers are whatever the file says (`as u64` already saturates a huge
    // one), and a wrapped or panicking sum would be worse than the ceiling (found by the fuzz
    // test: two usage fields of 1.2e19 plus a trailing message overflowed).
    ContextEstimate {
        tokens: usage_tokens.saturating_add(trailing),
        usage_tokens,
        trailing_tokens: trailing,
        last_usage_index: last,
        unknown_after_compaction,
    }
}

/// pi ≥ 0.87's `getContextUsage` test (pi-1.6.md §3.4): the path has a
/// compaction and no entry after it (by id) is projected with a non-aborted,
/// non-error assistant message whose usage is above 0.
fn unknown_after_projected_compaction(session: &Session, ctx: &Context) -> bool {
    // Ids as bytes: read for every entry of the path, and `&str` costs a UTF-8 check each time.
    let id = |n| session.entry(n).id.as_bytes();
    let Some(latest) = ctx.path.iter().rev().copied().find(|&n| session.entry(n).entry_type == "compaction") else { return false };
    // `branch.findIndex(e => e.id === latest.id)`: the first entry with that id.
    let at = ctx.path.iter().position(|&n| session.entry(n).id == session.entry(latest).id).unwrap_or(0);
    let with_usage: HashSet<&[u8]> = ctx
        .projected
        .iter()
        .filter(|p| ctx.items[p.items.clone()].iter().any(|&i| is_assistant(session, i) && usage_of(session, i).is_some()))
        .map(|p| id(p.node))
        .collect();
    !ctx.path[at + 1..].iter().any(|&n| with_usage.contains(id(n)))
}

fn is_assistant(session: &Session, item: Item) -> bool {
    matches!(item, Item::Entry(n) | Item::Replaced { node: n, .. } if session.entry(n).message().is_some_and(|m| m.role == Role::Assistant))
}

/// pi ≥ 0.87's `estimateProjectedContextTokens(projection, path)` (pi-1.6.md
/// §3.3): [`estimate_context_tokens`] when its usage comes from an entry after
/// the latest `context_edit` or compaction of the path; otherwise the
/// estimate of the replayed system message plus every non-system message.
/// `tokens` are the context's token numbers; the system messages are read
/// back through `source` for the replay. Without projection (other rule
/// sets) it is [`estimate_context_tokens`].
pub fn estimate_projected_context_tokens(
    session: &Session,
    ctx: &Context,
    tokens: &ContextTokens,
    source: &dyn Source,
) -> Result<ContextEstimate, ReadBackError> {
    estimate_projected_context_tokens_of(session, ctx, &|i| tokens.messages[i].2, source)
}

/// [`estimate_projected_context_tokens`] with the estimate of each of the context's messages
/// (`estimate(i)` of `ctx.items[i]`).
pub fn estimate_projected_context_tokens_of(
    session: &Session,
    ctx: &Context,
    estimate: &dyn Fn(usize) -> u64,
    source: &dyn Source,
) -> Result<ContextEstimate, ReadBackError> {
    let est = estimate_context_tokens_of(session, ctx, estimate);
    if !ctx.rules.projects_context_edits() {
        return Ok(est);
    }
    if let Some(i) = est.last_usage_index {
        // Ids compared as names: no UTF-8 check of each as `&str`.
        let id = |n| &session.entry(n).id;
        let usage_entry = ctx.projected.iter().find(|p| i < p.items.end).map(|p| id(p.node));
        let usage_at = usage_entry.filter(|u| !u.is_empty()).and_then(|u| ctx.path.iter().position(|&n| id(n) == u));
        let invalidating =
            ctx.path.iter().rposition(|&n| matches!(session.entry(n).entry_type.as_bytes(), b"context_edit" | b"compaction"));
        // `usageEntryIndex > latestInvalidatingEntryIndex` with −1 for none.
        if usage_at.map_or(-1, |u| u as i64) > invalidating.map_or(-1, |x| x as i64) {
            return Ok(est);
        }
    }
    let system = current_system(session, ctx, source)?.and_then(|m| m.as_object().map(|m| estimate_message(m, ctx.rules))).unwrap_or(0);
    let rest: u64 = ctx.items.iter().enumerate().filter(|(_, &i)| !is_system(session, i)).map(|(k, _)| estimate(k)).sum();
    let total = system + rest;
    Ok(ContextEstimate {
        tokens: total,
        usage_tokens: 0,
        trailing_tokens: total,
        last_usage_index: None,
        unknown_after_compaction: est.unknown_after_compaction,
    })
}

fn is_system(session: &Session, item: Item) -> bool {
    super::system::is_system_item(session, item)
}
