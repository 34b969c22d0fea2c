//! `contextree`: the command-line face of the core (spec/cli-contract.md).
//!
//! Each subcommand loads the session, calls the core, and prints either one
//! JSON document (`--json`) or text. Bad input exits with code 2, other failures 1
//! (`CliError::kind`, contextree-host's `ErrorKind`).

/// `println!` for stdout, through [`common::write_stdout`]: a closed pipe ends the
/// process quietly instead of panicking.
macro_rules! outln {
    () => { $crate::common::write_stdout(format_args!(""), true) };
    ($($arg:tt)*) => { $crate::common::write_stdout(format_args!($($arg)*), true) };
}

/// `print!` through [`common::write_stdout`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::common::write_stdout(format_args!($($arg)*), false) };
}

mod cmd;
mod common;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cmd::run(cmd::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A hook's cancel is all the caller sees: its warnings go to stderr first.
            for w in e.warnings() {
                eprintln!("contextree: warning: {w}");
            }
            eprintln!("contextree: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
