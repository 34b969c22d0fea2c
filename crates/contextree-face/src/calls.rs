//! The UI's commands by name: each command's arguments (the camelCase keys the page passes to
//! `invoke` or posts to `contextree serve`) are read here, once, and handed to its function.
//! Both faces route a call through [`call`]; each keeps only what is its own: opening a file
//! (the app watches it through Tauri, the server checks it against its roots), the native
//! dialogs, and how progress reaches the page (an IPC channel, an event stream).

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::write::compact::CompactArgs;
use crate::write::navigate::NavigateArgs;
use crate::write::WriteState;
use crate::{AppState, CommandError};

/// A command's answer.
#[derive(Debug)]
pub enum Answer {
    /// A JSON document.
    Json(Box<RawValue>),
    /// Bytes (the tree table, an `ArrayBuffer` in the page).
    Bytes(Vec<u8>),
}

/// The commands that write (the session file, or contextree's config file for the settings,
/// which also say which folders the library lists). `contextree serve` refuses them unless
/// started with `--allow-writes`.
pub const WRITES: &[&str] = &["compact", "edit_summary", "undo_compaction", "navigate", "prune", "save_settings"];

/// Every command [`call`] runs; a face handles the others itself (or refuses them).
pub const COMMANDS: &[&str] = &[
    "startup_leaf",
    "tree_table",
    "row_previews",
    "context_view",
    "token_counts",
    "message_text",
    "export_context",
    "compare_view",
    "entry_detail",
    "list_sessions",
    "search_index",
    "search_sessions",
    "budget",
    "compaction_preview",
    "compaction_requests",
    "usage_report",
    "weight_report",
    "settings",
    "home_dir",
    "save_settings",
    "providers",
    "cancel_summary",
    "compact",
    "navigate_preview",
    "navigate",
    "prune_preview",
    "prune",
    "edit_summary_preview",
    "edit_summary",
    "undo_compaction_preview",
    "undo_compaction",
];

/// Where progress goes: each event as its JSON text (a summary's deltas, the search index's
/// files done).
pub type Progress<'a> = &'a (dyn Fn(String) + Sync);

/// Runs `command` with `args` (the page's argument object). Blocking: the faces call it off
/// their async threads. `None` when `command` is not one of [`COMMANDS`]. Arguments are read
/// before the session is asked for, so a malformed call says so whatever is open.
pub fn call(
    state: &AppState,
    writes: &WriteState,
    command: &str,
    args: &Value,
    progress: Progress<'_>,
) -> Option<Result<Answer, CommandError>> {
    if !COMMANDS.contains(&command) {
        return None;
    }
    Some(run(state, writes, command, args, progress))
}

/// The arguments of a command, or `invalid-argument` saying which is wrong.
fn args<T: DeserializeOwned>(command: &str, args: &Value) -> Result<T, CommandError> {
    T::deserialize(args).map_err(|e| CommandError::InvalidArgument(format!("bad arguments for `{command}`: {e}")))
}

fn json<T: serde::Serialize>(value: &T) -> Result<Answer, CommandError> {
    crate::raw(value).map(Answer::Json)
}

fn sends<T: serde::Serialize>(progress: Progress<'_>) -> impl Fn(T) + Sync + '_ {
    move |event| {
        if let Ok(text) = serde_json::to_string(&event) {
            progress(text);
        }
    }
}

// The argument objects, one per shape; a command's fields are named as the page sends them.

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct LeafArgs {
    leaf_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TreeArgs {
    leaf_id: Option<String>,
    reading: Option<u32>,
    held_leaf: Option<String>,
}

#[derive(Deserialize)]
struct IdsArgs {
    ids: Vec<String>,
}

#[derive(Deserialize)]
struct IdArgs {
    id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TokensArgs {
    leaf_id: Option<String>,
    tokenizer: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MessageArgs {
    leaf_id: Option<String>,
    index: usize,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExportArgs {
    leaf_id: Option<String>,
    format: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CompareArgs {
    leaf_a: Option<String>,
    leaf_b: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ListArgs {
    search: Option<String>,
}

#[derive(Deserialize)]
struct SearchArgs {
    query: String,
    limit: Option<usize>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BudgetArgs {
    leaf_id: Option<String>,
    window: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PlanArgs {
    leaf_id: Option<String>,
    keep_recent: Option<u64>,
    instructions: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CompactionArgs {
    compaction_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WeightArgs {
    leaf_id: Option<String>,
    top: Option<usize>,
}

#[derive(Deserialize)]
struct SettingsArgs {
    settings: crate::settings::AppSettings,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NavigatePreviewArgs {
    target_id: String,
    summarize: bool,
    instructions: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EditArgs {
    compaction_id: String,
    summary: String,
}

fn run(state: &AppState, writes: &WriteState, command: &str, body: &Value, progress: Progress<'_>) -> Result<Answer, CommandError> {
    use crate::{budget, compaction, compare, context, entry, library, search, session, settings, tree, write};
    let open = || state.session();
    let leaf = || args::<LeafArgs>(command, body).map(|a| a.leaf_id);
    match command {
        "startup_leaf" => json(&session::startup_leaf(state)?),
        "tree_table" => {
            let a: TreeArgs = args(command, body)?;
            tree::table(&*open()?, a.leaf_id.as_deref(), a.reading, a.held_leaf.as_deref()).map(Answer::Bytes)
        }
        "row_previews" => {
            let a: IdsArgs = args(command, body)?;
            json(&tree::row_previews(&*open()?, &a.ids))
        }
        "context_view" => {
            let leaf = leaf()?;
            context::view(&*open()?, leaf.as_deref()).map(Answer::Json)
        }
        "token_counts" => {
            let a: TokensArgs = args(command, body)?;
            json(&context::token_counts(&*open()?, a.leaf_id.as_deref(), &a.tokenizer)?)
        }
        "message_text" => {
            let a: MessageArgs = args(command, body)?;
            json(&context::message_text(&*open()?, a.leaf_id.as_deref(), a.index)?)
        }
        "export_context" => {
            let a: ExportArgs = args(command, body)?;
            let format: context::export::Format = a.format.parse()?;
            json(&context::export_text(&*open()?, a.leaf_id.as_deref(), format)?)
        }
        "compare_view" => {
            let a: CompareArgs = args(command, body)?;
            compare::view(&*open()?, a.leaf_a.as_deref(), a.leaf_b.as_deref()).map(Answer::Json)
        }
        "entry_detail" => {
            let a: IdArgs = args(command, body)?;
            json(&entry::detail(&*open()?, &a.id)?)
        }
        "list_sessions" => json(&library::list(state, args::<ListArgs>(command, body)?.search.as_deref())),
        "search_index" => json(&search::bring_up_to_date(state, &sends(progress))?),
        "search_sessions" => {
            let a: SearchArgs = args(command, body)?;
            json(&search::search(state, &a.query, a.limit)?)
        }
        "budget" => {
            let a: BudgetArgs = args(command, body)?;
            json(&budget::budget(&state.env(), &*open()?, a.leaf_id.as_deref(), a.window)?)
        }
        "compaction_preview" => {
            let a: PlanArgs = args(command, body)?;
            compaction::preview(&state.env(), &*open()?, a.leaf_id.as_deref(), a.keep_recent, a.instructions).map(Answer::Json)
        }
        "compaction_requests" => {
            let a: CompactionArgs = args(command, body)?;
            compaction::requests(&*open()?, &a.compaction_id).map(Answer::Json)
        }
        "usage_report" => compaction::usage(&state.env(), &*open()?).map(Answer::Json),
        "weight_report" => {
            let a: WeightArgs = args(command, body)?;
            compaction::weight(&*open()?, a.leaf_id.as_deref(), a.top).map(Answer::Json)
        }
        "settings" => json(&settings::view(&state.env())),
        "home_dir" => json(&settings::home_dir(&state.env())),
        "save_settings" => json(&settings::save(&state.env(), &args::<SettingsArgs>(command, body)?.settings)?),
        "providers" => json(&write::providers(state)?),
        "cancel_summary" => json(&writes.cancel()),
        "compact" => {
            let a: CompactArgs = args(command, body)?;
            let send = sends(progress);
            json(&write::compact::compact(state, writes, a, &mut |p| send(p))?)
        }
        "navigate_preview" => {
            let a: NavigatePreviewArgs = args(command, body)?;
            write::navigate::navigate_preview(&state.env(), &*open()?, &a.target_id, a.summarize, a.instructions).map(Answer::Json)
        }
        "navigate" => {
            let a: NavigateArgs = args(command, body)?;
            let send = sends(progress);
            json(&write::navigate::navigate(state, writes, a, &mut |p| send(p))?)
        }
        "prune_preview" => {
            let leaf = leaf()?;
            write::prune::prune_preview(&*open()?, leaf.as_deref()).map(Answer::Json)
        }
        "prune" => json(&write::prune::prune(state, writes, leaf()?.as_deref())?),
        "edit_summary_preview" => {
            let a: CompactionArgs = args(command, body)?;
            json(&write::edit::edit_summary_preview(&*open()?, &a.compaction_id)?)
        }
        "edit_summary" => {
            let a: EditArgs = args(command, body)?;
            json(&write::edit::edit_summary(state, writes, &a.compaction_id, &a.summary)?)
        }
        "undo_compaction_preview" => {
            let a: CompactionArgs = args(command, body)?;
            json(&write::edit::undo_compaction_preview(&*open()?, &a.compaction_id)?)
        }
        "undo_compaction" => json(&write::edit::undo_compaction(state, writes, &args::<CompactionArgs>(command, body)?.compaction_id)?),
        other => Err(CommandError::Internal(format!("`{other}` is listed in COMMANDS but not run"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every listed command is run by `run` (none falls to the last arm), and unknown ones are
    /// left to the face.
    #[test]
    fn every_listed_command_is_run() {
        let state = AppState::new(None);
        let writes = WriteState::default();
        for command in COMMANDS {
            if WRITES.contains(command) || *command == "search_index" || *command == "list_sessions" {
                continue; // these touch the user's folders; the faces' tests run them
            }
            let answer = call(&state, &writes, command, &serde_json::json!({}), &|_| {}).unwrap();
            if let Err(CommandError::Internal(message)) = &answer {
                assert!(!message.contains("not run"), "{command}: {message}");
            }
        }
        assert!(call(&state, &writes, "open_session", &Value::Null, &|_| {}).is_none());
        assert!(call(&state, &writes, "rm_rf", &Value::Null, &|_| {}).is_none());
    }

    #[test]
    fn bad_arguments_say_which_command() {
        let state = AppState::new(None);
        let writes = WriteState::default();
        let err = call(&state, &writes, "entry_detail", &serde_json::json!({"id": 3}), &|_| {}).unwrap().unwrap_err();
        let CommandError::InvalidArgument(message) = err else { panic!("{err:?}") };
        assert!(message.contains("entry_detail"), "{message}");
    }
}
