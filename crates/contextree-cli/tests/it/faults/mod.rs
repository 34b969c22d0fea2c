//! Fault injection: the real `contextree` binary, on copies of fixtures, for every write path
//! (compact --offline, navigate with and without --summarize --offline, compact --edit,
//! navigate --undo-compaction, prune) × every fault:
//!
//! - `kill`: SIGKILL after a random delay within the command's own run time;
//! - `efbig`: RLIMIT_FSIZE (`ulimit -f`) so the write stops mid-way (SIGXFSZ ignored);
//! - `enospc`: an LD_PRELOAD shim (`shim.c`, compiled here by gcc) lets the session's file (and
//!   the rewrite's temporary file) grow by a random number of bytes, then fails with ENOSPC;
//! - `fsync`: the shim fails fsync/fdatasync with EIO (the file, its folder, or everything);
//! - `agent-held`: another process (a thread of this test) holds an O_APPEND descriptor and
//!   appends lines in a loop while contextree runs, as oh-my-pi does;
//! - `agent-reopen`: the same with open-append-close for every line, as pi does;
//! - `replace`: the file is renamed over (an agent's own rewrite) at a random moment;
//! - `delete`: the file is unlinked at a random moment;
//! - `symlink`, `read-only`, `owner`: the session is a symlink, mode 0444, or owned by uid
//!   1234 (the tests run as root in CI).
//!
//! `replace`, `delete` and the agents run some trials on a slow disk (the shim sleeps before
//! each write and fsync of the session), which widens the windows they can land in.
//!
//! After each trial: the file is the old bytes or the old bytes plus whole lines (prune: or
//! the exact pruned result, `prunedAt` aside), every line the agent wrote is in the session
//! file once, a backup is the original byte for byte (plus the agent's whole lines), no
//! temporary file is left (after a kill: only the killed process's, which the next prune
//! removes), and the exit code and message are honest (a refusal names its reason; success
//! only when the session file holds what was written).
//!
//! `CONTEXTREE_FAULT_TRIALS` (default 10) trials per path × fault; `CONTEXTREE_FAULT_SEED`
//! the base seed (each trial's seed is printed with any failure); `CONTEXTREE_FAULT_ONLY` a
//! comma-separated list of the faults to run (default all); `CONTEXTREE_FAULT_BIN` another
//! `contextree` binary (a release build for long runs). A summary per fault is printed
//! (`--nocapture`) and written to `$CARGO_TARGET_TMPDIR/faults-<path>.txt`.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Paths and faults

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Compact,
    NavigateSummary,
    Navigate,
    Edit,
    Undo,
    Prune,
}

impl Flow {
    fn name(self) -> &'static str {
        match self {
            Flow::Compact => "compact",
            Flow::NavigateSummary => "navigate-summary",
            Flow::Navigate => "navigate",
            Flow::Edit => "edit",
            Flow::Undo => "undo",
            Flow::Prune => "prune",
        }
    }

    fn fixture(self) -> &'static str {
        match self {
            Flow::Compact | Flow::Edit | Flow::Undo => "E06",
            Flow::NavigateSummary | Flow::Navigate => "E10",
            Flow::Prune => "E13b",
        }
    }

    fn rule_sets(self) -> &'static [&'static str] {
        match self {
            // omp 18's rules (the cache-warm guard) prune nothing of this fixture, so its runs
            // would write nothing; the rewrite under test is the same code for every rule set.
            Flow::Prune => &["omp@13"],
            _ => &["pi@0.73", "pi@1.6", "omp@13", "omp@18"],
        }
    }

    fn args(self, file: &str, rules: &str) -> Vec<String> {
        let tail: &[&str] = match self {
            // E06 is small: keep 30 tokens, so every rule set has something to compact.
            Flow::Compact => &["compact", "--offline", "--keep-recent", "30"],
            Flow::NavigateSummary => &["navigate", "--to", "u3", "--summarize", "--offline"],
            Flow::Navigate => &["navigate", "--to", "u2"],
            Flow::Edit => &["compact", "--edit", "c1", "--summary", "Edited by the fault test."],
            Flow::Undo => &["navigate", "--undo-compaction", "c1"],
            Flow::Prune => &["prune"],
        };
        let mut v = vec![tail[0].to_owned(), file.to_owned(), "--dialect".into(), rules.into(), "--yes".into(), "--json".into()];
        v.extend(tail[1..].iter().map(|s| s.to_string()));
        v
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Fault {
    Kill,
    Efbig,
    Enospc,
    Fsync,
    AgentHeld,
    AgentReopen,
    Replace,
    Delete,
    Symlink,
    ReadOnly,
    Owner,
}

const FAULTS: [Fault; 11] = [
    Fault::Kill,
    Fault::Efbig,
    Fault::Enospc,
    Fault::Fsync,
    Fault::AgentHeld,
    Fault::AgentReopen,
    Fault::Replace,
    Fault::Delete,
    Fault::Symlink,
    Fault::ReadOnly,
    Fault::Owner,
];

impl Fault {
    fn name(self) -> &'static str {
        match self {
            Fault::Kill => "kill",
            Fault::Efbig => "efbig",
            Fault::Enospc => "enospc",
            Fault::Fsync => "fsync",
            Fault::AgentHeld => "agent-held",
            Fault::AgentReopen => "agent-reopen",
            Fault::Replace => "replace",
            Fault::Delete => "delete",
            Fault::Symlink => "symlink",
            Fault::ReadOnly => "read-only",
            Fault::Owner => "owner",
        }
    }

    /// What a failing run's message must name (any of these).
    fn reasons(self) -> &'static [&'static str] {
        match self {
            Fault::Kill | Fault::Symlink | Fault::Owner => &[],
            Fault::Efbig => &["File too large"],
            Fault::Enospc => &["No space left on device"],
            Fault::Fsync => &["Input/output error"],
            Fault::AgentHeld | Fault::AgentReopen => &["changed since it was loaded", "open for writing"],
            Fault::Replace | Fault::Delete => {
                &["changed since it was loaded", "No such file", "no such file", "now names another file", "was replaced or removed"]
            }
            Fault::ReadOnly => &["read-only"],
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Randomness: splitmix64, seeded per trial.

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..=max`.
    fn upto(&mut self, max: u64) -> u64 {
        self.next() % (max + 1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }
}

fn trial_seed(base: u64, flow: Flow, fault: Fault, trial: u64) -> u64 {
    let mut r = Rng(base ^ (flow as u64) << 48 ^ (fault as u64) << 40 ^ trial);
    r.next()
}

// ---------------------------------------------------------------------------------------------
// Set-up: the binary, the shim, a trial's folder.

fn binary() -> PathBuf {
    std::env::var_os("CONTEXTREE_FAULT_BIN")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_contextree")), PathBuf::from)
}

use contextree_testkit::repo;

/// The shim, compiled once per test process.
fn shim() -> &'static Path {
    static SHIM: OnceLock<PathBuf> = OnceLock::new();
    SHIM.get_or_init(|| {
        // Built under a name of this process, then renamed into place (atomic: another test
        // process may be using the previous build).
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let building = dir.join(format!("fault-shim-{}.so", std::process::id()));
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/faults/shim.c");
        let status = Command::new("gcc")
            .args(["-shared", "-fPIC", "-O1", "-Wall", "-o"])
            .arg(&building)
            .arg(&src)
            .arg("-ldl")
            .status()
            .expect("gcc (the fault tests compile their LD_PRELOAD shim)");
        assert!(status.success(), "compiling {} failed", src.display());
        let out = dir.join("fault-shim.so");
        std::fs::rename(&building, &out).unwrap();
        out
    })
}

struct Trial {
    dir: PathBuf,
    /// The path given to contextree.
    file: PathBuf,
    /// The file it names (differs for a symlink).
    real: PathBuf,
}

impl Trial {
    fn new(flow: Flow, tag: &str) -> Trial {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "faults-{}-{}-{tag}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("home/xdg")).unwrap();
        std::fs::create_dir_all(dir.join("work")).unwrap();
        let file = dir.join("s.jsonl");
        std::fs::copy(repo().join("tests/fixtures/synthetic").join(format!("{}.jsonl", flow.fixture())), &file).unwrap();
        Trial { real: file.clone(), file, dir }
    }

    fn command(&self, flow: Flow, rules: &str, efbig_blocks: Option<u64>) -> Command {
        let args = flow.args(self.file.to_str().unwrap(), rules);
        let mut c = match efbig_blocks {
            Some(blocks) => {
                let mut c = Command::new("bash");
                c.arg("-c").arg(format!("trap '' XFSZ; ulimit -f {blocks}; exec \"$0\" \"$@\"")).arg(binary());
                c
            }
            None => Command::new(binary()),
        };
        c.args(args)
            .env("HOME", self.dir.join("home"))
            .env("XDG_CONFIG_HOME", self.dir.join("home/xdg"))
            // No installed agent (and no `npm root -g`, which costs 0.2 s a run).
            .env("CONTEXTREE_PI_PACKAGE", "/nonexistent/contextree-fault-test")
            .env("CONTEXTREE_OMP_PACKAGE", "/nonexistent/contextree-fault-test")
            .env_remove("PI_CODING_AGENT_DIR")
            .env_remove("LD_PRELOAD")
            .current_dir(self.dir.join("work"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    /// Names in the session's folder (and the symlink's).
    fn names(&self) -> Vec<(PathBuf, String)> {
        let mut dirs = vec![self.dir.clone()];
        if self.real.parent() != Some(&self.dir) {
            dirs.push(self.real.parent().unwrap().to_owned());
        }
        let mut out = Vec::new();
        for d in dirs {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                out.push((e.path(), e.file_name().to_string_lossy().into_owned()));
            }
        }
        out
    }

    fn temporaries(&self) -> Vec<PathBuf> {
        self.names().into_iter().filter(|(_, n)| n.starts_with(".s.jsonl.contextree-tmp-")).map(|(p, _)| p).collect()
    }

    fn backups(&self) -> Vec<PathBuf> {
        self.names().into_iter().filter(|(_, n)| n.starts_with("s.jsonl.bak-")).map(|(p, _)| p).collect()
    }
}

impl Drop for Trial {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

struct Ran {
    code: Option<i32>,
    signal: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    pid: u32,
    took: Duration,
}

fn run(mut cmd: Command, kill_after: Option<Duration>) -> Ran {
    let start = Instant::now();
    let mut child = cmd.spawn().unwrap();
    let pid = child.id();
    if let Some(d) = kill_after {
        spin_sleep(d);
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    Ran {
        code: out.status.code(),
        signal: out.status.signal(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        pid,
        took: start.elapsed(),
    }
}

/// Sleeps `d`; the last stretch spinning, so sub-millisecond delays are kept.
fn spin_sleep(d: Duration) {
    let end = Instant::now() + d;
    if d > Duration::from_micros(300) {
        std::thread::sleep(d - Duration::from_micros(200));
    }
    while Instant::now() < end {
        std::hint::spin_loop();
    }
}

// ---------------------------------------------------------------------------------------------
// The agents: another process's appends (a thread of this test process, not of contextree).

struct Agent {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Vec<String>>,
}

fn agent_line(tag: &str, i: usize, parent: &str) -> String {
    format!(
        r#"{{"type":"custom","customType":"fault-agent","data":{{"n":{i}}},"id":"{tag}-{i}","parentId":"{parent}","timestamp":"2026-01-01T00:10:00.000Z"}}"#
    )
}

fn start_agent(path: PathBuf, held: bool, tag: String, leaf: String, start: Duration, interval: Duration) -> Agent {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let handle = std::thread::spawn(move || {
        let mut written = Vec::new();
        spin_sleep(start);
        let mut kept: Option<File> = None;
        if held {
            match OpenOptions::new().append(true).open(&path) {
                Ok(f) => kept = Some(f),
                Err(_) => return written,
            }
        }
        let mut parent = leaf;
        for i in 0..400 {
            if flag.load(Ordering::Relaxed) && i > 0 {
                break;
            }
            let line = agent_line(&tag, i, &parent);
            let bytes = format!("{line}\n");
            let ok = match &kept {
                // One write of a whole line through the kept descriptor.
                Some(f) => (&*f).write(bytes.as_bytes()).is_ok_and(|n| n == bytes.len()),
                None => {
                    OpenOptions::new().append(true).open(&path).and_then(|mut f| f.write(bytes.as_bytes())).is_ok_and(|n| n == bytes.len())
                }
            };
            if ok {
                parent = format!("{tag}-{i}");
                written.push(line);
            }
            spin_sleep(interval);
        }
        written
    });
    Agent { stop, handle }
}

impl Agent {
    fn finish(self) -> Vec<String> {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.join().unwrap()
    }
}

/// A replacement or deletion at a random moment: the old inode is kept open, and its length
/// right after the path stopped naming it is noted (bytes past it were written later).
struct Swap {
    handle: JoinHandle<Option<(File, u64)>>,
}

fn start_swap(path: PathBuf, replacement: Option<Vec<u8>>, at: Duration) -> Swap {
    let handle = std::thread::spawn(move || {
        spin_sleep(at);
        let old = File::open(&path).ok()?;
        match replacement {
            Some(bytes) => {
                let tmp = path.with_file_name("replacement.tmp");
                std::fs::write(&tmp, bytes).unwrap();
                std::fs::rename(&tmp, &path).unwrap();
            }
            None => std::fs::remove_file(&path).ok()?,
        }
        let len = old.metadata().unwrap().len();
        Some((old, len))
    });
    Swap { handle }
}

// ---------------------------------------------------------------------------------------------
// Checks

/// `"prunedAt":<digits>` → `"prunedAt":0`: the pruned result up to the batch's time.
fn normalize(bytes: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    let mut rest = &*text;
    while let Some(at) = rest.find("\"prunedAt\":") {
        let (head, tail) = rest.split_at(at + "\"prunedAt\":".len());
        out.push_str(head);
        out.push('0');
        rest = tail.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out.into_bytes()
}

/// The lines after `base` in `now`, if `now` starts with it and ends with a line break.
fn lines_after<'a>(now: &'a [u8], base: &[u8]) -> Option<Vec<&'a [u8]>> {
    let rest = now.strip_prefix(base)?;
    if rest.is_empty() {
        return Some(Vec::new());
    }
    let rest = rest.strip_suffix(b"\n")?;
    Some(rest.split(|&b| b == b'\n').collect())
}

/// Where a trial went.
#[derive(Default)]
struct Tally {
    outcomes: BTreeMap<String, u64>,
    failures: Vec<String>,
    trials: u64,
    took: Duration,
}

/// What an append flow's trial must show: everything after `base` is whole lines — agent
/// lines (each once, all of them), at most `ours_max` lines of our own when it succeeded (or
/// was killed), blank lines only after a "blanked" repair.
struct Expect<'a> {
    fault: Fault,
    killed: bool,
    success: bool,
    stderr: &'a str,
    entry: Option<&'a Value>,
}

fn check_appended(e: &Expect, now: &[u8], bases: &[&[u8]], agent: &[String]) -> Result<&'static str, String> {
    let Some(lines) = bases.iter().find_map(|b| lines_after(now, b)) else {
        return Err(format!("the file is not the old bytes plus whole lines ({} bytes now)", now.len()));
    };
    let mut ours = Vec::new();
    let mut seen_agent = std::collections::HashMap::new();
    for line in &lines {
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            if !e.stderr.contains("blanked") {
                return Err("a blank line was left without a repair saying so".into());
            }
            continue;
        }
        let text = std::str::from_utf8(line).map_err(|_| "a line is not UTF-8".to_owned())?;
        if agent.iter().any(|a| a == text) {
            *seen_agent.entry(text).or_insert(0) += 1;
            continue;
        }
        let v: Value = serde_json::from_str(text).map_err(|err| format!("a line does not parse ({err}): {}", clip(text)))?;
        ours.push(v);
    }
    if let Some(missing) = agent.iter().find(|a| seen_agent.get(a.as_str()).copied().unwrap_or(0) != 1) {
        return Err(format!("the agent's line is not in the file once: {}", clip(missing)));
    }
    if e.success {
        let entry = e.entry.ok_or("success without an entry in the output")?;
        if !ours.iter().any(|v| v == entry) {
            return Err("success, but the printed entry is not in the session file".into());
        }
        if ours.len() > 2 {
            return Err(format!("{} lines of ours", ours.len()));
        }
        Ok("written")
    } else if e.killed {
        if ours.len() > 2 {
            return Err(format!("{} lines of ours after a kill", ours.len()));
        }
        Ok(if ours.is_empty() { "killed-before" } else { "killed-after" })
    } else {
        if !ours.is_empty() {
            return Err(format!("the command failed, but {} line(s) of ours are in the file", ours.len()));
        }
        let _ = e.fault;
        Ok("refused")
    }
}

fn clip(s: &str) -> &str {
    &s[..s.char_indices().nth(160).map_or(s.len(), |(i, _)| i)]
}

// ---------------------------------------------------------------------------------------------
// One trial

struct Baseline {
    /// How long a clean run takes (the kill and swap delays are drawn up to a bit past it).
    took: Duration,
    /// Prune: the pruned file of each rule set, normalized (omp 18 prunes by other rules).
    pruned: Vec<(&'static str, Vec<u8>)>,
}

fn baseline(flow: Flow) -> Baseline {
    let mut times = Vec::new();
    let mut pruned = Vec::new();
    for rules in flow.rule_sets() {
        let t = Trial::new(flow, "baseline");
        let r = run(t.command(flow, rules, None), None);
        assert_eq!(r.code, Some(0), "{} {rules}: a clean run fails: {}", flow.name(), r.stderr);
        times.push(r.took);
        if flow == Flow::Prune {
            pruned.push((*rules, normalize(&std::fs::read(&t.file).unwrap())));
        }
    }
    times.sort();
    Baseline { took: times[times.len() / 2], pruned }
}

fn trial(flow: Flow, fault: Fault, seed: u64, base: &Baseline, tally: &mut Tally) {
    let mut rng = Rng(seed);
    let rules = *rng.pick(flow.rule_sets());
    let t = Trial::new(flow, &format!("{}-{}", flow.name(), fault.name()));
    let at = format!("{} × {} seed {seed:#018x} ({rules})", flow.name(), fault.name());
    let window = base.took.as_micros() as u64 * 12 / 10 + 500;

    // The file as it starts.
    let mut efbig = None;
    if fault == Fault::Efbig {
        if flow == Flow::Prune {
            let len = std::fs::metadata(&t.file).unwrap().len();
            efbig = Some(rng.upto(len.div_ceil(1024) + 1));
        } else {
            // Padded with a blank line so that the limit falls `room` bytes past the end.
            let room = rng.upto(900) as usize;
            let mut bytes = std::fs::read(&t.file).unwrap();
            let blocks = (bytes.len() + room + 2).div_ceil(1024);
            let pad = blocks * 1024 - room - bytes.len();
            bytes.extend(std::iter::repeat_n(b' ', pad - 1));
            bytes.push(b'\n');
            std::fs::write(&t.file, &bytes).unwrap();
            efbig = Some(blocks as u64);
        }
    }
    if fault == Fault::Symlink {
        let real_dir = t.dir.join("real");
        std::fs::create_dir_all(&real_dir).unwrap();
        std::fs::rename(&t.file, real_dir.join("s.jsonl")).unwrap();
        std::os::unix::fs::symlink("real/s.jsonl", &t.file).unwrap();
    }
    let mut t = t;
    t.real = std::fs::canonicalize(&t.file).unwrap();
    let t = t;
    if fault == Fault::ReadOnly {
        std::fs::set_permissions(&t.real, std::fs::Permissions::from_mode(0o444)).unwrap();
    }
    if fault == Fault::Owner {
        std::os::unix::fs::chown(&t.real, Some(1234), Some(1234)).unwrap();
    }
    let old = std::fs::read(&t.real).unwrap();
    let old_meta = std::fs::metadata(&t.real).unwrap();
    let leaf = {
        let text = String::from_utf8_lossy(&old);
        let last = text.lines().rev().find(|l| !l.trim().is_empty()).unwrap();
        serde_json::from_str::<Value>(last).unwrap()["id"].as_str().unwrap().to_owned()
    };

    let mut cmd = t.command(flow, rules, efbig);
    let slow = matches!(fault, Fault::Replace | Fault::Delete | Fault::AgentHeld | Fault::AgentReopen) && rng.chance(50);
    if slow {
        cmd.env("LD_PRELOAD", shim()).env("FAULT_MATCH", "s.jsonl").env("FAULT_DELAY_US", (rng.upto(3000) + 200).to_string());
    }
    let mut fsync_mode = "";
    match fault {
        Fault::Enospc => {
            let need = if flow == Flow::Prune { old.len() as u64 } else { 1000 };
            cmd.env("LD_PRELOAD", shim()).env("FAULT_MATCH", "s.jsonl").env("FAULT_WRITE_BUDGET", rng.upto(need * 11 / 10).to_string());
        }
        Fault::Fsync => {
            fsync_mode = *rng.pick(&["file", "dir", "all"]);
            cmd.env("LD_PRELOAD", shim()).env("FAULT_MATCH", "s.jsonl").env("FAULT_FSYNC", fsync_mode);
        }
        _ => {}
    }
    let tag = format!("ag{:08x}", rng.next() as u32);
    let agent = match fault {
        Fault::AgentHeld | Fault::AgentReopen => Some(start_agent(
            t.real.clone(),
            fault == Fault::AgentHeld,
            tag.clone(),
            leaf.clone(),
            Duration::from_micros(rng.upto(window)),
            Duration::from_micros(rng.upto(2000)),
        )),
        _ => None,
    };
    let replacement = format!("{}\n", agent_line(&tag, 999, &leaf));
    let replaced: Vec<u8> = [&old[..], replacement.as_bytes()].concat();
    let swap = match fault {
        Fault::Replace => Some(start_swap(t.real.clone(), Some(replaced.clone()), Duration::from_micros(rng.upto(window)))),
        Fault::Delete => Some(start_swap(t.real.clone(), None, Duration::from_micros(rng.upto(window)))),
        _ => None,
    };
    let kill = (fault == Fault::Kill).then(|| Duration::from_micros(rng.upto(window)));
    let r = run(cmd, kill);
    let agent_lines = agent.map(Agent::finish).unwrap_or_default();
    let swapped = swap.and_then(|s| s.handle.join().unwrap());
    tally.trials += 1;
    tally.took += r.took;

    let mut fail = |why: String| {
        tally.failures.push(format!("{at}: {why}\n    exit {:?} signal {:?}\n    stderr: {}", r.code, r.signal, r.stderr.trim_end()))
    };
    let killed = r.signal == Some(9) && kill.is_some();
    if !killed && !matches!(r.code, Some(0..=2)) {
        return fail("an exit that is neither success nor an error (a panic or a signal)".into());
    }
    let success = r.code == Some(0);
    let doc: Option<Value> = if success {
        match serde_json::from_slice(&r.stdout) {
            Ok(v) => Some(v),
            Err(e) => return fail(format!("success without one JSON document on stdout ({e})")),
        }
    } else {
        None
    };
    // An honest failure: a message that names the fault's reason.
    if !success && !killed {
        let reasons = fault.reasons();
        if !r.stderr.starts_with("contextree: ") || !reasons.iter().any(|why| r.stderr.contains(why)) {
            return fail(format!("the failure does not say why (expected one of {reasons:?})"));
        }
        if r.stderr.contains("append failed after") && !(r.stderr.contains("the file is as it was") || r.stderr.contains("blanked")) {
            return fail("a half-way append whose message does not say the file is whole".into());
        }
    }
    // Static faults: the write goes through and the file keeps its identity.
    match fault {
        Fault::Symlink | Fault::Owner if !success => return fail("refused".into()),
        Fault::ReadOnly if flow == Flow::Prune && success => return fail("a read-only file was rewritten".into()),
        _ => {}
    }
    if fault == Fault::Symlink && !std::fs::symlink_metadata(&t.file).unwrap().file_type().is_symlink() {
        return fail("the symlink was replaced by a file".into());
    }
    if matches!(fault, Fault::Owner | Fault::ReadOnly | Fault::Symlink) {
        let m = std::fs::metadata(&t.real).unwrap();
        if (m.uid(), m.gid(), m.mode()) != (old_meta.uid(), old_meta.gid(), old_meta.mode()) {
            return fail(format!(
                "owner or mode changed: {}:{} {:o} → {}:{} {:o}",
                old_meta.uid(),
                old_meta.gid(),
                old_meta.mode(),
                m.uid(),
                m.gid(),
                m.mode()
            ));
        }
    }
    // Honest warnings after a success.
    if success && fault == Fault::Fsync {
        let expect = match (flow, fsync_mode) {
            (Flow::Prune, "dir") => Some("syncing its folder failed"),
            (Flow::Prune, _) => None, // the temporary file's fsync fails first: an error
            (_, "dir") => None,       // an append does not sync the folder
            _ => Some("syncing them to disk failed"),
        };
        let said = format!("{}{}", r.stderr, String::from_utf8_lossy(&r.stdout));
        match expect {
            Some(w) if !said.contains(w) => return fail(format!("success without the warning {w:?}")),
            None if flow == Flow::Prune && fsync_mode != "dir" => {
                return fail("the rewrite succeeded although the temporary file's fsync failed".into())
            }
            _ => {}
        }
    }

    // The session file.
    let now = std::fs::read(&t.real).ok();
    let outcome = if flow == Flow::Prune {
        match check_prune(
            &t,
            rules,
            &old,
            &replaced,
            base,
            &r,
            success,
            killed,
            &agent_lines,
            swapped.is_some() && fault == Fault::Replace,
            swapped.is_some() && fault == Fault::Delete,
            now.as_deref(),
        ) {
            Ok(o) => o,
            Err(why) => return fail(why),
        }
    } else {
        let entry = doc.as_ref().map(|d| &d["entry"]);
        let e = Expect { fault, killed, success, stderr: &r.stderr, entry };
        let result = match (fault, &swapped, &now) {
            (Fault::Delete | Fault::Replace, Some((old_inode, len_then)), _) => {
                // The inode the path named before: whole lines on the old bytes.
                let mut bytes = Vec::new();
                (&*old_inode).read_to_end(&mut bytes).unwrap();
                let in_old = check_appended(&Expect { success: false, killed: true, ..e }, &bytes, &[&old], &[]);
                let in_path = now.as_deref().map(|n| check_appended(&Expect { success: false, killed: true, ..e }, n, &[&replaced], &[]));
                match (in_old, in_path) {
                    (Err(why), _) => Err(format!("the old file: {why}")),
                    (_, Some(Err(why))) => Err(format!("the replacement: {why}")),
                    _ if success => {
                        // Written where the path led when the write happened?
                        let line = format!("{}\n", serde_json::to_string(entry.unwrap()).unwrap());
                        let in_now = now.as_deref().is_some_and(|n| contains(n, line.as_bytes()));
                        match find(&bytes, line.as_bytes()) {
                            _ if in_now => Ok("written"),
                            Some(at) if (at as u64) < *len_then => Ok("written-then-swapped"),
                            Some(_) => Err(
                                "success, but the line went to a file the path no longer named (written after it was replaced or deleted)"
                                    .into(),
                            ),
                            None => Err("success, but the line is nowhere".into()),
                        }
                    }
                    _ => Ok(if killed { "killed" } else { "refused" }),
                }
            }
            (_, _, Some(now)) => check_appended(&e, now, &[&old, &replaced], &agent_lines),
            (_, _, None) => Err("the session file is gone".into()),
        };
        match result {
            Ok(o) => o,
            Err(why) => return fail(why),
        }
    };
    // No temporary file left, but a killed rewrite's (which the next prune removes).
    let temps = t.temporaries();
    if !temps.is_empty() {
        let pid = format!("-tmp-{}-", r.pid);
        if !killed || temps.iter().any(|p| !p.to_string_lossy().contains(&pid)) {
            return fail(format!("temporary files left: {temps:?}"));
        }
        let clean = run(t.command(flow, rules, None), None);
        if clean.code != Some(0) || !t.temporaries().is_empty() || !clean.stderr.contains("removed the temporary file") {
            return fail(format!("the next prune did not remove the killed one's temporary file: {}", clean.stderr));
        }
        *tally.outcomes.entry("killed-left-temp-removed-by-next".into()).or_default() += 1;
    }
    if flow != Flow::Prune && !t.backups().is_empty() {
        return fail("an append made a backup".into());
    }
    *tally.outcomes.entry(outcome.to_owned()).or_default() += 1;
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    find(hay, needle).is_some()
}

#[allow(clippy::too_many_arguments)]
fn check_prune(
    t: &Trial,
    rules: &str,
    old: &[u8],
    replaced: &[u8],
    base: &Baseline,
    r: &Ran,
    success: bool,
    killed: bool,
    agent: &[String],
    replaced_happened: bool,
    deleted: bool,
    now: Option<&[u8]>,
) -> Result<&'static str, String> {
    let late = r.stderr.contains("still holds the old file");
    let backups = t.backups();
    // Every backup: the original (or the replacement it was made from), plus agent lines.
    for b in &backups {
        let bytes = std::fs::read(b).unwrap();
        let ok = [old, replaced]
            .iter()
            .any(|base| lines_after(&bytes, base).is_some_and(|ls| ls.iter().all(|l| agent.iter().any(|a| a.as_bytes() == *l))));
        if !ok {
            return Err(format!("the backup {} is not the original", b.display()));
        }
    }
    if success && backups.len() != 1 {
        return Err(format!("{} backups after a success", backups.len()));
    }
    if !success && !killed && !backups.is_empty() {
        return Err("a failed prune left a backup".into());
    }
    let Some(now) = now else {
        return if r.stderr.contains("No such file") || killed || !success { Ok("deleted") } else { Ok("deleted-after") };
    };
    if deleted {
        // The path was unlinked during the run and names a file again: the rewrite renamed its
        // result to where the user had just deleted the session.
        return Err("the session was deleted during the rewrite, and the rewrite put it back".into());
    }
    let pruned_old: Vec<u8> = base.pruned.iter().find(|(r, _)| *r == rules).map(|(_, p)| p.clone()).unwrap_or_default();
    let normalized = normalize(now);
    let replacement_line = &replaced[old.len()..];
    // The file: old or pruned, then agent lines (and the replacement's line).
    let mut which = None;
    for (name, b) in [("old", old), ("pruned", &pruned_old[..])] {
        let hay: &[u8] = if name == "pruned" { &normalized } else { now };
        if let Some(lines) = lines_after(hay, b) {
            which = Some((name, lines));
            break;
        }
    }
    let Some((which, lines)) = which else {
        return Err(format!("the file is neither the old bytes nor the pruned result plus whole lines ({} bytes)", now.len()));
    };
    let mut counts = std::collections::HashMap::new();
    for l in &lines {
        if agent.iter().any(|a| a.as_bytes() == *l) || format!("{}\n", String::from_utf8_lossy(l)).as_bytes() == replacement_line {
            *counts.entry(l.to_vec()).or_insert(0) += 1;
        } else {
            return Err(format!("a line that is neither the agent's nor the original's: {}", clip(&String::from_utf8_lossy(l))));
        }
    }
    if counts.values().any(|&n| n > 1) {
        return Err("a line appears twice".into());
    }
    for a in agent {
        if !counts.contains_key(a.as_bytes()) {
            let in_backup = backups.iter().any(|b| contains(&std::fs::read(b).unwrap(), a.as_bytes()));
            if !(late && in_backup) {
                return Err(format!(
                    "the agent's line is lost{}: {}",
                    if in_backup { " (only in the backup, without a warning)" } else { "" },
                    clip(a)
                ));
            }
        }
    }
    if replaced_happened && !contains(now, replacement_line) {
        return Err("the replacement's line is lost (the rewrite renamed over a file it had not read)".into());
    }
    match (which, success, killed) {
        ("pruned", true, _) => Ok(if late { "written-late-writer-warned" } else { "written" }),
        ("pruned", false, true) => Ok("killed-after"),
        ("old", false, true) => Ok("killed-before"),
        ("old", false, false) => Ok("refused"),
        // Pruned, then the replacement renamed over the result (its writer's doing).
        ("old", true, false) if replaced_happened && backups.len() == 1 && contains(now, replacement_line) => Ok("written-then-replaced"),
        ("old", true, _) if r.stderr.contains("nothing to prune") || String::from_utf8_lossy(&r.stdout).contains("\"prunedCount\":0") => {
            Ok("nothing-to-prune")
        }
        (w, s, k) => Err(format!("the file is the {w} one after success={s} killed={k}")),
    }
}

// ---------------------------------------------------------------------------------------------
// The tests: one per path, every fault.

fn trials() -> u64 {
    std::env::var("CONTEXTREE_FAULT_TRIALS").ok().and_then(|v| v.parse().ok()).unwrap_or(10)
}

fn seed() -> u64 {
    std::env::var("CONTEXTREE_FAULT_SEED")
        .ok()
        .and_then(|v| u64::from_str_radix(v.trim_start_matches("0x"), 16).ok())
        .unwrap_or(0x00c0_ffee_fa17_5eed)
}

fn run_flow(flow: Flow) {
    let base = baseline(flow);
    let n = trials();
    let start = Instant::now();
    let mut report = format!("{}: {n} trials per fault, base seed {:#x}, clean run {:?}\n", flow.name(), seed(), base.took);
    let mut failures = Vec::new();
    let mut total = 0;
    // `CONTEXTREE_FAULT_ONLY=kill,replace`: long runs of a few faults.
    let only = std::env::var("CONTEXTREE_FAULT_ONLY").ok();
    for fault in FAULTS {
        if only.as_deref().is_some_and(|names| !names.split(',').any(|n| n.trim() == fault.name())) {
            continue;
        }
        let mut tally = Tally::default();
        for i in 0..n {
            trial(flow, fault, trial_seed(seed(), flow, fault, i), &base, &mut tally);
        }
        total += tally.trials;
        let outcomes: Vec<String> = tally.outcomes.iter().map(|(k, v)| format!("{k} {v}")).collect();
        report.push_str(&format!(
            "  {:<13} {:>5} trials, {:>3} failed, {:>7.1} s in contextree: {}\n",
            fault.name(),
            tally.trials,
            tally.failures.len(),
            tally.took.as_secs_f64(),
            outcomes.join(", ")
        ));
        failures.extend(tally.failures);
    }
    report.push_str(&format!("  {total} trials in {:.1} s, {} failed\n", start.elapsed().as_secs_f64(), failures.len()));
    println!("{report}");
    let _ = std::fs::write(Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("faults-{}.txt", flow.name())), &report);
    let shown: Vec<&String> = failures.iter().take(20).collect();
    assert!(
        failures.is_empty(),
        "{report}\n{} failures, the first ones:\n{}",
        failures.len(),
        shown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn compact_offline() {
    run_flow(Flow::Compact);
}

#[test]
fn navigate_with_summary() {
    run_flow(Flow::NavigateSummary);
}

#[test]
fn navigate_without_summary() {
    run_flow(Flow::Navigate);
}

#[test]
fn edit_summary() {
    run_flow(Flow::Edit);
}

#[test]
fn undo_compaction() {
    run_flow(Flow::Undo);
}

#[test]
fn prune() {
    run_flow(Flow::Prune);
}
