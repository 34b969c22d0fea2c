//! The LLM-visible context of a leaf: the agents' `buildSessionContext`,
//! `convertToLlm` and `serializeConversation`, per dialect.

pub(crate) mod build;
mod caveats;
mod derive;
pub(crate) mod llm;
pub(crate) mod materialize;
mod notice;
mod omp18;
pub(crate) mod omp_format;
pub(crate) mod preview;
pub(crate) mod projection;
pub(crate) mod serialize;
pub(crate) mod state;
pub mod system;
pub(crate) mod usage;

pub use build::{build, entry_estimate, path_to, Context, EditEffect, Item, Leaf, ModelState, OmpState, Projected};
pub use caveats::not_reproducible;
pub use derive::{aligned_states, derive_states, StatesIndex};
pub use llm::convert_to_llm;
pub use materialize::{
    agent_message, context_item_estimate, context_message, context_token_sums, context_tokens, item_estimate, item_role, item_tokens,
    llm_messages, serialize_context, serialize_context_with, summary_transcript, ContextTokens, ReadBackCause, ReadBackError,
};
pub use omp18::NotReproducible;
pub(crate) use omp18::{has_anthropic_payload, snapshot_replay_point};
pub use preview::entry_preview;
pub use serialize::serialize_conversation;
pub use state::{entry_states, path_states, states_from_path, EntryState};
pub use usage::{
    estimate_context_tokens, estimate_context_tokens_of, estimate_projected_context_tokens, estimate_projected_context_tokens_of,
    ContextEstimate,
};
