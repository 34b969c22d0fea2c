//! `POST /api/call/<command>`: the UI's commands with the arguments it passes to Tauri's
//! `invoke` (camelCase keys), run on a blocking thread by `contextree_face::calls::call`, which
//! the app's IPC goes through too; only opening a file is the server's own (its roots).
//! Progress (a summary's text, the search index's files) goes to the tab's event stream as
//! `progress` events carrying the number the page sent in place of a channel.

use std::path::PathBuf;

use axum::http::StatusCode;
use contextree_face::CommandError;
use serde::Deserialize;
use serde_json::Value;

use crate::clients::Client;
use crate::Shared;

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

pub use contextree_face::calls::{Answer, WRITES};

/// What the page sends when it reads the refusal (`ui/src/ipc.js` shows it).
pub fn read_only(command: &str) -> String {
    format!("`{command}` writes, and this server was started without --allow-writes: restart `contextree serve --allow-writes` to write")
}

/// Runs `command` for `client` with `body`'s arguments. Blocking.
pub fn call(shared: &Shared, client: &Client, command: &str, body: &Value) -> Result<Answer, Failure> {
    if WRITES.contains(&command) && !shared.allow_writes {
        return Err(Failure::refused(read_only(command)));
    }
    if command == "open_session" {
        return open_session(shared, client, body);
    }
    // The page's stand-in for a channel: the number its progress events carry.
    let stream = body.get("onEvent").or_else(|| body.get("onProgress")).and_then(Value::as_u64);
    let progress = |data: String| {
        if let Some(call) = stream {
            client.send("progress", format!("{{\"call\":{call},\"data\":{data}}}"));
        }
    };
    match contextree_face::calls::call(&client.state, &shared.writes, command, body, &progress) {
        Some(answer) => Ok(answer?),
        None => Err(Failure {
            status: StatusCode::NOT_FOUND,
            body: serde_json::json!({ "kind": "invalid-argument", "message": format!("no command `{command}` here") }),
        }),
    }
}

/// Opens a file under the server's roots (or the demo) as the tab's session; the server's own
/// command, since which files it may open is its to say.
fn open_session(shared: &Shared, client: &Client, body: &Value) -> Result<Answer, Failure> {
    #[derive(Deserialize)]
    struct A {
        path: Option<String>,
        dialect: Option<String>,
    }
    let a: A = A::deserialize(body).map_err(|e| Failure::bad(format!("bad arguments for `open_session`: {e}")))?;
    let path = match a.path {
        Some(p) => Some(shared.roots.check(&p).map_err(|e| Failure::refused(e.to_string()))?.display().to_string()),
        None => None,
    };
    let demo = shared.demo_dir.clone();
    let report = contextree_face::session::open(client.clone(), path, a.dialect, move || demo_dir(demo))?;
    serde_json::value::to_raw_value(&report).map(Answer::Json).map_err(|e| CommandError::Report(e).into())
}

/// Where the demo session is written: the server's own folder, made when first asked.
fn demo_dir(dir: Option<PathBuf>) -> Result<PathBuf, CommandError> {
    dir.ok_or_else(|| CommandError::Internal("no cache folder for the demo session: set HOME or XDG_CACHE_HOME".to_owned()))
}
