//! `contextree compact --offline --yes` end to end: on copies of fixtures,
//! the file's old bytes stay an untouched prefix, contextree reloads it with
//! the new summary first, and the real agents (pi 0.73.1, oh-my-pi 13.19.0,
//! through the oracle) load the file and see the same context: the new
//! summary, then the entries from `firstKeptEntryId` on.
//!
//! Needs the agents (`scripts/install-agents.sh` installs them in `tests/agents`, or
//! set `ORACLE`): without the agents this test cannot show that they accept
//! what contextree wrote, so it fails rather than skip.

use crate::support;

use std::process::Command;

use crate::support::oracle::{agent_pack, contextree, oracle, oracle_dir, TempDir};
use crate::support::repo;
use crate::support::server::{json_response, serve, Server};
use serde_json::Value;

fn entry_ids(doc: &Value) -> Vec<Value> {
    doc["messages"].as_array().unwrap().iter().map(|m| m["entryId"].clone()).collect()
}

/// Compacts a copy of `fixture` offline and checks it with contextree and the agent.
fn compact_and_check(fixture: &str, dialect: &str, keep_recent: &str) {
    let tmp = TempDir::new();
    let file = tmp.path().join(format!("{fixture}.jsonl"));
    std::fs::copy(repo().join("tests/fixtures/synthetic").join(format!("{fixture}.jsonl")), &file).unwrap();
    let before = std::fs::read(&file).unwrap();
    let f = file.to_str().unwrap();
    let pack = agent_pack(dialect);
    let at = format!("{fixture} {dialect}");

    let plan = contextree(&["compact", f, "--dialect", support::seed_rules(dialect), "--keep-recent", keep_recent, "--dry-run", "--json"]);
    let done = contextree(&[
        "compact",
        f,
        "--dialect",
        support::seed_rules(dialect),
        "--keep-recent",
        keep_recent,
        "--offline",
        "--yes",
        "--json",
        "--prompts",
        pack.to_str().unwrap(),
    ]);

    let after = std::fs::read(&file).unwrap();
    assert_eq!(&after[..before.len()], &before[..], "{at}: the old bytes are not an untouched prefix");
    let line = String::from_utf8(after[before.len()..].to_vec()).unwrap();
    assert!(line.ends_with('\n') && line.matches('\n').count() == 1, "{at}: one line appended: {line:?}");
    let entry: Value = serde_json::from_str(line.trim_end()).unwrap();
    assert_eq!(entry, done["entry"], "{at}: the printed entry is the appended one");
    let id = entry["id"].as_str().unwrap();
    assert!(id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()), "{at}: id {id}");
    assert_eq!(entry["parentId"], plan["leafId"], "{at}: the new entry hangs under the old leaf");
    assert_eq!(entry["firstKeptEntryId"], plan["firstKeptEntryId"], "{at}");
    assert_eq!(entry["details"]["summarizer"], "contextree-offline", "{at}: offline summaries are labelled");
    let flag = if dialect == "pi" { "fromHook" } else { "fromExtension" };
    assert_eq!(entry[flag], false, "{at}");

    // contextree reloads it: the summary first, then the kept messages.
    let ours = contextree(&["context", f, "--json", "--dialect", support::seed_rules(dialect)]);
    let ids = entry_ids(&ours);
    assert_eq!(ours["messages"][0]["role"], "compactionSummary", "{at}");
    assert_eq!(ids[0], entry["id"], "{at}");
    assert_eq!(ids[1..].to_vec(), plan["recentMessagesIds"].as_array().unwrap().clone(), "{at}: kept messages");

    // The agent loads it the same way, keeps from firstKeptEntryId, and sees our summary.
    let theirs = oracle(dialect, "context", &file, &["--full"]);
    assert_eq!(theirs["leafId"], entry["id"], "{at}: the agent's leaf is the new entry");
    assert_eq!(theirs["messages"][0]["role"], "compactionSummary", "{at}: agent context starts with the summary");
    assert_eq!(entry_ids(&theirs), ids, "{at}: agent context entries");
    assert_eq!(theirs["messages"][1]["entryId"], entry["firstKeptEntryId"], "{at}: kept from firstKeptEntryId");
    assert_eq!(theirs["fullMessages"][0]["summary"], entry["summary"], "{at}: the agent reads our summary");
    assert_eq!(theirs["messageTokens"], ours["messageTokens"], "{at}: same estimate");
}

#[test]
fn offline_compaction_is_loaded_by_contextree_and_the_agents() {
    oracle_dir(); // fails at once, with the install hint, when the agents are missing
    for dialect in ["pi", "omp"] {
        // A split turn, and a second compaction (the dialects' boundaries differ, D2).
        compact_and_check("E03", dialect, "25");
        compact_and_check("E06", dialect, "30");
        compact_and_check("E17", dialect, "5");
    }
}

#[test]
fn compact_refuses_without_yes_and_when_nothing_to_compact() {
    let tmp = TempDir::new();
    let file = tmp.path().join("E07b.jsonl");
    std::fs::copy(repo().join("tests/fixtures/synthetic/E07b.jsonl"), &file).unwrap();
    let before = std::fs::read(&file).unwrap();
    let run = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_contextree")).arg("compact").arg(&file).args(args).output().unwrap();

    let no_yes = run(&["--offline"]);
    assert_eq!(no_yes.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_yes.stderr).contains("--yes"));
    let nothing = run(&["--offline", "--yes"]);
    assert_eq!(nothing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&nothing.stderr).contains("Already compacted"));
    let dry: Value = serde_json::from_slice(&run(&["--dry-run", "--json"]).stdout).unwrap();
    assert_eq!(dry["nothingToCompact"], true);
    assert_eq!(std::fs::read(&file).unwrap(), before, "refusals write nothing");
}

#[test]
fn supplied_summary_is_stored_verbatim() {
    let tmp = TempDir::new();
    let file = tmp.path().join("E02.jsonl");
    std::fs::copy(repo().join("tests/fixtures/synthetic/E02.jsonl"), &file).unwrap();
    let f = file.to_str().unwrap();
    let done = contextree(&["compact", f, "--dialect", "omp@13", "--keep-recent", "45", "--summary", "My own summary.", "--yes", "--json"]);
    let entry = &done["entry"];
    assert_eq!(entry["summary"], "My own summary.");
    assert_eq!(entry["fromExtension"], true);
    assert!(entry.get("details").is_none() && entry.get("shortSummary").is_none() && entry.get("preserveData").is_none(), "{entry}");
    let ours = contextree(&["context", f, "--json", "--dialect", "omp@13"]);
    assert_eq!(entry_ids(&ours)[1..], [Value::from("u2"), "a3".into(), "r2".into(), "a4".into()]);
}

/// omp's remote summarization endpoint (`POST {systemPrompt, prompt}` →
/// `{summary}`): it answers the short-summary prompt (the one quoting
/// `<previous-summary>`) and the history prompt differently.
fn remote_stub() -> Server {
    serve("/compact", |_, body| {
        let body: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let short = body["prompt"].as_str().unwrap_or("").contains("<previous-summary>");
        json_response(200, &serde_json::json!({"summary": if short { "Short from the model." } else { "## Goal\nFrom the model.  \n" }}))
    })
}

#[test]
fn model_summaries_go_through_the_llm_client() {
    let tmp = TempDir::new();
    let file = tmp.path().join("E02.jsonl");
    std::fs::copy(repo().join("tests/fixtures/synthetic/E02.jsonl"), &file).unwrap();
    let f = file.to_str().unwrap();
    let common = ["--dialect", "omp@13", "--keep-recent", "45", "--prompts", "own", "--json"];
    let plan = contextree(&[&["compact", f, "--dry-run"][..], &common].concat());
    let server = remote_stub();
    let url = server.url.clone();
    let done = contextree(&[&["compact", f, "--provider", "remote", "--base-url", &url, "--yes"][..], &common].concat());
    let bodies = server.bodies();

    // The endpoint received exactly the dry run's history prompt, then the
    // short prompt quoting the history answer.
    let calls = plan["calls"].as_array().unwrap();
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[0]["prompt"], calls[0]["prompt"]);
    assert_eq!(bodies[0]["systemPrompt"], calls[0]["systemPrompt"]);
    let marker = "<<summary returned by the calls above>>";
    assert_eq!(bodies[1]["prompt"].as_str().unwrap(), calls[1]["prompt"].as_str().unwrap().replace(marker, "## Goal\nFrom the model.  \n"));

    // omp right-trims the model's summary (upsertFileOperations) and adds its tags.
    let entry = &done["entry"];
    assert_eq!(entry["summary"], "## Goal\nFrom the model.\n\n<modified-files>\nhello.py\n</modified-files>");
    assert_eq!(entry["shortSummary"], "Short from the model.");
    assert_eq!(
        entry["details"],
        serde_json::json!({"readFiles": [], "modifiedFiles": ["hello.py"]}),
        "model summaries carry no offline label"
    );
    assert_eq!(done["summarizer"]["kind"], "model");
}

/// Under `omp@18`: an offline LLM-summary compaction (`method: "soft"`, one
/// `<files>` block) that oh-my-pi 18.2.3 loads into exactly the context
/// contextree promised (entries, roles and estimates), with a title slot
/// left as it was.
#[test]
fn omp18_offline_compaction_is_the_context_oh_my_pi_18_builds() {
    oracle_dir();
    let pack = agent_pack("omp18");
    for (dir, fixture, keep) in [
        ("synthetic", "E03", "25"),
        ("synthetic", "E06", "30"),
        ("synthetic", "E17", "5"),
        ("omp18", "omp18-compaction", "100"),
        ("omp18", "omp18-reset", "20"),
    ] {
        let tmp = TempDir::new();
        let file = tmp.path().join(format!("{fixture}.jsonl"));
        std::fs::copy(repo().join("tests/fixtures").join(dir).join(format!("{fixture}.jsonl")), &file).unwrap();
        let before = std::fs::read(&file).unwrap();
        let f = file.to_str().unwrap();
        let common = ["--dialect", "omp@18", "--keep-recent", keep, "--json", "--prompts", pack.to_str().unwrap()];
        let plan = contextree(&[&["compact", f, "--dry-run"][..], &common].concat());
        let done = contextree(&[&["compact", f, "--offline", "--yes"][..], &common].concat());
        let after = std::fs::read(&file).unwrap();
        assert_eq!(&after[..before.len()], &before[..], "{fixture}: the old bytes (title slot included) are an untouched prefix");
        let entry = &done["entry"];
        assert_eq!(entry["method"], "soft", "{fixture}");
        assert_eq!(entry["firstKeptEntryId"], plan["firstKeptEntryId"], "{fixture}");
        let summary = entry["summary"].as_str().unwrap();
        assert!(!summary.contains("<read-files>") && !summary.contains("<modified-files>"), "{fixture}: omp 18 writes one <files> block");

        let ours = contextree(&["context", f, "--json", "--dialect", "omp@18", "--prompts", pack.to_str().unwrap()]);
        let theirs = oracle("omp18", "context", &file, &["--full"]);
        let rows = |d: &Value| {
            d["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| (m["role"].clone(), m["entryId"].clone(), m["tokens"].clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(theirs["leafId"], entry["id"], "{fixture}: the agent's leaf is the new entry");
        assert_eq!(rows(&ours), rows(&theirs), "{fixture}: the context omp 18 builds is the one contextree promised");
        assert_eq!(ours["llmTokens"], theirs["llmTokens"], "{fixture}");
        assert_eq!(theirs["fullMessages"][0]["summary"], entry["summary"], "{fixture}: the agent reads our summary");
        assert_eq!(entry_ids(&ours)[1..].to_vec(), plan["recentMessagesIds"].as_array().unwrap().clone(), "{fixture}: kept messages");
    }
}

/// Under `omp@18`, a history over the summary model's input budget is summarized as oh-my-pi 18
/// does it: window after window, each request the dry run's (`calls`, then `foldCalls`) quoting
/// the answer to the one before; the last answer is the history summary.
#[test]
fn omp18_folded_history_is_asked_window_by_window() {
    let pack = agent_pack("omp18");
    let tmp = TempDir::new();
    let file = tmp.path().join("g-v3-bigout-s9.jsonl");
    std::fs::copy(repo().join("tests/fixtures/generated/g-v3-bigout-s9.jsonl"), &file).unwrap();
    let server = serve("/compact", |_, body| {
        let body: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let len = body["prompt"].as_str().unwrap_or("").len();
        json_response(200, &serde_json::json!({"summary": format!("Summary of {len} bytes.")}))
    });
    // The summary model and its (small) window come from a config file of the test's own.
    let cfg = tmp.path().join("config");
    std::fs::create_dir_all(cfg.join("contextree")).unwrap();
    let config = serde_json::json!({"providers": [{"kind": "remote", "baseUrl": server.url, "model": "gpt-5.2", "contextWindow": 20000}]});
    std::fs::write(cfg.join("contextree/config.json"), config.to_string()).unwrap();
    let run = |extra: &[&str]| -> Value {
        let out = Command::new(env!("CARGO_BIN_EXE_contextree"))
            .args([
                "compact",
                file.to_str().unwrap(),
                "--dialect",
                "omp@18",
                "--keep-recent",
                "100",
                "--reserve",
                "16384",
                "--json",
                "--prompts",
                pack.to_str().unwrap(),
            ])
            .args(extra)
            .env("XDG_CONFIG_HOME", &cfg)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let plan = run(&["--dry-run"]);
    let folds = plan["foldCalls"].as_array().expect("the dry run shows the fold").clone();
    assert!(folds.len() >= 2, "{}", plan["transcript"]);
    let done = run(&["--yes"]);
    let bodies = server.bodies();
    // Round 1 (the history windows, and concurrently the turn prefix), then the short summary.
    let prefix = plan["calls"].as_array().unwrap().iter().find(|c| c["kind"] == "turnPrefix").map(|c| c["prompt"].clone());
    let history: Vec<&Value> = bodies[..bodies.len() - 1].iter().filter(|b| Some(&b["prompt"]) != prefix.as_ref()).collect();
    assert_eq!(history.len(), 1 + folds.len(), "one request per window");
    assert_eq!(history[0]["prompt"], plan["calls"][0]["prompt"]);
    for (i, fold) in folds.iter().enumerate() {
        let carried = format!("Summary of {} bytes.", history[i]["prompt"].as_str().unwrap().len());
        let want = fold["prompt"].as_str().unwrap().replace("<<summary returned by the history call before>>", &carried);
        assert_eq!(history[i + 1]["prompt"].as_str().unwrap(), want, "window {}", i + 2);
    }
    let last = format!("Summary of {} bytes.", history.last().unwrap()["prompt"].as_str().unwrap().len());
    assert!(done["entry"]["summary"].as_str().unwrap().starts_with(&last), "the last window's answer is the history summary");
}
