//! contextree's desktop shell: a thin Tauri 2 layer over `contextree-face`.
//!
//! It owns the window, the IPC and the native dialogs, and nothing else: the commands, their
//! arguments and what each does are `contextree-face`'s (shared with `contextree serve`), which
//! knows nothing about Tauri; the IPC handler runs them off the async threads.
//!
//! The app is assembled by [`build`], generic over the Tauri runtime, so the tests build the
//! very same app on the mock runtime without a window or a display.

pub mod commands;
pub mod preload;
pub mod rendering;
pub mod startup;
pub mod watch;

pub use contextree_face::{demo, error, state, CommandError};
pub use state::AppState;

/// The app's embedded config, assets and capabilities; generic so tests use the mock runtime.
fn context<R: tauri::Runtime>() -> tauri::Context<R> {
    tauri::generate_context!()
}

/// Registers state and commands on `builder`: everything but the runtime and the context.
/// Starts reading the startup file (`preload`), so that it is read while the window starts.
pub fn build<R: tauri::Runtime>(builder: tauri::Builder<R>, state: AppState) -> tauri::Builder<R> {
    let preload = preload::Preload::start(&state);
    builder
        .manage(state)
        .manage(preload)
        .manage(contextree_face::write::WriteState::default())
        .invoke_handler(commands::handler())
        .plugin(tauri_plugin_dialog::init())
}

/// Runs the app; `startup` is its command line (the session file and leaf to show first).
pub fn run(startup: startup::Startup) {
    let state = AppState::new(startup.file).with_startup_leaf(startup.leaf);
    build(tauri::Builder::default(), state).run(context()).expect("error while running the contextree app");
}

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_context;
#[cfg(test)]
mod tests_preload;
#[cfg(test)]
mod tests_settings;
#[cfg(test)]
mod tests_write;
