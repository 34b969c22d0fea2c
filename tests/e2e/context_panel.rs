//! The context panel's tools, on the demo session: tokenizer counts beside the dialect's
//! estimate (the total and the sum of the per-message counts equal
//! `contextree context --tokenizer o200k_base`'s), a cut message shown whole on demand, and the
//! context copied as Markdown (one section per message the CLI counts) and as JSON.

use anyhow::{ensure, Context as _};
use fantoccini::{Client, Locator};
use serde_json::{json, Value};

use crate::steps::cli_json;
use crate::{text_content, wait_for, wait_for_leaf, wait_until_ready, with_app, Harness};

pub async fn the_context_panel_counts_shows_all_and_copies(harness: &Harness) -> anyhow::Result<()> {
    let demo = harness.root.join("demo/demo-session.jsonl");
    let leaf = harness.expected.last().unwrap().clone();
    let doc = cli_json(harness, "context", &demo, &["--leaf", &leaf, "--prompts", "own", "--tokenizer", "o200k_base"])?;
    let count = doc["tokenizer"]["llmTokens"].as_u64().context("no tokenizer count")?;
    let messages = doc["messageCount"].as_u64().context("no messageCount")?;

    with_app(harness, &[], async |client| {
        wait_until_ready(client).await?;
        wait_for_leaf(client, &leaf).await?;

        // Counts: computed after the panel shows (a small context), total and per message.
        wait_for(client, "tokenizer counts", "return document.getElementById('context').dataset.counts === 'done';").await?;
        let line = text_content(client, "context-count").await?;
        let shown: u64 = line
            .strip_prefix("o200k: ")
            .and_then(|rest| rest.split(' ').next())
            .map(|n| n.replace(',', ""))
            .and_then(|n| n.parse().ok())
            .with_context(|| format!("no count in `{line}`"))?;
        ensure!(shown == count, "the panel counts {shown}, the CLI {count} (`{line}`)");
        let sum = client
            .execute(
                "return Array.from(document.querySelectorAll('#context-messages .msg-count'), \
                   (e) => Number((e.textContent.split(' ').pop() || '0').replace(/,/g, ''))) \
                 .reduce((a, b) => a + b, 0);",
                vec![],
            )
            .await?;
        ensure!(sum == json!(count), "the messages' counts add up to {sum}, not {count}");

        // "show all": the cut text of a long message is replaced by the whole of it.
        let cut = client
            .execute(
                "const b = document.querySelector('#context .show-all'); if (!b) return null; \
                 b.closest('details').open = true; return b.closest('details').querySelector('pre').textContent.length;",
                vec![],
            )
            .await?;
        let cut = cut.as_u64().context("the demo's context has no cut message")?;
        client.find(Locator::Css("#context .show-all")).await?.click().await.context("clicking show all")?;
        wait_for(
            client,
            "the whole text",
            &format!(
                "const pre = document.querySelector('#context-messages details[open] pre'); \
                 return !document.querySelector('#context .show-all') && !!pre \
                   && pre.textContent.length > {cut} && !pre.textContent.endsWith('… (cut)');"
            ),
        )
        .await?;

        // Copy: what went to the clipboard is the whole export (the status counts its
        // characters), with one section per message / every message.
        for (format, button) in [("markdown", ".copy-markdown"), ("json", ".copy-json")] {
            client.find(Locator::Css(&format!("#context {button}"))).await?.click().await.with_context(|| format!("clicking {button}"))?;
            wait_for(
                client,
                &format!("copied {format}"),
                &format!("return document.getElementById('context').dataset.copied === {format:?};"),
            )
            .await?;
            let status = client.execute("return document.querySelector('#context .context-status').textContent;", vec![]).await?;
            let text = export(client, &leaf, format).await?;
            let length = client.execute("return arguments[0].length.toLocaleString('en-US');", vec![json!(text)]).await?;
            ensure!(
                status.as_str().is_some_and(|s| s.contains(&format!("({} characters)", length.as_str().unwrap_or("?")))),
                "status `{status}` does not count the {format} export's {length} characters"
            );
            if format == "markdown" {
                let sections = markdown_sections(&text);
                ensure!(sections == messages, "{sections} sections for {messages} messages");
            } else {
                let doc: Value = serde_json::from_str(&text)?;
                ensure!(doc["messages"].as_array().map(Vec::len) == Some(messages as usize), "the JSON export has not {messages} messages");
                ensure!(doc["llmTokens"] == json!(doc_llm_tokens(&text)?), "llmTokens");
            }
        }
        Ok(())
    })
    .await
}

/// `export_context`'s text, asked for from the page as the buttons do.
async fn export(client: &Client, leaf: &str, format: &str) -> anyhow::Result<String> {
    let text = client
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             window.__TAURI__.core.invoke('export_context', { leafId: arguments[0], format: arguments[1] }) \
               .then(done, (e) => done({ error: e }));",
            vec![json!(leaf), json!(format)],
        )
        .await?;
    text.as_str().map(str::to_owned).with_context(|| format!("export_context failed: {text}"))
}

/// The sum of the exported messages' `llmTokens` (what `llmTokens` of the export must be).
fn doc_llm_tokens(text: &str) -> anyhow::Result<u64> {
    let doc: Value = serde_json::from_str(text)?;
    Ok(doc["messages"].as_array().context("no messages")?.iter().filter_map(|m| m["llmTokens"].as_u64()).sum())
}

/// `## ` headings outside fenced blocks: a fence is a line of three or more backticks, closed by
/// the same line (what a Markdown reader sees as sections).
fn markdown_sections(text: &str) -> u64 {
    let mut fence: Option<&str> = None;
    let mut n = 0;
    for line in text.lines() {
        match fence {
            Some(f) if line == f => fence = None,
            Some(_) => {}
            None if line.len() >= 3 && line.bytes().all(|b| b == b'`') => fence = Some(line),
            None if line.starts_with("## ") => n += 1,
            None => {}
        }
    }
    n
}

/// What a compaction drops: the demo's first compaction selected in the tree lists the
/// requests it summarized and flags the ones `contextree drops --compaction ID` flags (a file
/// path the user named that the summary does not mention), and shows the shares of the
/// summarized paths, commands and numbers its summary keeps as the CLI's text prints them.
pub async fn a_compaction_flags_the_requests_its_summary_may_have_lost(harness: &Harness) -> anyhow::Result<()> {
    let demo = harness.root.join("demo/demo-session.jsonl");
    let text = std::fs::read_to_string(&demo)?;
    let compaction = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "compaction")
        .and_then(|v| v["id"].as_str().map(str::to_owned))
        .context("the demo has no compaction")?;
    let doc = cli_json(harness, "drops", &demo, &["--compaction", &compaction])?;
    let flagged: Vec<String> = doc["requests"]
        .as_array()
        .context("no requests")?
        .iter()
        .filter(|r| r["mayBeLost"] == true)
        .filter_map(|r| r["entryId"].as_str().map(str::to_owned))
        .collect();
    ensure!(!flagged.is_empty(), "the demo's compaction flags nothing: pick a fixture that does");
    let out = std::process::Command::new(crate::steps::cli(harness)).args(["drops", "--compaction", &compaction]).arg(&demo).output()?;
    let printed = String::from_utf8(out.stdout)?;
    let shares: Vec<&str> = printed.lines().rev().take(3).collect::<Vec<_>>().into_iter().rev().collect();
    ensure!(shares.first().is_some_and(|l| l.starts_with("paths")), "no share lines in {printed}");
    with_app(harness, &[], async |client| {
        wait_until_ready(client).await?;
        let rows = crate::all_row_ids(client).await?;
        let index = rows.iter().position(|id| *id == compaction).context("no row for the compaction")?;
        crate::scroll_tree_to_row(client, index).await?;
        crate::click_row(client, &compaction).await?;
        wait_for(client, "the requests it summarized", "return !!document.getElementById('entry-requests');").await?;
        let shown = client
            .execute(
                "return Array.from(document.querySelectorAll('#entry-requests .plan-request.may-be-lost'), (li) => li.dataset.entryId);",
                vec![],
            )
            .await?;
        ensure!(shown == json!(flagged), "the entry panel flags {shown}, the CLI {flagged:?}");
        let lines =
            client.execute("return Array.from(document.querySelectorAll('#entry-facts li'), (li) => li.textContent);", vec![]).await?;
        ensure!(lines == json!(shares), "the entry panel's shares {lines}, the CLI's {shares:?}");
        Ok(())
    })
    .await
}

/// Usage and cost (`$`): the dialog's session line counts the records and cost
/// `contextree usage --json` sums, and its chart has a point per reply that reports a size.
pub async fn the_usage_dialog_shows_what_contextree_usage_sums(harness: &Harness) -> anyhow::Result<()> {
    let demo = harness.root.join("demo/demo-session.jsonl");
    let doc = cli_json(harness, "usage", &demo, &[])?;
    let records = doc["totals"]["records"].as_u64().context("no totals")?;
    let cost = format!("${:.4}", doc["totals"]["cost"].as_f64().unwrap_or(0.0));
    let replies = doc["records"].as_array().context("no records")?.iter().filter(|r| !r["contextTokens"].is_null()).count();
    let compactions = doc["compactions"].as_array().map_or(0, Vec::len);
    with_app(harness, &[], async |client| {
        wait_until_ready(client).await?;
        client.execute("document.getElementById('show-usage').click();", vec![]).await?;
        wait_for(client, "the usage dialog", "return !!document.getElementById('usage-table');").await?;
        let first = client
            .execute("const r = document.querySelectorAll('#usage-table tr')[1]; return Array.from(r.cells, (c) => c.textContent);", vec![])
            .await?;
        ensure!(first[0] == json!("session"), "first row {first}");
        ensure!(first[1].as_str().map(|s| s.replace(',', "")) == Some(records.to_string()), "records {first}, CLI {records}");
        ensure!(first[6] == json!(cost), "cost {first}, CLI {cost}");
        let chart = client
            .execute(
                "const c = document.getElementById('usage-chart'); return [Number(c.dataset.points), Number(c.dataset.marks)];",
                vec![],
            )
            .await?;
        ensure!(chart == json!([replies, compactions]), "chart {chart}, CLI {replies} replies, {compactions} compactions");
        crate::screenshot(harness, client, "usage.png").await?;
        client.execute("document.getElementById('usage-dialog').close();", vec![]).await?;
        Ok(())
    })
    .await
}

/// omp's subagents in the usage dialog (`tests/fixtures/omp-subagents/`): a row per agent the
/// CLI lists, and the session with them costs what `contextree usage --json` sums.
pub async fn the_usage_dialog_lists_omps_subagents(harness: &Harness) -> anyhow::Result<()> {
    let file = harness.root.join("tests/fixtures/omp-subagents/omp-subagents.jsonl");
    let doc = cli_json(harness, "usage", &file, &[])?;
    let files: Vec<String> =
        doc["subagents"].as_array().context("no subagents")?.iter().filter_map(|r| r["file"].as_str().map(str::to_owned)).collect();
    ensure!(files.len() == 5, "the CLI lists {files:?}");
    let with = format!("${:.4}", doc["withSubagents"]["cost"].as_f64().context("no withSubagents")?);
    let args = [file.display().to_string()];
    with_app(harness, &args, async |client| {
        wait_until_ready(client).await?;
        // The file's last entry is the leaf the app opens on.
        wait_for_leaf(client, "a5").await?;
        client.execute("document.getElementById('show-usage').click();", vec![]).await?;
        wait_for(client, "the usage dialog", "return !!document.getElementById('usage-table');").await?;
        let rows = client
            .execute(
                "return Array.from(document.querySelectorAll('#usage-table tr'), (r) => [r.cells[0].textContent, r.cells[6].textContent]);",
                vec![],
            )
            .await?;
        let rows: Vec<(String, String)> = serde_json::from_value(rows)?;
        for f in &files {
            ensure!(rows.iter().any(|(name, _)| name.trim_start().starts_with(&format!("{f} "))), "no row for {f}: {rows:?}");
        }
        let session = rows.iter().find(|(name, _)| name == "session with subagents").context("no session-with-subagents row")?;
        ensure!(session.1 == with, "the session with subagents costs {}, the CLI {with}", session.1);
        client.execute("document.getElementById('usage-dialog').close();", vec![]).await?;
        Ok(())
    })
    .await
}

/// The context panel's breakdown bar is `contextree context --breakdown`'s rows; a click on a
/// part shows only the messages the CLI puts in that row, "show all" every one again; the plan
/// panel's cost line is `contextree compact --dry-run --cost`'s one-off cost (both with the
/// app's home, so both read the same agent files).
pub async fn the_breakdown_filters_the_messages_and_the_plan_shows_its_cost(harness: &Harness) -> anyhow::Result<()> {
    let demo = harness.root.join("demo/demo-session.jsonl");
    let leaf = harness.expected.last().unwrap().clone();
    let cli = |args: &[&str]| {
        let mut command = std::process::Command::new(crate::steps::cli(harness));
        // The app's prompt pack (the installed agent's, else contextree's) and home.
        command.args(args).arg(&demo).arg("--json").env("HOME", &harness.scratch);
        crate::steps::json_output(&mut command, args[0])
    };
    let ctx = cli(&["context", "--breakdown"])?;
    let rows = ctx["breakdown"].as_array().context("no breakdown")?.len();
    // The row with the most tokens, and the messages with a part in it.
    let top = ctx["breakdown"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .max_by_key(|(_, r)| r["tokens"].as_u64().unwrap_or(0))
        .map(|(i, _)| i)
        .context("an empty breakdown")?;
    let messages = ctx["messages"].as_array().context("no messages")?;
    let in_top = messages.iter().filter(|m| m["breakdownRows"].as_array().is_some_and(|r| r.contains(&json!(top)))).count();
    ensure!(in_top < messages.len(), "every message is in row {top}: the filter would show nothing");
    let plan = cli(&["compact", "--dry-run", "--cost"])?;
    let once = plan["cost"]["oneOffCost"].as_f64().context("no one-off cost (no price for the demo's model?)")?;

    with_app(harness, &[], async |client| {
        wait_until_ready(client).await?;
        wait_for_leaf(client, &leaf).await?;
        wait_for(
            client,
            "the breakdown bar",
            &format!("return document.querySelectorAll('#context-breakdown .breakdown-part').length === {rows};"),
        )
        .await?;
        let visible = "return Array.from(document.querySelectorAll('#context-messages > li')).filter((li) => !li.hidden).length;";
        client.find(Locator::Css(&format!("#context-breakdown .breakdown-part[data-index=\"{top}\"]"))).await?.click().await?;
        wait_for(client, "the filter", &format!("return document.getElementById('context').dataset.filter === '{top}';")).await?;
        let shown = client.execute(visible, vec![]).await?;
        ensure!(shown == json!(in_top), "the filter shows {shown} messages, the CLI puts {in_top} in row {top}");
        client.find(Locator::Css("#context-breakdown .breakdown-all")).await?.click().await?;
        wait_for(client, "every message", "return !document.getElementById('context').dataset.filter;").await?;
        let all = client.execute(visible, vec![]).await?;
        ensure!(all == json!(messages.len()), "after show all {all} messages are shown, not {}", messages.len());

        crate::steps::open_plan(client).await?;
        let line = client.execute("return document.querySelector('#plan .plan-cost-once')?.textContent ?? '';", vec![]).await?;
        let want = format!("cost once ${once:.4}:");
        ensure!(line.as_str().is_some_and(|l| l.starts_with(&want)), "the plan's cost line is {line}, not `{want} …`");
        Ok(())
    })
    .await
}

/// The usage dialog's growth chart is `contextree weight`'s: a point per turn of the shown
/// leaf's path and a mark per compaction, prune or context edit; a click on a point closes the
/// dialog and selects the turn's last entry in the tree, a click on a largest message that
/// message's entry.
pub async fn the_growth_chart_jumps_to_the_turn_clicked(harness: &Harness) -> anyhow::Result<()> {
    let demo = harness.root.join("demo/demo-session.jsonl");
    let leaf = harness.expected.last().unwrap().clone();
    let doc = cli_json(harness, "weight", &demo, &["--leaf", &leaf])?;
    let turns = doc["turns"].as_array().context("no turns")?;
    let marks: usize = turns
        .iter()
        .map(|t| {
            usize::from(!t["compactionId"].is_null())
                + usize::from(t["pruned"].as_u64().unwrap_or(0) + t["contextEdits"].as_u64().unwrap_or(0) > 0)
        })
        .sum();
    // A turn other than the last: its entry is not the one selected when the leaf shows.
    let want = turns.first().and_then(|t| t["lastEntryId"].as_str()).context("no first turn")?.to_owned();
    ensure!(want != leaf, "the demo's path has one turn");
    let top = doc["top"]
        .as_array()
        .and_then(|t| t.iter().find_map(|e| e["entryId"].as_str().filter(|id| *id != want)))
        .context("no top entry")?
        .to_owned();

    with_app(harness, &[], async |client| {
        wait_until_ready(client).await?;
        wait_for_leaf(client, &leaf).await?;
        client.execute("document.getElementById('show-usage').click();", vec![]).await?;
        wait_for(client, "the growth chart", "return !!document.getElementById('growth-chart');").await?;
        let shown = client
            .execute("const c = document.getElementById('growth-chart'); return [Number(c.dataset.points), Number(c.dataset.marks)];", vec![])
            .await?;
        ensure!(shown == json!([turns.len(), marks]), "chart {shown}, CLI {} turns, {marks} marks", turns.len());
        crate::screenshot(harness, client, "growth.png").await.context("growth.png")?;
        // A click event on the SVG circle: WebKitWebDriver loses track of SVG nodes it found.
        let clicked = client
            .execute(
                "const p = document.querySelector(`#growth-chart circle[data-entry-id=\"${arguments[0]}\"]`); \
                 p?.dispatchEvent(new MouseEvent('click', { bubbles: true })); return !!p;",
                vec![json!(want)],
            )
            .await
            .context("clicking a point")?;
        ensure!(clicked == json!(true), "no point for turn entry {want}");
        wait_for(
            client,
            "the point's entry selected",
            &format!("return !document.getElementById('usage-dialog').open && document.querySelector('#tree-rows .row.selected')?.dataset.entryId === {want:?};"),
        )
        .await?;
        client.execute("document.getElementById('show-usage').click();", vec![]).await?;
        // The dialog keeps the first chart while closed: open again means drawn again.
        wait_for(
            client,
            "the growth chart again",
            "return document.getElementById('usage-dialog').open && !!document.getElementById('growth-chart');",
        )
        .await?;
        client.find(Locator::Css(&format!("#growth-top button[data-entry-id={top:?}]"))).await?.click().await.context("clicking a top entry")?;
        wait_for(
            client,
            "the top entry selected",
            &format!("return !document.getElementById('usage-dialog').open && document.querySelector('#tree-rows .row.selected')?.dataset.entryId === {top:?};"),
        )
        .await
    })
    .await
}
