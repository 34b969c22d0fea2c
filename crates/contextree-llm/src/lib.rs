//! contextree's LLM client: the only code in the project that talks to the network.
//!
//! It asks a model for a compaction summary. Reading order:
//! - [`config`]: [`ProviderConfig`] (one candidate model), [`Candidates`] (tried in order),
//!   contextree's config file, API keys from the file or the environment.
//! - [`request`]: pure; a [`SummaryRequest`] → the exact URL, headers and JSON body for an
//!   OpenAI-compatible server, Anthropic Messages, or omp's remote summarization endpoint.
//! - [`sse`]: pure; an incremental Server-Sent-Events parser and each provider's reading of
//!   its events (text deltas, usage, stop reason, in-stream errors).
//! - [`client`]: the IO; [`summarize_with_events`] streams, retries with backoff, falls back to the next
//!   candidate and stops at once when its [`CancelToken`] is cancelled.
//! - [`error`]: [`LlmError`], with [`LlmError::is_retryable`].
//! - [`offline`]: pure; an extractive summary written without any model.
//!
//! Nothing here logs, and no error or `Debug` output contains an API key.

#![warn(missing_docs)]

pub mod cancel;
pub mod client;
pub mod config;
pub mod error;
pub mod offline;
pub mod request;
pub mod sse;

pub use cancel::CancelToken;
pub use client::{summarize_with_env, summarize_with_events, Event, Summary};
pub use config::{ApiKey, Candidates, ProviderConfig, ProviderKind};
pub use error::{CandidateFailure, LlmError};
pub use offline::summarize_offline;
pub use request::SummaryRequest;
pub use sse::Usage;
