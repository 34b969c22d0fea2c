//! Appends that the kernel stops half-way: the file must be as it was, so the agent's next
//! line is not joined to a torn one of ours.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output};

use contextree_testkit::Scratch;

/// A private HOME (no user config or hooks) holding a copy of E02 padded so its size ends
/// `room` bytes below a 1024-byte block: a file size limit there stops the append mid-line.
struct Padded {
    _scratch: Scratch,
    dir: PathBuf,
    file: PathBuf,
    blocks: u64,
}

impl Padded {
    fn new(tag: &str, room: usize) -> Padded {
        let scratch = Scratch::new(&format!("write-failures-{tag}"));
        let dir = scratch.path().to_owned();
        std::fs::create_dir_all(dir.join("xdg")).unwrap();
        let file = dir.join("s.jsonl");
        let mut bytes = std::fs::read(contextree_testkit::fixture("synthetic/E02.jsonl")).unwrap();
        let blocks = (bytes.len() + room).div_ceil(1024) as u64;
        // A line of spaces: blank, so both agents skip it.
        let pad = blocks as usize * 1024 - room - bytes.len();
        bytes.extend(std::iter::repeat_n(b' ', pad - 1));
        bytes.push(b'\n');
        std::fs::write(&file, &bytes).unwrap();
        Padded { _scratch: scratch, dir, file, blocks }
    }

    /// `contextree ARGS…` under `ulimit -f` (RLIMIT_FSIZE) with SIGXFSZ ignored, so a write
    /// past the limit returns what fitted, and the next one EFBIG.
    fn run_limited(&self, args: &[&str]) -> Output {
        Command::new("bash")
            .arg("-c")
            .arg(format!("trap '' XFSZ; ulimit -f {}; exec \"$0\" \"$@\"", self.blocks))
            .arg(env!("CARGO_BIN_EXE_contextree"))
            .args(args)
            .env("HOME", &self.dir)
            .env("XDG_CONFIG_HOME", self.dir.join("xdg"))
            .env_remove("PI_CODING_AGENT_DIR")
            .output()
            .unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_contextree"))
            .args(args)
            .env("HOME", &self.dir)
            .env("XDG_CONFIG_HOME", self.dir.join("xdg"))
            .output()
            .unwrap()
    }
}

#[test]
fn an_append_stopped_by_the_file_size_limit_leaves_the_file_as_it_was() {
    let p = Padded::new("efbig", 60);
    let path = p.file.to_str().unwrap();
    let before = std::fs::read(&p.file).unwrap();
    let out = p.run_limited(&["navigate", path, "--to", "u2", "--yes"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // The kernel took the 60 bytes that fitted, then refused the rest.
    assert!(err.contains(path) && err.contains("the append failed after 60 of") && err.contains("the file is as it was"), "{err}");
    assert_eq!(std::fs::read(&p.file).unwrap(), before, "byte for byte");

    // The agent's next line is read, not joined to a torn one.
    let agent =
        r#"{"type":"message","id":"zz","parentId":"a4","timestamp":"2026-01-01T00:00:09.000Z","message":{"role":"user","content":"more"}}"#;
    writeln!(std::fs::OpenOptions::new().append(true).open(&p.file).unwrap(), "{agent}").unwrap();
    for dialect in ["pi", "omp"] {
        let info: serde_json::Value = serde_json::from_slice(&p.run(&["info", path, "--json", "--dialect", dialect]).stdout).unwrap();
        assert_eq!((info["leafId"].as_str(), &info["diagnostics"]), (Some("zz"), &serde_json::json!([])), "{dialect}");
    }
    // Without the limit the same navigation goes through.
    let out = p.run(&["navigate", path, "--to", "u2", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}
