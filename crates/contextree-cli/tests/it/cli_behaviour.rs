//! The command line's contract beyond the numbers: exit codes, error messages
//! that name the file and the problem, one JSON document on stdout.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use contextree_testkit::{fixture, Scratch};
use serde_json::{json, Value};

fn contextree(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_contextree")).args(args).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_missing_file_exits_2_and_names_the_file() {
    let out = contextree(&["info", "/nonexistent/session.jsonl", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("/nonexistent/session.jsonl"), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
}

#[test]
fn an_unknown_leaf_exits_2_and_names_the_id() {
    let file = fixture("synthetic/E08.jsonl");
    let out = contextree(&["context", file.to_str().unwrap(), "--leaf", "no-such-id", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no-such-id"), "{}", stderr(&out));
}

#[test]
fn a_bad_flag_value_exits_2() {
    let file = fixture("synthetic/E08.jsonl");
    let out = contextree(&["info", file.to_str().unwrap(), "--dialect", "gpt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("gpt"), "{}", stderr(&out));
}

#[test]
fn malformed_lines_are_diagnostics_with_line_numbers_not_failures() {
    let file = fixture("edge/edge-concat-middle.jsonl");
    for dialect in ["pi@0.73", "omp@13"] {
        let out = contextree(&["info", file.to_str().unwrap(), "--json", "--dialect", dialect]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let diags = doc["diagnostics"].as_array().unwrap();
        assert!(diags.iter().any(|d| d["line"].as_u64().is_some_and(|l| l > 1) && d["severity"] == "error"), "{dialect}: {diags:?}");
    }
}

#[test]
fn an_invalid_header_is_reported_and_the_file_left_alone() {
    let file = fixture("edge/edge-invalid-header.jsonl");
    let before = std::fs::read(&file).unwrap();
    let out = contextree(&["info", file.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["valid"], false);
    assert!(doc["diagnostics"][0]["message"].as_str().unwrap().contains("not a session"));
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

#[test]
fn tokenizer_counts_come_only_when_asked() {
    let file = fixture("synthetic/E16.jsonl");
    let plain = contextree(&["context", file.to_str().unwrap(), "--json", "--prompts", "own"]);
    let doc: Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert!(doc.get("tokenizer").is_none());
    for name in ["o200k_base", "cl100k_base"] {
        let out = contextree(&["context", file.to_str().unwrap(), "--json", "--prompts", "own", "--tokenizer", name]);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["tokenizer"]["name"], name);
        // E16 holds 2,000+ characters of text and an image (a flat 1,200).
        let n = doc["tokenizer"]["llmTokens"].as_u64().unwrap();
        assert!(n > 1200 && n < doc["llmTokens"].as_u64().unwrap() + 1200, "{name}: {n}");
    }
}

#[test]
fn serialize_prints_the_text_and_nothing_else() {
    let file = fixture("synthetic/E16.jsonl");
    let raw = contextree(&["serialize", file.to_str().unwrap(), "--prompts", "own"]);
    let json = contextree(&["serialize", file.to_str().unwrap(), "--prompts", "own", "--json"]);
    let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(String::from_utf8(raw.stdout).unwrap(), doc["text"].as_str().unwrap());
    assert!(doc["text"].as_str().unwrap().starts_with("[User]: Look at this screenshot and fix the 😀 layout."));
}

/// `contextree info FILE --json` with `CONTEXTREE_PI_PACKAGE` pointing at `pi_package`.
fn rule_set_of(file: &Path, pi_package: &Path, dialect: Option<&str>) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_contextree"));
    cmd.args(["info", file.to_str().unwrap(), "--json"]).env("CONTEXTREE_PI_PACKAGE", pi_package);
    if let Some(d) = dialect {
        cmd.args(["--dialect", d]);
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["dialect"], "pi");
    doc["ruleSet"].clone()
}

#[test]
fn the_rule_set_follows_the_flag_then_the_installed_agent_then_the_file_then_the_newest() {
    let tmp = Scratch::new("rules");
    let dir = tmp.path().to_path_buf();
    let package = dir.join("pkg");
    std::fs::create_dir_all(&package).unwrap();
    let plain = fixture("synthetic/E02.jsonl");
    // A pi ≥ 0.86 file: its first request persisted a system message (pi-1.6.md §1.6).
    let newer = dir.join("pi16.jsonl");
    let mut text = std::fs::read_to_string(&plain).unwrap();
    text.push_str(r#"{"type":"message","id":"sys1","parentId":"a4","timestamp":"2026-11-20T10:00:00.000Z","message":{"role":"system","content":"","sections":{"preamble":"P"},"timestamp":1795000000000}}"#);
    text.push('\n');
    std::fs::write(&newer, text).unwrap();

    // No installed pi: the file decides, else the newest rules.
    let none = dir.join("no-such-package");
    let rs = rule_set_of(&newer, &none, None);
    assert_eq!(rs["name"], "pi@1.6");
    assert!(rs["why"].as_str().unwrap().contains("system messages"), "{rs}");
    let rs = rule_set_of(&plain, &none, Some("pi"));
    assert_eq!(rs["name"], "pi@1.6");
    assert!(rs["why"].as_str().unwrap().contains("newest"), "{rs}");

    // The installed agent's version wins over the file.
    std::fs::write(package.join("package.json"), r#"{"name":"@mariozechner/pi-coding-agent","version":"0.73.1"}"#).unwrap();
    let rs = rule_set_of(&newer, &package, None);
    assert_eq!((rs["name"].as_str(), rs["why"].as_str()), (Some("pi@0.73"), Some("the installed pi is 0.73.1")));
    std::fs::write(package.join("package.json"), r#"{"name":"@earendil-works/pi-coding-agent","version":"1.6.0"}"#).unwrap();
    assert_eq!(rule_set_of(&plain, &package, None)["name"], "pi@1.6");

    // A flag naming one rule set wins over everything.
    let rs = rule_set_of(&newer, &package, Some("pi@0.73"));
    assert_eq!((rs["name"].as_str(), rs["why"].as_str()), (Some("pi@0.73"), Some("asked for explicitly")));
    assert_eq!(rs["reference"], "pi 0.73.1");

    // Every command's JSON says which rules ran.
    for cmd in ["context", "tree", "tokens", "cut", "serialize", "branch"] {
        let mut args = vec![cmd, newer.to_str().unwrap(), "--json", "--dialect", "pi@1.6"];
        if cmd == "branch" {
            args.extend(["--to", "u2"]);
        }
        let out = contextree(&args);
        assert_eq!(out.status.code(), Some(0), "{cmd}: {}", stderr(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["ruleSet"]["name"], "pi@1.6", "{cmd}");
        assert_eq!(doc["dialect"], "pi", "{cmd}");
    }
}

/// A private copy of a fixture (`s.jsonl`) in its own folder, removed on drop.
struct Copy {
    scratch: Scratch,
    dir: PathBuf,
    file: PathBuf,
}

impl Copy {
    fn of(rel: &str, tag: &str) -> Copy {
        let scratch = Scratch::new(&format!("cli-behaviour-{tag}"));
        let file = scratch.copy_fixture_as(rel, "s.jsonl");
        Copy { dir: scratch.path().to_owned(), file, scratch }
    }

    fn path(&self) -> &str {
        self.file.to_str().unwrap()
    }

    fn names(&self) -> Vec<String> {
        self.scratch.names()
    }
}

/// Another process holding `file` open O_WRONLY|O_APPEND for its lifetime, as oh-my-pi holds its
/// session file; each line sent to it is written through that one descriptor.
struct Agent(std::process::Child, std::io::BufReader<std::process::ChildStdout>);

impl Agent {
    fn open(file: &Path) -> Agent {
        use std::io::BufRead;
        let script =
            format!("exec 3>>'{}'; echo ready; while read -r line; do printf '%s\\n' \"$line\" >&3; echo done; done", file.display());
        let mut child = Command::new("sh")
            .args(["-c", &script])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut ready = String::new();
        out.read_line(&mut ready).unwrap();
        assert_eq!(ready, "ready\n");
        Agent(child, out)
    }

    fn append(&mut self, line: &str) {
        use std::io::{BufRead, Write};
        writeln!(self.0.stdin.as_mut().unwrap(), "{line}").unwrap();
        let mut done = String::new();
        self.1.read_line(&mut done).unwrap();
        assert_eq!(done, "done\n");
    }

    fn quit(mut self) {
        drop(self.0.stdin.take());
        self.0.wait().unwrap();
    }
}

#[test]
fn prune_refuses_while_an_agent_holds_the_file_open_and_its_later_lines_stay_in_the_session() {
    let copy = Copy::of("synthetic/E13b.jsonl", "held");
    let before = std::fs::read(&copy.file).unwrap();
    let mut agent = Agent::open(&copy.file);
    // omp 13's rules prune E13b (omp 18's cache-warm guard would leave it alone).
    let out = contextree(&["prune", copy.path(), "--dialect", "omp@13", "--yes"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(copy.path()) && err.contains(&format!("sh (pid {})", agent.0.id())), "{err}");
    assert!(err.contains("open for writing") && err.contains("backup") && err.contains("Quit the agent"), "{err}");
    assert_eq!(std::fs::read(&copy.file).unwrap(), before, "untouched");
    assert_eq!(copy.names(), ["s.jsonl"], "no backup, no temporary file");

    // The agent's next entry, through the descriptor it kept, is in the session.
    let line = r#"{"type":"custom","customType":"x","id":"agent001","parentId":"a5","timestamp":"2026-01-01T00:09:00.000Z"}"#;
    agent.append(line);
    assert!(std::fs::read_to_string(&copy.file).unwrap().ends_with(&format!("{line}\n")));

    // Once the agent has quit, the prune goes through and keeps that line.
    agent.quit();
    let out = contextree(&["prune", copy.path(), "--dialect", "omp@13", "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["prunedCount"], 1);
    assert_eq!(doc["warnings"], serde_json::json!([]));
    assert!(std::fs::read_to_string(&copy.file).unwrap().ends_with(&format!("{line}\n")));
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    // `contextree context S --json | head -c10`, with the reader gone before the first write.
    let file = fixture("synthetic/E16.jsonl");
    for args in [
        &["context", file.to_str().unwrap(), "--json", "--prompts", "own"][..],
        &["serialize", file.to_str().unwrap(), "--prompts", "own"],
        &["tree", file.to_str().unwrap()],
    ] {
        // The read end is closed before the command starts: with a piped stdout closed after
        // the spawn, a fast command could write all of a small output into the pipe first.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out =
            Command::new(env!("CARGO_BIN_EXE_contextree")).args(args).stdout(writer).stderr(std::process::Stdio::piped()).output().unwrap();
        assert_eq!(out.status.code(), Some(141), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{args:?}: no panic, no message");
    }
}

#[test]
fn a_directory_or_a_fifo_is_named_for_what_it_is() {
    let copy = Copy::of("synthetic/E02.jsonl", "kinds");
    let out = contextree(&["info", copy.dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is a directory"), "{}", stderr(&out));
    let fifo = copy.dir.join("fifo.jsonl");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = contextree(&["prune", fifo.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not a regular file"), "{}", stderr(&out));
}

#[test]
fn prune_of_an_empty_or_garbage_file_says_it_is_not_a_session() {
    let copy = Copy::of("synthetic/E02.jsonl", "garbage");
    for bytes in [&b""[..], b"garbage\n"] {
        std::fs::write(&copy.file, bytes).unwrap();
        let out = contextree(&["prune", copy.path(), "--yes"]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("not a session file") && !err.contains("version-0"), "{err}");
        assert_eq!(std::fs::read(&copy.file).unwrap(), bytes);
        assert_eq!(copy.names(), ["s.jsonl"]);
    }
}

/// `contextree usage --json`: its totals are the sums of the file's usage records, added up
/// here straight from the JSON lines (assistant replies, `usage` entries, summaries, tools).
#[test]
fn usage_totals_are_the_sums_of_the_recorded_usage() {
    for rel in ["pi16/g16-default-s58.jsonl", "pi16/g16-branchy-s97.jsonl", "synthetic/E02.jsonl"] {
        let file = fixture(rel);
        let out = contextree(&["usage", file.to_str().unwrap(), "--json", "--dialect", "pi@1.6"]);
        assert_eq!(out.status.code(), Some(0), "{rel}: {}", stderr(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let (mut records, mut input, mut output, mut cost, mut warm) = (0u64, 0f64, 0f64, 0f64, 0u64);
        for line in std::fs::read_to_string(&file).unwrap().lines().skip(1) {
            let v: Value = serde_json::from_str(line).unwrap();
            let usage = match v["type"].as_str() {
                Some("message") if matches!(v["message"]["role"].as_str(), Some("assistant" | "toolResult")) => &v["message"]["usage"],
                Some("usage" | "model_usage" | "compaction" | "branch_summary") => &v["usage"],
                _ => continue,
            };
            if !usage.is_object() {
                continue;
            }
            if v["type"] == "usage" {
                warm += 1;
            }
            records += 1;
            input += usage["input"].as_f64().unwrap_or(0.0);
            output += usage["output"].as_f64().unwrap_or(0.0);
            cost += usage["cost"]["total"].as_f64().unwrap_or(0.0);
        }
        let t = &doc["totals"];
        assert_eq!(t["records"].as_u64(), Some(records), "{rel}");
        assert_eq!(t["input"].as_f64(), Some(input), "{rel}");
        assert_eq!(t["output"].as_f64(), Some(output), "{rel}");
        assert!((t["cost"].as_f64().unwrap() - cost).abs() < 1e-9, "{rel}: {} vs {cost}", t["cost"]);
        assert_eq!(doc["byKind"]["sideCalls"]["records"].as_u64().unwrap_or(0), warm, "{rel}");
        // Each branch sums what its path holds; the file's own leaf is one of them.
        let leaf = doc["branches"].as_array().unwrap().iter().find(|b| b["pathLength"].as_u64().unwrap() > 0).unwrap();
        assert!(leaf["records"].as_u64().unwrap() <= records, "{rel}");
        let by_model: f64 = doc["byModel"].as_array().unwrap().iter().map(|m| m["cost"].as_f64().unwrap()).sum();
        assert!((by_model - cost).abs() < 1e-9, "{rel}");
    }
}

/// `contextree drops --compaction ID`: a request whose file path the summary leaves out is
/// flagged "may be lost"; one whose identifier the summary keeps is not; the preview (no
/// compaction yet) lists the terms without judging them.
#[test]
fn a_summary_that_omits_a_requested_path_flags_the_request() {
    let tmp = Scratch::new("drops");
    let dir = tmp.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.jsonl");
    let user = |id: &str, parent: &str, text: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"{text}","timestamp":1}}}}"#
        )
    };
    let reply = |id: &str, parent: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"done"}}],"stopReason":"stop","timestamp":2}}}}"#
        )
    };
    let lines = [
        r#"{"type":"session","version":3,"id":"drops","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#.to_owned(),
        user("u1", "null", "Rename parseHeader in src/parser/read.rs"),
        reply("a1", "u1"),
        user("u2", "\"a1\"", "Also update docs/guide.md with the new flag"),
        reply("a2", "u2"),
        user("u3", "\"a2\"", "ok, thanks"),
        reply("a3", "u3"),
        user("u4", "\"a3\"", "Now look at the tests"),
        r#"{"type":"compaction","id":"c1","parentId":"u4","timestamp":"2026-01-01T00:00:09.000Z","summary":"Renamed parseHeader to readHeader.","firstKeptEntryId":"u4","tokensBefore":50}"#.to_owned(),
    ];
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let out = contextree(&["drops", file.to_str().unwrap(), "--compaction", "c1", "--json", "--dialect", "pi@0.73"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let reqs = doc["requests"].as_array().unwrap();
    let ids: Vec<&str> = reqs.iter().map(|r| r["entryId"].as_str().unwrap()).collect();
    assert_eq!(ids, ["u1", "u2", "u3"], "the requests before the first kept entry");
    assert_eq!(reqs[0]["mayBeLost"], false, "parseHeader is in the summary");
    assert_eq!(reqs[1]["mayBeLost"], true, "docs/guide.md is not");
    assert_eq!(reqs[1]["terms"][0], serde_json::json!({"text": "docs/guide.md", "kind": "path", "found": false}));
    assert_eq!((reqs[2]["mayBeLost"].clone(), reqs[2]["terms"].as_array().unwrap().len()), (Value::Bool(false), 0), "nothing to check");
    assert_eq!(doc["mayBeLost"], 1);
    // Unknown compaction: an input error naming it.
    let out = contextree(&["drops", file.to_str().unwrap(), "--compaction", "u1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("u1"), "{}", stderr(&out));
}

/// `contextree drops --compaction ID` counts the paths, commands and numbers of the summarized
/// part and the share its summary keeps, by hand: paths `src/a.rs` (in the text and, absolute
/// under the cwd, in a read call) and `README.md`, of which the summary has `src/a.rs`;
/// commands `cargo test --workspace` (whitespace collapsed) and `ls`, of which it has the first;
/// numbers 1500 (written `1,500`), 30 and 12, of which it has 1500. A tool result's path and
/// number are not counted.
#[test]
fn the_drops_audit_counts_the_paths_commands_and_numbers_a_summary_keeps() {
    let tmp = Scratch::new("drops-facts");
    let dir = tmp.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.jsonl");
    let lines = [
        r#"{"type":"session","version":3,"id":"facts","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Fix src/a.rs and README.md, set the timeout to 1,500 ms (was 30).","timestamp":1}}"#,
        r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"/p/src/a.rs"}},{"type":"toolCall","id":"t2","name":"bash","arguments":{"command":"cargo test\n   --workspace"}},{"type":"toolCall","id":"t3","name":"bash","arguments":{"command":"ls"}}],"stopReason":"toolUse","timestamp":2}}"#,
        r#"{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":"see src/zzz.rs line 99999"}],"isError":false,"timestamp":3}}"#,
        r#"{"type":"message","id":"r2","parentId":"r1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"t2","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":3}}"#,
        r#"{"type":"message","id":"r3","parentId":"r2","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"t3","toolName":"bash","content":[{"type":"text","text":"a.rs"}],"isError":false,"timestamp":3}}"#,
        r#"{"type":"message","id":"a2","parentId":"r3","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Done in 12 steps."}],"stopReason":"stop","timestamp":4}}"#,
        r#"{"type":"message","id":"u2","parentId":"a2","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"next","timestamp":5}}"#,
        r#"{"type":"compaction","id":"c1","parentId":"u2","timestamp":"2026-01-01T00:00:09.000Z","summary":"Fixed src/a.rs; ran `cargo test --workspace`; the timeout is now 1500 ms, 2012 style.","firstKeptEntryId":"u2","tokensBefore":50}"#,
    ];
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let out = contextree(&["drops", file.to_str().unwrap(), "--compaction", "c1", "--json", "--dialect", "pi@0.73"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let facts = &doc["facts"];
    let items = |kind: &str| -> Vec<(String, bool)> {
        facts[kind]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["text"].as_str().unwrap().to_owned(), f["kept"].as_bool().unwrap()))
            .collect()
    };
    let own = |v: &[(&str, bool)]| v.iter().map(|(t, k)| (t.to_string(), *k)).collect::<Vec<_>>();
    assert_eq!(items("paths"), own(&[("src/a.rs", true), ("README.md", false)]));
    assert_eq!(items("commands"), own(&[("cargo test --workspace", true), ("ls", false)]));
    assert_eq!(items("numbers"), own(&[("1500", true), ("30", false), ("12", false)]));
    assert_eq!(
        (facts["paths"]["total"].clone(), facts["paths"]["kept"].clone(), facts["paths"]["share"].clone()),
        (json!(2), json!(1), json!(0.5))
    );
    assert_eq!((facts["numbers"]["kept"].clone(), facts["numbers"]["share"].as_f64().map(|s| (s * 3.0).round())), (json!(1), Some(1.0)));
    let out = contextree(&["drops", file.to_str().unwrap(), "--compaction", "c1", "--dialect", "pi@0.73"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.ends_with("paths kept: 1 of 2 (50.0 %)\ncommands kept: 1 of 2 (50.0 %)\nnumbers kept: 1 of 3 (33.3 %)\n"), "{text}");
}

/// `entry` prints one entry's line as the file has it (the app's entry panel): its line
/// number, and JSON equal to that line's; an unknown id is bad input.
#[test]
fn entry_prints_the_line_the_file_has() {
    let file = fixture("synthetic/E08.jsonl");
    let text = std::fs::read_to_string(&file).unwrap();
    let (n, line) = text.lines().enumerate().filter(|(_, l)| l.contains("\"parentId\"")).nth(1).unwrap();
    let entry: Value = serde_json::from_str(line).unwrap();
    let id = entry["id"].as_str().unwrap();
    let out = contextree(&["entry", file.to_str().unwrap(), id, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["line"], n as u64 + 1);
    assert_eq!(doc["id"], id);
    assert_eq!(serde_json::from_str::<Value>(doc["json"].as_str().unwrap()).unwrap(), entry);
    let out = contextree(&["entry", file.to_str().unwrap(), "no-such-id"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no-such-id"), "{}", stderr(&out));
}

/// `budget` gives the app's budget bar: a window given overrides the model's, and a context
/// larger than the threshold is one the agent would compact.
#[test]
fn budget_follows_the_window_given() {
    let file = fixture("real/pi-before-compaction.jsonl");
    let run = |extra: &[&str]| -> Value {
        let mut args = vec!["budget", file.to_str().unwrap(), "--json", "--dialect", "pi@0.73"];
        args.extend_from_slice(extra);
        let out = contextree(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let own = run(&[]);
    assert_ne!(own["windowSource"], "override");
    assert!(own["used"].as_u64().unwrap() > 1000, "{own}");
    let small = run(&["--window", "1000"]);
    assert_eq!((small["window"].as_u64(), small["windowSource"].as_str()), (Some(1000), Some("override")));
    assert_eq!(small["used"], own["used"]);
    assert_eq!(small["overThreshold"], true, "{small}");
    assert_eq!(small["ruleSet"]["name"], "pi@0.73");
}

/// `navigate --dry-run` shows what moving the leaf would write (the app's preview) and writes
/// nothing; without --yes or --dry-run it refuses.
#[test]
fn navigate_dry_run_previews_and_writes_nothing() {
    let scratch = Scratch::new("navigate-dry-run");
    let file = scratch.copy_fixture("synthetic/E08.jsonl");
    let before = std::fs::read(&file).unwrap();
    let text = String::from_utf8(before.clone()).unwrap();
    let target: Value = serde_json::from_str(text.lines().nth(2).unwrap()).unwrap();
    let id = target["id"].as_str().unwrap();
    let out = contextree(&["navigate", file.to_str().unwrap(), "--to", id, "--dry-run", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["targetId"], id);
    assert_eq!(doc["placementParentId"], id, "{doc}");
    assert!(!doc["abandonedIds"].as_array().unwrap().is_empty(), "{doc}");
    assert_eq!(std::fs::read(&file).unwrap(), before, "a dry run writes nothing");
    let refused = contextree(&["navigate", file.to_str().unwrap(), "--to", id]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(std::fs::read(&file).unwrap(), before);
}
