//! The small reads a face makes on demand beside a view: a context's tokenizer counts, one
//! context message's whole text, the previews of the tree rows on screen.

use contextree_core::context::{Context, ReadBackError};
use contextree_core::prompts::PromptPack;
use contextree_core::session::{NodeId, Session, Source};
use contextree_core::tokens::{count_message, TokenizerKind};
use contextree_core::view::{context_pair, context_pairs, previews};
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

/// A tokenizer's count of each message of a context, over the fragments the rule set's
/// estimate measures (the context panel's second column).
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TokenCountsReport {
    /// The leaf.
    pub leaf_id: Option<String>,
    /// `o200k_base` or `cl100k_base`.
    pub tokenizer: &'static str,
    /// One per agent message of the context: its LLM message's count, `None` when not sent.
    pub messages: Vec<Option<u64>>,
    /// Sum of the counts.
    pub total: u64,
}

impl TokenCountsReport {
    /// The counts of `ctx` with `kind`.
    pub fn new(s: &Session, ctx: &Context, pack: &PromptPack, source: &dyn Source, kind: TokenizerKind) -> Result<Self, ReadBackError> {
        let messages: Vec<Option<u64>> = context_pairs(s, ctx, pack, source)?
            .iter()
            .map(|p| p.llm.as_ref().and_then(Value::as_object).map(|m| count_message(kind, m, s.rules()) as u64))
            .collect();
        Ok(Self {
            leaf_id: ctx.leaf.and_then(|n| s.entry(n).id().map(str::to_owned)),
            tokenizer: kind.name(),
            total: messages.iter().flatten().sum(),
            messages,
        })
    }
}

/// The whole text of one context message (the context report's is cut).
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MessageTextReport {
    /// Its place in the context.
    pub i: usize,
    /// The text, uncut.
    pub text: String,
}

impl MessageTextReport {
    /// Message `i` of `ctx`; `None` when the context has no such message.
    pub fn new(s: &Session, ctx: &Context, pack: &PromptPack, source: &dyn Source, i: usize) -> Result<Option<Self>, ReadBackError> {
        Ok(context_pair(s, ctx, pack, source, i)?.map(|pair| Self { i, text: pair.text() }))
    }
}

/// The one-line preview of a tree row.
#[derive(Debug, Serialize, TS)]
pub struct RowPreview {
    /// Entry id.
    pub id: String,
    /// First line of its text, cut at `max_chars`.
    pub text: String,
}

/// The previews of `nodes` (the rows on screen).
pub fn row_previews(s: &Session, nodes: &[NodeId], source: &dyn Source, max_chars: usize) -> Vec<RowPreview> {
    let texts = previews(s, nodes, source, max_chars);
    nodes.iter().zip(texts).map(|(&n, text)| RowPreview { id: s.entry(n).id.to_string(), text }).collect()
}
