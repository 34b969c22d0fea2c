//! The core's integration tests, one binary: the differential fuzz test (`fuzz`, with the
//! generator and checks in `fuzz_check/` that the libFuzzer targets under `fuzz/` share) and the
//! message conversion against the agents' goldens (`synthetic_llm`).

mod fuzz;
mod fuzz_check;
mod synthetic_llm;
