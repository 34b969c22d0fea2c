//! Tokenizer counts of whole messages (decisions.md D5): the same fragments the
//! dialect's estimate measures, counted with a real tokenizer, and a flat 1200
//! per image where the estimate counts images (as omp 14 does).

use serde_json::{Map, Value};

use super::tokenizer::{count, TokenizerKind};
use crate::js::stringify;
use crate::Dialect;

/// Tokens the estimate would count as 1200 per image.
const IMAGE_TOKENS: usize = 1200;

/// One piece of a message that the estimate measures.
#[derive(Debug)]
pub enum Fragment<'a> {
    /// Text as it is.
    Text(&'a str),
    /// A value measured as `JSON.stringify` (tool-call arguments).
    Json(&'a Value),
    /// An image.
    Image,
}

/// Calls `f` for every fragment the dialect's `estimateTokens` measures in an
/// agent or LLM message (context.md §3.1).
pub fn for_each_fragment<'a>(msg: &'a Map<String, Value>, dialect: Dialect, f: &mut dyn FnMut(Fragment<'a>)) {
    let role = msg.get("role").and_then(Value::as_str).unwrap_or("");
    let content = msg.get("content");
    let text = |v: Option<&'a Value>, f: &mut dyn FnMut(Fragment<'a>)| {
        if let Some(s) = v.and_then(Value::as_str) {
            f(Fragment::Text(s));
        }
    };
    let blocks = || content.and_then(Value::as_array).into_iter().flatten();
    let ty = |b: &Value| b.get("type").and_then(Value::as_str).map(str::to_owned);
    match (role, dialect) {
        ("user", _) => match content {
            Some(Value::String(s)) => f(Fragment::Text(s)),
            _ => blocks().filter(|b| ty(b).as_deref() == Some("text")).for_each(|b| text(b.get("text"), f)),
        },
        ("assistant", _) => {
            for b in blocks() {
                match ty(b).as_deref() {
                    Some("text") => text(b.get("text"), f),
                    Some("thinking") => text(b.get("thinking"), f),
                    Some("toolCall") => {
                        text(b.get("name"), f);
                        if let Some(args) = b.get("arguments") {
                            f(Fragment::Json(args));
                        }
                    }
                    _ => {}
                }
            }
        }
        ("toolResult", _) | ("custom", Dialect::Pi) | ("hookMessage", Dialect::Omp) => match content {
            Some(Value::String(s)) => f(Fragment::Text(s)),
            _ => {
                for b in blocks() {
                    match ty(b).as_deref() {
                        Some("text") => text(b.get("text"), f),
                        Some("image") => f(Fragment::Image),
                        _ => {}
                    }
                }
            }
        },
        ("bashExecution", _) => {
            text(msg.get("command"), f);
            text(msg.get("output"), f);
        }
        ("branchSummary" | "compactionSummary", _) => text(msg.get("summary"), f),
        _ => {}
    }
}

/// Tokenizer count of a message: its fragments' tokens plus 1200 per image.
/// Which fragments count follows the estimate of the message's own role; an
/// LLM message (after `convertToLlm`) is measured as the agents measure it.
pub fn count_message(kind: TokenizerKind, msg: &Map<String, Value>, dialect: Dialect) -> usize {
    let mut n = 0;
    for_each_fragment(msg, dialect, &mut |frag| {
        n += match frag {
            Fragment::Text(s) => count(kind, s),
            Fragment::Json(v) => count(kind, &stringify(v)),
            Fragment::Image => IMAGE_TOKENS,
        }
    });
    n
}
