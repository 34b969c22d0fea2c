//! The dispatch rules over table runners, the config section, results and payloads, and
//! real processes (time limits, output caps, process groups, stops).

use super::*;
use std::path::Path;
use std::time::Instant;

use contextree_core::branch_summary::SuppliedBranchSummary;
use contextree_core::session::Session;
use contextree_core::Dialect;
use serde_json::json;

fn hook(cmd: &str) -> HookCommand {
    HookCommand { command: vec![cmd.to_owned()], timeout: DEFAULT_HOOK_TIMEOUT }
}

/// A runner answering from a table keyed by the command's program name.
/// `Err(code)` stands for a hook that exited with that status.
fn table<'a>(answers: &'a [(&'a str, Result<&'a str, i32>)]) -> impl FnMut(&HookCommand, &[u8]) -> Result<Vec<u8>, HookRunError> + 'a {
    use std::os::unix::process::ExitStatusExt as _;
    move |h, _| {
        let (_, a) = answers.iter().find(|(n, _)| *n == h.command[0]).unwrap();
        a.map(|s| s.as_bytes().to_vec())
            .map_err(|code| HookRunError::Failed { status: std::process::ExitStatus::from_raw(code << 8), stderr: String::new() })
    }
}

#[test]
fn config_section_parses_and_rejects_typos() {
    let hooks = parse_hooks(r#"{"providers": [], "hooks": {"session_before_compact": [{"command": ["a", "x"], "timeoutSecs": 2.5}, {"command": ["b"]}], "session.compacting": []}}"#).unwrap();
    let list = hooks.for_event(HookEvent::BeforeCompact);
    assert_eq!(list[0], HookCommand { command: vec!["a".into(), "x".into()], timeout: Duration::from_millis(2500) });
    assert_eq!(list[1].timeout, DEFAULT_HOOK_TIMEOUT);
    assert!(hooks.for_event(HookEvent::Compact).is_empty());
    assert!(parse_hooks(r#"{"providers": []}"#).unwrap().is_empty());
    for (bad, says) in [
        (r#"{"hooks": {"session_compacting": []}}"#, "unknown event"),
        (r#"{"hooks": {"session_compact": [{"command": []}]}}"#, "hooks.session_compact[0].command"),
        (r#"{"hooks": {"session_compact": [{"command": ["a"], "timeout": 1}]}}"#, "unknown key \"timeout\""),
        (r#"{"hooks": {"session_compact": [{"command": ["a"], "timeoutSecs": 0}]}}"#, "timeoutSecs"),
        (r#"{"hooks": []}"#, "must be an object"),
    ] {
        let e = parse_hooks(bad).unwrap_err();
        assert!(e.to_string().contains(says), "{bad}: {e}");
    }
}

#[test]
fn config_errors_have_kinds_and_sources() {
    assert!(matches!(parse_hooks(r#"{"hooks": []}"#), Err(HookConfigError::NotAnObject)));
    let e = parse_hooks("{").unwrap_err();
    assert!(matches!(e, HookConfigError::Json(_)) && std::error::Error::source(&e).is_some(), "{e}");
    let tmp = tempfile::Builder::new().prefix("contextree-hook-config-").tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    assert!(load_hooks(&dir.join("missing.json")).unwrap().is_empty(), "no file, no hooks");
    let path = dir.join("config.json");
    std::fs::write(&path, r#"{"hooks": {"session_compact": [{"command": ["a"], "timeoutSecs": -1}]}}"#).unwrap();
    let e = load_hooks(&path).unwrap_err();
    assert_eq!(e.to_string(), format!("{}: hooks.session_compact[0].timeoutSecs: expected a number of seconds > 0", path.display()));
    assert!(matches!(&e, HookConfigError::InFile { source, .. } if matches!(**source, HookConfigError::BadTimeout { .. })));
    // A folder cannot be read as a file.
    assert!(matches!(load_hooks(&dir), Err(HookConfigError::Read { .. })));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn last_non_empty_result_wins_and_cancel_stops_at_once() {
    let hooks = [hook("a"), hook("b"), hook("empty"), hook("fail"), hook("cancel"), hook("after")];
    let answers = [
        ("a", Ok(r#"{"compaction": {"summary": "A"}}"#)),
        ("b", Ok(r#"{"compaction": {"summary": "B"}}"#)),
        ("empty", Ok("  \n")),
        ("fail", Err(3)),
        ("cancel", Ok(r#"{"cancel": true}"#)),
        ("after", Ok(r#"{"compaction": {"summary": "never"}}"#)),
    ];
    let mut ran = Vec::new();
    let mut inner = table(&answers);
    let mut run = |h: &HookCommand, p: &[u8]| {
        ran.push(h.command[0].clone());
        inner(h, p)
    };
    let d = dispatch_with(HookEvent::BeforeCompact, &hooks, &json!({}), &mut run);
    assert!(d.cancelled);
    assert_eq!(ran, ["a", "b", "empty", "fail", "cancel"], "nothing runs after a cancel");
    assert_eq!(d.warnings.len(), 1);
    assert!(d.warnings[0].contains("#4 (fail): exit status: 3"), "{:?}", d.warnings);
    assert!(before_compact(&d).cancel);

    let d = dispatch_with(HookEvent::BeforeCompact, &hooks[..3], &json!({}), &mut table(&answers));
    assert!(!d.cancelled);
    assert_eq!(before_compact(&d).compaction.unwrap().summary, "B", "the last non-empty result");
}

#[test]
fn unusable_results_are_warnings_and_earlier_results_stand() {
    let hooks = [hook("good"), hook("garbage"), hook("array"), hook("badtype"), hook("nosummary")];
    let answers = [
        ("good", Ok(r#"{"prompt": "P", "context": ["c1"], "preserveData": {"k": 1}}"#)),
        ("garbage", Ok("hello")),
        ("array", Ok("[1]")),
        ("badtype", Ok(r#"{"context": "not a list"}"#)),
        ("nosummary", Ok(r#"{"prompt": 5}"#)),
    ];
    let d = dispatch_with(HookEvent::Compacting, &hooks, &json!({}), &mut table(&answers));
    assert_eq!(d.warnings.len(), 4, "{:?}", d.warnings);
    assert!(d.warnings[0].contains("not JSON"));
    assert!(d.warnings[1].contains("not a JSON object"));
    assert!(d.warnings[2].contains("\"context\" must be a list of strings"));
    let c = compacting(&d);
    assert_eq!((c.prompt.as_deref(), c.context, c.preserve_data), (Some("P"), vec!["c1".to_owned()], Some(raw(json!({"k": 1})))));

    let d = dispatch_with(
        HookEvent::BeforeCompact,
        &[hook("x")],
        &json!({}),
        &mut table(&[("x", Ok(r#"{"compaction": {"tokensBefore": 3}}"#))]),
    );
    assert!(d.result.is_none() && d.warnings[0].contains("compaction.summary\" is missing"), "{d:?}");
    // session.compacting cannot cancel.
    let d = dispatch_with(
        HookEvent::Compacting,
        &[hook("x"), hook("y")],
        &json!({}),
        &mut table(&[("x", Ok(r#"{"cancel": true}"#)), ("y", Ok(r#"{"prompt": "Y"}"#))]),
    );
    assert!(!d.cancelled && compacting(&d).prompt.as_deref() == Some("Y"));
}

#[test]
fn notification_results_are_ignored_but_failures_reported() {
    let hooks = [hook("a"), hook("b")];
    let d = dispatch_with(HookEvent::Compact, &hooks, &json!({}), &mut table(&[("a", Ok(r#"{"cancel": true}"#)), ("b", Err(124))]));
    assert_eq!((d.result, d.cancelled), (None, false));
    assert_eq!(d.warnings.len(), 1);
}

#[test]
fn tree_results_and_payloads() {
    let answers = [
        ("sum", Ok(r#"{"summary": {"summary": "S", "details": {"d": 1}}, "label": "L", "replaceInstructions": true}"#)),
        ("bad", Ok(r#"{"summary": {"details": 1}}"#)),
        ("worse", Ok(r#"{"summary": "text"}"#)),
    ];
    let d = dispatch_with(HookEvent::BeforeTree, &[hook("sum"), hook("bad"), hook("worse")], &json!({}), &mut table(&answers));
    assert_eq!(d.warnings.len(), 2, "{:?}", d.warnings);
    assert!(d.warnings[0].contains("summary.summary\" is missing"), "{:?}", d.warnings);
    let t = before_tree(&d);
    assert_eq!(t.summary, Some(SuppliedBranchSummary { summary: "S".into(), details: Some(raw(json!({"d": 1}))) }));
    assert_eq!((t.label.as_deref(), t.replace_instructions, t.cancel), (Some("L"), Some(true), false));
    let d = dispatch_with(
        HookEvent::BeforeTree,
        &[hook("c"), hook("sum")],
        &json!({}),
        &mut table(&[("c", Ok(r#"{"cancel": true}"#)), ("sum", Ok("{}"))]),
    );
    assert!(before_tree(&d).cancel);

    fn value(p: impl serde::Serialize) -> serde_json::Value {
        serde_json::to_value(p).unwrap()
    }
    assert_eq!(value(tree_payload(Some("n"), None, None)), json!({"type": "session_tree", "newLeafId": "n", "oldLeafId": null}));
    let e = crate::RawJson::from_serialize(&json!({"type": "branch_summary"})).unwrap();
    assert_eq!(value(tree_payload(Some("n"), Some("o"), Some((&e, true))))["fromExtension"], true);

    let bytes = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n{\"type\":\"message\",\"id\":\"u1\",\"parentId\":null,\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":1}}\n";
    for dialect in Dialect::ALL {
        let s = Session::parse(bytes, Some(contextree_core::RuleSet::oldest(dialect)));
        let u1 = s.node("u1").unwrap();
        let prep = TreePreparation {
            target: u1,
            old_leaf: Some(u1),
            common_ancestor: Some(u1),
            entries_to_summarize: &[u1],
            user_wants_summary: true,
            custom_instructions: Some("C"),
            replace_instructions: None,
            label: None,
        };
        let p = serde_json::to_value(before_tree_payload(&s, &prep, &bytes.to_vec())).unwrap();
        assert_eq!(p["type"], "session_before_tree");
        assert_eq!(p["preparation"]["entriesToSummarize"][0]["id"], "u1");
        assert_eq!(p["preparation"]["userWantsSummary"], true);
        let pi_only = p["preparation"].get("customInstructions").is_some();
        assert_eq!(pi_only, dialect == Dialect::Pi, "{dialect}");
        assert!(p["preparation"].get("replaceInstructions").is_none());
    }
}

/// A temporary folder for scripts (`tempfile`), removed when dropped.
fn temp_dir() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("contextree-hooks-").tempdir().unwrap()
}

fn sh(script: &str, timeout: Duration) -> HookCommand {
    HookCommand { command: vec!["sh".into(), "-c".into(), script.into()], timeout }
}

#[test]
fn real_processes_get_the_payload_and_their_results_count() {
    let t = temp_dir();
    let seen = t.path().join("payload.json");
    let long = Duration::from_secs(10);
    // The first hook records its stdin and supplies a summary; the second
    // prints nothing, so the first one's result stands.
    let record = sh(
        &format!("cat > '{}'; echo '{{\"compaction\": {{\"summary\": \"From a hook\", \"details\": {{\"x\": 1}}}}}}'", seen.display()),
        long,
    );
    let payload = json!({"type": "session_before_compact", "big": "y".repeat(300_000)});
    let d = dispatch(HookEvent::BeforeCompact, &[record, sh("exit 0", long)], &payload);
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    let supplied = before_compact(&d).compaction.unwrap();
    assert_eq!((supplied.summary.as_str(), supplied.details), ("From a hook", Some(raw(json!({"x": 1})))));
    let got: Value = serde_json::from_slice(&std::fs::read(&seen).unwrap()).unwrap();
    assert_eq!(got, payload, "the whole payload arrives on stdin, even one larger than a pipe buffer");

    let d = dispatch(
        HookEvent::BeforeCompact,
        &[sh("echo '{\"cancel\": true}'", long), sh(&format!("touch '{}/ran'", t.path().display()), long)],
        &json!({}),
    );
    assert!(d.cancelled && !t.path().join("ran").exists());

    let d = dispatch(
        HookEvent::Compacting,
        &[sh(r#"printf '{"prompt": "Mine", "context": ["a", "b"], "preserveData": {"keep": true}}'"#, long)],
        &json!({}),
    );
    let c = compacting(&d);
    assert_eq!((c.prompt.as_deref(), c.context.len(), c.preserve_data), (Some("Mine"), 2, Some(raw(json!({"keep": true})))));
}

#[test]
fn failing_processes_are_warnings() {
    let long = Duration::from_secs(10);
    let started = Instant::now();
    let d = dispatch(
        HookEvent::BeforeCompact,
        &[
            sh("exec sleep 30", Duration::from_millis(300)),
            sh("echo '{not json'", long),
            sh("echo oops >&2; exit 3", long),
            HookCommand { command: vec!["/nonexistent/contextree-hook".into()], timeout: long },
            sh("echo '{\"compaction\": {\"summary\": \"survivor\"}}'", long),
        ],
        &json!({}),
    );
    assert!(started.elapsed() < Duration::from_secs(10), "the sleeping hook was killed at its limit");
    assert_eq!(d.warnings.len(), 4, "{:?}", d.warnings);
    assert!(d.warnings[0].contains("timed out after 0.3s (killed)"), "{}", d.warnings[0]);
    assert!(d.warnings[1].contains("not JSON"), "{}", d.warnings[1]);
    assert!(d.warnings[2].contains("exit status: 3: oops"), "{}", d.warnings[2]);
    assert!(d.warnings[3].contains("cannot start"), "{}", d.warnings[3]);
    assert_eq!(before_compact(&d).compaction.unwrap().summary, "survivor");
}

/// Whether process `pid` is gone: no /proc entry, or a zombie waiting for a
/// reaper (in a container, pid 1 may never reap an orphan).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // `pid (comm) S ...`: the state follows the last ')'.
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Waits up to 2 s for `pid` to be gone (SIGKILL is delivered asynchronously).
fn gone_soon(pid: u32) -> bool {
    let until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < until {
        if gone(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    gone(pid)
}

/// The resident memory of this process in KiB (`VmRSS`).
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn read_pid(path: &Path) -> u32 {
    // The hook writes its pid files before sleeping; wait for them briefly.
    let until = Instant::now() + Duration::from_secs(2);
    loop {
        if let Some(pid) = std::fs::read_to_string(path).ok().and_then(|t| t.trim().parse().ok()) {
            return pid;
        }
        assert!(Instant::now() < until, "{} was never written", path.display());
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn endless_output_is_cut_at_the_cap_and_the_hook_killed() {
    let before = rss_kib();
    let started = Instant::now();
    let d =
        dispatch(HookEvent::BeforeCompact, &[HookCommand { command: vec!["yes".into()], timeout: Duration::from_secs(60) }], &json!({}));
    let took = started.elapsed();
    let grew_mib = rss_kib().saturating_sub(before) / 1024;
    eprintln!("yes: stopped after {took:?}, RSS grew by {grew_mib} MiB");
    assert_eq!(d.warnings.len(), 1, "{:?}", d.warnings);
    assert!(d.warnings[0].contains(&format!("(yes): printed more than {HOOK_STDOUT_CAP} bytes on stdout (killed)")), "{}", d.warnings[0]);
    assert!(took < Duration::from_secs(10), "stopped by the cap, not the time limit: {took:?}");
    // The buffer holds at most the cap (16 MiB) plus the Vec's spare room.
    assert!(grew_mib < 64, "memory stays bounded: grew by {grew_mib} MiB");

    let t = temp_dir();
    let pid_file = t.path().join("pid");
    let d = dispatch(
        HookEvent::Compact,
        &[sh(&format!("echo $$ > '{}'; exec yes >&2", pid_file.display()), Duration::from_secs(60))],
        &json!({}),
    );
    assert!(d.warnings[0].contains(&format!("printed more than {HOOK_STDERR_CAP} bytes on stderr (killed)")), "{}", d.warnings[0]);
    assert!(gone_soon(read_pid(&pid_file)));
}

#[test]
fn the_time_limit_kills_the_hook_and_its_children() {
    let t = temp_dir();
    let (hook_pid, bg_pid) = (t.path().join("hook"), t.path().join("bg"));
    let script = format!("echo $$ > '{}'; sleep 300 & echo $! > '{}'; sleep 300", hook_pid.display(), bg_pid.display());
    let started = Instant::now();
    let d = dispatch(HookEvent::BeforeCompact, &[sh(&script, Duration::from_millis(500))], &json!({}));
    let took = started.elapsed();
    assert!(d.warnings[0].contains("timed out after 0.5s (killed)"), "{:?}", d.warnings);
    assert!(took < Duration::from_secs(3), "{took:?}");
    let (hook, bg) = (read_pid(&hook_pid), read_pid(&bg_pid));
    assert!(gone_soon(hook), "the hook {hook} is gone");
    assert!(gone_soon(bg), "its background child {bg} is gone too");

    // A hook that exits at once but leaves a child holding its stdout: the
    // child is killed at the time limit too.
    let script = format!("sleep 300 & echo $! > '{}'; echo '{{}}'", bg_pid.display());
    let _ = std::fs::remove_file(&bg_pid);
    let d = dispatch(HookEvent::BeforeCompact, &[sh(&script, Duration::from_millis(300))], &json!({}));
    assert!(d.warnings[0].contains("timed out"), "{:?}", d.warnings);
    assert!(gone_soon(read_pid(&bg_pid)));

    // One that detaches on purpose (its output elsewhere) is not waited for.
    let started = Instant::now();
    let d = dispatch(
        HookEvent::BeforeCompact,
        &[sh("sleep 1 >/dev/null 2>&1 & echo '{\"cancel\": true}'", Duration::from_secs(10))],
        &json!({}),
    );
    assert!(d.cancelled && d.warnings.is_empty() && started.elapsed() < Duration::from_millis(900), "{d:?}");
}

#[test]
fn a_failing_hook_is_reported_at_once_and_its_children_killed() {
    let t = temp_dir();
    let bg_pid = t.path().join("bg");
    // The child inherits stderr, so the pipe stays open after the hook exits.
    let script = format!("sleep 300 & echo $! > '{}'; echo bad >&2; exit 4", bg_pid.display());
    let started = Instant::now();
    let d = dispatch(HookEvent::BeforeCompact, &[sh(&script, Duration::from_secs(60))], &json!({}));
    assert!(started.elapsed() < Duration::from_secs(2), "not the 60 s limit: {:?}", started.elapsed());
    assert!(d.warnings[0].contains("exit status: 4"), "{:?}", d.warnings);
    assert!(gone_soon(read_pid(&bg_pid)), "the child holding stderr is killed with the group");
}

#[test]
fn a_stop_kills_the_running_hook_and_starts_no_other() {
    let t = temp_dir();
    let (hook_pid, bg_pid) = (t.path().join("hook"), t.path().join("bg"));
    let script = format!("echo $$ > '{}'; sleep 300 & echo $! > '{}'; sleep 300", hook_pid.display(), bg_pid.display());
    let started = Instant::now();
    let stop_at = started + Duration::from_millis(300);
    let d = dispatch_until(
        HookEvent::BeforeCompact,
        &[sh(&script, Duration::from_secs(60)), sh(&format!("touch '{}/ran'", t.path().display()), Duration::from_secs(60))],
        &json!({}),
        &|| Instant::now() >= stop_at,
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(d.warnings.len(), 2, "{:?}", d.warnings);
    assert!(d.warnings[0].contains("cancelled (killed)") && d.warnings[1].contains("not started"), "{:?}", d.warnings);
    assert!(!t.path().join("ran").exists());
    assert!(gone_soon(read_pid(&hook_pid)) && gone_soon(read_pid(&bg_pid)));
}

/// `v` as the raw JSON a reply keeps.
fn raw(v: serde_json::Value) -> crate::RawJson {
    crate::RawJson::from_serialize(&v).unwrap()
}
