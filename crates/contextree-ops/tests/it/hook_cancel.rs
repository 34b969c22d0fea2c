//! A cancel while a `session_before_compact` hook runs: the flow ends at once as cancelled,
//! the hook and the process it started are killed (its whole process group), no later hook
//! starts and the file is untouched.
//!
//! The flow's environment ([`HostEnv`]) has XDG_CONFIG_HOME and HOME in a temporary folder, so
//! the user's real config, hooks and agent settings never take part.

use std::path::Path;
use std::time::{Duration, Instant};

use contextree_core::context::Leaf;
use contextree_core::prompts::PromptPack;
use contextree_core::Dialect;
use contextree_host::HostEnv;
use contextree_ops::compact::{self, CompactOptions};
use contextree_ops::summarizer::ProviderFlags;
use contextree_ops::{CancelToken, OpsError};
use contextree_testkit::Scratch;
use serde_json::json;

/// Waits up to `limit` for `check`.
fn eventually(limit: Duration, check: impl Fn() -> bool) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    check()
}

/// No process `pid`, or only its zombie (in a container pid 1 may never reap an orphan).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

fn pid_in(path: &Path) -> u32 {
    std::fs::read_to_string(path).unwrap().trim().parse().unwrap()
}

#[test]
fn a_cancel_kills_the_running_hook_and_its_children_and_writes_nothing() {
    let tmp = Scratch::new("hook-cancel");
    let dir = tmp.path().to_path_buf();
    std::fs::create_dir_all(dir.join("xdg/contextree")).unwrap();
    let (hook_pid, bg_pid, later) = (dir.join("hook.pid"), dir.join("bg.pid"), dir.join("later-ran"));
    let script = format!("echo $$ > '{}'; sleep 300 & echo $! > '{}'; sleep 300", hook_pid.display(), bg_pid.display());
    let config = json!({"hooks": {"session_before_compact": [
        {"command": ["sh", "-c", script], "timeoutSecs": 120},
        {"command": ["touch", later.display().to_string()]},
    ]}});
    std::fs::write(dir.join("xdg/contextree/config.json"), config.to_string()).unwrap();
    let vars = [("XDG_CONFIG_HOME", dir.join("xdg")), ("HOME", dir.clone())];
    let env = HostEnv::with_vars(vars.iter().map(|(k, v)| (k.to_string(), v.display().to_string())).collect(), dir.clone());
    let file = tmp.copy_fixture("synthetic/E02.jsonl");
    let before = std::fs::read(&file).unwrap();
    let loaded =
        contextree_host::load_session(&contextree_host::HostEnv::default(), &file, Some(contextree_core::RuleSet::Pi073.into())).unwrap();

    let cancel = CancelToken::new();
    let canceller = {
        let (cancel, bg_pid) = (cancel.clone(), bg_pid.clone());
        std::thread::spawn(move || {
            // Once the hook has started its child, the user presses Cancel.
            assert!(eventually(Duration::from_secs(10), || bg_pid.exists()), "the hook never started its child");
            std::thread::sleep(Duration::from_millis(100));
            cancel.cancel();
        })
    };
    let pack = |d: Dialect| Ok(PromptPack::own(d));
    let opts = CompactOptions {
        leaf: Leaf::Last,
        pack: &pack,
        instructions: None,
        keep_recent: Some(45),
        reserve: None,
        model_reasons: false,
        context: Vec::new(),
        summary: None,
        provider: ProviderFlags { offline: true, ..ProviderFlags::default() },
        env: &env,
    };
    let started = Instant::now();
    let res = compact::run(&loaded, &opts, &mut |_| {}, &cancel);
    let took = started.elapsed();
    canceller.join().unwrap();
    assert!(matches!(res, Err(OpsError::Cancelled)), "{res:?}");
    assert!(took < Duration::from_secs(10), "ended by the cancel, not the hook's 120 s limit: {took:?}");
    let (hook, bg) = (pid_in(&hook_pid), pid_in(&bg_pid));
    assert!(eventually(Duration::from_secs(2), || gone(hook)), "the hook {hook} is gone");
    assert!(eventually(Duration::from_secs(2), || gone(bg)), "its child {bg} is gone");
    assert!(!later.exists(), "no hook starts after the cancel");
    assert_eq!(std::fs::read(&file).unwrap(), before, "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}
