//! The write flows of the app, end to end, each on a copy of a fixture in the scratch folder:
//! - compaction: `c` previews, Enter opens Compact…, a provider typed into the form (a fake
//!   OpenAI-compatible server on 127.0.0.1 that streams its answer slowly), the confirmation
//!   names the file and the leaf, the summary streams into the dialog (`compaction-running.png`),
//!   the new entry becomes the file's leaf and the selected row, the diff shows messages removed
//!   and the summary added (`compaction-diff.png`), and the CLI reads the file with the new
//!   summary first;
//! - prune: on an omp copy of `edge-prune.jsonl`, `p` previews exactly the outputs omp prunes
//!   (the golden file's), outlined in the tree (`prune-preview.png`); after the confirmation the
//!   file is rewritten, the backup holds the original bytes, and the CLI's context tokens drop by
//!   the golden saving;
//! - navigate: a leaf on another branch, `n`, a branch summary from the fake provider: the
//!   preview outlines the abandoned entries and shows the exact prompt (`navigate-summary.png`);
//!   the file gets a `branch_summary` line under the target, which is the file's new leaf;
//! - Cancel while a (slow) summary streams: kind `cancelled`, the file untouched, "Start over";
//!   a line appended by an agent meanwhile: kind `changed`, the view reloads, "Preview again";
//! - edit the summary of the compaction in effect (a corrected copy with the same boundary,
//!   `fromHook`), then undo it (a `contextree-continue` marker under the entry before it).

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _};
use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use serde_json::{json, Value};

use crate::fake_provider::{FakeProvider, SLOW_PIECE_DELAY};
use crate::main_screen::OTHER_LEAF;
use crate::steps::{append_user_message, cli_json, open_plan};
use crate::{
    all_row_ids, click_row, find_and_click_row, press_key, screenshot, scroll_tree_to_row, shown, text_content, wait_for, wait_for_element,
    wait_for_leaf, wait_until_ready, with_app, Harness,
};

/// Like `wait_for`, with a longer deadline (a summary streams for seconds).
pub async fn wait_long(client: &Client, what: &str, script: &str, secs: u64) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if client.execute(script, vec![]).await? == json!(true) {
            return Ok(());
        }
        if Instant::now() > deadline {
            let state = client
                .execute(
                    "return [document.body.dataset.write ?? '', \
                     document.getElementById('write-dialog')?.textContent ?? '', \
                     document.getElementById('status')?.textContent ?? ''];",
                    vec![],
                )
                .await?;
            bail!("timed out waiting for: {what}; write state, dialog, status: {state}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits for `body[data-write]` to be `state`; an `error` step fails at once with its text.
pub async fn wait_for_write(client: &Client, state: &str, secs: u64) -> anyhow::Result<()> {
    let script = format!(
        "const s = document.body.dataset.write; \
         if (s === 'error' && {state:?} !== 'error') return 'error: ' + \
           (document.getElementById('write-error')?.textContent ?? ''); \
         return s === {state:?};"
    );
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let v = client.execute(&script, vec![]).await?;
        if v == json!(true) {
            return Ok(());
        }
        if let Some(err) = v.as_str() {
            bail!("the write failed while waiting for `{state}`: {err}");
        }
        if Instant::now() > deadline {
            let now = client.execute("return document.body.dataset.write ?? null;", vec![]).await?;
            bail!("write step `{now}` after {secs} s, waiting for `{state}`");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub async fn click(client: &Client, id: &str) -> anyhow::Result<()> {
    wait_for_element(client, &format!("#{id}")).await?.click().await.with_context(|| format!("clicking #{id}"))
}

/// Types the fake provider into the form's summary source.
async fn type_provider(client: &Client, provider: &FakeProvider) -> anyhow::Result<()> {
    // "typed in…" in the source select; its change event shows the provider's fields.
    wait_for_element(client, "#write-source-mode").await?;
    client
        .execute(
            "const s = document.getElementById('write-source-mode'); s.value = 'custom'; \
             s.dispatchEvent(new Event('change', { bubbles: true }));",
            vec![],
        )
        .await?;
    client.find(Locator::Id("write-provider-model")).await?.send_keys("fake-model").await?;
    client.find(Locator::Id("write-provider-url")).await?.send_keys(&provider.base_url).await?;
    Ok(())
}

/// From the plan panel: Compact…, the form (with `provider` typed in, else as it was left),
/// Next, Apply, until the summary's text streams into the dialog.
async fn apply_compaction_until_it_streams(client: &Client, provider: Option<&FakeProvider>) -> anyhow::Result<()> {
    click(client, "write-open-compact").await?;
    wait_for_write(client, "form", 10).await?;
    if let Some(provider) = provider {
        type_provider(client, provider).await?;
    }
    click(client, "write-next").await?;
    wait_for_write(client, "confirm", 10).await?;
    click(client, "write-apply").await?;
    wait_long(
        client,
        "streamed summary text",
        "return Array.from(document.querySelectorAll('#write-progress .write-stream'))\
           .some((pre) => pre.textContent !== '');",
        20,
    )
    .await
}

/// The lines `after` has beyond `before`, which must be its untouched prefix.
pub fn appended_lines(before: &[u8], after: &[u8]) -> anyhow::Result<Vec<Value>> {
    ensure!(after.len() > before.len() && after.starts_with(before), "the old bytes are not an untouched prefix of the file");
    String::from_utf8(after[before.len()..].to_vec())?
        .lines()
        .map(|line| serde_json::from_str(line).context("an appended line is not JSON"))
        .collect()
}

/// A fresh copy of `fixture` at `dest` (any older one removed).
pub fn copy_fixture(fixture: &Path, dest: &Path) -> anyhow::Result<PathBuf> {
    if let Some(dir) = dest.parent() {
        if dir.exists() {
            std::fs::remove_dir_all(dir)?;
        }
        std::fs::create_dir_all(dir)?;
    }
    std::fs::copy(fixture, dest).with_context(|| format!("copying {} to {}", fixture.display(), dest.display()))?;
    Ok(std::fs::canonicalize(dest)?)
}

/// The ids of the tree rows on screen carrying `class`.
async fn rows_with_class(client: &Client, class: &str) -> anyhow::Result<Vec<String>> {
    let ids = client
        .execute(
            "return Array.from(document.querySelectorAll('#tree-rows .row.' + arguments[0]), \
             (row) => row.dataset.entryId);",
            vec![json!(class)],
        )
        .await?;
    Ok(serde_json::from_value(ids)?)
}

/// `c`, Enter, a typed provider, confirm, watch the summary stream, then the diff and the CLI.
pub async fn compaction_runs_against_a_fake_provider_and_shows_the_diff(harness: &Harness) -> anyhow::Result<()> {
    let provider = FakeProvider::start()?;
    let file = copy_fixture(&harness.root.join("demo/demo-session.jsonl"), &harness.scratch.join("writes-compact/session.jsonl"))?;
    let before = std::fs::read(&file)?;
    let plan = cli_json(harness, "compact", &file, &["--dry-run", "--prompts", "own"])?;
    let leaf = plan["leafId"].as_str().context("no leafId in the dry run")?.to_owned();
    let args = [file.display().to_string()];
    with_app(harness, &args, async |client| {
        wait_until_ready(client).await?;
        wait_for_leaf(client, &leaf).await?;
        open_plan(client).await?;
        client.execute("document.getElementById('tree').focus();", vec![]).await?;
        press_key(client, Key::Enter.into()).await?;
        wait_for_write(client, "form", 10).await?;
        client.find(Locator::Id("write-instructions")).await?.send_keys("Mention the e2e test.").await?;
        type_provider(client, &provider).await?;
        click(client, "write-next").await?;
        wait_for_write(client, "confirm", 10).await?;
        let confirm = text_content(client, "write-confirm").await?;
        for words in [
            format!("Append one line to {}", shown(harness, &file)),
            format!("\"compaction\" entry under the leaf {leaf}"),
            "fake-model".to_owned(),
            "Mention the e2e test.".to_owned(),
        ] {
            ensure!(confirm.contains(&words), "the confirmation does not say `{words}`: {confirm}");
        }
        ensure!(std::fs::read(&file)? == before, "the file changed before the confirmation");

        click(client, "write-apply").await?;
        wait_long(
            client,
            "streamed summary text",
            "return document.body.dataset.write === 'running' && Array.from(\
               document.querySelectorAll('#write-progress .write-stream'))\
               .some((pre) => pre.textContent.includes('Fake provider summary'));",
            20,
        )
        .await?;
        screenshot(harness, client, "compaction-running.png").await?;
        wait_for_write(client, "done", 90).await?;

        // The file: one compaction line under the old leaf, with the streamed text.
        let after = std::fs::read(&file)?;
        let lines = appended_lines(&before, &after)?;
        ensure!(lines.len() == 1, "{} lines appended", lines.len());
        let entry = &lines[0];
        ensure!(entry["type"] == "compaction", "appended {entry}");
        ensure!(entry["parentId"] == json!(leaf), "the entry is not under the leaf: {entry}");
        let id = entry["id"].as_str().context("no id")?.to_owned();
        let summary = entry["summary"].as_str().unwrap_or_default();
        ensure!(
            summary.starts_with("## Goal\nFake provider summary for the contextree end-to-end test."),
            "the summary is not the streamed text: {summary:?}"
        );
        let asked = provider.bodies();
        ensure!(!asked.is_empty() && asked.iter().all(|b| b["model"] == "fake-model"), "requests: {asked:?}");
        ensure!(asked.iter().any(|b| b.to_string().contains("Mention the e2e test.")), "the custom instructions were not sent");

        // The app: the new entry is the leaf and the selected row; the diff is on screen.
        wait_for_leaf(client, &id).await?;
        let selected =
            client.execute("return document.querySelector('#tree-rows .row.selected')?.dataset.entryId ?? null;", vec![]).await?;
        ensure!(selected == json!(id), "selected row {selected}, not the new entry {id}");
        let diff = client
            .execute(
                "return { summary: document.getElementById('write-diff-summary')?.textContent ?? '', \
                 removed: document.querySelectorAll('#write-diff .diff-removed').length, \
                 added: Array.from(document.querySelectorAll('#write-diff .diff-added'), (li) => li.dataset.entryId) };",
                vec![],
            )
            .await?;
        ensure!(diff["removed"].as_u64().unwrap_or(0) > 0, "no removed message in the diff: {diff}");
        ensure!(diff["added"] == json!([id]), "the diff adds {}, not the summary {id}", diff["added"]);
        ensure!(
            diff["summary"].as_str().is_some_and(|s| s.contains(" removed · 1 added · ") && s.contains("tokens ")),
            "diff headline: {diff}"
        );
        screenshot(harness, client, "compaction-diff.png").await?;

        // The CLI reads the file with the new summary first.
        let ctx = cli_json(harness, "context", &file, &["--prompts", "own"])?;
        ensure!(ctx["leafId"] == json!(id), "the CLI's leaf is {}", ctx["leafId"]);
        ensure!(
            ctx["messages"][0]["role"] == "compactionSummary" && ctx["messages"][0]["entryId"] == json!(id),
            "the CLI's context does not start with the new summary: {}",
            ctx["messages"][0]
        );
        click(client, "write-close").await?;
        wait_for(client, "the dialog closed", "return !document.body.dataset.write;").await
    })
    .await
}

/// `p` on an omp file: the golden prune set is outlined; confirm; backup and fewer tokens.
pub async fn prune_previews_the_outputs_and_rewrites_with_a_backup(harness: &Harness) -> anyhow::Result<()> {
    let golden: Value = serde_json::from_str(&std::fs::read_to_string(harness.root.join("tests/golden/edge-prune.omp.json"))?)?;
    let mut expected: Vec<String> = golden["prune"]["pruned"]
        .as_array()
        .context("golden: no prune.pruned")?
        .iter()
        .filter_map(|p| p["entryId"].as_str().map(str::to_owned))
        .collect();
    expected.sort();
    let saved = golden["prune"]["result"]["tokensSaved"].as_u64().context("golden: no tokensSaved")?;
    // Under `.omp/`: the path tells the app (and the CLI) that omp wrote it.
    let fixture = harness.root.join("tests/fixtures/edge/edge-prune.jsonl");
    let file = copy_fixture(&fixture, &harness.scratch.join("writes-prune/.omp/agent/sessions/e2e/edge-prune.jsonl"))?;
    let original = std::fs::read(&file)?;
    let before = cli_json(harness, "context", &file, &["--prompts", "own"])?;
    ensure!(before["dialect"] == "omp", "the copy does not read as omp: {}", before["dialect"]);
    let tokens_before = before["messageTokens"].as_u64().context("no messageTokens")?;
    let args = [file.display().to_string()];
    with_app(harness, &args, async |client| {
        wait_until_ready(client).await?;
        let dialect = text_content(client, "session-dialect").await?;
        ensure!(dialect.contains("omp"), "the app reads the copy as `{dialect}`");
        // The golden prune is oh-my-pi 13.19's (omp 18's cache-warm guard prunes nothing here).
        use_rules(client, "omp@13").await?;
        client.execute("document.getElementById('tree').focus();", vec![]).await?;
        press_key(client, 'p').await?;
        wait_for_write(client, "preview", 10).await?;
        let lines = text_content(client, "write-lines").await?;
        ensure!(lines.contains(&format!("saves {}", group(saved))), "the preview does not say it saves {saved}: {lines}");
        // The pruned outputs are near the top of the tree (the dialog covers it, not its classes).
        scroll_tree_to_row(client, 0).await?;
        let mut outlined = rows_with_class(client, "write-pruned").await?;
        outlined.sort();
        ensure!(outlined == expected, "outlined rows {outlined:?}, omp prunes {expected:?}");
        screenshot(harness, client, "prune-preview.png").await?;

        click(client, "write-next").await?;
        wait_for_write(client, "confirm", 10).await?;
        let confirm = text_content(client, "write-confirm").await?;
        ensure!(
            confirm.contains(&format!("Rewrite {} in place", shown(harness, &file)))
                && confirm.contains(&format!("backup at {}.bak-", shown(harness, &file))),
            "the confirmation does not say rewrite + backup: {confirm}"
        );
        ensure!(std::fs::read(&file)? == original, "the file changed before the confirmation");
        click(client, "write-apply").await?;
        wait_for_write(client, "done", 30).await?;
        let result = text_content(client, "write-lines").await?;

        // The backup holds the original bytes; the dialog names it.
        let dir = file.parent().unwrap();
        let backups: Vec<PathBuf> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("edge-prune.jsonl.bak-")))
            .collect();
        ensure!(backups.len() == 1, "backups: {backups:?}");
        ensure!(std::fs::read(&backups[0])? == original, "the backup is not the original");
        ensure!(result.contains(&format!("backup at {}", shown(harness, &backups[0]))), "the result does not name the backup: {result}");
        let after = cli_json(harness, "context", &file, &["--prompts", "own"])?;
        let tokens_after = after["messageTokens"].as_u64().context("no messageTokens")?;
        ensure!(tokens_before - tokens_after == saved, "the CLI's tokens went {tokens_before} → {tokens_after}, omp saves {saved}");
        let headline = text_content(client, "write-diff-summary").await?;
        ensure!(headline.starts_with(&format!("{} removed · {} added", expected.len(), expected.len())), "diff headline: {headline}");
        Ok(())
    })
    .await
}

/// `1,234` grouping as the UI prints numbers.
fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Select a leaf on another branch, `n`, summarize with the fake provider: preview, confirm,
/// the branch summary under the target becomes the file's leaf.
pub async fn navigate_with_a_summary_appends_a_branch_summary(harness: &Harness) -> anyhow::Result<()> {
    let provider = FakeProvider::start()?;
    let file = copy_fixture(&harness.root.join("demo/demo-session.jsonl"), &harness.scratch.join("writes-navigate/session.jsonl"))?;
    let before = std::fs::read(&file)?;
    let branch = cli_json(harness, "branch", &file, &["--to", OTHER_LEAF])?;
    let args = [file.display().to_string()];
    with_app(harness, &args, async |client| {
        wait_until_ready(client).await?;
        let rows = find_and_click_row(client, OTHER_LEAF).await?;
        client.execute("document.getElementById('tree').focus();", vec![]).await?;
        press_key(client, 'n').await?;
        wait_for_write(client, "form", 10).await?;
        let summarize = client.execute("return document.getElementById('write-summarize')?.checked ?? null;", vec![]).await?;
        ensure!(summarize == json!(true), "a summary is not the default: {summarize}");
        type_provider(client, &provider).await?;
        click(client, "write-next").await?;
        wait_for_write(client, "preview", 10).await?;
        let target = rows_with_class(client, "write-target").await?;
        ensure!(target == [OTHER_LEAF], "target outline on {target:?}");
        // The first entry of the branch left behind (the CLI's `branch`) is outlined.
        let left = branch["entryIds"][0].as_str().context("the CLI's branch has no entries")?;
        let at = rows.iter().position(|id| id == left).context("no row for the abandoned entry")?;
        scroll_tree_to_row(client, at).await?;
        let abandoned = rows_with_class(client, "write-abandoned").await?;
        ensure!(abandoned.iter().any(|id| id == left), "{left} is not outlined: {abandoned:?}");
        let prompt = client
            .execute(
                "const d = document.querySelector('#write-body details.write-prompt'); if (!d) return null; \
                 d.open = true; return d.querySelectorAll('pre')[1].textContent;",
                vec![],
            )
            .await?;
        ensure!(prompt.as_str().is_some_and(|p| !p.is_empty()), "no exact prompt in the preview: {prompt}");
        let lines = text_content(client, "write-lines").await?;
        ensure!(lines.contains("abandoned"), "preview lines: {lines}");
        tokio::time::sleep(Duration::from_millis(300)).await;
        screenshot(harness, client, "navigate-summary.png").await?;

        click(client, "write-next").await?;
        wait_for_write(client, "confirm", 10).await?;
        let confirm = text_content(client, "write-confirm").await?;
        ensure!(confirm.contains("\"branch_summary\" entry under") && confirm.contains("fake-model"), "confirmation: {confirm}");
        ensure!(std::fs::read(&file)? == before, "the file changed before the confirmation");
        click(client, "write-apply").await?;
        wait_for_write(client, "done", 90).await?;

        let lines = appended_lines(&before, &std::fs::read(&file)?)?;
        let summary =
            lines.iter().find(|l| l["type"] == "branch_summary").with_context(|| format!("no branch_summary appended: {lines:?}"))?;
        ensure!(summary["parentId"] == OTHER_LEAF, "the summary is under {}", summary["parentId"]);
        ensure!(
            summary["summary"].as_str().is_some_and(|s| s.contains("Fake provider summary")),
            "the summary is not the streamed text: {summary}"
        );
        let id = lines.last().unwrap()["id"].as_str().context("no id")?.to_owned();
        let info = cli_json(harness, "context", &file, &["--prompts", "own"])?;
        ensure!(info["leafId"] == json!(id), "the CLI's leaf is {}, not {id}", info["leafId"]);
        wait_for_leaf(client, &id).await?;
        Ok(())
    })
    .await
}

/// Cancel while the summary streams: the error step says nothing was written, and it was not;
/// "Start over" brings the form back. Then a line appended by "an agent" while the summary
/// streams makes the write fail with `changed` and the view reload.
pub async fn a_cancelled_or_outdated_summary_writes_nothing(harness: &Harness) -> anyhow::Result<()> {
    let provider = FakeProvider::start_with(SLOW_PIECE_DELAY)?;
    let file = copy_fixture(&harness.root.join("demo/demo-session.jsonl"), &harness.scratch.join("writes-cancel/session.jsonl"))?;
    let before = std::fs::read(&file)?;
    let args = [file.display().to_string()];
    with_app(harness, &args, async |client| {
        wait_until_ready(client).await?;
        open_plan(client).await?;
        apply_compaction_until_it_streams(client, Some(&provider)).await?;
        click(client, "write-cancel").await?;
        wait_for_write(client, "error", 20).await?;
        let kind = client.execute("return document.body.dataset.writeError ?? null;", vec![]).await?;
        ensure!(kind == json!("cancelled"), "error kind {kind}");
        let error = text_content(client, "write-error").await?;
        ensure!(error == "Cancelled: nothing was written.", "error text: {error}");
        ensure!(std::fs::read(&file)? == before, "a cancelled compaction wrote to the file");
        click(client, "write-again").await?;
        // The error step stays until the form is drawn again.
        wait_long(client, "the form again", "return document.body.dataset.write === 'form';", 10).await?;
        press_key(client, Key::Escape.into()).await?;
        wait_for(client, "the dialog closed", "return !document.body.dataset.write;").await?;
        ensure!(std::fs::read(&file)? == before, "the file changed");

        // An agent appends while the summary streams (D15): kind `changed`, nothing written by
        // the app, the view reloaded, and "Preview again" shows a fresh plan. The form keeps
        // the provider typed before.
        apply_compaction_until_it_streams(client, None).await?;
        let leaf = client.execute("return document.body.dataset.leaf;", vec![]).await?;
        append_user_message(&file, "e2eagent", &leaf, "appended by an agent meanwhile")?;
        wait_long(client, "the changed error", "return document.body.dataset.write === 'error';", 30).await?;
        let kind = client.execute("return document.body.dataset.writeError ?? null;", vec![]).await?;
        ensure!(kind == json!("changed"), "error kind {kind}");
        let error = text_content(client, "write-error").await?;
        ensure!(error.starts_with("The file changed since it was read: nothing was written."), "error text: {error}");
        let now = std::fs::read(&file)?;
        ensure!(appended_lines(&before, &now)?.len() == 1, "the app wrote to a file that changed");
        wait_for_leaf(client, "e2eagent").await?;
        click(client, "write-again").await?;
        wait_for(client, "a fresh plan", "return !document.body.dataset.write && document.body.dataset.plan === 'open';").await?;
        Ok(())
    })
    .await
}

/// Edit the summary of the compaction in effect (a corrected copy, same boundary, marked as the
/// user's), then undo that compaction (a continue marker under the entry before it).
pub async fn a_summary_is_edited_then_the_compaction_undone(harness: &Harness) -> anyhow::Result<()> {
    const COMPACTION: &str = "53ba030c";
    let file = copy_fixture(&harness.root.join("demo/demo-session.jsonl"), &harness.scratch.join("writes-edit/session.jsonl"))?;
    let original = std::fs::read(&file)?;
    let old: Value = String::from_utf8(original.clone())?
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["id"] == COMPACTION)
        .context("the demo has no compaction 53ba030c")?;
    let file_leaf = cli_json(harness, "context", &file, &["--prompts", "own"])?["leafId"].as_str().context("no leaf")?.to_owned();
    let args = [file.display().to_string()];
    with_app(harness, &args, async |client| {
        wait_until_ready(client).await?;
        let rows = all_row_ids(client).await?;
        let index = rows.iter().position(|id| id == COMPACTION).context("no compaction row")?;
        scroll_tree_to_row(client, index).await?;
        click_row(client, COMPACTION).await?;
        wait_for(client, "edit enabled", "return !document.getElementById('write-open-edit').disabled;").await?;
        client.execute("document.getElementById('tree').focus();", vec![]).await?;
        press_key(client, 'e').await?;
        wait_for_write(client, "form", 10).await?;
        let area = client.find(Locator::Id("write-summary")).await?;
        let prefilled = area.prop("value").await?.unwrap_or_default();
        ensure!(Some(prefilled.as_str()) == old["summary"].as_str(), "the textarea is not the current summary");
        area.clear().await?;
        area.send_keys("A corrected summary, typed in the app.").await?;
        click(client, "write-next").await?;
        wait_for_write(client, "confirm", 10).await?;
        let confirm = text_content(client, "write-confirm").await?;
        ensure!(
            confirm.contains(&format!("same boundary as {COMPACTION}")) && confirm.contains(&format!("under {file_leaf}")),
            "confirmation: {confirm}"
        );
        click(client, "write-apply").await?;
        wait_for_write(client, "done", 30).await?;
        let lines = appended_lines(&original, &std::fs::read(&file)?)?;
        ensure!(lines.len() == 1, "{} lines appended", lines.len());
        let edited = &lines[0];
        ensure!(
            edited["type"] == "compaction"
                && edited["parentId"] == json!(file_leaf)
                && edited["summary"] == "A corrected summary, typed in the app."
                && edited["firstKeptEntryId"] == old["firstKeptEntryId"]
                && edited["tokensBefore"] == old["tokensBefore"]
                && edited["fromHook"] == true,
            "the corrected entry: {edited}"
        );
        let edited_id = edited["id"].as_str().context("no id")?.to_owned();
        wait_for_leaf(client, &edited_id).await?;
        let diff = text_content(client, "write-diff-summary").await?;
        ensure!(diff.starts_with("1 removed · 1 added · "), "diff: {diff}");
        click(client, "write-close").await?;
        wait_for(client, "the dialog closed", "return !document.body.dataset.write;").await?;

        // Undo the corrected compaction: the new entry is selected.
        wait_for(client, "undo enabled", "return !document.getElementById('write-open-undo').disabled;").await?;
        press_key(client, 'u').await?;
        wait_for_write(client, "confirm", 10).await?;
        let confirm = text_content(client, "write-confirm").await?;
        ensure!(confirm.contains(&format!("under {file_leaf}, the entry before the compaction {edited_id}")), "confirmation: {confirm}");
        let before_undo = std::fs::read(&file)?;
        click(client, "write-apply").await?;
        wait_for_write(client, "done", 30).await?;
        let lines = appended_lines(&before_undo, &std::fs::read(&file)?)?;
        ensure!(
            lines.len() == 1
                && lines[0]["type"] == "custom"
                && lines[0]["customType"] == "contextree-continue"
                && lines[0]["parentId"] == json!(file_leaf),
            "the undo marker: {lines:?}"
        );
        let ctx = cli_json(harness, "context", &file, &["--prompts", "own"])?;
        ensure!(
            ctx["leafId"] == lines[0]["id"] && ctx["messages"][0]["entryId"] == COMPACTION,
            "after the undo the CLI's context starts with {} at leaf {}",
            ctx["messages"][0]["entryId"],
            ctx["leafId"]
        );
        Ok(())
    })
    .await
}

/// Re-opens the shown session under `rules` through the title bar's switch (the golden outputs
/// these cases compare with are one release's; with no agent installed the app picks the newest).
async fn use_rules(client: &Client, rules: &str) -> anyhow::Result<()> {
    client
        .execute(
            "const s = document.getElementById('session-rules'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));",
            vec![json!(rules)],
        )
        .await?;
    wait_for(
        client,
        "the rule set switched",
        &format!("return document.getElementById('session-dialect').textContent === 'rules: {rules}' && document.body.dataset.state === 'ready';"),
    )
    .await
}

/// An agent holds the session open for appending (as oh-my-pi does for a session's lifetime):
/// prune's rewrite is refused with kind `held`, the dialog names the program and says nothing
/// was written, and the file keeps its bytes (no backup, no temporary file). Once the holder
/// is gone, "Try again" previews afresh.
pub async fn a_prune_refused_for_a_held_file_says_so_and_writes_nothing(harness: &Harness) -> anyhow::Result<()> {
    let fixture = harness.root.join("tests/fixtures/edge/edge-prune.jsonl");
    let file = copy_fixture(&fixture, &harness.scratch.join("writes-held/.omp/agent/sessions/e2e/edge-prune.jsonl"))?;
    let original = std::fs::read(&file)?;
    // The stand-in agent: a shell holding the file on descriptor 3, opened for appending.
    let mut holder = std::process::Command::new("sh")
        .args(["-c", "exec 3>>\"$1\"; echo ready; exec sleep 120", "sh"])
        .arg(&file)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .context("starting the holder")?;
    let mut ready = String::new();
    BufReader::new(holder.stdout.take().context("holder stdout")?).read_line(&mut ready)?;
    ensure!(ready.trim() == "ready", "the holder did not start: {ready:?}");
    let args = [file.display().to_string()];
    let res = with_app(harness, &args, async |client| {
        wait_until_ready(client).await?;
        // omp 13's rules prune this fixture (omp 18's cache-warm guard would leave it alone).
        use_rules(client, "omp@13").await?;
        client.execute("document.getElementById('tree').focus();", vec![]).await?;
        press_key(client, 'p').await?;
        wait_for_write(client, "preview", 10).await?;
        click(client, "write-next").await?;
        wait_for_write(client, "confirm", 10).await?;
        click(client, "write-apply").await?;
        wait_long(client, "the held error", "return document.body.dataset.write === 'error';", 30).await?;
        let kind = client.execute("return document.body.dataset.writeError ?? null;", vec![]).await?;
        ensure!(kind == json!("held"), "error kind {kind}");
        let error = text_content(client, "write-error").await?;
        ensure!(
            error.starts_with("Another program has the file open for writing, so nothing was written")
                && error.contains(&format!("(pid {})", holder.id())),
            "error text does not name the holder (pid {}): {error}",
            holder.id()
        );
        ensure!(std::fs::read(&file)? == original, "the app wrote to a file an agent holds open");
        let names: Vec<String> = std::fs::read_dir(file.parent().unwrap())?
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect();
        ensure!(names == ["edge-prune.jsonl"], "files left next to the session: {names:?}");
        screenshot(harness, client, "prune-held.png").await?;
        // The agent lets go: trying again previews afresh.
        holder.kill()?;
        holder.wait()?;
        click(client, "write-again").await?;
        // The old error stays on screen until the new preview starts.
        wait_for(client, "the error to go", "return document.body.dataset.write !== 'error';").await?;
        wait_for_write(client, "preview", 10).await
    })
    .await;
    let _ = holder.kill();
    let _ = holder.wait();
    res
}
