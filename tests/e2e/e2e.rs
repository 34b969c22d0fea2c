//! End-to-end test of the real app: Xvfb, tauri-driver, WebKitWebDriver and fantoccini.
//!
//! Run with `CONTEXTREE_E2E=1 xvfb-run -a -s '-screen 0 1280x800x24' cargo test -p contextree-e2e`
//! after `cargo build --workspace --all-targets` (`scripts/test.sh` does both).
//! Without `CONTEXTREE_E2E=1` it prints a `skipped` line and exits 0: it needs a display, the
//! built app binary, `tauri-driver` and `/usr/bin/WebKitWebDriver` (`scripts/install-deps.sh`).
//!
//! One driver serves every case; each case starts the app in its own WebDriver session:
//! - with no argument the app shows the bundled demo session: the virtualized tree holds exactly
//!   the entries of `demo/demo-session.jsonl` (scrolled through), the file's leaf is marked and
//!   its context has as many messages as `contextree context` counts (screenshot
//!   `main-screen.png` in `target/screenshots/`, or under `$CONTEXTREE_SCREENSHOTS`);
//! - with a path argument it opens that file instead;
//! - a leaf on another branch, selected with a click and Enter, recomputes the tree and the
//!   context, which again matches the CLI; `g` goes back to the file's leaf (`another-leaf.png`);
//!   that leaf marked (`m`) and compared with the file's leaf (`=`) shows the two contexts side
//!   by side, diverging where the CLI's two contexts do (`side-by-side.png`);
//! - `tests/fixtures/edge/xss.jsonl`: HTML in session text shows as text, and creates no element,
//!   and the branch exported as an HTML page holds it as text, with no script;
//! - the branch map beside the tree covers the rows the list shows; a click on it selects the
//!   row at that place (`branch-map.png`);
//! - metadata rows are hidden by default; the budget bar shows the model's window and a typed
//!   window overrides it; ←/→ fold and unfold a subtree; `/` search narrows the tree, Enter
//!   selects a match, Esc restores the rows; the `user only` filter (`search.png`);
//! - live reload: a line appended to the open file becomes a row within 3 s and the selected
//!   row stays selected (`live-reload.png`);
//! - `c` previews a compaction: the PLAN panel's tokens before equal `contextree compact
//!   --dry-run`'s, the summarized rows get a dashed outline, Esc closes it
//!   (`compaction-preview.png`).
//! - `library.rs`: the Library screen over fake pi / omp folders in a scratch HOME
//!   (`library.png`), Settings switching to the dark theme (`settings.png`, `dark.png`), and the
//!   problems panel of a file that is not a session.
//! - `writes.rs`: compaction against a fake provider (`compaction-running.png`,
//!   `compaction-diff.png`), prune (`prune-preview.png`), navigate with a summary
//!   (`navigate-summary.png`), Cancel, editing then undoing a compaction, and a prune refused
//!   while another process holds the file open for writing (`prune-held.png`), each on a copy
//!   of a fixture and checked against the file and the CLI.
//! - `context_panel.rs`: tokenizer counts equal to `contextree context --tokenizer`'s, "show
//!   all" of a cut message, Copy Markdown / Copy JSON of the whole context; a compaction
//!   selected in the tree flags the requests its summary may have lost, as `contextree drops`;
//!   the usage dialog (`$`) shows the totals and chart points `contextree usage` gives.
//! - `pi16.rs`: a pi 1.6 session shows the rule set and why, the system prompt before the
//!   messages, a hidden row for the message a `context_edit` hides (`pi16-context.png`).
//!
//! A plain `harness = false` binary rather than `#[test]`s: the cases share one driver on fixed
//! ports, and the skip must be visible without `#[ignore]`. It prints `N passed, M failed`.

mod driver;
// The Library and Settings screens and the problems panel, under a scratch HOME.
mod library;
// The write flows (compact, prune, navigate, cancel, edit, undo) on copies of fixtures.
mod writes;
// The context panel's tokenizer counts, "show all" and copy.
mod context_panel;

mod pi16;
// Steps the cases share: the CLI's JSON, an agent's appended line, the plan panel.
mod steps;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _};
use fantoccini::actions::{
    InputSource as _, KeyAction, KeyActions, MouseActions, PointerAction, MOUSE_BUTTON_LEFT,
};
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

use driver::TauriDriver;

fn main() -> ExitCode {
    if std::env::var_os("CONTEXTREE_E2E").is_none_or(|v| v != "1") {
        println!("e2e: skipped: set CONTEXTREE_E2E=1 and run under xvfb-run (see scripts/test.sh)");
        return ExitCode::SUCCESS;
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    match runtime.block_on(run_all()) {
        Ok((n_passed, n_failed)) => {
            println!("e2e: {n_passed} passed, {n_failed} failed");
            if n_failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(err) => {
            eprintln!("e2e: setup failed: {err:#}");
            println!("e2e: 0 passed, 1 failed");
            ExitCode::FAILURE
        }
    }
}

/// What every case needs: the app binary, the demo's entry ids and a running driver.
struct Harness {
    root: PathBuf,
    app: PathBuf,
    scratch: PathBuf,
    expected: Vec<String>,
    driver: TauriDriver,
}

/// Runs every case against one driver; `Err` only when the harness cannot start.
async fn run_all() -> anyhow::Result<(usize, usize)> {
    ensure!(
        std::env::var_os("DISPLAY").is_some(),
        "no DISPLAY: run under `xvfb-run -a -s '-screen 0 1280x800x24'`"
    );
    let root = repo_root();
    let demo = std::fs::read_to_string(root.join("demo/demo-session.jsonl"))
        .context("cannot read demo/demo-session.jsonl")?;
    let expected = entry_ids(&demo)?;
    ensure!(!expected.is_empty(), "the demo session has no entries");
    let app = app_binary()?;
    let scratch = app.parent().unwrap().join("e2e");
    std::fs::create_dir_all(&scratch)?;
    let driver = TauriDriver::start(&scratch.join("tauri-driver.log"), &scratch)?;
    let harness = Harness {
        root,
        app,
        scratch,
        expected,
        driver,
    };

    let mut n_passed = 0;
    let mut n_failed = 0;
    for (name, res) in [
        (
            "demo_session_opens_without_arguments",
            demo_session_opens_without_arguments(&harness).await,
        ),
        (
            "session_named_on_the_command_line_opens",
            session_named_on_the_command_line_opens(&harness).await,
        ),
        (
            "a_leaf_on_another_branch_recomputes_tree_and_context",
            a_leaf_on_another_branch_recomputes_tree_and_context(&harness).await,
        ),
        (
            "html_in_session_text_stays_text",
            html_in_session_text_stays_text(&harness).await,
        ),
        (
            "the_branch_map_selects_the_row_it_is_clicked_at",
            the_branch_map_selects_the_row_it_is_clicked_at(&harness).await,
        ),
        (
            "search_and_filters_narrow_the_tree",
            search_and_filters_narrow_the_tree(&harness).await,
        ),
        (
            "an_appended_entry_appears_live_and_the_selection_stays",
            an_appended_entry_appears_live_and_the_selection_stays(&harness).await,
        ),
        (
            "c_previews_a_compaction_as_the_cli_plans_it",
            c_previews_a_compaction_as_the_cli_plans_it(&harness).await,
        ),
        (
            "the_context_panel_counts_shows_all_and_copies",
            context_panel::the_context_panel_counts_shows_all_and_copies(&harness).await,
        ),
        (
            "a_compaction_flags_the_requests_its_summary_may_have_lost",
            context_panel::a_compaction_flags_the_requests_its_summary_may_have_lost(&harness).await,
        ),
        (
            "the_usage_dialog_shows_what_contextree_usage_sums",
            context_panel::the_usage_dialog_shows_what_contextree_usage_sums(&harness).await,
        ),
        (
            "a_pi16_session_shows_the_system_prompt_first_and_the_edits",
            pi16::a_pi16_session_shows_the_system_prompt_first_and_the_edits(&harness).await,
        ),
        (
            "the_library_lists_sessions_by_project_and_opens_one",
            library::the_library_lists_sessions_by_project_and_opens_one(&harness).await,
        ),
        (
            "settings_switch_the_theme_to_dark_and_keep_the_providers",
            library::settings_switch_the_theme_to_dark_and_keep_the_providers(&harness).await,
        ),
        (
            "a_file_that_is_not_a_session_shows_its_problems",
            library::a_file_that_is_not_a_session_shows_its_problems(&harness).await,
        ),
        (
            "compaction_runs_against_a_fake_provider_and_shows_the_diff",
            writes::compaction_runs_against_a_fake_provider_and_shows_the_diff(&harness).await,
        ),
        (
            "prune_previews_the_outputs_and_rewrites_with_a_backup",
            writes::prune_previews_the_outputs_and_rewrites_with_a_backup(&harness).await,
        ),
        (
            "a_prune_refused_for_a_held_file_says_so_and_writes_nothing",
            writes::a_prune_refused_for_a_held_file_says_so_and_writes_nothing(&harness).await,
        ),
        (
            "navigate_with_a_summary_appends_a_branch_summary",
            writes::navigate_with_a_summary_appends_a_branch_summary(&harness).await,
        ),
        (
            "a_cancelled_or_outdated_summary_writes_nothing",
            writes::a_cancelled_or_outdated_summary_writes_nothing(&harness).await,
        ),
        (
            "a_summary_is_edited_then_the_compaction_undone",
            writes::a_summary_is_edited_then_the_compaction_undone(&harness).await,
        ),
    ] {
        match res {
            Ok(()) => {
                n_passed += 1;
                println!("e2e: {name} ... ok");
            }
            Err(err) => {
                n_failed += 1;
                println!("e2e: {name} ... FAILED");
                eprintln!("e2e: {name}: {err:#}");
            }
        }
    }
    harness.driver.stop()?;
    Ok((n_passed, n_failed))
}

/// Starts the app with `args` in a WebDriver session, runs `checks`, quits, and waits for the
/// app to exit (before the driver is stopped: see `driver.rs`).
async fn with_app<F>(harness: &Harness, args: &[String], checks: F) -> anyhow::Result<()>
where
    F: AsyncFnOnce(&Client) -> anyhow::Result<()>,
{
    with_app_in(harness, &harness.app, args, checks).await
}

/// `with_app` for an app started through `launcher` (the app binary, or a script that `exec`s
/// it: the process under the driver must be the app binary).
async fn with_app_in<F>(
    harness: &Harness,
    launcher: &Path,
    args: &[String],
    checks: F,
) -> anyhow::Result<()>
where
    F: AsyncFnOnce(&Client) -> anyhow::Result<()>,
{
    let capabilities = json!({
        "browserName": "wry",
        "tauri:options": { "application": launcher, "args": args },
    });
    let Value::Object(capabilities) = capabilities else {
        unreachable!()
    };
    // An app that dies while starting (no display, GTK failing) leaves the driver waiting
    // forever: give the session a deadline instead.
    let url = harness.driver.url();
    let mut builder = ClientBuilder::native();
    let connect = builder.capabilities(capabilities).connect(&url);
    let client = tokio::time::timeout(Duration::from_secs(90), connect)
        .await
        .with_context(|| {
            format!(
                "no WebDriver session after 90 s (did the app start?); see {}",
                harness.driver.log().display()
            )
        })?
        .with_context(|| {
            format!(
                "WebDriver session failed; see {}",
                harness.driver.log().display()
            )
        })?;
    // Remember the app's processes while the session is alive, to wait for them after quit.
    let app_pids = harness.driver.descendants_running(&harness.app);
    let res = checks(&client).await;
    client
        .close()
        .await
        .context("closing the WebDriver session")?;
    driver::wait_for_exit(&app_pids, Duration::from_secs(15))?;
    res
}

/// No argument: the bundled demo, every entry a tree row; the file's leaf and its context; the
/// CSP holds; screenshot.
async fn demo_session_opens_without_arguments(harness: &Harness) -> anyhow::Result<()> {
    with_app(harness, &[], async |client| {
        wait_until_ready(client).await?;
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
async fn session_named_on_the_command_line_opens(harness: &Harness) -> anyhow::Result<()> {
    let session = harness.scratch.join("named-on-command-line.jsonl");
    std::fs::copy(harness.root.join("demo/demo-session.jsonl"), &session)?;
    let args = [session.display().to_string()];
    with_app(harness, &args, async |client| {
        wait_until_ready(client).await?;
        let file = text_content(client, "session-file").await?;
        ensure!(
            file == "named-on-command-line.jsonl",
            "title bar shows `{file}`"
        );
        show_metadata(client).await?;
        check_all_entries_are_rows(client, &harness.expected).await
    })
    .await
}

/// A leaf that is not the file's last entry: `6df8d54a` ends the branch that starts at
/// `1b2b2a9a` (the file continues on the sibling branch from `d2a5c41b`).
const OTHER_LEAF: &str = "6df8d54a";

/// Click a leaf on another branch and press Enter: the tree's states and the context follow
/// it, and the context matches the CLI's; `g` goes back to the file's leaf.
async fn a_leaf_on_another_branch_recomputes_tree_and_context(
    harness: &Harness,
) -> anyhow::Result<()> {
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
        let index = rows
            .iter()
            .position(|id| id == OTHER_LEAF)
            .context("no tree row for the other leaf")?;
        scroll_tree_to_row(client, index).await?;
        let selector = format!("#tree-rows .row[data-entry-id='{OTHER_LEAF}']");
        let row = wait_for_element(client, &selector).await?;
        row.click().await.context("clicking the row")?;
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
        let marked = client
            .execute(
                "return document.querySelector('#tree-rows .row.leaf')?.dataset.entryId ?? null;",
                vec![],
            )
            .await?;
        ensure!(marked == json!(OTHER_LEAF), "leaf marker on {marked}");
        let demo = harness.root.join("demo/demo-session.jsonl");
        check_context_matches_cli(harness, client, &demo, OTHER_LEAF).await?;
        let wrapper = client
            .execute(
                "return document.querySelector('#context .wrapper')?.textContent ?? '';",
                vec![],
            )
            .await?;
        ensure!(
            wrapper
                .as_str()
                .is_some_and(|w| w.starts_with("wrapper text: ")),
            "no wrapper-text line: {wrapper}"
        );
        wait_for_previews(client).await?;
        screenshot(harness, client, "another-leaf.png").await?;
        // Mark this leaf for a side-by-side comparison.
        press_key(client, 'm').await?;

        press_key(client, 'g').await?;
        wait_for_leaf(client, file_leaf).await?;
        check_side_by_side(harness, client, &demo, OTHER_LEAF, file_leaf).await?;

        // A double-click makes a row the leaf too.
        scroll_tree_to_row(client, index).await?;
        let row = wait_for_element(client, &selector).await?;
        let mouse = MouseActions::new("mouse".into())
            .then(PointerAction::MoveToElement {
                element: row,
                duration: None,
                x: 0.0,
                y: 0.0,
            })
            .then(PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            })
            .then(PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            })
            .then(PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            })
            .then(PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            });
        client
            .perform_actions(mouse)
            .await
            .context("double-click")?;
        wait_for_leaf(client, OTHER_LEAF).await
    })
    .await
}

/// The two payloads of `tests/fixtures/edge/xss.jsonl`.
const XSS: [&str; 2] = ["<img src=x onerror=alert(1)>", "<script>alert(2)</script>"];

/// HTML in user and assistant text, tool output, a label and a custom type is shown as text in
/// the tree, the context and the entry panel, and no `<img>` or `<script>` comes of it.
async fn html_in_session_text_stays_text(harness: &Harness) -> anyhow::Result<()> {
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
        for (id, what) in [
            ("tree-rows", "tree"),
            ("context", "context panel"),
            ("entry", "entry panel"),
        ] {
            let text = text_content(client, id).await?;
            for payload in XSS {
                ensure!(
                    text.contains(payload),
                    "the {what} does not show `{payload}` as text"
                );
            }
        }
        // The custom entry's raw line in the entry panel.
        let row = wait_for_element(client, "#tree-rows .row[data-entry-id='cus1']").await?;
        row.click().await?;
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
        ensure!(
            created["img"] == json!(0),
            "an <img> element was created: {created}"
        );
        let scripts = created["scripts"].as_array().context("scripts")?;
        ensure!(
            scripts.len() == 1
                && scripts[0]
                    .as_str()
                    .is_some_and(|s| s.ends_with("/src/main.js")),
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
async fn check_metadata_hidden_by_default(
    client: &Client,
    expected: &[String],
) -> anyhow::Result<()> {
    let count = client
        .execute(
            "return Number(document.getElementById('tree').dataset.rowCount ?? -1);",
            vec![],
        )
        .await?;
    ensure!(
        count
            .as_u64()
            .is_some_and(|n| n > 0 && (n as usize) < expected.len()),
        "{count} rows shown for {} entries with metadata hidden",
        expected.len()
    );
    Ok(())
}

/// Ticks the tree's `metadata` box: every entry becomes a row.
async fn show_metadata(client: &Client) -> anyhow::Result<()> {
    client
        .find(Locator::Id("tree-metadata"))
        .await?
        .click()
        .await
        .context("clicking the metadata box")?;
    wait_for(
        client,
        "metadata rows shown",
        "return document.getElementById('tree-metadata').checked            && /^\\d+ rows$/.test(document.getElementById('tree-count').textContent);",
    )
    .await?;
    // Back to the tree, where the keys go.
    client
        .execute("document.getElementById('tree').focus();", vec![])
        .await?;
    Ok(())
}

/// The budget bar shows the window of the path's model, the used tokens, and its markers; a
/// typed window overrides the model's.
async fn check_budget_bar(client: &Client) -> anyhow::Result<()> {
    wait_for(
        client,
        "budget bar",
        "const b = document.getElementById('budget');          return !b.hidden && /\\d+ \\/ \\d/.test(document.getElementById('budget-amount').textContent)            && !!b.querySelector('.fill-kept') && !!b.querySelector('.mark-threshold');",
    )
    .await?;
    let input = client.find(Locator::Id("budget-window")).await?;
    input
        .send_keys("1000\u{E007}")
        .await
        .context("typing a window")?;
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
    ensure!(
        now[1].as_str().is_some_and(|s| s.starts_with("window of ")),
        "the bar went back to {now}"
    );
    client
        .execute("document.getElementById('budget-window').blur(); document.getElementById('tree').focus();", vec![])
        .await?;
    Ok(())
}

/// `/` opens the search; typing filters the rows; Enter goes to the next match; Esc closes it.
/// The `user only` filter shows user rows (and the leaf).
async fn search_and_filters_narrow_the_tree(harness: &Harness) -> anyhow::Result<()> {
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
async fn an_appended_entry_appears_live_and_the_selection_stays(
    harness: &Harness,
) -> anyhow::Result<()> {
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
        let row = wait_for_element(client, &format!("#tree-rows .row[data-entry-id='{first}']")).await?;
        row.click().await?;
        wait_for(
            client,
            "the first row is selected",
            &format!("return document.querySelector('#tree-rows .row.selected')?.dataset.entryId === {first:?};"),
        )
        .await?;

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
            ensure!(
                appended.elapsed() < Duration::from_secs(3),
                "the appended entry did not appear within 3 s: {state}"
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
async fn check_all_entries_are_rows(client: &Client, expected: &[String]) -> anyhow::Result<()> {
    let count = client
        .execute(
            "return document.getElementById('tree').dataset.rowCount ?? null;",
            vec![],
        )
        .await?;
    ensure!(
        count == json!(expected.len().to_string()),
        "{count} rows for {} entries",
        expected.len()
    );
    let rendered = all_row_ids(client).await?;
    ensure!(
        rendered.first() == expected.first(),
        "first row {:?}, first entry {:?}",
        rendered.first(),
        expected.first()
    );
    let mut sorted_rows = rendered.clone();
    sorted_rows.sort();
    let mut sorted_entries = expected.to_vec();
    sorted_entries.sort();
    ensure!(
        sorted_rows == sorted_entries,
        "rows {rendered:?} differ from entries {expected:?}"
    );
    // The virtualized list renders a window of rows, not all of them.
    let in_dom = client
        .execute(
            "return document.querySelectorAll('#tree-rows .row').length;",
            vec![],
        )
        .await?;
    ensure!(
        in_dom
            .as_u64()
            .is_some_and(|n| n > 0 && (n as usize) < expected.len()),
        "{in_dom} row nodes for {} rows: not windowed",
        expected.len()
    );
    Ok(())
}

/// The context panel lists as many messages as `contextree context --leaf LEAF --json` counts.
/// `c` on the demo: the PLAN panel shows the CLI dry run's tokens before, the rows to be
/// summarized are dashed, Esc closes the panel and removes the outlines.
async fn c_previews_a_compaction_as_the_cli_plans_it(harness: &Harness) -> anyhow::Result<()> {
    let demo = harness.root.join("demo/demo-session.jsonl");
    let doc = steps::cli_json(
        harness,
        "compact",
        &demo,
        &["--dry-run", "--prompts", "own"],
    )?;
    ensure!(
        doc["nothingToCompact"] == false,
        "the CLI plans no compaction of the demo: {doc}"
    );
    let expected = doc["preview"]["tokensBefore"]
        .as_f64()
        .context("no preview.tokensBefore")?;
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
        let tokens = client
            .execute(
                "return document.querySelector('#plan .plan-tokens')?.textContent ?? '';",
                vec![],
            )
            .await?;
        let tokens = tokens.as_str().unwrap_or_default().to_owned();
        let shown: f64 = tokens
            .strip_prefix("tokens before ")
            .and_then(|rest| rest.split_whitespace().next())
            .map(|n| n.replace(',', ""))
            .and_then(|n| n.parse().ok())
            .with_context(|| format!("no tokens before in `{tokens}`"))?;
        ensure!(
            shown == expected,
            "the plan shows tokens before {shown}, the CLI {expected} (`{tokens}`)"
        );
        let calls = client
            .execute(
                "return document.querySelectorAll('#plan details.plan-call pre').length;",
                vec![],
            )
            .await?;
        ensure!(
            calls.as_u64().unwrap_or(0) >= 2,
            "the plan shows no prompt: {calls}"
        );

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
        ensure!(
            dashed.iter().all(|id| summarized.contains(id)),
            "dashed rows {dashed:?} are not all summarized by the CLI's plan"
        );
        client
            .execute(
                "document.querySelector('#plan details.plan-call').open = true;",
                vec![],
            )
            .await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        screenshot(harness, client, "compaction-preview.png").await?;

        press_key(client, Key::Escape.into()).await?;
        wait_for(
            client,
            "the plan closed",
            "return !document.body.dataset.plan;",
        )
        .await?;
        let left = client
            .execute(
                "return document.querySelectorAll('#tree-rows .row[class*=\"plan-\"]').length \
                 + (document.getElementById('plan').hidden ? 0 : 100);",
                vec![],
            )
            .await?;
        ensure!(
            left == json!(0),
            "the plan is still shown after Esc ({left})"
        );
        Ok(())
    })
    .await
}

async fn check_context_matches_cli(
    harness: &Harness,
    client: &Client,
    session: &Path,
    leaf: &str,
) -> anyhow::Result<()> {
    let doc = steps::cli_json(
        harness,
        "context",
        session,
        &["--leaf", leaf, "--prompts", "own"],
    )?;
    let expected = doc["messageCount"].as_u64().context("no messageCount")?;
    let shown = client
        .execute(
            "return document.querySelectorAll('#context-messages > li.message').length;",
            vec![],
        )
        .await?;
    ensure!(
        shown == json!(expected),
        "context panel shows {shown} messages for leaf {leaf}, the CLI counts {expected}"
    );
    let totals = client
        .execute(
            "return document.querySelector('#context .totals')?.textContent ?? '';",
            vec![],
        )
        .await?;
    let words = format!("{expected} messages");
    ensure!(
        totals
            .as_str()
            .is_some_and(|t| t.replace(',', "").starts_with(&words)),
        "totals `{totals}` do not start with `{words}`"
    );
    Ok(())
}

/// The repository root (this file is `tests/e2e/e2e.rs`).
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `target/debug/contextree-app`, beside this test's `target/debug/deps/e2e-*`;
/// `CONTEXTREE_APP_BIN` overrides it.
fn app_binary() -> anyhow::Result<PathBuf> {
    let path = match std::env::var_os("CONTEXTREE_APP_BIN") {
        Some(path) => PathBuf::from(path),
        None => {
            let exe = std::env::current_exe()?;
            let profile_dir = exe
                .parent()
                .and_then(Path::parent)
                .context("test binary is not in <target>/<profile>/deps")?;
            profile_dir.join("contextree-app")
        }
    };
    ensure!(
        path.is_file(),
        "app binary `{}` not found: run `cargo build --workspace --all-targets` first",
        path.display()
    );
    Ok(std::fs::canonicalize(path)?)
}

/// Entry ids of a session file in file order: every line with an `id` but the `session` header.
fn entry_ids(jsonl: &str) -> anyhow::Result<Vec<String>> {
    let mut res = Vec::new();
    for (idx, line) in jsonl.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line)
            .with_context(|| format!("demo session line {} is not JSON", idx + 1))?;
        if value["type"] == "session" {
            continue;
        }
        if let Some(id) = value["id"].as_str() {
            res.push(id.to_owned());
        }
    }
    Ok(res)
}

/// Waits for `body[data-state]` to leave `loading` (see `ui/src/main.js`); fails on `error`.
async fn wait_until_ready(client: &Client) -> anyhow::Result<()> {
    let timeout = Duration::from_secs(30);
    let deadline = Instant::now() + timeout;
    loop {
        let state = client
            .execute(
                "return document.body ? document.body.dataset.state : null;",
                vec![],
            )
            .await?;
        match state.as_str() {
            Some("ready") => return Ok(()),
            Some("error") => {
                let status = client.find(Locator::Id("status")).await?.text().await?;
                bail!("the UI reports an error: {status}");
            }
            _ if Instant::now() > deadline => bail!("UI still `{state}` after {timeout:?}"),
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// Scrolls the tree to `top` and waits until the rows on screen are drawn there: the list
/// redraws on the next animation frame, recycling its row nodes, so an element found before
/// that may show another row by the time it is clicked. Returns what the window shows.
async fn scroll_tree(client: &Client, top: f64) -> anyhow::Result<Value> {
    client
        .execute(
            "document.getElementById('tree').scrollTop = arguments[0];",
            vec![json!(top)],
        )
        .await?;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(30)).await;
        let page = client
            .execute(
                "const tree = document.getElementById('tree'); \
                 const h = 24, n = Number(tree.dataset.rowCount); \
                 const rows = Array.from(document.querySelectorAll('#tree-rows .row'), \
                   (row) => [Number(row.dataset.index), row.dataset.entryId]); \
                 const want = [Math.floor(tree.scrollTop / h), \
                   Math.min(n, Math.ceil((tree.scrollTop + tree.clientHeight) / h)) - 1]; \
                 const have = new Set(rows.map((r) => r[0])); \
                 if (n > 0 && !want.every((i) => have.has(i))) return null; \
                 return { rows, top: tree.scrollTop, height: tree.clientHeight, \
                   end: tree.scrollTop + tree.clientHeight >= tree.scrollHeight - 1 };",
                vec![],
            )
            .await?;
        if !page.is_null() {
            return Ok(page);
        }
    }
    bail!("the tree did not redraw after scrolling to {top}")
}

/// Scrolls the tree so that row `index` is in the middle of the viewport.
async fn scroll_tree_to_row(client: &Client, index: usize) -> anyhow::Result<()> {
    let height = client
        .execute(
            "return document.getElementById('tree').clientHeight;",
            vec![],
        )
        .await?;
    let top = (index as f64 * 24.0 - height.as_f64().unwrap_or(0.0) / 2.0).max(0.0);
    scroll_tree(client, top).await.map(drop)
}

/// The id of every tree row in display order, scrolling the virtualized tree from top to
/// bottom and reading the rows each window renders.
async fn all_row_ids(client: &Client) -> anyhow::Result<Vec<String>> {
    let mut rows: BTreeMap<u64, String> = BTreeMap::new();
    let mut top = 0.0;
    for _ in 0..100_000 {
        let page = scroll_tree(client, top).await?;
        let batch: Vec<(u64, String)> = serde_json::from_value(page["rows"].clone())?;
        rows.extend(batch);
        if page["end"].as_bool().unwrap_or(true) {
            scroll_tree(client, 0.0).await?;
            return Ok(rows.into_values().collect());
        }
        top = page["top"].as_f64().unwrap_or(0.0) + page["height"].as_f64().unwrap_or(0.0);
    }
    bail!("the tree did not reach its end")
}

/// The `data-entry-id` and state class of the rows on screen.
async fn row_states(client: &Client) -> anyhow::Result<Value> {
    Ok(client
        .execute(
            "return Array.from(document.querySelectorAll('#tree-rows .row'), \
             (row) => row.dataset.entryId + ' ' + row.className);",
            vec![],
        )
        .await?)
}

/// Polls `script` (a function body returning a boolean) until it is true (10 s).
async fn wait_for(client: &Client, what: &str, script: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if client.execute(script, vec![]).await? == json!(true) {
            return Ok(());
        }
        if Instant::now() > deadline {
            let status = text_content(client, "status").await.unwrap_or_default();
            let problems = text_content(client, "problems").await.unwrap_or_default();
            bail!("timed out waiting for: {what} (status: `{status}`, problems: `{problems}`)");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until the tree and context on screen are for `leaf` and no request is running.
async fn wait_for_leaf(client: &Client, leaf: &str) -> anyhow::Result<()> {
    wait_for(
        client,
        &format!("leaf {leaf}"),
        &format!("return document.body.dataset.leaf === {leaf:?} && !document.body.dataset.busy;"),
    )
    .await
}

/// Waits until the rows on screen have their previews.
async fn wait_for_previews(client: &Client) -> anyhow::Result<()> {
    wait_for(
        client,
        "row previews",
        "return Array.from(document.querySelectorAll('#tree-rows .row .preview'))\
           .some((p) => p.textContent !== '');",
    )
    .await
}

/// The element matching `css`, once it exists (10 s).
async fn wait_for_element(
    client: &Client,
    css: &str,
) -> anyhow::Result<fantoccini::elements::Element> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match client.find(Locator::Css(css)).await {
            Ok(el) => return Ok(el),
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            Err(err) => return Err(err).with_context(|| format!("no element `{css}`")),
        }
    }
}

/// A key press through WebDriver actions, to whatever has the focus.
async fn press_key(client: &Client, value: char) -> anyhow::Result<()> {
    let actions = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value })
        .then(KeyAction::Up { value });
    client.perform_actions(actions).await.context("key press")?;
    Ok(())
}

/// Saves a screenshot under `target/screenshots/` (or `$CONTEXTREE_SCREENSHOTS`).
async fn screenshot(harness: &Harness, client: &Client, name: &str) -> anyhow::Result<()> {
    let png = client.screenshot().await.context("screenshot")?;
    // Screenshots go to target/ so a test run leaves the work tree clean;
    // CONTEXTREE_SCREENSHOTS=docs/screenshots refreshes the README's pictures.
    let shots = match std::env::var_os("CONTEXTREE_SCREENSHOTS") {
        Some(dir) => harness.root.join(dir),
        None => harness.root.join("target/screenshots"),
    };
    std::fs::create_dir_all(&shots)?;
    std::fs::write(shots.join(name), png)?;
    Ok(())
}

/// `textContent` of the element with `id`: what the UI put there, whatever the layout shows.
/// `path` as the page shows it: the apps run with the scratch folder as their home
/// (`TauriDriver::start`), and the page writes paths inside the home folder as `~/…`.
fn shown(harness: &Harness, path: &Path) -> String {
    match path.strip_prefix(&harness.scratch) {
        Ok(rest) => format!("~/{}", rest.display()),
        Err(_) => path.display().to_string(),
    }
}

async fn text_content(client: &Client, id: &str) -> anyhow::Result<String> {
    let text = client
        .execute(
            "const el = document.getElementById(arguments[0]); return el ? el.textContent : null;",
            vec![json!(id)],
        )
        .await?;
    text.as_str()
        .map(str::to_owned)
        .with_context(|| format!("no element `#{id}`"))
}

/// `=` with `left` marked and `right` shown: the dialog puts the two contexts side by side and
/// its divergence is where the CLI's two contexts stop sharing messages (entry and role).
async fn check_side_by_side(harness: &Harness, client: &Client, file: &std::path::Path, left: &str, right: &str) -> anyhow::Result<()> {
    let messages = |leaf: &str| -> anyhow::Result<Vec<(String, String)>> {
        let doc = steps::cli_json(harness, "context", file, &["--leaf", leaf, "--prompts", "own"])?;
        Ok(doc["messages"]
            .as_array()
            .context("no messages")?
            .iter()
            .map(|m| (m["entryId"].as_str().unwrap_or_default().to_owned(), m["role"].as_str().unwrap_or_default().to_owned()))
            .collect())
    };
    let (a, b) = (messages(left)?, messages(right)?);
    let shared = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    ensure!(shared < a.len().min(b.len()), "the two leaves do not diverge in the CLI's contexts");
    press_key(client, '=').await?;
    wait_for(client, "the side-by-side dialog", "return document.body.dataset.compare === 'open';").await?;
    let summary = text_content(client, "compare-summary").await?;
    ensure!(
        summary.contains(&format!("shared {shared} messages")) && summary.contains(&format!("they diverge at message {}", shared + 1)),
        "the dialog says `{summary}`, the CLI's contexts share {shared} messages"
    );
    // The first row that differs holds A's and B's messages at the divergence, side by side.
    let first = client
        .execute(
            "const r = document.querySelector('#compare-rows .compare-row.compare-differ'); \
             return r ? [r.querySelector('.compare-left')?.dataset.entryId ?? null, r.querySelector('.compare-right')?.dataset.entryId ?? null] : null;",
            vec![],
        )
        .await?;
    ensure!(first == json!([a[shared].0, b[shared].0]), "first differing row {first}, expected {} | {}", a[shared].0, b[shared].0);
    screenshot(harness, client, "side-by-side.png").await?;
    client.execute("document.getElementById('compare-dialog').close();", vec![]).await?;
    wait_for(client, "the dialog to close", "return !document.body.dataset.compare;").await
}

/// The branch map beside the tree: a click at a row's place on the map selects that row in the
/// list, and the map covers exactly the rows the list shows.
async fn the_branch_map_selects_the_row_it_is_clicked_at(harness: &Harness) -> anyhow::Result<()> {
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
