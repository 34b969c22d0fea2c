//! `contextree serve` in a real browser: Debian's headless Chromium, driven through
//! chromedriver with fantoccini, on the UI the app shows (the same `ui/` files, served by the
//! CLI binary). Each case starts its own server (a scratch HOME, one root) and browser:
//! - the library lists the root's session, a click opens it, another leaf is picked in the tree
//!   and the context shown is the one `contextree context` computes (`serve-browser.png`);
//! - a write (navigate: a continue marker) is refused without `--allow-writes`, the dialog says
//!   so and the file is untouched; with it, the same steps append the marker.

use std::io::{BufRead as _, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _};
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder};
use serde_json::{json, Value};

use crate::main_screen::{check_context_matches_cli, OTHER_LEAF};
use crate::steps::cli;
use crate::writes::{appended_lines, click, copy_fixture, wait_for_write};
use crate::{
    find_and_click_row, press_key, screenshot, text_content, wait_for, wait_for_element, wait_for_leaf, wait_until_ready, Harness,
};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";

/// A child process killed (and waited for) when dropped; its output kept open meanwhile.
struct Running {
    child: Child,
    _stdout: Option<BufReader<ChildStdout>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free port on 127.0.0.1 (for chromedriver, which needs one named).
fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// `contextree serve` over `root` (HOME `home`) with `extra` arguments; the URL it printed.
fn serve(harness: &Harness, home: &Path, root: &Path, extra: &[&str]) -> anyhow::Result<(Running, String)> {
    let mut child = Command::new(cli(harness))
        .args(["serve", "--bind", "127.0.0.1:0", "--root"])
        .arg(root)
        .args(extra)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("XDG_DATA_HOME")
        .env_remove("PI_CODING_AGENT_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .context("starting contextree serve")?;
    let mut out = BufReader::new(child.stdout.take().context("no stdout")?);
    let mut line = String::new();
    out.read_line(&mut line)?;
    let running = Running { child, _stdout: Some(out) };
    let url = line.trim().strip_prefix("contextree serve: open ").with_context(|| format!("contextree serve printed `{line}`"))?;
    Ok((running, url.to_owned()))
}

/// chromedriver on a free port, its output in the scratch folder.
fn chromedriver(harness: &Harness) -> anyhow::Result<(Running, u16)> {
    ensure!(Path::new(CHROMEDRIVER).exists(), "{CHROMEDRIVER} not found: run scripts/install-deps.sh");
    let port = free_port()?;
    let log = std::fs::File::create(harness.scratch.join("chromedriver.log"))?;
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn()
        .context("starting chromedriver")?;
    let running = Running { child, _stdout: None };
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            bail!("chromedriver does not listen on {port} after 20 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok((running, port))
}

/// Opens `url` in a fresh headless Chromium (its own profile folder), runs `checks`, quits.
async fn with_browser<F>(harness: &Harness, name: &str, url: &str, checks: F) -> anyhow::Result<()>
where
    F: AsyncFnOnce(&Client) -> anyhow::Result<()>,
{
    let (_driver, port) = chromedriver(harness)?;
    let profile = harness.scratch.join(format!("chromium-{name}"));
    let _ = std::fs::remove_dir_all(&profile);
    std::fs::create_dir_all(&profile)?;
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,800",
    ]
    .into_iter()
    .map(str::to_owned)
    .chain([format!("--user-data-dir={}", profile.display())])
    .collect::<Vec<_>>();
    let capabilities = json!({ "browserName": "chrome", "goog:chromeOptions": { "binary": CHROMIUM, "args": args } });
    let Value::Object(capabilities) = capabilities else { unreachable!() };
    let client = ClientBuilder::native()
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .context("no WebDriver session with chromium")?;
    let res = async {
        client.goto(url).await?;
        let at = client.current_url().await?;
        ensure!(at.query().is_none(), "the token stays in the address bar: {at}");
        checks(&client).await
    }
    .await;
    client.close().await.context("closing the browser")?;
    res
}

/// A scratch HOME and root holding a copy of the demo session, as `name`'s case uses them.
fn scratch(harness: &Harness, name: &str) -> anyhow::Result<(PathBuf, PathBuf, PathBuf)> {
    let base = harness.scratch.join(name);
    let root = base.join("root");
    let file = copy_fixture(&harness.root.join("demo/demo-session.jsonl"), &root.join("proj/session.jsonl"))?;
    let home = base.join("home");
    std::fs::create_dir_all(&home)?;
    Ok((home, root.canonicalize()?, file.canonicalize()?))
}

pub async fn the_browser_shows_the_library_a_session_another_leaf_and_its_context(harness: &Harness) -> anyhow::Result<()> {
    let (home, root, file) = scratch(harness, "serve-read")?;
    let (_server, url) = serve(harness, &home, &root, &[])?;
    with_browser(harness, "read", &url, async |client| {
        // No file named: the demo, with the library offered; no Open… in a browser.
        wait_until_ready(client).await?;
        let hidden = client.execute("return document.getElementById('open-file').hidden;", vec![]).await?;
        ensure!(hidden == json!(true), "the Open… button is shown in the browser");
        click(client, "show-library").await?;
        wait_for(
            client,
            "the library with the root's session",
            "const l = document.getElementById('library'); \
             return !l.hidden && !l.dataset.loading && l.dataset.sessions === '1';",
        )
        .await?;
        let path = file.display().to_string();
        let row = wait_for_element(client, &format!(".library-session[data-path={path:?}]")).await?;
        row.click().await?;
        wait_for(client, "the session opened", "return document.getElementById('session-file').textContent === 'session.jsonl';").await?;
        wait_for_leaf(client, harness.expected.last().context("no entries")?).await?;
        find_and_click_row(client, OTHER_LEAF).await?;
        press_key(client, Key::Enter.into()).await?;
        wait_for_leaf(client, OTHER_LEAF).await?;
        check_context_matches_cli(harness, client, &file, OTHER_LEAF).await?;
        screenshot(harness, client, "serve-browser.png").await
    })
    .await
}

/// The navigate form on the other leaf, without a summary (a continue marker), up to the
/// confirmation's Apply.
async fn navigate_to_the_other_leaf(client: &Client) -> anyhow::Result<()> {
    wait_until_ready(client).await?;
    find_and_click_row(client, OTHER_LEAF).await?;
    client.execute("document.getElementById('tree').focus();", vec![]).await?;
    press_key(client, 'n').await?;
    wait_for_write(client, "form", 10).await?;
    client
        .execute(
            "const c = document.getElementById('write-summarize'); c.checked = false; \
             c.dispatchEvent(new Event('change', { bubbles: true }));",
            vec![],
        )
        .await?;
    click(client, "write-next").await?;
    wait_for_write(client, "preview", 10).await?;
    click(client, "write-next").await?;
    wait_for_write(client, "confirm", 10).await?;
    click(client, "write-apply").await
}

pub async fn a_write_in_the_browser_needs_allow_writes(harness: &Harness) -> anyhow::Result<()> {
    let (home, root, file) = scratch(harness, "serve-write")?;
    let before = std::fs::read(&file)?;
    let path = file.display().to_string();
    let (server, url) = serve(harness, &home, &root, &[&path])?;
    with_browser(harness, "refused", &url, async |client| {
        navigate_to_the_other_leaf(client).await?;
        wait_for_write(client, "error", 10).await?;
        let error = text_content(client, "write-error").await?;
        ensure!(error.contains("--allow-writes"), "the refusal does not say how to allow writes: {error}");
        ensure!(std::fs::read(&file)? == before, "the file changed");
        Ok(())
    })
    .await?;
    drop(server);

    let (_server, url) = serve(harness, &home, &root, &["--allow-writes", &path])?;
    with_browser(harness, "allowed", &url, async |client| {
        navigate_to_the_other_leaf(client).await?;
        wait_for_write(client, "done", 30).await?;
        let lines = appended_lines(&before, &std::fs::read(&file)?)?;
        ensure!(
            lines.len() == 1 && lines[0]["customType"] == "contextree-continue" && lines[0]["parentId"] == OTHER_LEAF,
            "appended: {lines:?}"
        );
        let id = lines[0]["id"].as_str().context("no id")?.to_owned();
        wait_for_leaf(client, &id).await
    })
    .await
}
