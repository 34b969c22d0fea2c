//! The context panel: what the model sees from a leaf; tokenizer counts, a message's whole
//! text and the exports on demand (each reads every message back: call them off the UI's
//! thread).

pub mod export;

use contextree_core::context::{build, context_tokens};
use contextree_core::tokens::TokenizerKind;
use contextree_core::view::context_pairs;
use contextree_read::{ContextOptions, ContextReport, MessageTextReport, TokenCountsReport};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::state::OpenSession;
use crate::{leaf, CommandError};

/// Characters of message text sent to the UI per message (the rest is marked as cut).
const TEXT_CHARS: usize = 8_000;

/// The context of `leaf_id` (the file's leaf when `None`) as `options` ask, written to JSON
/// (its lists are made while it is written, from the open session).
pub fn report(open: &OpenSession, leaf_id: Option<&str>, options: ContextOptions) -> Result<Box<RawValue>, CommandError> {
    let (s, src, pack) = (&open.loaded.session, &open.loaded.source, &open.pack);
    let ctx = build(s, leaf(open, leaf_id)?);
    let report = ContextReport::new(s, &ctx, pack, src, options)?;
    let json = crate::raw(&report)?;
    report.finish()?;
    Ok(json)
}

/// The context panel's document: the read layer's `ContextReport` with the messages' text
/// (cut at [`TEXT_CHARS`]) and the breakdown by category.
pub fn view(open: &OpenSession, leaf_id: Option<&str>) -> Result<Box<RawValue>, CommandError> {
    report(open, leaf_id, ContextOptions { tokenizer: None, text_chars: Some(TEXT_CHARS), breakdown: true })
}

/// The document `contextree context --json` prints (no text, no breakdown).
pub fn document(open: &OpenSession, leaf_id: Option<&str>) -> Result<Box<RawValue>, CommandError> {
    report(open, leaf_id, ContextOptions { tokenizer: None, text_chars: None, breakdown: false })
}

/// Tokenizer counts (`tokenizer`: `o200k_base` or `cl100k_base`) of every LLM message of the
/// context of `leaf_id`, over the fragments the dialect's estimate measures (`None`: not sent).
pub fn token_counts(open: &OpenSession, leaf_id: Option<&str>, tokenizer: &str) -> Result<TokenCountsReport, CommandError> {
    let kind: TokenizerKind =
        tokenizer.parse().map_err(|e: contextree_core::tokens::UnknownTokenizer| CommandError::InvalidArgument(e.to_string()))?;
    let (s, src, pack) = (&open.loaded.session, &open.loaded.source, &open.pack);
    let ctx = build(s, leaf(open, leaf_id)?);
    Ok(TokenCountsReport::new(s, &ctx, pack, src, kind)?)
}

/// The whole text of message `index` of the context of `leaf_id` (the panel's is cut).
pub fn message_text(open: &OpenSession, leaf_id: Option<&str>, index: usize) -> Result<MessageTextReport, CommandError> {
    let (s, src, pack) = (&open.loaded.session, &open.loaded.source, &open.pack);
    let ctx = build(s, leaf(open, leaf_id)?);
    MessageTextReport::new(s, &ctx, pack, src, index)?
        .ok_or_else(|| CommandError::InvalidArgument(format!("the context has no message {index}")))
}

/// The context of `leaf_id` as one text in `format`, nothing cut.
pub fn export_text(open: &OpenSession, leaf_id: Option<&str>, format: export::Format) -> Result<String, CommandError> {
    let (s, src, pack) = (&open.loaded.session, &open.loaded.source, &open.pack);
    let ctx = build(s, leaf(open, leaf_id)?);
    let tokens = context_tokens(s, &ctx, pack, src)?;
    let pairs = context_pairs(s, &ctx, pack, src)?;
    let rules = s.rules();
    let messages: Vec<export::Message> = pairs
        .into_iter()
        .zip(&tokens.messages)
        .map(|(p, (_, role, n))| {
            let text = p.text();
            let llm_role = p.llm.as_ref().and_then(|m| m.get("role")).and_then(Value::as_str).map(str::to_owned);
            let llm_tokens = p.llm.as_ref().and_then(Value::as_object).map_or(0, |m| contextree_core::tokens::estimate_message(m, rules));
            export::Message {
                role: role.to_string(),
                entry_id: s.entry(p.item.node()).id.to_string(),
                tokens: *n,
                llm_role,
                llm_tokens,
                message: p.llm.unwrap_or(p.message),
                text,
            }
        })
        .collect();
    let head = export::Head {
        leaf_id: ctx.leaf.map(|n| s.entry(n).id.to_string()),
        dialect: rules.dialect().name(),
        prompts: pack.origin().to_string(),
        message_tokens: tokens.message_tokens(),
        llm_count: tokens.llm.len(),
        llm_tokens: tokens.llm_tokens(),
        rules: format!("{} ({})", rules.name(), s.rule_choice().why()),
        branch: {
            let states = contextree_core::context::entry_states(s, &ctx);
            ctx.path
                .iter()
                .map(|&n| {
                    let e = s.entry(n);
                    export::BranchRow {
                        entry_id: e.id.to_string(),
                        kind: e.message().map_or_else(|| e.entry_type.to_string(), |m| m.role.as_str().to_owned()),
                        state: states[n.index()].name(),
                    }
                })
                .collect()
        },
    };
    Ok(export::render(format, &head, &messages))
}
