//! The Search screen over a scratch HOME's sessions: Ctrl+Shift+F from the tree, a query typed,
//! the hits `contextree search --json` gives in the same HOME, in its order; Enter on the first
//! hit opens its session with that entry selected and its leaf's context shown
//! (`search-all.png`).

use anyhow::{ensure, Context as _};
use fantoccini::actions::{InputSource as _, KeyAction, KeyActions};
use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use serde_json::Value;

use crate::fake_home::FakeHome;
use crate::steps::{cli, json_output};
use crate::{screenshot, wait_for, wait_for_leaf, wait_until_ready, with_app_in, Harness};

/// Ctrl+Shift+F, through WebDriver actions, to whatever has the focus.
async fn search_chord(client: &Client) -> anyhow::Result<()> {
    let (ctrl, shift): (char, char) = (Key::Control.into(), Key::Shift.into());
    let actions = KeyActions::new("chord".into())
        .then(KeyAction::Down { value: ctrl })
        .then(KeyAction::Down { value: shift })
        .then(KeyAction::Down { value: 'F' })
        .then(KeyAction::Up { value: 'F' })
        .then(KeyAction::Up { value: shift })
        .then(KeyAction::Up { value: ctrl });
    client.perform_actions(actions).await.context("Ctrl+Shift+F")?;
    Ok(())
}

/// A word typed into Search finds what the CLI finds; Enter opens the hit where it is.
pub async fn search_finds_a_word_and_opens_the_hit(harness: &Harness) -> anyhow::Result<()> {
    let fake = FakeHome::new(harness, "search")?;
    let demo = harness.root.join("demo/demo-session.jsonl");
    let project = fake.home.join("work/alpha");
    std::fs::create_dir_all(&project)?;
    let folder = format!("--{}--", project.display().to_string().trim_start_matches('/').replace('/', "-"));
    let hour = std::time::Duration::from_secs(3600);
    let session = fake.session(".pi/agent/sessions", &folder, &project, &demo, "2026-01-02T10-00-00-000Z_s.jsonl", hour)?;
    let query = "idxOffset role:user";
    let expected = json_output(
        std::process::Command::new(cli(harness))
            .args(["search", query, "--json"])
            .env("HOME", &fake.home)
            .env("XDG_CONFIG_HOME", &fake.config)
            .env_remove("XDG_CACHE_HOME")
            .env_remove("PI_CODING_AGENT_DIR")
            .env_remove("PI_CONFIG_DIR")
            .env_remove("XDG_DATA_HOME"),
        "search",
    )?;
    let hits = expected["hits"].as_array().context("no hits in `contextree search --json`")?;
    ensure!(!hits.is_empty(), "the CLI finds no `{query}` in the demo: {expected}");
    let want: Vec<&str> = hits.iter().filter_map(|h| h["entryId"].as_str()).collect();
    let first = &hits[0];
    let entry = first["entryId"].as_str().context("the first hit has no entry id")?.to_owned();
    ensure!(first["file"].as_str() == Some(&*session.display().to_string()), "the hit is not in the fake session: {first}");
    let leaf = first["leafId"].as_str().context("the first hit has no leaf id")?.to_owned();
    ensure!(entry != leaf, "the hit is the leaf itself, which would not show the selection move");

    with_app_in(harness, &fake.launcher, &[], async |client| {
        wait_until_ready(client).await?;
        client.find(Locator::Id("tree")).await?.click().await?;
        search_chord(client).await?;
        wait_for(
            client,
            "the search screen",
            "return document.body.dataset.screen === 'search' && !document.getElementById('search').hidden;",
        )
        .await?;
        client.find(Locator::Id("search-query")).await?.send_keys(query).await?;
        wait_for(
            client,
            "the hits",
            "const s = document.getElementById('search'); \
             return !s.dataset.indexing && !s.dataset.searching && Number(s.dataset.hits) > 0;",
        )
        .await?;
        let shown: Vec<String> = serde_json::from_value(
            client
                .execute("return Array.from(document.querySelectorAll('#search-list .search-hit'), (b) => b.dataset.entry);", vec![])
                .await?,
        )?;
        ensure!(shown == want, "the screen shows hits {shown:?}, `contextree search` gives {want:?}");
        let state = client.execute("return document.querySelector('#search-list .search-hit .hit-state').textContent;", vec![]).await?;
        let state = state.as_str().unwrap_or_default().to_owned();
        ensure!(!state.is_empty(), "the first hit shows no state");
        let marked = client.execute("return document.querySelector('#search-list .search-hit mark')?.textContent ?? null;", vec![]).await?;
        ensure!(marked.as_str().is_some_and(|m| m.eq_ignore_ascii_case("idxOffset")), "the snippet's match is not marked: {marked:?}");
        screenshot(harness, client, "search-all.png").await?;
        // ↓ from the query goes to the first hit; Enter opens it.
        let input = client.find(Locator::Id("search-query")).await?;
        input.send_keys(&Key::Down.to_string()).await?;
        wait_for(client, "the first hit focused", "return document.activeElement?.classList.contains('search-hit') === true;").await?;
        let enter: char = Key::Enter.into();
        crate::press_key(client, enter).await?;
        wait_for(client, "the main screen back", "return !document.body.dataset.screen && document.getElementById('search').hidden;")
            .await?;
        wait_for_leaf(client, &leaf).await?;
        wait_for(
            client,
            "the hit's entry selected",
            &format!("return document.querySelector('#tree-rows .row.selected')?.dataset.entryId === {entry:?};"),
        )
        .await?;
        let shown: Value = client.execute("return document.querySelectorAll('#context-messages > li.message').length;", vec![]).await?;
        ensure!(shown.as_u64().unwrap_or(0) > 0, "no context shown for the hit's leaf");
        Ok(())
    })
    .await
}
