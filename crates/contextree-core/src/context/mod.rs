//! The LLM-visible context of a leaf: the agents' `buildSessionContext`,
//! `convertToLlm` and `serializeConversation`, per dialect.

pub mod llm;
pub mod notice;
pub mod omp_format;
pub mod serialize;
