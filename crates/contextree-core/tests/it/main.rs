//! The core's integration tests, one binary: the differential fuzz test (`fuzz`, with the
//! generator and checks in `fuzz_check/` that the libFuzzer targets under `fuzz/` share) and the
//! message conversion against the agents' goldens (`synthetic_llm`), and leaf changes' derived
//! states against full builds (`derive_states`).

mod derive_states;
mod fuzz;
mod fuzz_check;
mod synthetic_llm;
