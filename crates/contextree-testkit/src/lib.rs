//! Test helpers shared by contextree's crates; a dev-dependency only, never shipped.
//!
//! - [`paths`]: the repository's fixtures, golden files and pinned agents;
//! - [`scratch`]: private folders to write in, with copies of fixtures;
//! - [`server`]: a small HTTP server on 127.0.0.1 standing in for a model provider, used by the
//!   CLI's end-to-end tests and the app's write-command tests.

pub mod paths;
pub mod scratch;
pub mod server;

pub use paths::{agents, fixture, fixture_sessions, repo};
pub use scratch::Scratch;
