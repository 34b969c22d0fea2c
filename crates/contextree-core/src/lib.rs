//! contextree's pure core: a pi / oh-my-pi session file in, values out.
//!
//! Reading order:
//! - [`dialect`]: which agent's rules apply.
//! - [`js`]: the JavaScript semantics the agents' numbers and texts depend on
//!   (UTF-16 lengths, `JSON.stringify`, number formatting, sort order).
//! - [`session`]: lines → entries (with diagnostics) → migration → [`session::SessionTree`].
//! - [`context`]: the LLM-visible context of a leaf (`buildSessionContext`,
//!   `convertToLlm`, `serializeConversation`).
//! - [`tokens`]: each dialect's own estimate, and tokenizer counts.
//! - [`prompts`]: prompt packs, the texts wrapped around summaries and sent to models.
//!
//! Nothing here does IO: callers hand in bytes and get values back.

#![warn(missing_docs, unreachable_pub)]

pub mod branch;
pub mod branch_summary;
pub mod budget;
pub mod compaction;
pub mod context;
pub mod dialect;
pub mod drops;
pub mod js;
pub mod models;
pub mod path_tree;
pub mod prices;
pub mod prompts;
pub mod prune;
pub mod raw;
pub mod render;
pub mod session;
pub mod spend;
pub mod tokens;
pub mod view;

pub use dialect::{Dialect, RuleChoice, RuleReason, RuleRequest, RuleSet};
pub use raw::RawJson;
