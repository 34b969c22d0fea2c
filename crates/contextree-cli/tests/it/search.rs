//! `contextree search` / `contextree index` over a library made here: planted words in every
//! role, on another branch, behind a compaction, in a pruned tool result; appends, rewrites,
//! deletions and a killed indexer.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use contextree_testkit::Scratch;
use serde_json::{json, Value};

const PI_ID: &str = "01890a5d-ac96-774b-bcce-b302099a8057";
const OMP_ID: &str = "15e4dc26ca91c9ed";

struct Lib {
    _t: Scratch,
    home: PathBuf,
    root: PathBuf,
}

impl Lib {
    fn new(tag: &str) -> Lib {
        let t = Scratch::new(&format!("cli-search-{tag}"));
        let home = t.path().join("home");
        let root = t.path().join("lib");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&root).unwrap();
        Lib { _t: t, home, root }
    }

    fn pi(&self) -> PathBuf {
        self.root.join("--srv-alpha--").join(format!("2026-01-01_{PI_ID}.jsonl"))
    }

    fn omp(&self) -> PathBuf {
        self.root.join("-srv-beta").join(format!("2026-01-05_{OMP_ID}.jsonl"))
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_contextree"))
            .args(args)
            .arg("--root")
            .arg(&self.root)
            .env("HOME", &self.home)
            .env("XDG_CACHE_HOME", self.home.join("cache"))
            .env_remove("PI_CODING_AGENT_DIR")
            .env_remove("PI_CONFIG_DIR")
            .env_remove("XDG_DATA_HOME")
            .output()
            .unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn search(&self, q: &str) -> Value {
        self.json(&["search", q, "--json", "--limit", "100"])
    }
}

fn lines(entries: &[Value]) -> String {
    entries.iter().map(|e| format!("{e}\n")).collect()
}

fn msg(id: &str, parent: Option<&str>, ts: &str, message: Value) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts, "message": message})
}

fn text(t: &str) -> Value {
    json!([{"type": "text", "text": t}])
}

/// A pi session: u1 a1 r1 (summarized by c1) u2 a2 (kept) c1 u3 bs1 cm1 l1 a3 (the leaf), and
/// b1, a child of a1 on another branch, which bs1 summarizes; b2 on a branch nothing summarizes.
fn pi_session() -> Vec<Value> {
    let t = |s: u32| format!("2026-01-01T00:00:{s:02}.000Z");
    let asst = |content: Value| json!({"role": "assistant", "content": content, "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "stop", "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2}});
    vec![
        json!({"type": "session", "version": 3, "id": PI_ID, "timestamp": t(0), "cwd": "/srv/alpha"}),
        msg("u1", None, &t(1), json!({"role": "user", "content": "zebrauser please look at the parser"})),
        msg(
            "a1",
            Some("u1"),
            &t(2),
            asst(json!([
                {"type": "thinking", "thinking": "zebrathink the parser is slow"},
                {"type": "text", "text": "zebraassistant running it"},
                {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "cargo publish --zebraargs"}}
            ])),
        ),
        msg(
            "r1",
            Some("a1"),
            &t(3),
            json!({"role": "toolResult", "toolCallId": "call_1", "toolName": "bash", "content": text("zebraresult published"), "isError": false}),
        ),
        msg("b1", Some("a1"), &t(4), json!({"role": "user", "content": "zebrabranch try the other way"})),
        msg("b2", Some("u1"), &t(4), json!({"role": "user", "content": "zebraoffpath never mind"})),
        msg("u2", Some("r1"), &t(5), json!({"role": "user", "content": "zebrakept now the docs"})),
        msg("a2", Some("u2"), &t(6), asst(text("docs done"))),
        json!({"type": "compaction", "id": "c1", "parentId": "a2", "timestamp": t(7), "summary": "zebrasummary of the parser work", "firstKeptEntryId": "u2", "tokensBefore": 5000}),
        msg("u3", Some("c1"), &t(8), json!({"role": "user", "content": "next step"})),
        json!({"type": "branch_summary", "id": "bs1", "parentId": "u3", "timestamp": t(9), "fromId": "b1", "summary": "zebrabranchsum the other way failed"}),
        json!({"type": "custom_message", "id": "cm1", "parentId": "bs1", "timestamp": t(10), "customType": "note", "content": "zebracustom reminder", "display": true}),
        json!({"type": "label", "id": "l1", "parentId": "cm1", "timestamp": t(11), "targetId": "u2", "label": "zebralabel"}),
        msg("a3", Some("l1"), &t(12), asst(text("all done"))),
    ]
}

/// An omp session whose tool result was pruned.
fn omp_session(result: &str) -> Vec<Value> {
    let t = |s: u32| format!("2026-01-05T00:00:{s:02}.000Z");
    vec![
        json!({"type": "session", "version": 3, "id": OMP_ID, "timestamp": t(0), "cwd": "/srv/beta"}),
        msg("u1", None, &t(1), json!({"role": "user", "content": "zebraomp read the file"})),
        msg(
            "a1",
            Some("u1"),
            &t(2),
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "read", "arguments": {"path": "x.rs"}}], "model": "gpt-5", "stopReason": "toolUse"}),
        ),
        msg(
            "r1",
            Some("a1"),
            &t(3),
            json!({"role": "toolResult", "toolCallId": "c", "toolName": "read", "content": text(result), "isError": false, "prunedAt": 1}),
        ),
        msg(
            "a2",
            Some("r1"),
            &t(4),
            json!({"role": "assistant", "content": [{"type": "text", "text": "read it"}], "model": "gpt-5", "stopReason": "stop"}),
        ),
    ]
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn library(tag: &str) -> Lib {
    let lib = Lib::new(tag);
    write(&lib.pi(), &lines(&pi_session()));
    write(&lib.omp(), &lines(&omp_session("zebrapruned fn main")));
    lib
}

/// `(entryId, state)` of every hit.
fn found(doc: &Value) -> Vec<(String, String)> {
    doc["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["entryId"].as_str().unwrap().to_owned(), h["state"].as_str().unwrap().to_owned()))
        .collect()
}

fn one(lib: &Lib, q: &str) -> Value {
    let doc = lib.search(q);
    let hits = doc["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{q}: {doc:#}");
    hits[0].clone()
}

#[test]
fn every_planted_word_is_found_with_its_entry_and_state() {
    let lib = library("planted");
    let cases = [
        ("zebrauser", "u1", "summarized", "user"),
        ("zebrathink", "a1", "summarized", "assistant"),
        ("zebraassistant", "a1", "summarized", "assistant"),
        ("zebraargs", "a1", "summarized", "assistant"),
        ("zebraresult", "r1", "summarized", "toolResult"),
        ("zebrabranch", "b1", "branchSummarized", "user"),
        ("zebraoffpath", "b2", "offPath", "user"),
        ("zebrakept", "u2", "context", "user"),
        ("zebrasummary", "c1", "context", "compaction"),
        ("zebrabranchsum", "bs1", "context", "branch_summary"),
        ("zebracustom", "cm1", "context", "custom_message"),
        ("zebralabel", "l1", "notSent", "label"),
        ("zebraomp", "u1", "context", "user"),
        ("zebrapruned", "r1", "pruned", "toolResult"),
    ];
    for (word, id, state, role) in cases {
        let h = one(&lib, word);
        assert_eq!((h["entryId"].as_str(), h["state"].as_str(), h["role"].as_str()), (Some(id), Some(state), Some(role)), "{word}: {h:#}");
        let snippet = h["snippet"].as_str().unwrap();
        let [a, b] = [h["highlights"][0][0].as_u64().unwrap() as usize, h["highlights"][0][1].as_u64().unwrap() as usize];
        assert_eq!(&snippet[a..b], word, "{word}: the highlight marks the word");
        let summarized_by = match state {
            "summarized" => Some("c1"),
            "branchSummarized" => Some("bs1"),
            _ => None,
        };
        assert_eq!(h["summarizedBy"].as_str(), summarized_by, "{word}");
    }
    let r1 = one(&lib, "zebraresult");
    assert_eq!(r1["toolName"], "bash");
    assert_eq!(r1["sessionId"], PI_ID);
    assert_eq!(r1["leafId"], "a3");
    assert!(r1["ruleSet"].as_str().unwrap().starts_with("pi@"), "{r1}");
    assert!(one(&lib, "zebrapruned")["ruleSet"].as_str().unwrap().starts_with("omp@"));
    assert!(r1["file"].as_str().unwrap().ends_with(&format!("{PI_ID}.jsonl")));
    assert_eq!(r1["time"], "2026-01-01T00:00:03Z");
}

#[test]
fn phrases_prefixes_and_filters() {
    let lib = library("filters");
    assert_eq!(found(&lib.search("\"please look\"")), [("u1".to_owned(), "summarized".to_owned())]);
    assert!(found(&lib.search("\"look please\"")).is_empty());
    let prefixed = lib.search("zebrab*");
    let mut ids: Vec<String> = found(&prefixed).into_iter().map(|(id, _)| id).collect();
    ids.sort();
    assert_eq!(ids, ["b1", "bs1"]);
    // The snippet marks the words the prefix matched.
    for h in prefixed["hits"].as_array().unwrap() {
        let snippet = h["snippet"].as_str().unwrap();
        let [a, b] = [h["highlights"][0][0].as_u64().unwrap() as usize, h["highlights"][0][1].as_u64().unwrap() as usize];
        assert!(snippet[a..b].starts_with("zebrab"), "{h}");
    }
    let roles: Vec<String> =
        lib.search("role:user zebra*")["hits"].as_array().unwrap().iter().map(|h| h["role"].as_str().unwrap().to_owned()).collect();
    assert_eq!(roles.len(), 5, "u1, b1, b2, u2 and the omp u1: {roles:?}");
    assert!(roles.iter().all(|r| r == "user"));
    let mut bash: Vec<String> = found(&lib.search("tool:bash")).into_iter().map(|(id, _)| id).collect();
    bash.sort();
    assert_eq!(bash, ["a1", "r1"]);
    assert_eq!(found(&lib.search("zebra* project:beta")).len(), 2);
    assert_eq!(found(&lib.search("zebra* agent:omp")).len(), 2);
    // An entry carries the model of the last reply before it in the file (none before the first).
    assert_eq!(found(&lib.search("zebra* model:gpt")), [("r1".to_owned(), "pruned".to_owned())]);
    assert_eq!(found(&lib.search("zebra* model:sonnet")).len(), 9, "the pi entries after u1");
    assert_eq!(found(&lib.search("zebra* after:2026-01-02")).len(), 2);
    assert_eq!(found(&lib.search("zebra* before:2026-01-02")).len(), 10);
    assert_eq!(found(&lib.search("zebra* -zebrauser before:2026-01-02")).len(), 9);
    // A bad query is an error with a message, exit 2.
    let out = lib.run(&["search", "after:yesterday"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a date"));
    // Syntax the engine would choke on is searched as words.
    assert_eq!(found(&lib.search("publish --zebraargs)")).len(), 1);
}

#[test]
fn appends_rewrites_and_deletions_are_seen() {
    let lib = library("changes");
    let first = lib.json(&["index", "--json"]);
    assert_eq!((first["files"].as_u64(), first["whole"].as_u64()), (Some(2), Some(2)));
    // Nothing changed: nothing read.
    let again = lib.json(&["index", "--json"]);
    assert_eq!((again["files"].as_u64(), again["bytes"].as_u64()), (Some(0), Some(0)));

    // An append is read from where the index stopped, not from the top.
    let line = format!("{}\n", msg("u4", Some("a3"), "2026-01-01T00:01:00.000Z", json!({"role": "user", "content": "zebraappended more"})));
    let before = std::fs::metadata(lib.pi()).unwrap().len();
    let mut f = std::fs::OpenOptions::new().append(true).open(lib.pi()).unwrap();
    std::io::Write::write_all(&mut f, line.as_bytes()).unwrap();
    drop(f);
    let doc = lib.search("zebraappended");
    assert_eq!((doc["indexed"]["grown"].as_u64(), doc["indexed"]["whole"].as_u64()), (Some(1), Some(0)));
    assert_eq!(doc["indexed"]["bytes"].as_u64(), Some(line.len() as u64));
    assert!(before > line.len() as u64);
    assert_eq!(found(&doc), [("u4".to_owned(), "context".to_owned())]);
    // The old entries are still there, once, with the new leaf's states.
    assert_eq!(one(&lib, "zebrakept")["leafId"], "u4");

    // A rewrite (as a prune writes: a new file renamed over the old) is read again whole.
    let tmp = lib.omp().with_extension("tmp");
    write(&tmp, &lines(&omp_session("[Output truncated - 12 tokens] zebrarewritten")));
    std::fs::rename(&tmp, lib.omp()).unwrap();
    let doc = lib.search("zebrarewritten");
    assert_eq!(doc["indexed"]["whole"].as_u64(), Some(1));
    assert_eq!(found(&doc), [("r1".to_owned(), "pruned".to_owned())]);
    assert!(found(&lib.search("zebrapruned")).is_empty());
    assert_eq!(found(&lib.search("zebraomp")).len(), 1, "the rewritten file's entries are not doubled");

    // A rewrite in place that keeps the length is seen too (the head's hash).
    let text = std::fs::read_to_string(lib.omp()).unwrap().replace("zebraomp", "zebraqqq");
    std::fs::write(lib.omp(), text).unwrap();
    assert!(found(&lib.search("zebraomp")).is_empty());
    assert_eq!(found(&lib.search("zebraqqq")).len(), 1);

    // A deletion drops the file.
    std::fs::remove_file(lib.omp()).unwrap();
    let doc = lib.search("zebraqqq");
    assert_eq!(doc["indexed"]["dropped"].as_u64(), Some(1));
    assert!(found(&doc).is_empty());
    assert_eq!(lib.json(&["index", "--json"])["totalFiles"].as_u64(), Some(1));
}

#[test]
fn text_output_groups_hits_by_session_and_marks_matches() {
    let lib = library("text");
    let out = lib.run(&["search", "zebra*", "project:alpha"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches(&format!("{PI_ID}.jsonl")).count(), 1, "{text}");
    assert!(text.contains("«zebrauser»") || text.contains("zebrauser"), "{text}");
    assert!(text.contains("[summarized by c1]"), "{text}");
}

/// Many files with one planted word each, large enough that indexing them takes a while.
fn big_library(lib: &Lib, files: usize) {
    let filler = "lorem ipsum dolor sit amet consectetur adipiscing elit ".repeat(40);
    for i in 0..files {
        let mut entries = vec![
            json!({"type": "session", "version": 3, "id": format!("{:016x}", 0xa000_0000_0000_0000u64 + i as u64), "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/srv/big"}),
        ];
        let mut parent: Option<String> = None;
        for k in 0..400 {
            let id = format!("e{k}");
            entries.push(msg(
                &id,
                parent.as_deref(),
                "2026-01-01T00:00:01.000Z",
                json!({"role": "user", "content": format!("{filler} {k}")}),
            ));
            parent = Some(id);
        }
        entries.push(msg(
            "last",
            parent.as_deref(),
            "2026-01-01T00:00:02.000Z",
            json!({"role": "user", "content": format!("killword{i}")}),
        ));
        write(&lib.root.join("-srv-big").join(format!("2026_{i:04}.jsonl")), &lines(&entries));
    }
}

#[test]
fn a_killed_indexer_leaves_right_answers() {
    let lib = Lib::new("kill");
    let files = 60;
    big_library(&lib, files);
    let mut child = Command::new(env!("CARGO_BIN_EXE_contextree"))
        .args(["index", "--root"])
        .arg(&lib.root)
        .env("HOME", &lib.home)
        .env("XDG_CACHE_HOME", lib.home.join("cache"))
        .spawn()
        .unwrap();
    // Kill it once it has committed part of the library (or when it is done).
    let meta = lib.home.join("cache/contextree/search/v1/meta.json");
    let started = std::time::Instant::now();
    loop {
        let committed = std::fs::read_to_string(&meta).is_ok_and(|m| m.contains("\"segment_id\""));
        if committed || child.try_wait().unwrap().is_some() || started.elapsed().as_secs() > 60 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let finished = child.try_wait().unwrap().is_some();
    eprintln!("indexer finished before the kill: {finished}");
    child.kill().ok();
    child.wait().unwrap();
    // The next run carries on from the last commit: every word is found exactly once.
    let doc = lib.json(&["index", "--json"]);
    if !finished {
        assert!(doc["whole"].as_u64().unwrap() < files as u64, "the committed files are not read again: {doc}");
    }
    assert_eq!(doc["totalFiles"].as_u64(), Some(files as u64));
    for i in [0, files / 2, files - 1] {
        let hits = found(&lib.search(&format!("killword{i}")));
        assert_eq!(hits, [("last".to_owned(), "context".to_owned())], "killword{i}");
    }
    assert_eq!(lib.search("killword*")["hits"].as_array().unwrap().len(), files.min(100));
}
