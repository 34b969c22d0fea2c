//! The rule-set switch and the context's "not reproducible from the file" notes, under every
//! rule set (issue 19: the app and the CLI show one report):
//! - the switch offers every rule set the backend knows (the session report's `ruleSets`), and
//!   the case runs each of them (a new rule set needs nothing here);
//! - picking one re-opens the file under it, the title bar names it;
//! - the context panel lists exactly what `contextree context --json --dialect RULES` lists in
//!   `notReproducible` (kind and reason, in order; the list is absent where the CLI has none),
//!   for the same file and leaf (`rule-sets.png`, omp 18's list).

use anyhow::{ensure, Context as _};
use serde_json::{json, Value};

use crate::steps::cli_json;
use crate::{screenshot, text_content, wait_for, wait_until_ready, with_app, Harness};

/// The CLI's leaf, its notes (kind, reason) and the entry each note names.
type CliNotes = (Value, Vec<(String, String)>, Vec<Value>);

pub async fn every_rule_set_shows_the_clis_not_reproducible_notes(harness: &Harness) -> anyhow::Result<()> {
    // omp 18's compaction fixture without its title slot (which only omp 18 reads), its
    // compaction made Anthropic's own: every rule set reads it, omp 18 names what it cannot
    // reproduce, one note tied to an entry.
    let base = harness.scratch.join("rule-sets");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base)?;
    let file = base.join("anthropic-compaction.jsonl");
    let fixture = std::fs::read_to_string(harness.root.join("tests/fixtures/omp18/omp18-compaction.jsonl"))?;
    let mut lines = Vec::new();
    for line in fixture.lines().skip(1) {
        let mut entry: Value = serde_json::from_str(line)?;
        if entry["type"] == "compaction" {
            entry["preserveData"] = json!({ "anthropicCompaction": { "provider": "anthropic", "content": "opaque" } });
        }
        lines.push(entry.to_string());
    }
    std::fs::write(&file, lines.join("\n") + "\n")?;
    // What the CLI says under a rule set: the leaf, the notes (kind, reason), the entry each
    // note names.
    let cli = |rules: &str| -> anyhow::Result<CliNotes> {
        let doc = cli_json(harness, "context", &file, &["--dialect", rules, "--prompts", "own"])?;
        ensure!(doc["ruleSet"]["name"] == rules, "the CLI ran {} for {rules}", doc["ruleSet"]);
        let list: Vec<&Value> = doc.get("notReproducible").and_then(Value::as_array).into_iter().flatten().collect();
        let notes = list
            .iter()
            .map(|n| (n["kind"].as_str().unwrap_or_default().to_owned(), n["reason"].as_str().unwrap_or_default().to_owned()))
            .collect();
        Ok((doc["leafId"].clone(), notes, list.iter().map(|n| n["entryId"].clone()).collect()))
    };
    let (_, omp18, _) = cli("omp@18")?;
    ensure!(
        omp18.iter().any(|(kind, _)| kind == "anthropic-native-compaction"),
        "omp 18 does not name the Anthropic compaction: {omp18:?}"
    );
    ensure!(!cli("pi@1.6")?.1.is_empty(), "pi 1.6 has no notes");

    with_app(harness, &[file.display().to_string()], async |client| {
        wait_until_ready(client).await?;
        // Every rule set the switch offers (the backend's list), omp 18's last for the screenshot.
        let offered =
            client.execute("return Array.from(document.getElementById('session-rules').options, (o) => o.value);", vec![]).await?;
        let mut rule_sets: Vec<String> =
            offered.as_array().into_iter().flatten().filter_map(Value::as_str).filter(|v| v.contains('@')).map(str::to_owned).collect();
        for known in ["pi@0.73", "pi@1.6", "omp@13", "omp@18"] {
            ensure!(rule_sets.iter().any(|r| r == known), "the switch does not offer {known}: {offered}");
        }
        rule_sets.sort_by_key(|r| r == "omp@18");
        for rules in &rule_sets {
            let (leaf, notes, entry_ids) = cli(rules)?;
            // The switch re-opens the file under the rules picked.
            client
                .execute(
                    "const s = document.getElementById('session-rules'); s.value = arguments[0]; \
                     s.dispatchEvent(new Event('change'));",
                    vec![json!(rules)],
                )
                .await?;
            let badge = format!("rules: {rules}");
            let says = format!("return document.getElementById('session-dialect').textContent === {};", json!(badge));
            wait_for(client, &format!("the title bar to say {badge}"), &says).await?;
            // The context of the file's leaf under those rules.
            let drawn = format!(
                "const c = document.getElementById('context'); \
                 return !!c && c.dataset.leafId === {leaf} && c.dataset.ruleSet === {};",
                json!(rules)
            );
            wait_for(client, &format!("the context of {leaf} under {rules}"), &drawn).await?;
            let shown = client
                .execute(
                    "return Array.from(document.querySelectorAll('#context .not-reproducible li'), \
                     (li) => [li.dataset.kind, li.querySelector('.reason').textContent, \
                              li.querySelector('.entry-link') ? li.querySelector('.entry-link').textContent : null]);",
                    vec![],
                )
                .await?;
            let rows = shown.as_array().context("no list")?;
            let shown: Vec<(String, String)> =
                rows.iter().map(|p| (p[0].as_str().unwrap_or_default().to_owned(), p[1].as_str().unwrap_or_default().to_owned())).collect();
            ensure!(shown == notes, "under {rules} the app lists {shown:?}, the CLI {notes:?}");
            // A note about one entry links to it (the compaction), as the CLI's entryId names it.
            let links: Vec<Value> = rows.iter().map(|p| p[2].clone()).collect();
            ensure!(links == entry_ids, "under {rules} the notes link {links:?}, the CLI names {entry_ids:?}");
        }
        // The last rules picked are omp 18's: its notes open for the screenshot.
        client.execute("const d = document.querySelector('#context .not-reproducible'); if (d) d.open = true;", vec![]).await?;
        let badge = text_content(client, "session-dialect").await?;
        ensure!(badge == "rules: omp@18", "title bar shows `{badge}`");
        screenshot(harness, client, "rule-sets.png").await
    })
    .await
}
