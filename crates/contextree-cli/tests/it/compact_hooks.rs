//! `contextree compact` with hooks and agent settings: each run gets its own
//! HOME and XDG config folder, so the user's real settings, hooks and
//! providers never take part. The hooks are tiny `sh -c` scripts.

use crate::support;

use crate::support::sandbox::{json_out, read, sh, Sandbox};
use crate::support::server::{json_response, serve, Server};
use serde_json::{json, Value};

#[test]
fn a_cancelling_hook_leaves_the_file_untouched() {
    let sb = Sandbox::new("E02");
    let after = sb.path("after-cancel");
    sb.config(&json!({"hooks": {"session_before_compact": [
        sh("cat >/dev/null; echo '{\"cancel\": true}'"),
        sh(&format!("touch '{}'", after.display())),
    ]}}));
    let before = std::fs::read(&sb.file).unwrap();
    for dialect in ["pi", "omp"] {
        let out = sb.run("compact", &["--dialect", support::seed_rules(dialect), "--keep-recent", "45", "--offline", "--yes"]);
        assert_eq!(out.status.code(), Some(1), "{dialect}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("Compaction cancelled"),
            "{dialect}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(std::fs::read(&sb.file).unwrap(), before, "{dialect}: byte-identical");
        assert!(!after.exists(), "{dialect}: no hook runs after a cancel");
    }
}

#[test]
fn a_supplied_compaction_is_stored_as_the_hooks_and_no_model_is_asked() {
    for (dialect, flag) in [("pi", "fromHook"), ("omp", "fromExtension")] {
        let sb = Sandbox::new("E02");
        let seen = sb.path("before.json");
        let told = sb.path("after.json");
        sb.config(&json!({
            // A provider nobody listens on: asking it would fail the run.
            "providers": [{"kind": "openai-compatible", "baseUrl": "http://127.0.0.1:9/v1", "model": "m", "maxRetries": 0}],
            "hooks": {
                "session_before_compact": [
                    sh(&format!("cat > '{}'; echo '{{\"compaction\": {{\"summary\": \"Hook summary.\", \"details\": {{\"by\": \"hook\"}}}}}}'", seen.display())),
                    // Prints nothing: the earlier result stands.
                    sh("cat >/dev/null"),
                ],
                "session_compact": [sh(&format!("cat > '{}'", told.display()))],
            },
        }));
        let done = json_out(&sb.run("compact", &["--dialect", support::seed_rules(dialect), "--keep-recent", "45", "--yes", "--json"]));
        let entry = &done["entry"];
        assert_eq!(entry["summary"], "Hook summary.", "{dialect}: verbatim, no file tags");
        assert_eq!(entry[flag], true, "{dialect}");
        assert_eq!(entry["details"], json!({"by": "hook"}), "{dialect}");
        assert_eq!(entry["firstKeptEntryId"], "u2", "{dialect}: the plan's default");
        assert_eq!(done["summarizer"]["kind"], "hook", "{dialect}");
        assert_eq!(done["warnings"], json!([]), "{dialect}");

        let payload = read(&seen);
        assert_eq!(payload["type"], "session_before_compact");
        assert_eq!(payload["preparation"]["firstKeptEntryId"], "u2");
        assert_eq!(payload["preparation"]["messagesToSummarize"].as_array().unwrap().len(), 4);
        assert_eq!(payload["preparation"]["settings"]["keepRecentTokens"], 45);
        assert_eq!(payload["preparation"].get("recentMessages").is_some(), dialect == "omp", "{dialect}: omp only");
        assert_eq!(payload["branchEntries"].as_array().unwrap().last().unwrap()["id"], "a4");

        let note = read(&told);
        assert_eq!(note["type"], "session_compact");
        assert_eq!(note["compactionEntry"], *entry, "{dialect}: the written entry");
        assert_eq!(note["fromExtension"], true);
    }
}

#[test]
fn a_hook_that_times_out_is_reported_and_compaction_goes_on() {
    let sb = Sandbox::new("E02");
    let seen = sb.path("compacting.json");
    sb.config(&json!({"hooks": {
        "session_before_compact": [{"command": ["sh", "-c", "exec sleep 30"], "timeoutSecs": 0.5}],
        "session.compacting": [sh(&format!("cat > '{}'; echo '{{\"context\": [\"Mind the tests.\"], \"preserveData\": {{\"fromHook\": 1}}}}'", seen.display()))],
    }}));
    let before = std::fs::read(&sb.file).unwrap();
    let started = std::time::Instant::now();
    let done = json_out(&sb.run("compact", &["--dialect", "omp@13", "--keep-recent", "45", "--yes", "--json"]));
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "the hook was killed at its limit");
    let warnings = done["warnings"].to_string();
    assert!(warnings.contains("session_before_compact") && warnings.contains("timed out after 0.5s"), "{warnings}");
    // No provider is configured: the offline summary, with the compacting hook's preserveData.
    assert_eq!(done["summarizer"]["kind"], "offline");
    let entry = &done["entry"];
    assert_eq!(entry["fromExtension"], false);
    assert_eq!(entry["preserveData"]["fromHook"], 1, "{entry}");
    let payload = read(&seen);
    assert_eq!(payload["type"], "session.compacting");
    assert_eq!(payload["messages"].as_array().unwrap().len(), 4, "messagesToSummarize ++ turnPrefixMessages");
    let after = std::fs::read(&sb.file).unwrap();
    assert_eq!(&after[..before.len()], &before[..], "the old bytes are an untouched prefix");
}

#[test]
fn dry_run_names_the_agent_settings_files_and_runs_no_hook() {
    let sb = Sandbox::new("E02");
    let ran = sb.path("ran");
    sb.config(&json!({"hooks": {"session_before_compact": [sh(&format!("touch '{}'", ran.display()))]}}));
    std::fs::create_dir_all(sb.path(".pi/agent")).unwrap();
    std::fs::write(sb.path(".pi/agent/settings.json"), r#"{"compaction": {"keepRecentTokens": 45}}"#).unwrap();
    std::fs::create_dir_all(sb.path("work/.pi")).unwrap();
    std::fs::write(sb.path("work/.pi/settings.json"), r#"{"compaction": {"reserveTokens": 1000}}"#).unwrap();
    let plan = json_out(&sb.run("compact", &["--dialect", "pi@0.73", "--dry-run", "--json"]));
    let files: Vec<String> = plan["settingsFiles"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(files[0].ends_with(".pi/agent/settings.json") && files[1].ends_with("work/.pi/settings.json"), "{files:?}");
    assert_eq!(plan["keepRecentTokensUsed"], 45, "from the global file");
    assert_eq!(plan["calls"][0]["maxTokens"], 800, "80 % of the project's reserveTokens");
    assert_eq!(plan["hooks"], json!({"session_before_compact": 1}));
    assert!(!ran.exists(), "a dry run runs no hook");
    // A flag wins over the files.
    let plan = json_out(&sb.run("compact", &["--dialect", "pi@0.73", "--dry-run", "--json", "--keep-recent", "1000000"]));
    assert_eq!(plan["keepRecentTokensUsed"], 1_000_000);
    let text = sb.run("compact", &["--dialect", "pi@0.73", "--dry-run"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("agent settings read from: "), "{}", String::from_utf8_lossy(&text.stdout));
}

/// A provider that answers every request with the next status of `statuses`
/// (the last one repeats).
fn failing_server(statuses: &'static [u16]) -> Server {
    serve("/v1", move |n, _| {
        json_response(statuses[n.min(statuses.len() - 1)], &json!({"error": {"message": format!("scripted failure {n}")}}))
    })
}

#[test]
fn a_provider_failure_is_a_clear_error_and_writes_nothing() {
    let sb = Sandbox::new("E02");
    let server = failing_server(&[500, 400]);
    let url = server.url.clone();
    sb.config(
        &json!({"providers": [{"kind": "openai-compatible", "baseUrl": url, "model": "m", "maxRetries": 3, "retryBaseDelayMs": 10}]}),
    );
    let before = std::fs::read(&sb.file).unwrap();
    let out = sb.run("compact", &["--dialect", "pi@0.73", "--keep-recent", "45", "--yes"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let last = err.lines().last().unwrap_or("");
    assert!(last.starts_with("contextree: Compaction failed: HTTP 400"), "{err}");
    // 500 is retried, 400 is not.
    assert_eq!(server.count(), 2, "{err}");
    assert_eq!(std::fs::read(&sb.file).unwrap(), before, "byte-identical");
}

/// A provider that answers the n-th request with the n-th raw HTTP response
/// of `responses` (the last one repeats).
fn scripted_server(responses: Vec<String>) -> Server {
    serve("/v1", move |n, _| responses[n.min(responses.len() - 1)].clone())
}

fn sse_response(events: &[&str]) -> String {
    let body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    format!("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len())
}

#[test]
fn a_rate_limit_is_retried_and_the_streamed_summary_is_appended_once() {
    let sb = Sandbox::new("E02");
    let limited = "HTTP/1.1 429 Too Many Requests\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_owned();
    let chunk = |t: &str| json!({"choices": [{"index": 0, "delta": {"content": t}}]}).to_string();
    let ok = sse_response(&[&chunk("## Goal\n"), &chunk("Streamed summary."), "[DONE]"]);
    let server = scripted_server(vec![limited, ok]);
    let url = server.url.clone();
    sb.config(
        &json!({"providers": [{"kind": "openai-compatible", "baseUrl": url, "model": "m", "maxRetries": 3, "retryBaseDelayMs": 10}]}),
    );
    let before = std::fs::read(&sb.file).unwrap();
    let out = sb.run("compact", &["--dialect", "pi@0.73", "--keep-recent", "45", "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // pi asks the model once (E02 is not a split turn); the 429 cost one more request.
    assert_eq!(server.count(), 2);
    let after = std::fs::read(&sb.file).unwrap();
    assert!(after.starts_with(&before), "the old bytes are an untouched prefix");
    let appended = String::from_utf8(after[before.len()..].to_vec()).unwrap();
    assert_eq!(appended.matches('\n').count(), 1, "one line: {appended}");
    let entry: Value = serde_json::from_str(appended.trim_end()).unwrap();
    assert_eq!(entry["type"], "compaction");
    assert!(entry["summary"].as_str().unwrap().starts_with("## Goal\nStreamed summary."), "{entry}");
}

#[test]
fn a_malformed_stream_is_a_clear_error_and_writes_nothing() {
    let sb = Sandbox::new("E02");
    let url = scripted_server(vec![sse_response(&["{\"choices\": [{\"delta\": {\"content\": 42"])]).url;
    sb.config(&json!({"providers": [{"kind": "openai-compatible", "baseUrl": url, "model": "m", "maxRetries": 0}]}));
    let before = std::fs::read(&sb.file).unwrap();
    let out = sb.run("compact", &["--dialect", "pi@0.73", "--keep-recent", "45", "--yes"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("Compaction failed:"), "{err}");
    assert_eq!(std::fs::read(&sb.file).unwrap(), before, "byte-identical");
}
