//! Steps several cases take alike: asking the CLI (the oracle the app is checked against),
//! appending a line as an agent working on the file meanwhile would, opening the plan panel.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{ensure, Context as _};
use fantoccini::Client;
use serde_json::{json, Value};

use crate::{press_key, wait_for, Harness};

/// The `contextree` CLI built next to the app.
pub fn cli(harness: &Harness) -> PathBuf {
    harness.app.parent().unwrap().join("contextree")
}

/// `contextree SUBCOMMAND FILE ARGS --json` as JSON.
pub fn cli_json(harness: &Harness, sub: &str, file: &Path, args: &[&str]) -> anyhow::Result<Value> {
    let mut command = Command::new(cli(harness));
    command.arg(sub).arg(file).args(args).arg("--json");
    json_output(&mut command, sub)
}

/// What `command` (`contextree SUBCOMMAND …`) prints, as JSON; its stderr when it fails.
pub fn json_output(command: &mut Command, sub: &str) -> anyhow::Result<Value> {
    let out = command.output().with_context(|| format!("running contextree {sub}"))?;
    ensure!(out.status.success(), "contextree {sub} failed: {}", String::from_utf8_lossy(&out.stderr));
    Ok(serde_json::from_slice(&out.stdout)?)
}

/// Appends a user message `id` under `parent` (the leaf, as the page names it) to `file`, one
/// line written and closed as an agent would, while the app watches the file.
pub fn append_user_message(file: &Path, id: &str, parent: &Value, text: &str) -> anyhow::Result<()> {
    let line = json!({
        "type": "message", "id": id, "parentId": parent,
        "timestamp": "2025-11-03T10:00:00.000Z",
        "message": {
            "role": "user",
            "content": [{ "type": "text", "text": text }],
            "timestamp": 1762164000000u64,
        },
    });
    let mut agent = std::fs::OpenOptions::new().append(true).open(file)?;
    writeln!(agent, "{line}")?;
    Ok(())
}

/// `c` in the tree: the compaction plan panel opens.
pub async fn open_plan(client: &Client) -> anyhow::Result<()> {
    press_key(client, 'c').await?;
    wait_for(client, "the plan panel", "return document.body.dataset.plan === 'open';").await
}
