//! What every case does with the app: start it under the driver, wait for it, read it, press
//! keys, scroll the virtualized tree, take screenshots.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _};
use fantoccini::actions::{InputSource as _, KeyAction, KeyActions};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

use crate::{driver, Harness};
/// Starts the app with `args` in a WebDriver session, runs `checks`, quits, and waits for the
/// app to exit (before the driver is stopped: see `driver.rs`).
pub async fn with_app<F>(harness: &Harness, args: &[String], checks: F) -> anyhow::Result<()>
where
    F: AsyncFnOnce(&Client) -> anyhow::Result<()>,
{
    with_app_in(harness, &harness.app, args, checks).await
}

/// `with_app` for an app started through `launcher` (the app binary, or a script that `exec`s
/// it: the process under the driver must be the app binary).
pub async fn with_app_in<F>(harness: &Harness, launcher: &Path, args: &[String], checks: F) -> anyhow::Result<()>
where
    F: AsyncFnOnce(&Client) -> anyhow::Result<()>,
{
    let log_start = std::fs::metadata(harness.driver.log()).map_or(0, |m| m.len());
    let client = match start_session(harness, launcher, args).await {
        Ok(client) => client,
        // GTK failing to open the Xvfb display is the machine's, not the app's: seen once in
        // a CI run under heavy load. One more try; any other failure is the test's.
        Err(err) if gtk_failed_since(harness, log_start) => {
            eprintln!("e2e: the app could not initialize GTK ({err:#}); starting it once more");
            start_session(harness, launcher, args).await?
        }
        Err(err) => return Err(err),
    };
    // Remember the app's processes while the session is alive, to wait for them after quit.
    let app_pids = harness.driver.descendants_running(&harness.app);
    let res = checks(&client).await;
    let closing = Instant::now();
    client.close().await.context("closing the WebDriver session")?;
    driver::wait_for_exit(&app_pids, Duration::from_secs(15))?;
    // A slow exit is not a failure, but the one that fails has precursors worth seeing.
    if closing.elapsed() > Duration::from_secs(3) {
        eprintln!("e2e: the app took {:.1} s to exit after quit", closing.elapsed().as_secs_f64());
    }
    res
}

/// A WebDriver session on the app started through `launcher` with `args`.
async fn start_session(harness: &Harness, launcher: &Path, args: &[String]) -> anyhow::Result<Client> {
    let capabilities = json!({
        "browserName": "wry",
        "tauri:options": { "application": launcher, "args": args },
    });
    let Value::Object(capabilities) = capabilities else { unreachable!() };
    // An app that dies while starting (no display, GTK failing) leaves the driver waiting
    // forever: give the session a deadline instead.
    let url = harness.driver.url();
    let mut builder = ClientBuilder::native();
    let connect = builder.capabilities(capabilities).connect(&url);
    tokio::time::timeout(Duration::from_secs(90), connect)
        .await
        .with_context(|| format!("no WebDriver session after 90 s (did the app start?); see {}", harness.driver.log().display()))?
        .with_context(|| format!("WebDriver session failed; see {}", harness.driver.log().display()))
}

/// Whether the driver's log, past `start`, tells of an app that could not initialize GTK.
fn gtk_failed_since(harness: &Harness, start: u64) -> bool {
    let log = std::fs::read(harness.driver.log()).unwrap_or_default();
    let new = log.get(start as usize..).unwrap_or_default();
    String::from_utf8_lossy(new).contains("Failed to initialize GTK")
}

/// The repository root (this file is `tests/e2e/e2e.rs`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `target/debug/contextree-app`, beside this test's `target/debug/deps/e2e-*`;
/// `CONTEXTREE_APP_BIN` overrides it.
pub fn app_binary() -> anyhow::Result<PathBuf> {
    let path = match std::env::var_os("CONTEXTREE_APP_BIN") {
        Some(path) => PathBuf::from(path),
        None => {
            let exe = std::env::current_exe()?;
            let profile_dir = exe.parent().and_then(Path::parent).context("test binary is not in <target>/<profile>/deps")?;
            profile_dir.join("contextree-app")
        }
    };
    ensure!(path.is_file(), "app binary `{}` not found: run `cargo build --workspace --all-targets` first", path.display());
    Ok(std::fs::canonicalize(path)?)
}

/// Entry ids of a session file in file order: every line with an `id` but the `session` header.
pub fn entry_ids(jsonl: &str) -> anyhow::Result<Vec<String>> {
    let mut res = Vec::new();
    for (idx, line) in jsonl.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line).with_context(|| format!("demo session line {} is not JSON", idx + 1))?;
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
pub async fn wait_until_ready(client: &Client) -> anyhow::Result<()> {
    let timeout = Duration::from_secs(30);
    let deadline = Instant::now() + timeout;
    loop {
        let state = client.execute("return document.body ? document.body.dataset.state : null;", vec![]).await?;
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
pub async fn scroll_tree(client: &Client, top: f64) -> anyhow::Result<Value> {
    client.execute("document.getElementById('tree').scrollTop = arguments[0];", vec![json!(top)]).await?;
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
pub async fn scroll_tree_to_row(client: &Client, index: usize) -> anyhow::Result<()> {
    let height = client.execute("return document.getElementById('tree').clientHeight;", vec![]).await?;
    let top = (index as f64 * 24.0 - height.as_f64().unwrap_or(0.0) / 2.0).max(0.0);
    scroll_tree(client, top).await.map(drop)
}

/// The id of every tree row in display order, scrolling the virtualized tree from top to
/// bottom and reading the rows each window renders.
pub async fn all_row_ids(client: &Client) -> anyhow::Result<Vec<String>> {
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
pub async fn row_states(client: &Client) -> anyhow::Result<Value> {
    Ok(client
        .execute(
            "return Array.from(document.querySelectorAll('#tree-rows .row'), \
             (row) => row.dataset.entryId + ' ' + row.className);",
            vec![],
        )
        .await?)
}

/// Polls `script` (a function body returning a boolean) until it is true (10 s).
pub async fn wait_for(client: &Client, what: &str, script: &str) -> anyhow::Result<()> {
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
pub async fn wait_for_leaf(client: &Client, leaf: &str) -> anyhow::Result<()> {
    wait_for(client, &format!("leaf {leaf}"), &format!("return document.body.dataset.leaf === {leaf:?} && !document.body.dataset.busy;"))
        .await
}

/// Waits until the rows on screen have their previews.
pub async fn wait_for_previews(client: &Client) -> anyhow::Result<()> {
    wait_for(
        client,
        "row previews",
        "return Array.from(document.querySelectorAll('#tree-rows .row .preview'))\
           .some((p) => p.textContent !== '');",
    )
    .await
}

/// The element matching `css`, once it exists (10 s).
pub async fn wait_for_element(client: &Client, css: &str) -> anyhow::Result<fantoccini::elements::Element> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match client.find(Locator::Css(css)).await {
            Ok(el) => return Ok(el),
            Err(_) if Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(100)).await,
            Err(err) => return Err(err).with_context(|| format!("no element `{css}`")),
        }
    }
}

/// Clicks the tree row of entry `id` (on screen) and waits until it is the selected row. The
/// tree recycles its row nodes on every redraw, so a node found before a redraw (previews
/// arriving, rows shown or hidden) can show another row by the time the click lands: the click
/// is tried again until the row clicked is the one meant (10 s).
pub async fn click_row(client: &Client, id: &str) -> anyhow::Result<()> {
    let selector = format!("#tree-rows .row[data-entry-id={id:?}]");
    let selected = format!("return document.querySelector('#tree-rows .row.selected')?.dataset.entryId === {id:?};");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let row = wait_for_element(client, &selector).await?;
        // A node recycled between the find and the click is a stale or moved element: try again.
        let clicked = row.click().await;
        for _ in 0..10 {
            if client.execute(&selected, vec![]).await? == json!(true) {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        if Instant::now() > deadline {
            clicked.with_context(|| format!("clicking the row of {id}"))?;
            bail!("the row of {id} is not selected after clicking it for 10 s");
        }
    }
}

/// Finds the row of entry `id` in the whole tree, scrolls it on screen and clicks it (see
/// [`click_row`]); returns every row id in display order.
pub async fn find_and_click_row(client: &Client, id: &str) -> anyhow::Result<Vec<String>> {
    let rows = all_row_ids(client).await?;
    let index = rows.iter().position(|r| r == id).with_context(|| format!("no tree row for {id}"))?;
    scroll_tree_to_row(client, index).await?;
    click_row(client, id).await?;
    Ok(rows)
}

/// A key press through WebDriver actions, to whatever has the focus.
pub async fn press_key(client: &Client, value: char) -> anyhow::Result<()> {
    let actions = KeyActions::new("keyboard".into()).then(KeyAction::Down { value }).then(KeyAction::Up { value });
    client.perform_actions(actions).await.context("key press")?;
    Ok(())
}

/// Saves a screenshot under `target/screenshots/` (or `$CONTEXTREE_SCREENSHOTS`).
pub async fn screenshot(harness: &Harness, client: &Client, name: &str) -> anyhow::Result<()> {
    // WebKitWebDriver's screenshot waits for the page's next paint. Painting without the
    // compositor (`src-tauri/src/rendering.rs`, the mode on machines without a GPU such as CI's),
    // a page at rest never paints again, and the screenshot never returns: seen on the settings
    // screen, where no caret blinks. So the page is kept painting, one pixel behind everything
    // changing colour each frame, until the screenshot is taken.
    client.execute(KEEP_PAINTING, vec![]).await.context("keeping the page painting for a screenshot")?;
    // A screenshot that still hangs fails the case (the session is stuck behind it).
    let png = tokio::time::timeout(Duration::from_secs(30), client.screenshot())
        .await
        .context("screenshot: no picture after 30 s")?
        .context("screenshot")?;
    client.execute(STOP_PAINTING, vec![]).await?;
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

/// Starts the repaints `screenshot` needs: a 1×1 pixel at the top left, under everything the
/// page draws there, toggling between two transparent-enough colours every frame (for at most
/// 30 s).
const KEEP_PAINTING: &str = "\
    const dot = document.createElement('div'); \
    dot.id = 'e2e-keep-painting'; \
    for (const [k, v] of [['position', 'fixed'], ['left', '0'], ['top', '0'], ['width', '1px'], \
        ['height', '1px'], ['z-index', '-2147483647'], ['pointer-events', 'none']]) dot.style.setProperty(k, v); \
    document.body.append(dot); \
    const until = performance.now() + 30000; \
    let odd = false; \
    const tick = () => { \
      if (!dot.isConnected || performance.now() > until) return dot.remove(); \
      odd = !odd; \
      dot.style.setProperty('background-color', odd ? 'rgba(0, 0, 0, 0.01)' : 'rgba(0, 0, 0, 0.02)'); \
      requestAnimationFrame(tick); \
    }; \
    requestAnimationFrame(tick);";

const STOP_PAINTING: &str = "document.getElementById('e2e-keep-painting')?.remove();";

/// `textContent` of the element with `id`: what the UI put there, whatever the layout shows.
/// `path` as the page shows it: the apps run with the scratch folder as their home
/// (`TauriDriver::start`), and the page writes paths inside the home folder as `~/…`.
pub fn shown(harness: &Harness, path: &Path) -> String {
    match path.strip_prefix(&harness.scratch) {
        Ok(rest) => format!("~/{}", rest.display()),
        Err(_) => path.display().to_string(),
    }
}

pub async fn text_content(client: &Client, id: &str) -> anyhow::Result<String> {
    let text =
        client.execute("const el = document.getElementById(arguments[0]); return el ? el.textContent : null;", vec![json!(id)]).await?;
    text.as_str().map(str::to_owned).with_context(|| format!("no element `#{id}`"))
}

/// WebKit paints without compositing exactly when the machine has no GPU render node and the
/// environment did not choose (`src-tauri/src/rendering.rs`): the app sets the variable for the
/// web process it starts, whose environment shows it.
pub fn check_compositing_choice(harness: &Harness) -> anyhow::Result<()> {
    const VAR: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    let render_node = std::fs::read_dir("/dev/dri")
        .map(|dir| dir.flatten().any(|e| e.file_name().to_string_lossy().starts_with("renderD")))
        .unwrap_or(false);
    let expected = match std::env::var(VAR) {
        Ok(chosen) => Some(chosen),
        Err(_) if render_node => None,
        Err(_) => Some("1".to_owned()),
    };
    let web = harness.driver.web_processes_of(&harness.app);
    ensure!(!web.is_empty(), "no WebKit web process under the app");
    for pid in web {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).with_context(|| format!("reading the environment of {pid}"))?;
        let value = environ
            .split(|&b| b == 0)
            .find_map(|pair| pair.strip_prefix(format!("{VAR}=").as_bytes()))
            .map(|v| String::from_utf8_lossy(v).into_owned());
        ensure!(value == expected, "web process {pid}: {VAR} is {value:?}, expected {expected:?} (render node: {render_node})");
    }
    Ok(())
}
