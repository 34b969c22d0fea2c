//! contextree-read's integration tests: every report under every rule set, on fixtures.

mod analytics;
mod compare;
mod reports;
mod subagents;
