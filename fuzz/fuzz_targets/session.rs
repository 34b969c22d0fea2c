//! libFuzzer target: the input is either a session file itself (first byte 0) or the choices
//! of the structure-aware generator; every check of the differential test runs on the file.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/contextree-core/tests/it/fuzz_check/mod.rs"]
mod fuzz_check;

fuzz_target!(|data: &[u8]| {
    match data.split_first() {
        Some((0, file)) => {
            let starts: Vec<usize> = (1..file.len()).filter(|&i| file[i - 1] == b'\n').step_by(2).collect();
            fuzz_check::check_file(file, &starts);
        }
        _ => {
            let (file, cuts) = fuzz_check::session_file(data);
            fuzz_check::check_file(&file, &cuts);
        }
    }
});
