//! The command line's integration tests, one binary: every file is a module (the behaviour of
//! each command, the parity with the real agents' goldens and oracle, the write flows end to
//! end). `support/` is what they share; `faults/` is the fault-injection suite (it builds its
//! LD_PRELOAD shim, `faults/shim.c`, when it first runs).

mod support;

mod agent_command;
mod agent_model;
mod analytics;
mod cli_behaviour;
mod compact_e2e;
mod compact_hooks;
mod compare;
mod cut_parity;
mod faults;
mod missing_id_parity;
mod navigate_hooks;
mod navigate_prune_e2e;
mod no_spawn;
mod omp183_wire;
mod omp18_auto_parity;
mod omp18_parity;
mod omp18_stale_parity;
mod omp18_transcript_parity;
mod oracle_parity;
mod package_assets;
mod pi16_parity;
mod pi16_write_e2e;
mod prune_branch_parity;
mod search;
mod serve;
mod sessions;
mod text_snapshots;
mod write_failures;
