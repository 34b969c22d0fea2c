//! Tokenizer counts of whole messages (docs/decisions.md D5): the same fragments the
//! dialect's estimate measures, counted with a real tokenizer, and a flat 1200
//! per image where the estimate counts images (as omp 14 does).

use serde_json::{Map, Value};

use super::estimate::{for_each_fragment, Fragment};
use super::tokenizer::{count, TokenizerKind};
use crate::js::stringify;
use crate::RuleSet;

/// Tokens the estimate would count as 1200 per image.
const IMAGE_TOKENS: usize = 1200;

/// Tokenizer count of a message: its fragments' tokens plus 1200 per image.
/// Which fragments count follows the estimate of the message's own role; an
/// LLM message (after `convertToLlm`) is measured as the agents measure it.
pub fn count_message(kind: TokenizerKind, msg: &Map<String, Value>, rules: RuleSet) -> usize {
    let mut n = 0;
    for_each_fragment(msg, rules, &mut |frag| {
        n += match frag {
            Fragment::Text(s) => count(kind, s),
            Fragment::Json(v) => count(kind, &stringify(v)),
            Fragment::Image => IMAGE_TOKENS,
        }
    });
    n
}
