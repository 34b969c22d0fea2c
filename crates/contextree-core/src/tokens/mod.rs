//! Token numbers: each dialect's own estimate (what the agent decides with) and
//! real tokenizer counts (docs/decisions.md D5). The two are never mixed.

mod count;
pub(crate) mod estimate;
pub(crate) mod family;
pub(crate) mod tokenizer;

pub use count::count_message;
pub use estimate::{estimate_message, message_parts, PartKind};
pub use family::native_tokenizer;
pub use tokenizer::{count, TokenCache, TokenizerKind, UnknownTokenizer};
