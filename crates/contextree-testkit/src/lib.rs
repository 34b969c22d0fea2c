//! Test helpers shared by contextree's crates; a dev-dependency only, never shipped.
//!
//! - [`server`]: a small HTTP server on 127.0.0.1 standing in for a model provider, used by the
//!   CLI's end-to-end tests and the app's write-command tests.

pub mod server;
