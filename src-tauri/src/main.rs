//! `contextree-app [SESSION] [--leaf ID]`: opens SESSION (a pi / oh-my-pi `.jsonl` file), or the
//! bundled demo, showing entry ID as the leaf when given.

// Without a console window on Windows release builds; harmless elsewhere.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use contextree_app::rendering;
use contextree_app::startup::{Startup, USAGE};

fn main() {
    // Before any thread: the choice is an environment variable WebKit reads.
    rendering::choose();
    // tauri-driver passes none (the demo opens) unless a test names a file in its capabilities.
    match Startup::parse(std::env::args_os().skip(1)) {
        Ok(startup) => contextree_app::run(startup),
        Err(err) => {
            eprintln!("contextree-app: {err}\n{USAGE}");
            std::process::exit(2);
        }
    }
}
