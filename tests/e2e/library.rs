//! The Library and Settings screens and the problems panel, each with the app started under a
//! scratch HOME (so neither the machine's sessions nor its config file are read or written):
//! - started with no session, the app opens the demo and its title bar offers the sessions
//!   found (`3 sessions found — open library (l)`, `library-offer.png`);
//! - the library finds fake pi (`~/.pi/agent/sessions`) and omp (`~/.omp/agent/sessions`)
//!   folders by itself and groups them as `contextree sessions --json` does, newest first
//!   (`library.png`); search narrows it; clicking the omp session opens it in place of the
//!   demo: its tree, its dialect;
//! - Settings: the theme set to dark is drawn at once, saved into the scratch config file next
//!   to the provider already there, whose key is never shown (`settings.png`, `dark.png`);
//! - a file that is not a session opens with the problems panel listing its lines; a warning
//!   on an entry's line (`edge-orphan.jsonl`) selects that entry when clicked.
//!
//! The scratch HOME and the script that starts the app in it are `fake_home.rs`.

use std::time::Duration;

use anyhow::{ensure, Context as _};
use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use serde_json::{json, Value};

use crate::fake_home::FakeHome;
use crate::{entry_ids, press_key, screenshot, text_content, wait_for, wait_for_leaf, wait_until_ready, with_app_in, Harness};

const HOUR: Duration = Duration::from_secs(3600);

/// `l` shows the agents' sessions grouped by project as the CLI lists them; search narrows
/// them; a click opens one in place of the demo.
pub async fn the_library_lists_sessions_by_project_and_opens_one(harness: &Harness) -> anyhow::Result<()> {
    let fake = FakeHome::new(harness, "library")?;
    let demo = harness.root.join("demo/demo-session.jsonl");
    let omp_fixture = harness.root.join("tests/fixtures/edge/edge-omp-compaction.jsonl");
    let alpha = fake.home.join("work/alpha");
    let beta = fake.home.join("proj/beta");
    std::fs::create_dir_all(&alpha)?;
    std::fs::create_dir_all(&beta)?;
    // pi names the folder after the whole cwd, omp after the part inside HOME.
    let pi_folder = format!("--{}--", alpha.display().to_string().trim_start_matches('/').replace('/', "-"));
    fake.session(".pi/agent/sessions", &pi_folder, &alpha, &demo, "2026-01-02T10-00-00-000Z_newest.jsonl", HOUR)?;
    fake.session(".pi/agent/sessions", &pi_folder, &alpha, &demo, "2026-01-01T10-00-00-000Z_oldest.jsonl", 72 * HOUR)?;
    let omp_session =
        fake.session(".omp/agent/sessions", "-proj-beta", &beta, &omp_fixture, "2026-01-01T12-00-00-000Z_beta.jsonl", 48 * HOUR)?;
    let cli = fake.cli_sessions(harness)?;
    let expected: Vec<Vec<String>> = cli["projects"]
        .as_array()
        .context("no projects in `contextree sessions --json`")?
        .iter()
        .map(|p| p["sessions"].as_array().into_iter().flatten().filter_map(|s| s["path"].as_str().map(str::to_owned)).collect())
        .collect();
    ensure!(expected.iter().map(Vec::len).sum::<usize>() == 3, "the CLI does not list the 3 fake sessions: {cli}");

    with_app_in(harness, &fake.launcher, &[], async |client| {
        wait_until_ready(client).await?;
        // No session named: the demo opens, and the title bar offers the 3 sessions found.
        wait_for(
            client,
            "the title bar's offer of 3 sessions",
            "const o = document.getElementById('library-offer'); \
             return !o.hidden && o.dataset.sessions === '3';",
        )
        .await?;
        let offer = text_content(client, "library-offer").await?;
        ensure!(offer == "3 sessions found — open library (l)", "the offer reads `{offer}`");
        ensure!(text_content(client, "session-file").await? == "demo-session.jsonl", "the demo is not the open session");
        screenshot(harness, client, "library-offer.png").await?;
        client.find(Locator::Id("tree")).await?.click().await?;
        press_key(client, 'l').await?;
        wait_for(
            client,
            "the library with 3 sessions",
            "const l = document.getElementById('library'); \
             return !l.hidden && !l.dataset.loading && l.dataset.sessions === '3';",
        )
        .await?;
        let shown: Vec<Vec<String>> = serde_json::from_value(
            client
                .execute(
                    "return Array.from(document.querySelectorAll('#library-list .library-project'), \
                       (p) => Array.from(p.querySelectorAll('.library-session'), (s) => s.dataset.path));",
                    vec![],
                )
                .await?,
        )?;
        ensure!(shown == expected, "the library shows {shown:?}, `contextree sessions` lists {expected:?}");
        ensure!(shown[0][0].ends_with("_newest.jsonl"), "the newest session is not first: {shown:?}");
        let first = client.execute("return document.querySelector('.library-session .library-meta').textContent;", vec![]).await?;
        let first = first.as_str().unwrap_or_default();
        ensure!(first.contains("pi") && first.contains("1 h ago") && first.contains("KiB"), "the newest session's line reads `{first}`");
        screenshot(harness, client, "library.png").await?;
        // Open… calls the dialog plugin's global API (the native picker itself cannot be
        // driven through WebDriver).
        let picker = client.execute("return typeof window.__TAURI__.dialog?.open;", vec![]).await?;
        ensure!(picker == "function", "no dialog.open in window.__TAURI__: {picker}");

        // Search: only the omp project's session has "beta" in it.
        let search = client.find(Locator::Id("library-search")).await?;
        search.send_keys("beta").await?;
        wait_for(client, "one session matching `beta`", "return document.getElementById('library').dataset.sessions === '1';").await?;
        let count = text_content(client, "library-count").await?;
        ensure!(count == "1 of 3 sessions", "the count reads `{count}`");

        client.find(Locator::Css(".library-session")).await?.click().await?;
        wait_for(client, "the main screen back", "return !document.body.dataset.screen && document.getElementById('library').hidden;")
            .await?;
        let ids = entry_ids(&std::fs::read_to_string(&omp_session)?)?;
        wait_for_leaf(client, ids.last().unwrap()).await?;
        ensure!(
            client.execute("return document.getElementById('library-offer').hidden;", vec![]).await? == true,
            "the offer is still shown after the library was used"
        );
        let file = text_content(client, "session-file").await?;
        ensure!(file == "2026-01-01T12-00-00-000Z_beta.jsonl", "title bar shows `{file}`");
        let dialect = text_content(client, "session-dialect").await?;
        // The agent is omp; its rule set follows D22 (no omp is installed in the scratch HOME).
        ensure!(dialect.starts_with("rules: omp@"), "the badge reads `{dialect}`");
        Ok(())
    })
    .await
}

/// `,` opens Settings; dark is drawn at once and saved beside the providers; Esc goes back.
pub async fn settings_switch_the_theme_to_dark_and_keep_the_providers(harness: &Harness) -> anyhow::Result<()> {
    let fake = FakeHome::new(harness, "settings")?;
    let config = fake.config.join("contextree/config.json");
    std::fs::create_dir_all(config.parent().unwrap())?;
    let secret = "sk-e2e-SECRET-0123456789abcdef";
    let providers = json!([{ "kind": "openai-compatible", "model": "gpt-4.1-mini", "apiKey": secret }]);
    std::fs::write(&config, serde_json::to_string_pretty(&json!({ "providers": providers }))?)?;

    with_app_in(harness, &fake.launcher, &[], async |client| {
        wait_until_ready(client).await?;
        let light = background(client).await?;
        client.find(Locator::Id("tree")).await?.click().await?;
        press_key(client, ',').await?;
        wait_for(
            client,
            "the settings screen",
            "return !document.getElementById('settings').hidden \
               && document.getElementById('settings-providers') != null \
               && document.querySelector('#settings .settings-group:last-child p').textContent !== '';",
        )
        .await?;
        // What choosing "Dark" in the select does (WebKitWebDriver's clicks on <option>s are
        // unreliable).
        client
            .execute(
                "const s = document.getElementById('settings-theme'); s.value = 'dark'; \
                 s.dispatchEvent(new Event('change'));",
                vec![],
            )
            .await?;
        wait_for(client, "the dark theme drawn", "return document.documentElement.dataset.theme === 'dark';").await?;
        client.find(Locator::Id("settings-save")).await?.click().await?;
        wait_for(client, "the settings saved", "return document.getElementById('settings').dataset.saved === '1';").await?;
        let page = client.execute("return document.body.textContent;", vec![]).await?;
        ensure!(!page.as_str().unwrap_or_default().contains("SECRET"), "a key is shown in full");
        screenshot(harness, client, "settings.png").await?;

        let stored: Value = serde_json::from_str(&std::fs::read_to_string(&config)?)?;
        ensure!(stored["app"]["theme"] == "dark", "stored: {stored}");
        ensure!(stored["providers"] == providers, "the providers changed: {stored}");

        press_key(client, Key::Escape.into()).await?;
        wait_for(client, "the main screen back", "return !document.body.dataset.screen;").await?;
        let dark = background(client).await?;
        ensure!(dark == "rgb(30, 36, 48)" && dark != light, "the body's background is {dark} (was {light})");
        screenshot(harness, client, "dark.png").await
    })
    .await
}

/// A file that is not a session opens with the problems panel listing its lines; in a session
/// with a problem on an entry's line, the line number selects that entry.
pub async fn a_file_that_is_not_a_session_shows_its_problems(harness: &Harness) -> anyhow::Result<()> {
    let fake = FakeHome::new(harness, "problems")?;
    let file = fake.home.join("notes.jsonl");
    std::fs::write(&file, "hello, world\n{\"not\": \"a header\"}\n")?;
    let args = [file.display().to_string()];
    with_app_in(harness, &fake.launcher, &args, async |client| {
        wait_until_ready(client).await?;
        wait_for(
            client,
            "the problems panel",
            "return !document.getElementById('problems').hidden \
               && document.querySelectorAll('#problems .problems-list li').length > 0;",
        )
        .await?;
        let text = text_content(client, "problems").await?;
        ensure!(text.contains("line 1") && text.contains("notes.jsonl"), "the panel reads `{text}`");
        client.find(Locator::Css("#problems .problems-close")).await?.click().await?;
        wait_for(client, "the panel dismissed", "return document.getElementById('problems').hidden;").await
    })
    .await?;

    // `u2` (line 8) names a parent that does not exist: a warning on an entry's line.
    let orphan = harness.root.join("tests/fixtures/edge/edge-orphan.jsonl");
    let args = [orphan.display().to_string()];
    with_app_in(harness, &fake.launcher, &args, async |client| {
        wait_until_ready(client).await?;
        let count = text_content(client, "session-diagnostics").await?;
        ensure!(count == "1 problem", "the title bar reads `{count}`");
        client.find(Locator::Id("session-diagnostics")).await?.click().await?;
        client.find(Locator::Css("#problems button.problems-line")).await?.click().await?;
        wait_for(
            client,
            "entry u2 selected",
            "return document.querySelector('#tree-rows .row.selected')?.dataset.entryId === 'u2' \
               && document.querySelector('#entry .entry-head')?.textContent.includes('line 8');",
        )
        .await
    })
    .await
}

async fn background(client: &Client) -> anyhow::Result<String> {
    let v = client.execute("return getComputedStyle(document.body).backgroundColor;", vec![]).await?;
    Ok(v.as_str().unwrap_or_default().to_owned())
}
