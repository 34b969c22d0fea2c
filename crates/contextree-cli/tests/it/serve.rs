//! `contextree serve`: its two documents are the CLI's own (`sessions --json`, `context
//! --json`) for the same files, and it refuses to listen openly without a token.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use contextree_testkit::Scratch;

const TOKEN: &str = "a-cli-test-token-0123456789";

fn contextree(home: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_contextree"));
    cmd.env("HOME", home).env_remove("PI_CODING_AGENT_DIR").env_remove("PI_CONFIG_DIR").env_remove("XDG_DATA_HOME");
    cmd.env_remove("XDG_CACHE_HOME").env_remove("XDG_CONFIG_HOME");
    cmd
}

/// The server (and its output, kept open: a closed pipe would end it), killed when dropped.
struct Served {
    child: Child,
    host: String,
    _stdout: BufReader<std::process::ChildStdout>,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The body of `GET path` with the token as a bearer (HTTP/1.1 by hand: one request, the
/// connection closed after it).
fn get(host: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(host).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    body.to_owned()
}

#[test]
fn the_served_documents_are_the_clis() {
    let t = Scratch::new("cli-serve");
    let home = t.join("home");
    let root = t.join("root");
    std::fs::create_dir_all(root.join("proj")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let file = root.join("proj/E10.jsonl");
    std::fs::copy(contextree_testkit::fixture("synthetic/E10.jsonl"), &file).unwrap();
    let file = file.canonicalize().unwrap();
    let root = root.canonicalize().unwrap();

    let mut child = contextree(&home)
        .args(["serve", "--bind", "127.0.0.1:0", "--token", TOKEN, "--root"])
        .arg(&root)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    out.read_line(&mut line).unwrap();
    let url = line.trim().strip_prefix("contextree serve: open http://").unwrap_or_else(|| panic!("{line}"));
    let (host, query) = url.split_once('/').unwrap();
    assert_eq!(query, format!("?token={TOKEN}"));
    let served = Served { child, host: host.to_owned(), _stdout: out };

    let cli = contextree(&home).args(["sessions", "--json", "--root"]).arg(&root).output().unwrap();
    assert!(cli.status.success());
    assert_eq!(get(&served.host, "/api/sessions"), String::from_utf8(cli.stdout).unwrap().trim_end());

    let cli = contextree(&home).arg("context").arg(&file).args(["--leaf", "a4", "--json"]).output().unwrap();
    assert!(cli.status.success());
    let path = format!("/api/context?file={}&leaf=a4", file.display());
    assert_eq!(get(&served.host, &path), String::from_utf8(cli.stdout).unwrap().trim_end());
}

#[test]
fn an_open_bind_needs_a_token() {
    let t = Scratch::new("cli-serve-open");
    let out = contextree(t.path()).args(["serve", "--bind", "0.0.0.0:0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("without --token"), "{err}");
}
