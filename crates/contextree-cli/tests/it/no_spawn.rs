//! `contextree context FILE --json` starts no other program: finding the installed agent (its
//! prompt pack and version) looks at the package managers' folders instead of asking npm
//! (`crates/contextree-host/src/agent.rs`). Checked under `strace -f`: the only `execve` is
//! contextree's own, and every `clone` makes a thread, not a process. Skipped, with a message,
//! where strace is missing or cannot trace (no ptrace in a container).

use std::process::Command;

use crate::support::repo;

/// Whether `strace -f` works here; the reason when it does not.
fn strace_works() -> Result<(), String> {
    let out = Command::new("strace").args(["-f", "-qq", "-e", "trace=execve", "-o", "/dev/null", "true"]).output();
    match out {
        Err(e) => Err(format!("strace cannot be started ({e}); scripts/install-deps.sh installs it")),
        Ok(o) if !o.status.success() => Err(format!("strace cannot trace here: {}", String::from_utf8_lossy(&o.stderr).trim())),
        Ok(_) => Ok(()),
    }
}

#[test]
fn context_json_starts_no_other_program() {
    if let Err(why) = strace_works() {
        eprintln!("SKIPPED context_json_starts_no_other_program: {why}");
        return;
    }
    let tmp = contextree_testkit::Scratch::new("no-spawn");
    let dir = tmp.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("strace.log");
    let bin = env!("CARGO_BIN_EXE_contextree");
    let file = repo().join("tests/fixtures/synthetic/E10.jsonl");
    let out = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=execve,clone3,clone,fork,vfork", "-o"])
        .arg(&log)
        .arg(bin)
        .arg("context")
        .arg(&file)
        .arg("--json")
        // the default lookup, not a package named by the environment
        .env_remove("CONTEXTREE_PI_PACKAGE")
        .env_remove("CONTEXTREE_OMP_PACKAGE")
        .output()
        .unwrap();
    assert!(out.status.success(), "contextree under strace: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("the JSON document");
    let trace = std::fs::read_to_string(&log).unwrap();
    let _ = std::fs::remove_dir_all(&dir);

    let execs: Vec<&str> = trace.lines().filter(|l| l.contains("execve(")).collect();
    assert_eq!(execs.len(), 1, "one execve, contextree's own:\n{trace}");
    assert!(execs[0].contains(bin), "the execve is contextree's: {}", execs[0]);
    for line in trace.lines() {
        let call = line.split_whitespace().nth(1).unwrap_or("");
        if call.starts_with("fork(") || call.starts_with("vfork(") {
            panic!("a new process: {line}");
        }
        if (call.starts_with("clone(") || call.starts_with("clone3(")) && !line.contains("CLONE_THREAD") {
            panic!("a clone that is not a thread (a new process): {line}");
        }
    }
}
