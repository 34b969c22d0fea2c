//! The branch graph: a turn of another branch clicked in the graph is selected in the tree, a
//! double-click makes its last entry the leaf and the context follows it as the CLI computes
//! it; ↑ walks to the parent turn; zoom in, out and fit change the view (`graph.png`).

use anyhow::{ensure, Context as _};
use fantoccini::actions::{InputSource as _, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use serde_json::{json, Value};

use crate::app::*;
use crate::main_screen::check_context_matches_cli;
use crate::Harness;

/// Hovers the graph on a grid of points and returns, per node met, its first point and hover
/// text (`{ x, y, text }`, `x` / `y` from the canvas' centre, as WebDriver's pointer moves
/// count them).
async fn hover_nodes(client: &Client) -> anyhow::Result<Vec<Value>> {
    let found = client
        .execute(
            "const c = document.getElementById('graph'); const r = c.getBoundingClientRect(); \
             const tip = document.getElementById('graph-tip'); const seen = new Map(); \
             for (let y = 4; y < r.height - 4; y += 3) for (let x = 4; x < Math.min(r.width, 200); x += 3) { \
               c.dispatchEvent(new MouseEvent('mousemove', { clientX: r.left + x, clientY: r.top + y, bubbles: true })); \
               if (tip.hidden) continue; \
               const head = tip.textContent.split('\\n')[0]; \
               if (!seen.has(head)) seen.set(head, { x: Math.round(x - r.width / 2), y: Math.round(y - r.height / 2), text: tip.textContent }); \
             } \
             return [...seen.values()];",
            vec![],
        )
        .await?;
    Ok(found.as_array().cloned().unwrap_or_default())
}

/// A pointer at (`x`, `y`) from the graph canvas' centre, pressed `clicks` times.
async fn click_graph(client: &Client, x: i64, y: i64, clicks: usize) -> anyhow::Result<()> {
    let canvas = client.find(Locator::Id("graph")).await?;
    let mut mouse =
        MouseActions::new("mouse".into()).then(PointerAction::MoveToElement { element: canvas, duration: None, x: x as f64, y: y as f64 });
    for _ in 0..clicks {
        mouse = mouse.then(PointerAction::Down { button: MOUSE_BUTTON_LEFT }).then(PointerAction::Up { button: MOUSE_BUTTON_LEFT });
    }
    client.perform_actions(mouse).await.context("clicking the graph")?;
    Ok(())
}

async fn scale(client: &Client) -> anyhow::Result<f64> {
    let s = client.execute("return Number(document.getElementById('graph').dataset.scale);", vec![]).await?;
    s.as_f64().context("no graph scale")
}

/// Click a turn of another branch in the graph: the tree selects its first entry; double-click
/// it: its last entry is the leaf, and the context is the CLI's for that leaf. Zoom and fit.
pub async fn the_graph_selects_and_makes_leaves_like_the_tree(harness: &Harness) -> anyhow::Result<()> {
    with_app(harness, &[], async |client| {
        wait_until_ready(client).await?;
        let file_leaf = harness.expected.last().unwrap();
        wait_for_leaf(client, file_leaf).await?;
        client.find(Locator::Id("graph-toggle")).await?.click().await?;
        wait_for(
            client,
            "the graph drawn",
            "return document.body.dataset.graph === 'open' && Number(document.getElementById('graph').dataset.nodes) > 0 \
             && Number(document.getElementById('graph').dataset.lanes) > 1;",
        )
        .await?;

        // A turn of another branch: off the leaf's path.
        let nodes = hover_nodes(client).await?;
        ensure!(nodes.len() > 3, "hovering the graph met {} nodes", nodes.len());
        let other = nodes
            .iter()
            .find(|n| n["text"].as_str().is_some_and(|t| t.starts_with("turn ") && t.lines().next().unwrap_or("").ends_with("off-path")))
            .with_context(|| format!("no turn off the path among {nodes:?}"))?
            .clone();
        let text = other["text"].as_str().unwrap_or_default();
        let first = text.split_whitespace().nth(1).context("no id in the hover text")?.to_owned();
        ensure!(text.lines().count() > 1, "the hover text has no request: {text}");
        let (x, y) = (other["x"].as_i64().unwrap_or(0), other["y"].as_i64().unwrap_or(0));

        click_graph(client, x, y, 1).await?;
        wait_for(
            client,
            "the tree selects the clicked turn",
            &format!("return document.querySelector('#tree-rows .row.selected')?.dataset.entryId === {first:?};"),
        )
        .await?;
        wait_for(
            client,
            "the entry panel shows it",
            &format!("const pre = document.getElementById('entry-json'); return !!pre && pre.textContent.includes('\"id\": \"{first}\"');"),
        )
        .await?;

        // ↑ in the graph walks to the parent turn: the tree selects its first entry.
        press_key(client, Key::Up.into()).await?;
        wait_for(
            client,
            "↑ selects the parent turn",
            &format!(
                "const id = document.querySelector('#tree-rows .row.selected')?.dataset.entryId; \
                 return !!id && id !== {first:?} && document.activeElement?.id === 'graph';"
            ),
        )
        .await?;

        // A double-click makes the turn's last entry the leaf: tree and context follow.
        click_graph(client, x, y, 2).await?;
        wait_for(
            client,
            "another leaf",
            &format!("return !!document.body.dataset.leaf && document.body.dataset.leaf !== {file_leaf:?} && !document.body.dataset.busy;"),
        )
        .await?;
        let leaf = client.execute("return document.body.dataset.leaf;", vec![]).await?;
        let leaf = leaf.as_str().context("no leaf")?.to_owned();
        ensure!(harness.expected.contains(&leaf), "the new leaf {leaf} is not an entry of the demo");
        let demo = harness.root.join("demo/demo-session.jsonl");
        check_context_matches_cli(harness, client, &demo, &leaf).await?;
        wait_for(
            client,
            "the tree marks the new leaf",
            &format!("return document.querySelector('#tree-rows .row.leaf')?.dataset.entryId === {leaf:?};"),
        )
        .await?;

        // Zoom in and out with the buttons and the wheel; Fit goes back to the whole graph.
        client.find(Locator::Id("graph-fit")).await?.click().await?;
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let fitted = scale(client).await?;
        client.find(Locator::Id("graph-zoom-in")).await?.click().await?;
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let zoomed = scale(client).await?;
        ensure!(zoomed > fitted * 1.2, "zoom in: {fitted} → {zoomed}");
        client
            .execute(
                "const c = document.getElementById('graph'); const r = c.getBoundingClientRect(); \
                 c.dispatchEvent(new WheelEvent('wheel', { deltaY: 400, clientX: r.left + 20, clientY: r.top + 20, bubbles: true, cancelable: true }));",
                vec![],
            )
            .await?;
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let wheeled = scale(client).await?;
        ensure!(wheeled < zoomed, "the wheel did not zoom out: {zoomed} → {wheeled}");
        client.find(Locator::Id("graph-fit")).await?.click().await?;
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let again = scale(client).await?;
        ensure!((again - fitted).abs() < 1e-3, "fit: {again}, first {fitted}");
        let drawn = client.execute("return Number(document.getElementById('graph').dataset.drawn);", vec![]).await?;
        let all = client.execute("return Number(document.getElementById('graph').dataset.nodes);", vec![]).await?;
        ensure!(drawn == all, "fitted, {drawn} of {all} nodes drawn");
        ensure!(client.execute("return document.body.dataset.graph;", vec![]).await? == json!("open"), "graph closed");

        // The export's way out: the canvas gives a PNG, and save_graph takes the bytes as they
        // are (refusing anything but a PNG before any dialog opens).
        let export = client
            .execute_async(
                "const done = arguments[arguments.length - 1]; \
                 document.getElementById('graph').toBlob(async (blob) => { \
                   const png = new Uint8Array(await blob.arrayBuffer()); \
                   const refused = await window.__TAURI__.core.invoke('save_graph', new Uint8Array([60, 115, 118, 103])) \
                     .then(() => 'written', (e) => `${e.kind}: ${e.message}`); \
                   done({ signature: Array.from(png.slice(0, 8)), size: png.length, refused }); \
                 }, 'image/png');",
                vec![],
            )
            .await?;
        ensure!(export["signature"] == json!([137, 80, 78, 71, 13, 10, 26, 10]) && export["size"].as_u64() > Some(1000), "the canvas' PNG: {export}");
        ensure!(export["refused"] == json!("invalid-argument: save_graph expects a PNG picture"), "save_graph took a non-PNG: {export}");
        wait_for_previews(client).await?;
        screenshot(harness, client, "graph.png").await
    })
    .await
}
