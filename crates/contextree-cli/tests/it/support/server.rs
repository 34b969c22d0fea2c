//! The stand-in model provider lives in `contextree-testkit` (the app's tests use it too).

// Each test binary uses its own subset (see `support/mod.rs`).
#[allow(unused_imports)]
pub use contextree_testkit::server::{json_response, serve, Server};
