//! The main screen: the demo and a named file open, another leaf recomputes tree and context,
//! HTML stays text, the branch map, search and filters, live reload, the compaction preview.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _};
use fantoccini::actions::{InputSource as _, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use serde_json::json;

use crate::app::*;
use crate::{steps, Harness};
/// No argument: the bundled demo, every entry a tree row; the file's leaf and its context; the
/// CSP holds; WebKit's compositing as chosen for this machine; screenshot.
pub async fn demo_session_opens_without_arguments(harness: &Harness) -> anyhow::Result<()> {
    with_app(harness, &[], async |client| {
        wait_until_ready(client).await?;
        check_compositing_choice(harness)?;
        check_metadata_hidden_by_default(client, &harness.expected).await?;
        show_metadata(client).await?;
        check_all_entries_are_rows(client, &harness.expected).await?;
        let file = text_content(client, "session-file").await?;
        ensure!(file == "demo-session.jsonl", "title bar shows `{file}`");
        check_budget_bar(client).await?;

        // The file's leaf (its last entry) is the leaf, marked in the tree, and its context
        // has as many messages as the CLI says.
        let leaf = harness.expected.last().unwrap();
        wait_for_leaf(client, leaf).await?;
        let demo = harness.root.join("demo/demo-session.jsonl");
        check_context_matches_cli(harness, client, &demo, leaf).await?;

        // The CSP of tauri.conf.json is in force: no eval (a probe, not something the UI does).
        let eval = client
            .execute(
                "try { return window.eval('1 + 1') === 2 ? 'eval allowed' : 'eval odd'; } \
                 catch (e) { return e.name; }",
                vec![],
            )
            .await?;
        ensure!(eval == "EvalError", "the CSP does not block eval: {eval}");

        wait_for_previews(client).await?;
        screenshot(harness, client, "main-screen.png").await
    })
    .await
}

/// `contextree-app PATH` opens PATH, not the demo.
pub async fn session_named_on_the_command_line_opens(harness: &Harness) -> anyhow::Result<()> {
    let session = harness.scratch.join("named-on-command-line.jsonl");
    std::fs::copy(harness.root.join("demo/demo-session.jsonl"), &session)?;
    let args = [session.display().to_string()];
    with_app(harness, &args, async |client| {
        wait_until_ready(client).await?;
        let file = text_content(client, "session-file").await?;
        ensure!(file == "named-on-command-line.jsonl", "title bar shows `{file}`");
        show_metadata(client).await?;
        check_all_entries_are_rows(client, &harness.expected).await
    })
    .await
}

/// `contextree-app PATH --leaf ID` (how the agents' `/contextree` starts it) shows ID as the leaf,
/// its context as the CLI computes it; an id the file lacks is said so and the file's leaf shown.
pub async fn a_leaf_named_on_the_command_line_is_shown(harness: &Harness) -> anyhow::Result<()> {
    let session = harness.scratch.join("leaf-on-command-line.jsonl");
    std::fs::copy(harness.root.join("demo/demo-session.jsonl"), &session)?;
    let args = [session.display().to_string(), "--leaf".to_owned(), OTHER_LEAF.to_owned()];
    with_app(harness, &args, async |client| {
        wait_until_ready(client).await?;
        wait_for_leaf(client, OTHER_LEAF).await?;
        let marked = client.execute("return document.querySelector('#tree-rows .row.leaf')?.dataset.entryId ?? null;", vec![]).await?;
        ensure!(marked == json!(OTHER_LEAF), "leaf marker on {marked}");
        check_context_matches_cli(harness, client, &session, OTHER_LEAF).await
    })
    .await?;

    let args = [session.display().to_string(), "--leaf=nope1234".to_owned()];
    with_app(harness, &args, async |client| {
        wait_until_ready(client).await?;
        wait_for_leaf(client, harness.expected.last().unwrap()).await?;
        let error = text_content(client, "problems-error").await?;
        let expected = format!("`--leaf nope1234`: `{}` has no entry with this id; its own leaf is shown instead", session.display());
        ensure!(error.contains(&expected), "the problems panel says `{error}`");
        Ok(())
    })
    .await
}

/// A leaf that is not the file's last entry: `6df8d54a` ends the branch that starts at
/// `1b2b2a9a` (the file continues on the sibling branch from `d2a5c41b`).
pub const OTHER_LEAF: &str = "6df8d54a";

/// Click a leaf on another branch and press Enter: the tree's states and the context follow
/// it, and the context matches the CLI's; `g` goes back to the file's leaf.
pub async fn a_leaf_on_another_branch_recomputes_tree_and_context(harness: &Harness) -> anyhow::Result<()> {
    with_app(harness, &[], async |client| {
        wait_until_ready(client).await?;
        let file_leaf = harness.expected.last().unwrap();
        wait_for_leaf(client, file_leaf).await?;
        ensure!(
            harness.expected.iter().any(|id| id == OTHER_LEAF) && file_leaf != OTHER_LEAF,
            "the demo session changed: pick another leaf on another branch"
        );
        let before = row_states(client).await?;

        // Bring the row on screen (the tree is virtualized), click it, press Enter.
        let rows = all_row_ids(client).await?;
        let index = rows.iter().position(|id| id == OTHER_LEAF).context("no tree row for the other leaf")?;
        scroll_tree_to_row(client, index).await?;
        click_row(client, OTHER_LEAF).await?;
        wait_for(
            client,
            "entry panel shows the row",
            &format!(
                "const pre = document.getElementById('entry-json'); \
             return !!pre && pre.textContent.includes('\"id\": \"{OTHER_LEAF}\"');"
            ),
        )
        .await?;
        press_key(client, Key::Enter.into()).await?;
        wait_for_leaf(client, OTHER_LEAF).await?;

        let after = row_states(client).await?;
        ensure!(before != after, "the states did not change with the leaf");
        let marked = client.execute("return document.querySelector('#tree-rows .row.leaf')?.dataset.entryId ?? null;", vec![]).await?;
        ensure!(marked == json!(OTHER_LEAF), "leaf marker on {marked}");
        let demo = harness.root.join("demo/demo-session.jsonl");
        check_context_matches_cli(harness, client, &demo, OTHER_LEAF).await?;
        let wrapper = client.execute("return document.querySelector('#context .wrapper')?.textContent ?? '';", vec![]).await?;
        ensure!(wrapper.as_str().is_some_and(|w| w.starts_with("wrapper text: ")), "no wrapper-text line: {wrapper}");
        wait_for_previews(client).await?;
        screenshot(harness, client, "another-leaf.png").await?;

        press_key(client, 'g').await?;
        wait_for_leaf(client, file_leaf).await?;

        // A double-click makes a row the leaf too.
        scroll_tree_to_row(client, index).await?;
        let row = wait_for_element(client, &format!("#tree-rows .row[data-entry-id='{OTHER_LEAF}']")).await?;
        let mouse = MouseActions::new("mouse".into())
            .then(PointerAction::MoveToElement { element: row, duration: None, x: 0.0, y: 0.0 })
            .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT })
            .then(PointerAction::Up { button: MOUSE_BUTTON_LEFT })
            .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT })
            .then(PointerAction::Up { button: MOUSE_BUTTON_LEFT });
        client.perform_actions(mouse).await.context("double-click")?;
        wait_for_leaf(client, OTHER_LEAF).await
    })
    .await
}

/// The two payloads of `tests/fixtures/edge/xss.jsonl`.
pub const XSS: [&str; 2] = ["<img src=x onerror=alert(1)>", "<script>alert(2)</script>"];

/// HTML in user and assistant text, tool output, a label and a custom type is shown as text in
/// the tree, the context and the entry panel, and no `<img>` or `<script>` comes of it.
pub async fn html_in_session_text_stays_text(harness: &Harness) -> anyhow::Result<()> {
    let session = harness.root.join("tests/fixtures/edge/xss.jsonl");
    let args = [std::fs::canonicalize(&session)?.display().to_string()];
    with_app(harness, &args, async |client| {
        wait_until_ready(client).await?;
        show_metadata(client).await?;
        wait_for_previews(client).await?;
        wait_for(
            client,
            "entry panel shows the leaf",
            &format!(
                "const pre = document.getElementById('entry-json'); \
             return !!pre && pre.textContent.includes({:?});",
                XSS[1]
            ),
        )
        .await?;
        // Previews of user, assistant, tool and custom rows, and the label chip.
        wait_for(
            client,
            "previews of every row",
            &format!(
                "const t = document.getElementById('tree-rows').textContent; \
             return ['Render this for me: ', 'Reading the page ', '<html>', 'ext ', 'label ']\
               .every((p) => t.includes(p + {:?}));",
                XSS[0]
            ),
        )
        .await?;
        for (id, what) in [("tree-rows", "tree"), ("context", "context panel"), ("entry", "entry panel")] {
            let text = text_content(client, id).await?;
            for payload in XSS {
                ensure!(text.contains(payload), "the {what} does not show `{payload}` as text");
            }
        }
        // The custom entry's raw line in the entry panel.
        click_row(client, "cus1").await?;
        wait_for(
            client,
            "entry panel shows the custom entry",
            &format!(
                "const pre = document.getElementById('entry-json'); \
             return !!pre && pre.textContent.includes('\"customType\": \"ext ' + {:?});",
                XSS[0]
            ),
        )
        .await?;
        let created = client
            .execute(
                "return { img: document.querySelectorAll('img').length, \
                          scripts: Array.from(document.scripts, (s) => s.src || s.textContent) };",
                vec![],
            )
            .await?;
        ensure!(created["img"] == json!(0), "an <img> element was created: {created}");
        let scripts = created["scripts"].as_array().context("scripts")?;
        ensure!(
            scripts.len() == 1 && scripts[0].as_str().is_some_and(|s| s.ends_with("/src/main.js")),
            "unexpected <script> elements: {created}"
        );
        // The branch exported as a page: the session's markup stays text, no script at all.
        let html = client
            .execute_async(
                "const done = arguments[arguments.length - 1]; \
                 window.__TAURI__.core.invoke('export_context', { leafId: null, format: 'html' }).then(done, (e) => done({ error: e }));",
                vec![],
            )
            .await?;
        let html = html.as_str().with_context(|| format!("export_context failed: {html}"))?;
        ensure!(!html.to_lowercase().contains("<script"), "the exported page holds a script");
        ensure!(html.contains("&lt;script&gt;alert(2)&lt;/script&gt;"), "the session's script text is not in the page as text");
        screenshot(harness, client, "xss.png").await
    })
    .await
}

/// The default filter hides metadata rows (model, thinking level, label, session info changes).
pub async fn check_metadata_hidden_by_default(client: &Client, expected: &[String]) -> anyhow::Result<()> {
    let count = client.execute("return Number(document.getElementById('tree').dataset.rowCount ?? -1);", vec![]).await?;
    ensure!(
        count.as_u64().is_some_and(|n| n > 0 && (n as usize) < expected.len()),
        "{count} rows shown for {} entries with metadata hidden",
        expected.len()
    );
    Ok(())
}

/// Ticks the tree's `metadata` box: every entry becomes a row.
pub async fn show_metadata(client: &Client) -> anyhow::Result<()> {
    client.find(Locator::Id("tree-metadata")).await?.click().await.context("clicking the metadata box")?;
    wait_for(
        client,
        "metadata rows shown",
        "return document.getElementById('tree-metadata').checked            && /^\\d+ rows$/.test(document.getElementById('tree-count').textContent);",
    )
    .await?;
    // Back to the tree, where the keys go.
    client.execute("document.getElementById('tree').focus();", vec![]).await?;
    Ok(())
}

/// The budget bar shows the window of the path's model, the used tokens, and its markers; a
/// typed window overrides the model's.
pub async fn check_budget_bar(client: &Client) -> anyhow::Result<()> {
    wait_for(
        client,
        "budget bar",
        "const b = document.getElementById('budget');          return !b.hidden && /\\d+ \\/ \\d/.test(document.getElementById('budget-amount').textContent)            && !!b.querySelector('.fill-kept') && !!b.querySelector('.mark-threshold');",
    )
    .await?;
    let input = client.find(Locator::Id("budget-window")).await?;
    input.send_keys("1000\u{E007}").await.context("typing a window")?;
    let shown = || async {
        client
            .execute(
                "return ['budget-amount', 'budget-source', 'budget-window'].map((id) => {                    const el = document.getElementById(id); return el.value ?? el.textContent; })                    .concat([document.getElementById('budget').dataset.wouldCompact]);",
                vec![],
            )
            .await
    };
    let res = wait_for(
        client,
        "budget with a 1,000-token window",
        "const t = document.getElementById('budget-amount').textContent;          return t.includes('/ 1,000 ') && document.getElementById('budget-source').textContent === 'window set here'            && document.getElementById('budget').dataset.wouldCompact === 'true';",
    )
    .await;
    if let Err(err) = res {
        bail!("{err:#}; the bar shows {}", shown().await?);
    }
    input.clear().await?;
    input.send_keys("\u{E007}").await?;
    wait_for(
        client,
        "budget back to the model's window",
        "return document.getElementById('budget-source').textContent.startsWith('window of ');",
    )
    .await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let now = shown().await?;
    ensure!(now[1].as_str().is_some_and(|s| s.starts_with("window of ")), "the bar went back to {now}");
    client.execute("document.getElementById('budget-window').blur(); document.getElementById('tree').focus();", vec![]).await?;
    Ok(())
}

/// `/` opens the search; typing filters the rows; Enter goes to the next match; Esc closes it.
/// The `user only` filter shows user rows (and the leaf).
pub async fn search_and_filters_narrow_the_tree(harness: &Harness) -> anyhow::Result<()> {
    with_app(harness, &[], async |client| {
        wait_until_ready(client).await?;
        let leaf = harness.expected.last().unwrap();
        wait_for_leaf(client, leaf).await?;
        let count = || async {
            anyhow::Ok(
                client
                    .execute("return Number(document.getElementById('tree').dataset.rowCount);", vec![])
                    .await?
                    .as_u64()
                    .unwrap_or(0),
            )
        };
        let all = count().await?;
        // ← folds the first row's subtree away, → brings it back.
        client.execute("document.getElementById('tree').focus();", vec![]).await?;
        press_key(client, Key::Home.into()).await?;
        press_key(client, Key::Left.into()).await?;
        wait_for(
            client,
            "← folds the first row",
            &format!(
                "return Number(document.getElementById('tree').dataset.rowCount) < {all} \
                   && !!document.querySelector('#tree-rows .row.folded.selected');"
            ),
        )
        .await?;
        press_key(client, Key::Right.into()).await?;
        wait_for(
            client,
            "→ unfolds it",
            &format!(
                "return Number(document.getElementById('tree').dataset.rowCount) === {all} \
                   && !document.querySelector('#tree-rows .row.folded');"
            ),
        )
        .await?;
        press_key(client, '/').await?;
        wait_for(
            client,
            "search has the focus",
            "return document.activeElement === document.getElementById('tree-search');",
        )
        .await?;
        client
            .active_element()
            .await?
            .send_keys(OTHER_LEAF)
            .await?;
        wait_for(
            client,
            "search narrows the tree",
            &format!(
                "const ids = Array.from(document.querySelectorAll('#tree-rows .row'), (r) => r.dataset.entryId);                  return ids.includes({OTHER_LEAF:?}) && ids.length <= 3;" // the match, the leaf, the selection
            ),
        )
        .await?;
        press_key(client, Key::Enter.into()).await?;
        wait_for(
            client,
            "Enter selects the match",
            &format!(
                "const pre = document.getElementById('entry-json');                  return !!pre && pre.textContent.includes('\"id\": \"{OTHER_LEAF}\"');"
            ),
        )
        .await?;
        screenshot(harness, client, "search.png").await?;
        press_key(client, Key::Escape.into()).await?;
        wait_for(
            client,
            "Esc restores the rows and keeps the selection",
            &format!(
                "return Number(document.getElementById('tree').dataset.rowCount) === {all}                    && document.querySelector('#tree-rows .row.selected')?.dataset.entryId === {OTHER_LEAF:?};"
            ),
        )
        .await?;
        let filter = client.find(Locator::Id("tree-filter")).await?;
        filter.select_by_value("user").await?;
        wait_for(
            client,
            "user only",
            &format!(
                "const n = Number(document.getElementById('tree').dataset.rowCount);                  const kinds = Array.from(document.querySelectorAll('#tree-rows .row'), (r) => r.className);                  return n > 0 && n < {all} && kinds.filter((c) => !c.includes('kind-user')).length <= 2;"
            ),
        )
        .await?;
        ensure!(count().await? < all, "the user-only filter hides nothing");
        Ok(())
    })
    .await
}

/// An agent appends to the open file: within 3 s the new entry is a row (and the file's new
/// leaf), and the selected row stays selected.
pub async fn an_appended_entry_appears_live_and_the_selection_stays(harness: &Harness) -> anyhow::Result<()> {
    let session = harness.scratch.join("live-reload.jsonl");
    std::fs::copy(harness.root.join("demo/demo-session.jsonl"), &session)?;
    let args = [session.display().to_string()];
    with_app(harness, &args, async |client| {
        wait_until_ready(client).await?;
        let leaf = harness.expected.last().unwrap();
        wait_for_leaf(client, leaf).await?;
        let rows_before = client
            .execute("return Number(document.getElementById('tree').dataset.rowCount);", vec![])
            .await?;
        // Select the first row shown.
        scroll_tree(client, 0.0).await?;
        let first = client
            .execute("return document.querySelector('#tree-rows .row')?.dataset.entryId ?? null;", vec![])
            .await?;
        let first = first.as_str().context("no row")?.to_owned();
        click_row(client, &first).await?;

        const NEW: &str = "e2e1ive0";
        steps::append_user_message(&session, NEW, &json!(leaf), "appended while the app watches")?;
        let appended = Instant::now();
        let expected_rows = rows_before.as_u64().context("row count")? + 1;
        loop {
            let state = client
                .execute(
                    "return { leaf: document.body.dataset.leaf, busy: !!document.body.dataset.busy,                        rows: Number(document.getElementById('tree').dataset.rowCount),                        selected: document.querySelector('#tree-rows .row.selected')?.dataset.entryId ?? null,                        entry: document.getElementById('entry-json')?.textContent ?? '' };",
                    vec![],
                )
                .await?;
            if state["leaf"] == NEW && !state["busy"].as_bool().unwrap_or(true) && state["rows"] == json!(expected_rows) {
                ensure!(state["selected"] == json!(first), "the selection moved: {state}");
                ensure!(
                    state["entry"].as_str().is_some_and(|t| t.contains(&format!("\"id\": \"{first}\""))),
                    "the entry panel no longer shows the selected entry"
                );
                break;
            }
            // The watcher looks every 500 ms; the margin is for a loaded machine.
            ensure!(
                appended.elapsed() < Duration::from_secs(10),
                "the appended entry did not appear within 10 s: {state}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let ids = all_row_ids(client).await?;
        ensure!(ids.iter().any(|id| id == NEW), "no row for the appended entry");
        let live = text_content(client, "session-summary").await?;
        ensure!(!live.is_empty(), "no session summary after the reload");
        screenshot(harness, client, "live-reload.png").await
    })
    .await
}

/// Every entry of the file is a tree row, once, and the first row is the first entry.
pub async fn check_all_entries_are_rows(client: &Client, expected: &[String]) -> anyhow::Result<()> {
    let count = client.execute("return document.getElementById('tree').dataset.rowCount ?? null;", vec![]).await?;
    ensure!(count == json!(expected.len().to_string()), "{count} rows for {} entries", expected.len());
    let rendered = all_row_ids(client).await?;
    ensure!(rendered.first() == expected.first(), "first row {:?}, first entry {:?}", rendered.first(), expected.first());
    let mut sorted_rows = rendered.clone();
    sorted_rows.sort();
    let mut sorted_entries = expected.to_vec();
    sorted_entries.sort();
    ensure!(sorted_rows == sorted_entries, "rows {rendered:?} differ from entries {expected:?}");
    // The virtualized list renders a window of rows, not all of them.
    let in_dom = client.execute("return document.querySelectorAll('#tree-rows .row').length;", vec![]).await?;
    ensure!(
        in_dom.as_u64().is_some_and(|n| n > 0 && (n as usize) < expected.len()),
        "{in_dom} row nodes for {} rows: not windowed",
        expected.len()
    );
    Ok(())
}

/// The context panel lists as many messages as `contextree context --leaf LEAF --json` counts.
/// `c` on the demo: the PLAN panel shows the CLI dry run's tokens before, the rows to be
/// summarized are dashed, Esc closes the panel and removes the outlines.
pub async fn c_previews_a_compaction_as_the_cli_plans_it(harness: &Harness) -> anyhow::Result<()> {
    let demo = harness.root.join("demo/demo-session.jsonl");
    let doc = steps::cli_json(harness, "compact", &demo, &["--dry-run", "--prompts", "own"])?;
    ensure!(doc["nothingToCompact"] == false, "the CLI plans no compaction of the demo: {doc}");
    let expected = doc["preview"]["tokensBefore"].as_f64().context("no preview.tokensBefore")?;
    let summarized: Vec<String> = doc["messagesToSummarizeIds"]
        .as_array()
        .context("no messagesToSummarizeIds")?
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    ensure!(!summarized.is_empty(), "the CLI summarizes nothing: {doc}");

    with_app(harness, &[], async |client| {
        wait_until_ready(client).await?;
        wait_for_leaf(client, harness.expected.last().unwrap()).await?;
        steps::open_plan(client).await?;
        let title = text_content(client, "entry-title").await?;
        ensure!(title == "Plan", "the entry pane's title is `{title}`");
        let tokens = client.execute("return document.querySelector('#plan .plan-tokens')?.textContent ?? '';", vec![]).await?;
        let tokens = tokens.as_str().unwrap_or_default().to_owned();
        let shown: f64 = tokens
            .strip_prefix("tokens before ")
            .and_then(|rest| rest.split_whitespace().next())
            .map(|n| n.replace(',', ""))
            .and_then(|n| n.parse().ok())
            .with_context(|| format!("no tokens before in `{tokens}`"))?;
        ensure!(shown == expected, "the plan shows tokens before {shown}, the CLI {expected} (`{tokens}`)");
        let calls = client.execute("return document.querySelectorAll('#plan details.plan-call pre').length;", vec![]).await?;
        ensure!(calls.as_u64().unwrap_or(0) >= 2, "the plan shows no prompt: {calls}");

        // The summarized rows are the oldest: at the top of the tree.
        let page = scroll_tree(client, 0.0).await?;
        let dashed = client
            .execute(
                "return Array.from(document.querySelectorAll('#tree-rows .row.plan-summarized'), \
                 (row) => row.dataset.entryId);",
                vec![],
            )
            .await?;
        let dashed: Vec<String> = serde_json::from_value(dashed)?;
        ensure!(!dashed.is_empty(), "no row has the dashed class: {page}");
        ensure!(dashed.iter().all(|id| summarized.contains(id)), "dashed rows {dashed:?} are not all summarized by the CLI's plan");
        client.execute("document.querySelector('#plan details.plan-call').open = true;", vec![]).await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        screenshot(harness, client, "compaction-preview.png").await?;

        press_key(client, Key::Escape.into()).await?;
        wait_for(client, "the plan closed", "return !document.body.dataset.plan;").await?;
        let left = client
            .execute(
                "return document.querySelectorAll('#tree-rows .row[class*=\"plan-\"]').length \
                 + (document.getElementById('plan').hidden ? 0 : 100);",
                vec![],
            )
            .await?;
        ensure!(left == json!(0), "the plan is still shown after Esc ({left})");
        Ok(())
    })
    .await
}

pub async fn check_context_matches_cli(harness: &Harness, client: &Client, session: &Path, leaf: &str) -> anyhow::Result<()> {
    let doc = steps::cli_json(harness, "context", session, &["--leaf", leaf, "--prompts", "own"])?;
    let expected = doc["messageCount"].as_u64().context("no messageCount")?;
    let shown = client.execute("return document.querySelectorAll('#context-messages > li.message').length;", vec![]).await?;
    ensure!(shown == json!(expected), "context panel shows {shown} messages for leaf {leaf}, the CLI counts {expected}");
    let totals = client.execute("return document.querySelector('#context .totals')?.textContent ?? '';", vec![]).await?;
    let words = format!("{expected} messages");
    ensure!(totals.as_str().is_some_and(|t| t.replace(',', "").starts_with(&words)), "totals `{totals}` do not start with `{words}`");
    Ok(())
}

/// `m` on a leaf of another branch, `g` back to the file's leaf, then `=`: the side-by-side
/// dialog shows what `contextree compare --json` gives for the two leaves (`side-by-side.png`).
pub async fn two_leaves_compare_as_contextree_compare_does(harness: &Harness) -> anyhow::Result<()> {
    with_app(harness, &[], async |client| {
        wait_until_ready(client).await?;
        let file_leaf = harness.expected.last().unwrap();
        wait_for_leaf(client, file_leaf).await?;
        find_and_click_row(client, OTHER_LEAF).await?;
        press_key(client, Key::Enter.into()).await?;
        wait_for_leaf(client, OTHER_LEAF).await?;
        press_key(client, 'm').await?;
        wait_for(client, "the leaf marked", &format!("return document.body.dataset.compareLeaf === {OTHER_LEAF:?};")).await?;
        press_key(client, 'g').await?;
        wait_for_leaf(client, file_leaf).await?;
        let demo = harness.root.join("demo/demo-session.jsonl");
        check_side_by_side(harness, client, &demo, OTHER_LEAF, file_leaf).await
    })
    .await
}

/// `=` with `left` marked and `right` shown: the dialog says what `contextree compare --json`
/// says of the two leaves (run as the app runs, with its HOME, so the rule set and the prompt
/// texts are the same): each side's tokens, the common ancestor, the shared prefix, where they
/// diverge and what each side has there; it draws every changed and diverged row, and the same
/// rows drawn or folded.
pub async fn check_side_by_side(harness: &Harness, client: &Client, file: &Path, left: &str, right: &str) -> anyhow::Result<()> {
    let mut command = std::process::Command::new(steps::cli(harness));
    command.arg("compare").arg(file).args([left, right, "--json"]).env("HOME", &harness.scratch).env_remove("XDG_CONFIG_HOME");
    let doc = steps::json_output(&mut command, "compare")?;
    let diverge = doc["divergeAt"].as_u64().context("the CLI's two contexts do not diverge")?;
    let number = |v: &serde_json::Value| v.as_i64().map(|n| n.to_string()).unwrap_or_default();
    let plural = |n: &serde_json::Value| format!("{} {}", number(n), if n == 1 { "message" } else { "messages" });
    press_key(client, '=').await?;
    wait_for(client, "the side-by-side dialog", "return document.body.dataset.compare === 'open';").await?;
    // Counts are shown grouped (`29,182`); the CLI's are plain.
    let summary = text_content(client, "compare-summary").await?.replace(',', "");
    for want in [
        format!("A {left}: {} tokens", number(&doc["a"]["llmTokens"])),
        format!("B {right}: {} tokens", number(&doc["b"]["llmTokens"])),
        format!("common ancestor {}", doc["commonAncestorId"].as_str().unwrap_or_default()),
        format!("shared {} ({} tokens)", plural(&doc["sharedCount"]), number(&doc["sharedTokens"])),
        format!("they diverge at message {}", diverge + 1),
        format!("only in A: {} ({} tokens)", plural(&doc["a"]["onlyCount"]), number(&doc["a"]["onlyTokens"])),
        format!("only in B: {} ({} tokens)", plural(&doc["b"]["onlyCount"]), number(&doc["b"]["onlyTokens"])),
    ] {
        ensure!(summary.contains(&want), "the dialog says `{summary}`, the CLI `{want}`");
    }
    // The first row that is not shared holds what each side has at the divergence, side by side.
    let first = client
        .execute(
            "const r = document.querySelector('#compare-rows .compare-row:not(.compare-same):not(.compare-gap)'); \
             return r ? [r.querySelector('.compare-left')?.dataset.entryId ?? null, r.querySelector('.compare-right')?.dataset.entryId ?? null] : null;",
            vec![],
        )
        .await?;
    let at = &doc["rows"][diverge as usize];
    let want = json!([at["a"]["entryId"], at["b"]["entryId"]]);
    ensure!(first == want, "first row past the shared prefix: {first}, the CLI's {want}");
    // Changed and diverged rows are all drawn; same rows are drawn or counted in a fold.
    let drawn = client
        .execute(
            "const n = (op) => document.querySelectorAll(`#compare-rows .compare-row.compare-${op}`).length; \
             const folded = Array.from(document.querySelectorAll('#compare-rows .compare-row.compare-gap'), \
               (g) => Number(g.textContent.replace(/,/g, '').match(/\\d+/)[0])).reduce((a, b) => a + b, 0); \
             return [n('same') + folded, n('changed'), n('diverged')];",
            vec![],
        )
        .await?;
    let want = json!([doc["sameCount"], doc["changedCount"], doc["divergedCount"]]);
    ensure!(drawn == want, "rows drawn (same, changed, diverged) {drawn}, the CLI's {want}");
    screenshot(harness, client, "side-by-side.png").await?;
    client.execute("document.getElementById('compare-dialog').close();", vec![]).await?;
    wait_for(client, "the dialog to close", "return !document.body.dataset.compare;").await
}

/// The branch map beside the tree: a click at a row's place on the map selects that row in the
/// list, and the map covers exactly the rows the list shows.
pub async fn the_branch_map_selects_the_row_it_is_clicked_at(harness: &Harness) -> anyhow::Result<()> {
    with_app(harness, &[], async |client| {
        wait_until_ready(client).await?;
        let rows = all_row_ids(client).await?;
        let n = rows.len();
        let shown = client.execute("return Number(document.getElementById('map').dataset.rows);", vec![]).await?;
        ensure!(shown == json!(n), "the map covers {shown} rows, the list shows {n}");
        for k in [n / 3, n - 1] {
            client
                .execute(
                    "const c = document.getElementById('map'); const r = c.getBoundingClientRect(); \
                     const y = r.top + (arguments[0] + 0.5) * r.height / arguments[1]; \
                     for (const type of ['mousedown', 'mouseup']) \
                       c.dispatchEvent(new MouseEvent(type, { clientX: r.left + 2, clientY: y, bubbles: true }));",
                    vec![json!(k), json!(n)],
                )
                .await?;
            let want = rows[k].clone();
            wait_for(
                client,
                "the clicked row selected",
                &format!("return document.querySelector('#tree-rows .row.selected')?.dataset.entryId === {want:?};"),
            )
            .await?;
        }
        screenshot(harness, client, "branch-map.png").await
    })
    .await
}
