//! The LLM-visible context of a leaf: the agents' `buildSessionContext`,
//! `convertToLlm` and `serializeConversation`, per dialect.

pub mod build;
pub mod caveats;
pub mod llm;
pub mod materialize;
pub mod notice;
pub mod omp18;
pub mod omp_format;
pub mod preview;
pub(crate) mod projection;
pub mod serialize;
pub mod state;
pub mod system;
pub mod usage;

pub use build::{build, entry_estimate, path_to, Context, EditEffect, Item, Leaf, Projected};
