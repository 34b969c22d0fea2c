//! `contextree-app [SESSION]`: opens SESSION (a pi / oh-my-pi `.jsonl` file), or the bundled demo.

// Without a console window on Windows release builds; harmless elsewhere.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    // Only the first argument is ours; tauri-driver passes none, so the demo opens under test.
    let startup = std::env::args_os().nth(1).map(|arg| std::path::absolute(&arg).unwrap_or_else(|_| arg.into()));
    contextree_app::run(startup);
}
