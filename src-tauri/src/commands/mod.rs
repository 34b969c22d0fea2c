//! IPC commands, one module per UI area; all registered in `lib.rs`'s `generate_handler!`.
//!
//! Command bodies are thin: resolve inputs, run the core off the async threads, convert.

pub mod session;
