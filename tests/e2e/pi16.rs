//! A pi 1.6 session (`tests/fixtures/pi16/g16-small-s7.jsonl`: a system message first, a
//! `context_edit` that hides the failed reply at the leaf and one that replaces a message):
//! - the title bar names the rule set `pi@1.6` and says why (the file shows system messages;
//!   no pi is installed for the app, so the file decides);
//! - the context panel shows the system prompt first (before the messages), with the sections
//!   and tools the CLI's context reports for the replayed system message;
//! - the entry the CLI's tree calls `hidden` is a row in the `hidden` state, and the replaced
//!   message carries the edit's id in the context panel.
//!
//! The app is started through a launcher that points `CONTEXTREE_PI_PACKAGE` at a folder
//! without a package, so no installed pi on the machine decides the rules.

use anyhow::{ensure, Context as _};
use serde_json::{json, Value};

use crate::steps::{cli, json_output};
use crate::{screenshot, text_content, wait_for, wait_until_ready, with_app_in, Harness};

pub async fn a_pi16_session_shows_the_system_prompt_first_and_the_edits(harness: &Harness) -> anyhow::Result<()> {
    let base = harness.scratch.join("pi16");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base)?;
    let session = base.join("g16-small-s7.jsonl");
    std::fs::copy(harness.root.join("tests/fixtures/pi16/g16-small-s7.jsonl"), &session)?;
    let no_package = base.join("no-pi-installed");
    let launcher = base.join("contextree-app.sh");
    std::fs::write(
        &launcher,
        format!("#!/bin/sh\nexec env CONTEXTREE_PI_PACKAGE='{}' '{}' \"$@\"\n", no_package.display(), harness.app.display()),
    )?;
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755))?;
    }

    // What the CLI says, under the same conditions.
    let run = |sub: &str| -> anyhow::Result<Value> {
        let mut cmd = std::process::Command::new(cli(harness));
        cmd.arg(sub).arg(&session).args(["--json", "--prompts", "own"]).env("CONTEXTREE_PI_PACKAGE", &no_package);
        json_output(&mut cmd, sub)
    };
    let tree = run("tree")?;
    let context = run("context")?;
    ensure!(tree["ruleSet"]["name"] == "pi@1.6", "the CLI chose {}", tree["ruleSet"]);
    let why = tree["ruleSet"]["why"].as_str().context("no why")?.to_owned();
    let hidden: Vec<String> = tree["rows"]
        .as_array()
        .context("no rows")?
        .iter()
        .filter(|r| r["state"] == "hidden")
        .filter_map(|r| r["id"].as_str().map(str::to_owned))
        .collect();
    ensure!(!hidden.is_empty(), "the fixture has no hidden entry at its leaf");
    let first_role = context["messages"][0]["role"].as_str().unwrap_or_default().to_owned();
    ensure!(first_role == "system", "the CLI's context starts with {first_role}");

    with_app_in(harness, &launcher, &[session.display().to_string()], async |client| {
        wait_until_ready(client).await?;
        // The rule set and why, in the title bar.
        let badge = text_content(client, "session-dialect").await?;
        ensure!(badge == "rules: pi@1.6", "title bar shows `{badge}`");
        let title = client.execute("return document.getElementById('session-dialect').title;", vec![]).await?;
        let title = title.as_str().unwrap_or_default();
        ensure!(title.contains("pi 1.6.0") && title.contains(&why), "the badge's title `{title}` does not say why ({why})");
        let switch = client.execute("return document.getElementById('session-rules').value;", vec![]).await?;
        ensure!(switch == json!(""), "the rule-set switch shows {switch} (detected expected)");

        // The system prompt first, then the messages.
        wait_for(client, "the system block", "return !!document.getElementById('context-system');").await?;
        let order = client
            .execute(
                "const c = document.getElementById('context'); \
                 const s = document.getElementById('context-system'), m = document.getElementById('context-messages'); \
                 return [!!(s.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING), \
                         s.querySelector('.system-title').textContent, \
                         Array.from(s.querySelectorAll('.system-section'), (d) => d.dataset.section), \
                         Array.from(s.querySelectorAll('.system-section'), (d) => d.open), \
                         s.querySelectorAll('.system-tool').length, \
                         Array.from(document.querySelectorAll('#context-messages .message.edited'), (e) => e.dataset.editedBy), \
                         document.getElementById('context-edits') ? document.getElementById('context-edits').textContent : ''];",
                vec![],
            )
            .await?;
        ensure!(order[0] == json!(true), "the system block does not come before the messages");
        let heading = order[1].as_str().unwrap_or_default();
        ensure!(heading.starts_with("system prompt"), "system block heading `{heading}`");
        let sections = order[2].as_array().map_or(0, Vec::len);
        ensure!(sections > 0, "no sections shown");
        ensure!(order[3].as_array().is_some_and(|o| o.iter().all(|v| v == false)), "sections are not folded: {}", order[3]);
        ensure!(order[4].as_u64().unwrap_or(0) > 0, "no tools shown");
        let edited: Vec<&str> = order[5].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        ensure!(!edited.is_empty(), "no message carries its edit");
        ensure!(order[6].as_str().is_some_and(|t| t.contains("hides")), "edits line `{}`", order[6]);

        // The hidden entry is a row in the `hidden` state.
        let states = client
            .execute("return Array.from(document.querySelectorAll('#tree-rows .row.state-hidden'), (r) => r.dataset.entryId);", vec![])
            .await?;
        let shown: Vec<&str> = states.as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        ensure!(hidden.iter().all(|h| shown.contains(&h.as_str())), "hidden rows {shown:?}, the CLI says {hidden:?}");
        screenshot(harness, client, "pi16-context.png").await
    })
    .await
}
