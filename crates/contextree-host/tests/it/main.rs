//! The integration tests of contextree-host, one binary: every file is a module.

mod agent_pack;
mod agent_pack_pi16;
mod chunks;
mod library;
