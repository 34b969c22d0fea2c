//! The LLM-visible context of a leaf: the agents' `buildSessionContext`,
//! `convertToLlm` and `serializeConversation`, per dialect.

pub mod llm;
pub mod notice;
pub mod omp_format;
pub mod omp18;
pub mod serialize;
pub mod build;
pub mod materialize;
pub mod preview;
pub(crate) mod projection;
pub mod system;
pub mod state;
pub mod usage;

pub use build::{build, entry_estimate, path_to, Context, EditEffect, Item, Leaf, Projected};
