//! `contextree navigate` with hooks and agent settings: each run gets its own
//! HOME and XDG config folder, so the user's real settings, hooks and
//! providers never take part. The hooks are tiny `sh -c` scripts.
//!
//! E10: old leaf `a4` (path u1 a1 u2 a2 r2 a3 r3 a4); target `a5` on the other
//! branch below `a1`.

use crate::support;

use std::path::Path;

use crate::support::sandbox::{json_out, read, sh, Sandbox};
use crate::support::server::{json_response, serve, Server};
use serde_json::{json, Value};

/// A hook that saves its payload to `path` and prints `result`.
fn record(path: &Path, result: &Value) -> Value {
    sh(&format!("cat > '{}'; printf '%s' '{}'", path.display(), result))
}

fn ids(v: &Value) -> Vec<&str> {
    v.as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect()
}

/// A provider nobody listens on: asking it would fail the run.
fn dead_provider() -> Value {
    json!([{"kind": "openai-compatible", "baseUrl": "http://127.0.0.1:9/v1", "model": "m", "maxRetries": 0}])
}

#[test]
fn a_cancelling_hook_leaves_the_file_byte_identical() {
    let sb = Sandbox::new("E10");
    let after = sb.path("after-cancel");
    let told = sb.path("told");
    sb.config(&json!({"hooks": {
        "session_before_tree": [sh("cat >/dev/null; echo '{\"cancel\": true}'"), sh(&format!("touch '{}'", after.display()))],
        "session_tree": [sh(&format!("touch '{}'", told.display()))],
    }}));
    let before = std::fs::read(&sb.file).unwrap();
    for dialect in ["pi", "omp"] {
        for extra in [&["--summarize", "--offline"][..], &[]] {
            let mut args = vec!["--dialect", support::seed_rules(dialect), "--to", "a5", "--yes", "--json"];
            args.extend_from_slice(extra);
            let out = sb.run("navigate", &args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{dialect} {extra:?}: {err}");
            assert!(err.contains("contextree: Navigation cancelled"), "{dialect}: {err}");
            assert_eq!(std::fs::read(&sb.file).unwrap(), before, "{dialect} {extra:?}: byte-identical");
            assert!(!after.exists() && !told.exists(), "{dialect}: no hook runs after a cancel, no session_tree");
        }
    }
}

#[test]
fn a_supplied_summary_is_appended_as_the_agents_would() {
    for (dialect, flag) in [("pi", "fromHook"), ("omp", "fromExtension")] {
        let sb = Sandbox::new("E10");
        let seen = sb.path("before.json");
        let told = sb.path("after.json");
        sb.config(&json!({
            "providers": dead_provider(),
            "hooks": {
                "session_before_tree": [
                    record(&seen, &json!({"summary": {"summary": "Hook summary.", "details": {"by": "hook"}}})),
                    // Prints nothing: the earlier result stands.
                    sh("cat >/dev/null"),
                ],
                "session_tree": [sh(&format!("cat > '{}'", told.display()))],
            },
        }));
        let done = json_out(&sb.run(
            "navigate",
            &["--dialect", support::seed_rules(dialect), "--to", "a5", "--summarize", "--instructions", "Focus.", "--yes", "--json"],
        ));
        let entry = &done["entry"];
        assert_eq!(entry["type"], "branch_summary");
        assert_eq!(entry["summary"], "Hook summary.", "{dialect}: verbatim, no preamble, no file tags");
        assert_eq!(entry["details"], json!({"by": "hook"}), "{dialect}");
        assert_eq!(entry[flag], true, "{dialect}");
        assert_eq!((&entry["parentId"], &entry["fromId"]), (&json!("a5"), &json!("a5")), "{dialect}: below the target");
        let keys: Vec<&str> = entry.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["type", "id", "parentId", "timestamp", "fromId", "summary", "details", flag], "{dialect}: the agents' key order");
        assert_eq!(sb.last_line(), *entry, "{dialect}: the file's last line");
        assert_eq!(done["summarizer"]["kind"], "hook");
        assert_eq!(done["warnings"], json!([]), "{dialect}");

        let p = read(&seen);
        assert_eq!(p["type"], "session_before_tree");
        let prep = &p["preparation"];
        assert_eq!((&prep["targetId"], &prep["oldLeafId"], &prep["commonAncestorId"]), (&json!("a5"), &json!("a4"), &json!("a1")));
        assert_eq!(ids(&prep["entriesToSummarize"]), ["u2", "a2", "r2", "a3", "r3", "a4"], "{dialect}: as stored, tool results included");
        assert_eq!(prep["userWantsSummary"], true);
        assert_eq!(prep.get("customInstructions").is_some(), dialect == "pi", "{dialect}: pi only");

        let note = read(&told);
        assert_eq!(note["type"], "session_tree");
        assert_eq!(note["newLeafId"], entry["id"], "{dialect}: the new leaf");
        assert_eq!(note["newLeafId"], done["newLeafId"]);
        assert_eq!(note["oldLeafId"], "a4");
        assert_eq!(note["summaryEntry"], *entry);
        assert_eq!(note["fromExtension"], true);
    }
}

#[test]
fn a_supplied_summary_without_details_leaves_the_key_out_and_is_ignored_without_summarize() {
    let sb = Sandbox::new("E10");
    sb.config(&json!({"providers": dead_provider(), "hooks": {"session_before_tree": [sh("cat >/dev/null; echo '{\"summary\": {\"summary\": \"Bare.\"}}'")]}}));
    let done = json_out(&sb.run("navigate", &["--dialect", "omp@13", "--to", "a5", "--summarize", "--yes", "--json"]));
    assert_eq!(done["entry"]["summary"], "Bare.");
    assert!(done["entry"].get("details").is_none(), "{}", done["entry"]);

    // No --summarize: the agents ignore a hook's summary and just move.
    let sb = Sandbox::new("E10");
    sb.config(&json!({"hooks": {"session_before_tree": [sh("cat >/dev/null; echo '{\"summary\": {\"summary\": \"Unasked.\"}}'")]}}));
    let done = json_out(&sb.run("navigate", &["--dialect", "pi@0.73", "--to", "a5", "--yes", "--json"]));
    assert_eq!(done["entry"]["type"], "custom");
    assert!(done["warnings"].to_string().contains("no summary was asked for"), "{}", done["warnings"]);
}

#[test]
fn session_tree_receives_the_new_leaf_id() {
    for dialect in ["pi", "omp"] {
        let sb = Sandbox::new("E10");
        let seen = sb.path("before.json");
        let told = sb.path("after.json");
        sb.config(&json!({"hooks": {
            "session_before_tree": [record(&seen, &json!({}))],
            "session_tree": [sh(&format!("cat > '{}'; echo '{{\"cancel\": true}}'", told.display()))],
        }}));
        let done = json_out(&sb.run("navigate", &["--dialect", support::seed_rules(dialect), "--to", "a5", "--yes", "--json"]));
        assert_eq!(read(&seen)["preparation"]["userWantsSummary"], false);
        let note = read(&told);
        let leaf = sb.last_line()["id"].clone();
        assert_eq!(
            note,
            json!({"type": "session_tree", "newLeafId": leaf, "oldLeafId": "a4"}),
            "{dialect}: no summaryEntry without a summary"
        );
        assert_eq!(done["newLeafId"], leaf);
        assert_eq!(done["entry"]["type"], "custom", "{dialect}: a notification cannot cancel");

        // With the default summarizer (offline): fromExtension false.
        let done = json_out(
            &sb.run("navigate", &["--dialect", support::seed_rules(dialect), "--to", "a4", "--summarize", "--offline", "--yes", "--json"]),
        );
        let note = read(&told);
        assert_eq!(note["newLeafId"], done["entry"]["id"]);
        assert_eq!(note["oldLeafId"], leaf, "{dialect}: the previous run's leaf");
        assert_eq!(note["fromExtension"], false);
        assert_eq!(note["summaryEntry"], done["entry"]);
    }
}

#[test]
fn the_branch_budget_follows_the_agents_settings() {
    // pi: the global file; the default window is 128000.
    let sb = Sandbox::new("E10");
    sb.write(".pi/agent/settings.json", r#"{"branchSummary": {"reserveTokens": 127990}}"#);
    let done = json_out(&sb.run("navigate", &["--dialect", "pi@0.73", "--to", "a5", "--summarize", "--offline", "--yes", "--json"]));
    let b = &done["budget"];
    assert_eq!((&b["window"], &b["reserveTokens"], &b["tokenBudget"]), (&json!(128_000), &json!(127_990), &json!(10)), "{b}");
    assert!(b["settingsFiles"][0].as_str().unwrap().ends_with(".pi/agent/settings.json"), "{b}");
    let tiny = done["entry"]["summary"].as_str().unwrap().to_owned();

    // Flags win: --window and --reserve.
    let sb = Sandbox::new("E10");
    sb.write(".pi/agent/settings.json", r#"{"branchSummary": {"reserveTokens": 127990}}"#);
    let done = json_out(&sb.run(
        "navigate",
        &["--dialect", "pi@0.73", "--to", "a5", "--summarize", "--offline", "--window", "200000", "--reserve", "1000", "--yes", "--json"],
    ));
    assert_eq!(done["budget"]["tokenBudget"], 199_000);
    let full = done["entry"]["summary"].as_str().unwrap();
    assert!(full.len() > tiny.len(), "a 10-token budget selects fewer messages:\n{tiny}\n---\n{full}");

    // omp: config.yml (YAML) and the project file over it.
    let sb = Sandbox::new("E10");
    sb.write(".omp/agent/config.yml", "branchSummary:\n  reserveTokens: 100000\n");
    let done = json_out(&sb.run("navigate", &["--dialect", "omp@13", "--to", "a5", "--summarize", "--offline", "--yes", "--json"]));
    assert_eq!(done["budget"]["tokenBudget"], 28_000);
    sb.write("work/.omp/settings.json", r#"{"branchSummary": {"reserveTokens": 120000}}"#);
    let done = json_out(&sb.run("navigate", &["--dialect", "omp@13", "--to", "a4", "--summarize", "--offline", "--yes", "--json"]));
    assert_eq!(done["budget"]["tokenBudget"], 8_000);
    assert_eq!(done["budget"]["settingsFiles"].as_array().unwrap().len(), 2);
}

#[test]
fn pi_hooks_override_the_label_and_omp_ignores_overrides() {
    let sb = Sandbox::new("E10");
    sb.config(&json!({"hooks": {"session_before_tree": [sh("cat >/dev/null; echo '{\"label\": \"checkpoint\", \"summary\": {\"summary\": \"S.\"}}'")]}}));
    let done = json_out(&sb.run("navigate", &["--dialect", "pi@0.73", "--to", "a5", "--summarize", "--yes", "--json"]));
    let label = sb.last_line();
    let summary_id = done["entry"]["id"].clone();
    assert_eq!(label["type"], "label");
    assert_eq!((&label["parentId"], &label["targetId"], &label["label"]), (&summary_id, &summary_id, &json!("checkpoint")), "{label}");
    assert_eq!(done["newLeafId"], label["id"], "the label entry is the file's leaf");

    let sb = Sandbox::new("E10");
    sb.config(&json!({"hooks": {"session_before_tree": [sh("cat >/dev/null; echo '{\"label\": \"checkpoint\"}'")]}}));
    let done = json_out(&sb.run("navigate", &["--dialect", "omp@13", "--to", "a5", "--yes", "--json"]));
    assert_eq!(sb.last_line()["type"], "custom");
    assert!(done["warnings"].to_string().contains("omp has no such overrides"), "{}", done["warnings"]);
}

/// omp's remote summarization endpoint: `{systemPrompt, prompt}` → `{summary}`.
fn remote_endpoint(summary: &'static str) -> Server {
    serve("/compact", move |_, _| json_response(200, &json!({"summary": summary})))
}

#[test]
fn omps_remote_endpoint_is_a_candidate_when_no_provider_is_configured() {
    let sb = Sandbox::new("E10");
    let server = remote_endpoint("Remote summary.");
    let url = server.url.clone();
    sb.write(".omp/agent/config.yml", &format!("compaction:\n  remoteEndpoint: {url}\n"));
    let done = json_out(&sb.run("navigate", &["--dialect", "omp@13", "--to", "a5", "--summarize", "--yes", "--json"]));
    assert_eq!(done["summarizer"]["kind"], "model", "{}", done["summarizer"]);
    assert!(done["entry"]["summary"].as_str().unwrap().contains("Remote summary."), "{}", done["entry"]);
    assert_eq!(server.count(), 1);
    assert!(server.bodies()[0]["prompt"].as_str().unwrap().starts_with("<conversation>\n"));

    // compact uses it too.
    let sb = Sandbox::new("E02");
    sb.write(".omp/agent/config.yml", &format!("compaction:\n  remoteEndpoint: {url}\n"));
    let done = json_out(&sb.run("compact", &["--dialect", "omp@13", "--keep-recent", "45", "--yes", "--json"]));
    assert_eq!(done["summarizer"]["kind"], "model", "{}", done["summarizer"]);
    assert!(done["entry"]["summary"].as_str().unwrap().contains("Remote summary."), "{}", done["entry"]);

    // A configured provider wins over the endpoint; pi has none.
    let sb = Sandbox::new("E10");
    sb.write(".pi/agent/settings.json", &format!(r#"{{"compaction": {{"remoteEndpoint": "{url}"}}}}"#));
    let done = json_out(&sb.run("navigate", &["--dialect", "pi@0.73", "--to", "a5", "--summarize", "--yes", "--json"]));
    assert_eq!(done["summarizer"]["kind"], "offline", "pi settings give no remote endpoint");
}
