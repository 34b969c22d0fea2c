//! contextree's desktop shell: a thin Tauri 2 layer over `contextree-face`.
//!
//! It owns the window, the IPC commands and the native dialogs, and nothing else: what each
//! command does is `contextree-face`'s (shared with `contextree serve`), which knows nothing
//! about Tauri; a command here runs it off the async threads.
//!
//! The app is assembled by [`build`], generic over the Tauri runtime, so the tests build the
//! very same app on the mock runtime without a window or a display.

pub mod commands;
pub mod startup;
pub mod watch;

pub use contextree_face::{demo, error, state, CommandError};
pub use state::AppState;

/// The app's embedded config, assets and capabilities; generic so tests use the mock runtime.
fn context<R: tauri::Runtime>() -> tauri::Context<R> {
    tauri::generate_context!()
}

/// Registers state and commands on `builder`: everything but the runtime and the context.
pub fn build<R: tauri::Runtime>(builder: tauri::Builder<R>, state: AppState) -> tauri::Builder<R> {
    builder
        .manage(state)
        .manage(commands::write::WriteState::default())
        .invoke_handler(tauri::generate_handler![
            commands::session::open_session,
            commands::session::startup_leaf,
            commands::tree::tree_table,
            commands::tree::row_previews,
            commands::context::context_view,
            commands::context::token_counts,
            commands::context::message_text,
            commands::context::export_context,
            commands::context::save_context,
            commands::compare::compare_view,
            commands::graph::save_graph,
            commands::entry::entry_detail,
            commands::library::list_sessions,
            commands::search::search_index,
            commands::search::search_sessions,
            commands::budget::budget,
            commands::compaction::compaction_preview,
            commands::compaction::compaction_requests,
            commands::compaction::usage_report,
            commands::compaction::weight_report,
            commands::settings::settings,
            commands::settings::home_dir,
            commands::settings::save_settings,
            commands::write::providers,
            commands::write::cancel_summary,
            commands::write::compact::compact,
            commands::write::edit::edit_summary_preview,
            commands::write::edit::edit_summary,
            commands::write::edit::undo_compaction_preview,
            commands::write::edit::undo_compaction,
            commands::write::navigate::navigate_preview,
            commands::write::navigate::navigate,
            commands::write::prune::prune_preview,
            commands::write::prune::prune,
        ])
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
mod tests_write;
