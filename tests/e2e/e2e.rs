//! End-to-end test of the real app: Xvfb, tauri-driver, WebKitWebDriver and fantoccini.
//!
//! Run with `CONTEXTREE_E2E=1 xvfb-run -a -s '-screen 0 1280x800x24' cargo test -p contextree-e2e`
//! after `cargo build --workspace --all-targets` (`scripts/test.sh` does both).
//! Without `CONTEXTREE_E2E=1` it prints a `skipped` line and exits 0: it needs a display, the
//! built app binary, `tauri-driver` and `/usr/bin/WebKitWebDriver` (`scripts/install-deps.sh`).
//!
//! One driver serves every case; each case starts the app in its own WebDriver session:
//! - with no argument the app shows the bundled demo session, and the entry list holds exactly
//!   the entries of `demo/demo-session.jsonl`, in file order (screenshot saved to
//!   `target/screenshots/skeleton.png`, or under `$CONTEXTREE_SCREENSHOTS`);
//! - with a path argument it opens that file instead.
//!
//! A plain `harness = false` binary rather than `#[test]`s: the cases share one driver on fixed
//! ports, and the skip must be visible without `#[ignore]`. It prints `N passed, M failed`.

mod driver;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _};
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
    let driver = TauriDriver::start(&scratch.join("tauri-driver.log"))?;
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
    let capabilities = json!({
        "browserName": "wry",
        "tauri:options": { "application": harness.app, "args": args },
    });
    let Value::Object(capabilities) = capabilities else {
        unreachable!()
    };
    let client = ClientBuilder::native()
        .capabilities(capabilities)
        .connect(&harness.driver.url())
        .await
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

/// No argument: the bundled demo, every entry a row in file order; the CSP holds; screenshot.
async fn demo_session_opens_without_arguments(harness: &Harness) -> anyhow::Result<()> {
    with_app(harness, &[], async |client| {
        wait_until_ready(client).await?;
        let rendered = rendered_entry_ids(client).await?;
        // One row per entry, in file order, the first and last included.
        let expected = &harness.expected;
        ensure!(
            rendered.len() == expected.len(),
            "{} rows for {} entries",
            rendered.len(),
            expected.len()
        );
        ensure!(
            rendered == *expected,
            "rows {rendered:?} differ from entries {expected:?}"
        );

        // The rows are real text, not empty shells: the first one names its id.
        let first = client
            .find(Locator::Css("#entry-rows tr[data-entry-id]"))
            .await?
            .text()
            .await?;
        ensure!(
            first.contains(expected[0].as_str()),
            "first row `{first}` lacks its id"
        );
        let file = text_content(client, "session-file").await?;
        ensure!(file == "demo-session.jsonl", "title bar shows `{file}`");

        // The CSP of tauri.conf.json is in force: no eval (a probe, not something the UI does).
        let eval = client
            .execute(
                "try { return window.eval('1 + 1') === 2 ? 'eval allowed' : 'eval odd'; } \
                 catch (e) { return e.name; }",
                vec![],
            )
            .await?;
        ensure!(eval == "EvalError", "the CSP does not block eval: {eval}");

        let png = client.screenshot().await.context("screenshot")?;
        // Screenshots go to target/ so a test run leaves the work tree clean;
        // CONTEXTREE_SCREENSHOTS=docs/screenshots refreshes the README's pictures.
        let shots = match std::env::var_os("CONTEXTREE_SCREENSHOTS") {
            Some(dir) => harness.root.join(dir),
            None => harness.root.join("target/screenshots"),
        };
        std::fs::create_dir_all(&shots)?;
        std::fs::write(shots.join("skeleton.png"), png)?;
        Ok(())
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
        let rendered = rendered_entry_ids(client).await?;
        ensure!(
            rendered == harness.expected,
            "rows {rendered:?} differ from the file's entries"
        );
        Ok(())
    })
    .await
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

/// The `data-entry-id` of every rendered row, in document order (one round trip).
async fn rendered_entry_ids(client: &Client) -> anyhow::Result<Vec<String>> {
    let ids = client
        .execute(
            "return Array.from(document.querySelectorAll('#entry-rows tr[data-entry-id]'), \
             (row) => row.dataset.entryId);",
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(ids)?)
}

/// `textContent` of the element with `id`: what the UI put there, whatever the layout shows.
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
