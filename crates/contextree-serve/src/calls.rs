//! `POST /api/call/<command>`: the UI's commands with the arguments it passes to Tauri's
//! `invoke` (camelCase keys), each run on a blocking thread by its `contextree-face` function.
//! Progress (a summary's text, the search index's files) goes to the tab's event stream as
//! `progress` events carrying the number the page sent in place of a channel.

use std::path::PathBuf;

use axum::http::StatusCode;
use contextree_face::write::compact::CompactArgs;
use contextree_face::write::navigate::NavigateArgs;
use contextree_face::{context, write, AppState, CommandError};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::clients::Client;
use crate::Shared;

/// A call's answer.
pub enum Answer {
    /// A JSON document.
    Json(Box<RawValue>),
    /// Bytes (the tree table).
    Bytes(Vec<u8>),
}

/// A call's failure: the HTTP status and the `{kind, message}` body.
#[derive(Debug)]
pub struct Failure {
    pub status: StatusCode,
    pub body: Value,
}

impl From<CommandError> for Failure {
    fn from(e: CommandError) -> Self {
        let body = serde_json::to_value(&e).unwrap_or_default();
        Self { status: StatusCode::UNPROCESSABLE_ENTITY, body }
    }
}

impl Failure {
    /// 403 with kind `refused`: the UI shows `message` as it shows a refused write.
    pub fn refused(message: String) -> Self {
        Self { status: StatusCode::FORBIDDEN, body: serde_json::json!({ "kind": "refused", "message": message }) }
    }

    fn bad(message: String) -> Self {
        Self { status: StatusCode::BAD_REQUEST, body: serde_json::json!({ "kind": "invalid-argument", "message": message }) }
    }
}

/// The commands that write: refused unless the server was started with `--allow-writes`.
/// (Saving settings writes contextree's config file, which also says which folders the library
/// lists.)
pub const WRITES: &[&str] = &["compact", "edit_summary", "undo_compaction", "navigate", "prune", "save_settings"];

/// What the page sends when it reads the refusal (`ui/src/ipc.js` shows it).
pub fn read_only(command: &str) -> String {
    format!("`{command}` writes, and this server was started without --allow-writes: restart `contextree serve --allow-writes` to write")
}

/// The arguments, or a 400.
fn args<T: DeserializeOwned>(body: &Value) -> Result<T, Failure> {
    serde_json::from_value(body.clone()).map_err(|e| Failure::bad(format!("bad arguments: {e}")))
}

fn json<T: serde::Serialize>(value: &T) -> Result<Answer, Failure> {
    serde_json::value::to_raw_value(value).map(Answer::Json).map_err(|e| CommandError::Report(e).into())
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Leaf {
    leaf_id: Option<String>,
}

/// Runs `command` for `client` with `body`'s arguments. Blocking.
pub fn call(shared: &Shared, client: &Client, command: &str, body: &Value) -> Result<Answer, Failure> {
    if WRITES.contains(&command) && !shared.allow_writes {
        return Err(Failure::refused(read_only(command)));
    }
    let state: &AppState = &client.state;
    // The page's stand-in for a channel: the number its progress events carry.
    let stream = body.get("onEvent").or_else(|| body.get("onProgress")).and_then(Value::as_u64);
    let progress = |data: String| {
        if let Some(call) = stream {
            client.send("progress", format!("{{\"call\":{call},\"data\":{data}}}"));
        }
    };
    let open = || state.session().map_err(Failure::from);
    match command {
        "open_session" => {
            #[derive(Deserialize)]
            struct A {
                path: Option<String>,
                dialect: Option<String>,
            }
            let a: A = args(body)?;
            let path = match a.path {
                Some(p) => Some(shared.roots.check(&p).map_err(|e| Failure::refused(e.to_string()))?.display().to_string()),
                None => None,
            };
            let demo = shared.demo_dir.clone();
            json(&contextree_face::session::open(client.clone(), path, a.dialect, move || demo_dir(demo))?)
        }
        "startup_leaf" => json(&contextree_face::session::startup_leaf(state)?),
        "tree_table" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct A {
                leaf_id: Option<String>,
                reading: Option<u32>,
            }
            let a: A = args(body)?;
            Ok(Answer::Bytes(contextree_face::tree::table(&*open()?, a.leaf_id.as_deref(), a.reading)?))
        }
        "row_previews" => {
            #[derive(Deserialize)]
            struct A {
                ids: Vec<String>,
            }
            let a: A = args(body)?;
            json(&contextree_face::tree::row_previews(&*open()?, &a.ids))
        }
        "context_view" => Ok(Answer::Json(context::view(&*open()?, args::<Leaf>(body)?.leaf_id.as_deref())?)),
        "token_counts" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct A {
                leaf_id: Option<String>,
                tokenizer: String,
            }
            let a: A = args(body)?;
            json(&context::token_counts(&*open()?, a.leaf_id.as_deref(), &a.tokenizer)?)
        }
        "message_text" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct A {
                leaf_id: Option<String>,
                index: usize,
            }
            let a: A = args(body)?;
            json(&context::message_text(&*open()?, a.leaf_id.as_deref(), a.index)?)
        }
        "export_context" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct A {
                leaf_id: Option<String>,
                format: String,
            }
            let a: A = args(body)?;
            let format: context::export::Format = a.format.parse()?;
            json(&context::export_text(&*open()?, a.leaf_id.as_deref(), format)?)
        }
        "compare_view" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct A {
                leaf_a: Option<String>,
                leaf_b: Option<String>,
            }
            let a: A = args(body)?;
            Ok(Answer::Json(contextree_face::compare::view(&*open()?, a.leaf_a.as_deref(), a.leaf_b.as_deref())?))
        }
        "entry_detail" => {
            #[derive(Deserialize)]
            struct A {
                id: String,
            }
            json(&contextree_face::entry::detail(&*open()?, &args::<A>(body)?.id)?)
        }
        "list_sessions" => {
            #[derive(Deserialize, Default)]
            #[serde(default)]
            struct A {
                search: Option<String>,
            }
            json(&contextree_face::library::list(state, args::<A>(body)?.search.as_deref()))
        }
        "search_index" => json(&contextree_face::search::bring_up_to_date(state, &|p| {
            progress(serde_json::to_string(&p).unwrap_or_default());
        })?),
        "search_sessions" => {
            #[derive(Deserialize)]
            struct A {
                query: String,
                limit: Option<usize>,
            }
            let a: A = args(body)?;
            json(&contextree_face::search::search(state, &a.query, a.limit)?)
        }
        "budget" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct A {
                leaf_id: Option<String>,
                window: Option<u64>,
            }
            let a: A = args(body)?;
            json(&contextree_face::budget::budget(&state.env(), &*open()?, a.leaf_id.as_deref(), a.window)?)
        }
        "compaction_preview" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct A {
                leaf_id: Option<String>,
                keep_recent: Option<u64>,
                instructions: Option<String>,
            }
            let a: A = args(body)?;
            let env = state.env();
            Ok(Answer::Json(contextree_face::compaction::preview(&env, &*open()?, a.leaf_id.as_deref(), a.keep_recent, a.instructions)?))
        }
        "compaction_requests" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct A {
                compaction_id: String,
            }
            Ok(Answer::Json(contextree_face::compaction::requests(&*open()?, &args::<A>(body)?.compaction_id)?))
        }
        "usage_report" => Ok(Answer::Json(contextree_face::compaction::usage(&state.env(), &*open()?)?)),
        "weight_report" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct A {
                leaf_id: Option<String>,
                top: Option<usize>,
            }
            let a: A = args(body)?;
            Ok(Answer::Json(contextree_face::compaction::weight(&*open()?, a.leaf_id.as_deref(), a.top)?))
        }
        "settings" => json(&contextree_face::settings::view(&state.env())),
        "home_dir" => json(&contextree_face::settings::home_dir(&state.env())),
        "save_settings" => {
            #[derive(Deserialize)]
            struct A {
                settings: contextree_face::settings::AppSettings,
            }
            json(&contextree_face::settings::save(&state.env(), &args::<A>(body)?.settings)?)
        }
        "providers" => json(&write::providers(state)?),
        "cancel_summary" => json(&shared.writes.cancel()),
        "compact" => {
            let a: CompactArgs = args(body)?;
            json(&write::compact::compact(state, &shared.writes, a, &mut |p| progress(serde_json::to_string(&p).unwrap_or_default()))?)
        }
        "navigate_preview" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct A {
                target_id: String,
                summarize: bool,
                instructions: Option<String>,
            }
            let a: A = args(body)?;
            let env = state.env();
            Ok(Answer::Json(write::navigate::navigate_preview(&env, &*open()?, &a.target_id, a.summarize, a.instructions)?))
        }
        "navigate" => {
            let a: NavigateArgs = args(body)?;
            json(&write::navigate::navigate(state, &shared.writes, a, &mut |p| progress(serde_json::to_string(&p).unwrap_or_default()))?)
        }
        "prune_preview" => Ok(Answer::Json(write::prune::prune_preview(&*open()?, args::<Leaf>(body)?.leaf_id.as_deref())?)),
        "prune" => json(&write::prune::prune(state, &shared.writes, args::<Leaf>(body)?.leaf_id.as_deref())?),
        "edit_summary_preview" | "undo_compaction_preview" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct A {
                compaction_id: String,
            }
            let id = args::<A>(body)?.compaction_id;
            if command == "edit_summary_preview" {
                json(&write::edit::edit_summary_preview(&*open()?, &id)?)
            } else {
                json(&write::edit::undo_compaction_preview(&*open()?, &id)?)
            }
        }
        "edit_summary" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct A {
                compaction_id: String,
                summary: String,
            }
            let a: A = args(body)?;
            json(&write::edit::edit_summary(state, &shared.writes, &a.compaction_id, &a.summary)?)
        }
        "undo_compaction" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct A {
                compaction_id: String,
            }
            json(&write::edit::undo_compaction(state, &shared.writes, &args::<A>(body)?.compaction_id)?)
        }
        other => Err(Failure {
            status: StatusCode::NOT_FOUND,
            body: serde_json::json!({ "kind": "invalid-argument", "message": format!("no command `{other}` here") }),
        }),
    }
}

/// Where the demo session is written: the server's own folder, made when first asked.
fn demo_dir(dir: Option<PathBuf>) -> Result<PathBuf, CommandError> {
    dir.ok_or_else(|| CommandError::Internal("no cache folder for the demo session: set HOME or XDG_CACHE_HOME".to_owned()))
}
