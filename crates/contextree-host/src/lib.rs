//! Everything that touches the machine: session files, installed agents, settings.

#![warn(missing_docs, unreachable_pub)]

pub mod agent;
pub mod agent_models;
pub mod atomic;
pub mod config;
pub mod env;
mod error_kind;
pub mod hooks;
pub mod library;
pub mod load;
pub mod prices;
pub mod rewrite;
pub mod settings;
pub mod subagents;
pub mod write;
pub mod writers;

/// Some JSON passed through unread (core's type: the hook replies core stores carry it too).
pub use contextree_core::RawJson;
pub use env::HostEnv;
pub use error_kind::ErrorKind;
pub use load::{installed_version, load_session, FileSource, LoadError, LoadedSession};
