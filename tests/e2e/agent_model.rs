//! Compaction with no contextree set-up, in the app: a scratch HOME holds only pi's own files
//! (`~/.pi/agent/settings.json` naming a provider and model, `models.json` declaring that
//! provider at the fake provider on 127.0.0.1, `auth.json` with a canary key) and no contextree
//! config. The Compact… form offers pi's own model first, with the key masked; the summary is
//! asked of that model with that key; the canary is in the request's authorization header and
//! nowhere else: not in the page, not in the session file, not in any file the app wrote, not in
//! what the app printed (the driver's log).

use anyhow::{ensure, Context as _};
use serde_json::{json, Value};

use crate::fake_home::FakeHome;
use crate::fake_provider::FakeProvider;
use crate::steps::open_plan;
use crate::writes::{appended_lines, click, copy_fixture, wait_for_write, wait_long};
use crate::{press_key, wait_for_leaf, wait_until_ready, with_app_in, Harness};

const CANARY: &str = "sk-canary-e2e-5d1b9f3a7c2e4a6b8d0f";
/// A piece of the canary long enough to be recognised if it leaked cut or re-encoded.
const CANARY_PIECE: &str = "5d1b9f3a7c2e";

/// Every file below `dir`, recursively.
fn files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out
}

pub async fn compaction_uses_the_agents_own_model_with_no_contextree_setup(harness: &Harness) -> anyhow::Result<()> {
    let fake = FakeHome::new(harness, "agent-model")?;
    let provider = FakeProvider::start()?;
    let agent = fake.home.join(".pi/agent");
    std::fs::create_dir_all(&agent)?;
    std::fs::write(agent.join("settings.json"), json!({"defaultProvider": "canaryprov", "defaultModel": "canary-model"}).to_string())?;
    std::fs::write(
        agent.join("models.json"),
        json!({"providers": {"canaryprov": {
            "baseUrl": provider.base_url, "api": "openai-completions",
            "models": [{"id": "canary-model"}],
        }}})
        .to_string(),
    )?;
    let auth = json!({"canaryprov": {"type": "api_key", "key": CANARY}}).to_string();
    std::fs::write(agent.join("auth.json"), &auth)?;
    let config = fake.config.join("contextree/config.json");
    ensure!(!config.exists(), "a contextree config exists before the test");

    let file = copy_fixture(&harness.root.join("demo/demo-session.jsonl"), &fake.home.join("work/session.jsonl"))?;
    let before = std::fs::read(&file)?;
    let leaf = harness.expected.last().context("the demo has no entries")?.clone();
    let listing_before = files(&fake.home);
    let log = harness.driver.log().to_path_buf();
    let log_before = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);

    let args = [file.display().to_string()];
    with_app_in(harness, &fake.launcher, &args, async |client| {
        wait_until_ready(client).await?;
        wait_for_leaf(client, &leaf).await?;
        open_plan(client).await?;
        client.execute("document.getElementById('tree').focus();", vec![]).await?;
        press_key(client, fantoccini::key::Key::Enter.into()).await?;
        wait_for_write(client, "form", 10).await?;

        // The form's default source is pi's own model, its key masked.
        let source = client
            .execute(
                "const s = document.getElementById('write-source-mode'); \
                 return { value: s.value, label: s.selectedOptions[0]?.textContent ?? '' };",
                vec![],
            )
            .await?;
        let label = source["label"].as_str().unwrap_or_default();
        ensure!(source["value"] == json!("configured"), "the form's source is {source}");
        ensure!(label.starts_with("pi's own: canaryprov/canary-model (key "), "the default source is not pi's own model: {label:?}");
        ensure!(!label.contains(CANARY_PIECE), "the form shows the key: {label:?}");

        click(client, "write-next").await?;
        wait_for_write(client, "confirm", 10).await?;
        let confirm = crate::text_content(client, "write-confirm").await?;
        ensure!(confirm.contains("canary-model"), "the confirmation does not name the model: {confirm}");
        ensure!(std::fs::read(&file)? == before, "the file changed before the confirmation");

        click(client, "write-apply").await?;
        wait_long(
            client,
            "streamed summary text",
            "return Array.from(document.querySelectorAll('#write-progress .write-stream'))\
               .some((pre) => pre.textContent.includes('Fake provider summary'));",
            30,
        )
        .await?;
        wait_for_write(client, "done", 90).await?;

        // The page, whole, holds no part of the key.
        let page = client.execute("return document.documentElement.outerHTML;", vec![]).await?;
        ensure!(!page.as_str().unwrap_or_default().contains(CANARY_PIECE), "the page shows the key");
        click(client, "write-close").await?;
        Ok(())
    })
    .await?;

    // One compaction line with the streamed summary, under the old leaf.
    let after = std::fs::read(&file)?;
    let lines = appended_lines(&before, &after)?;
    ensure!(lines.len() == 1, "{} lines appended", lines.len());
    let entry: &Value = &lines[0];
    ensure!(entry["type"] == "compaction" && entry["parentId"] == json!(leaf), "appended {entry}");
    let summary = entry["summary"].as_str().unwrap_or_default();
    ensure!(summary.starts_with("## Goal\nFake provider summary"), "summary {summary:?}");

    // pi's model was asked with pi's key, in the authorization header only.
    let requests = provider.requests();
    ensure!(!requests.is_empty(), "the provider was not asked");
    for r in &requests {
        let auth_line = r.head.lines().find(|l| l.to_ascii_lowercase().starts_with("authorization:")).unwrap_or_default();
        ensure!(
            auth_line.trim_end().eq_ignore_ascii_case(&format!("authorization: Bearer {CANARY}")),
            "authorization header {auth_line:?}"
        );
        ensure!(r.body["model"] == json!("canary-model"), "model {}", r.body["model"]);
        ensure!(!r.body.to_string().contains(CANARY_PIECE), "the key is in the request body");
    }

    // Nowhere else: the session file, any file in the scratch HOME (pi's auth.json aside, which
    // is untouched), no contextree config written, the app's output in the driver's log.
    ensure!(!String::from_utf8_lossy(&after).contains(CANARY_PIECE), "the session file holds the key");
    ensure!(std::fs::read_to_string(agent.join("auth.json"))? == auth, "auth.json changed");
    for f in files(&fake.home) {
        if f == agent.join("auth.json") {
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(&f)?).into_owned();
        ensure!(!text.contains(CANARY_PIECE), "{} holds the key", f.display());
        if !listing_before.contains(&f) {
            ensure!(f != config, "the app wrote a contextree config");
        }
    }
    let log_text = std::fs::read(&log).unwrap_or_default();
    let new_log = String::from_utf8_lossy(log_text.get(log_before as usize..).unwrap_or_default());
    ensure!(!new_log.contains(CANARY_PIECE), "the app printed the key ({})", log.display());
    Ok(())
}
