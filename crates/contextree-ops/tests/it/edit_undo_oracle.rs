//! Editing a summary and undoing a compaction, checked against the real agents (pi 0.73.1,
//! oh-my-pi 13.19.0 through the oracle): after the write, the agent that opens the file sees
//! - edit: the old context of the file's leaf with only the summary text replaced;
//! - undo: the context of the compaction's parent (no summary, the full history).
//!
//! Needs the agents (`scripts/install-agents.sh` installs them in `tests/agents`; `ORACLE`
//! names another installed copy):
//! without the agents this test cannot show that they read the file so, so it fails rather
//! than skip.

use std::path::{Path, PathBuf};
use std::process::Command;

use contextree_core::context::{self, Leaf};
use contextree_core::Dialect;
use contextree_host::LoadedSession;
use contextree_ops::{edit_summary, undo_compaction};
use serde_json::Value;

use contextree_testkit::{agents as oracle_dir, repo, Scratch};

/// `node oracle.mjs --impl pi|omp13 context FILE --full EXTRA…`, parsed.
fn agent_context(dialect: &str, file: &Path, extra: &[&str]) -> Value {
    let imp = if dialect == "pi" { "pi" } else { "omp13" };
    let out = Command::new("node")
        .arg(oracle_dir().join("oracle.mjs"))
        .args(["--impl", imp, "context"])
        .arg(file)
        .arg("--full")
        .args(extra)
        .output()
        .expect("node runs");
    assert!(out.status.success(), "oracle --impl {imp} context: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A copy of a fixture in a fresh temporary folder (removed when dropped).
struct Copy {
    _scratch: Scratch,
    file: PathBuf,
}

impl Copy {
    fn new(fixture: &str) -> Copy {
        let scratch = Scratch::new("ops");
        let file = scratch.copy_fixture(fixture);
        Copy { _scratch: scratch, file }
    }
}

fn load(file: &Path, dialect: &str) -> LoadedSession {
    let d = if dialect == "pi" { Dialect::Pi } else { Dialect::Omp };
    contextree_host::load_session(&contextree_host::HostEnv::default(), file, Some(contextree_core::RuleSet::oldest(d).into())).unwrap()
}

/// The entry ids of contextree's context for the file's leaf (after reloading it).
fn our_entry_ids(file: &Path, dialect: &str) -> Vec<String> {
    let loaded = load(file, dialect);
    let s = &loaded.session;
    context::build(s, Leaf::Last).items.iter().map(|i| s.entry(i.node()).id.to_string()).collect()
}

fn agent_entry_ids(doc: &Value) -> Vec<String> {
    doc["messages"].as_array().unwrap().iter().map(|m| m["entryId"].as_str().unwrap_or("").to_owned()).collect()
}

/// Appended bytes only: the old file is an untouched prefix and one line was added.
fn one_line_appended(before: &[u8], file: &Path) -> Value {
    let after = std::fs::read(file).unwrap();
    assert_eq!(&after[..before.len()], before, "the old bytes are an untouched prefix");
    let line = std::str::from_utf8(&after[before.len()..]).unwrap();
    assert!(line.ends_with('\n') && line.matches('\n').count() == 1, "one line appended: {line:?}");
    serde_json::from_str(line.trim_end()).unwrap()
}

const CASES: [(&str, &str); 5] = [
    ("synthetic/E06.jsonl", "pi"),
    ("synthetic/E06.jsonl", "omp"),
    ("generated/g-v3-branchy-s3.jsonl", "pi"),
    ("edge/edge-omp-compaction.jsonl", "omp"),
    ("edge/edge-omp-remote-compaction.jsonl", "omp"),
];

#[test]
fn an_edited_summary_replaces_only_the_summary_in_both_agents_contexts() {
    const NEW: &str = "## Goal\nCorrected by the user: <keep> & \"quote\" \u{1F600}";
    for (fixture, dialect) in CASES {
        let at = format!("{fixture} {dialect}");
        let copy = Copy::new(fixture);
        let before_doc = agent_context(dialect, &copy.file, &[]);
        let before_bytes = std::fs::read(&copy.file).unwrap();
        let loaded = load(&copy.file, dialect);
        let s = &loaded.session;
        let ctx = context::build(s, Leaf::Last);
        let compaction = ctx.compaction.unwrap_or_else(|| panic!("{at}: the fixture's leaf has a compaction in effect"));
        let old_summary = before_doc["fullMessages"][0]["summary"].as_str().unwrap().to_owned();

        // Only the compaction in effect may be edited.
        let other = (0..s.entries().len() as u32)
            .map(contextree_core::session::NodeId)
            .find(|&n| &*s.entry(n).entry_type == "compaction" && n != compaction);
        if let Some(other) = other {
            let err = edit_summary::preview(&loaded, other).unwrap_err();
            assert_eq!(err.kind(), "refused", "{at}: {err}");
        }
        if fixture.contains("remote") {
            // omp's remote compaction (D17): refused, nothing written (see edit_summary's docs).
            let err = edit_summary::run(&loaded, compaction, NEW).unwrap_err();
            assert_eq!(err.kind(), "refused", "{at}: {err}");
            assert_eq!(std::fs::read(&copy.file).unwrap(), before_bytes, "{at}: nothing written");
            continue;
        }
        let pv = edit_summary::preview(&loaded, compaction).unwrap();
        assert_eq!(pv.summary, old_summary, "{at}");
        assert_eq!(Some(pv.parent_id.as_str()), before_doc["leafId"].as_str(), "{at}: under the file's leaf");

        let done = edit_summary::run(&loaded, compaction, NEW).unwrap();
        let entry = one_line_appended(&before_bytes, &copy.file);
        let old: Value = {
            let line = std::str::from_utf8(&before_bytes)
                .unwrap()
                .lines()
                .find(|l| l.contains(&format!("\"id\":\"{}\"", s.entry(compaction).id)))
                .unwrap();
            serde_json::from_str(line).unwrap()
        };
        assert_eq!(entry["id"], done.id.as_str(), "{at}");
        assert_eq!(entry["type"], "compaction", "{at}");
        assert_eq!(entry["summary"], NEW, "{at}");
        for key in ["firstKeptEntryId", "tokensBefore", "details"] {
            assert_eq!(entry[key], old[key], "{at}: {key} is kept");
        }
        let flag = if dialect == "pi" { "fromHook" } else { "fromExtension" };
        assert_eq!(entry[flag], true, "{at}: marked as supplied, like a hook's");
        if dialect == "omp" {
            assert_eq!(entry["shortSummary"], old["shortSummary"], "{at}");
            assert_eq!(entry["preserveData"], old["preserveData"], "{at}");
        }

        let after_doc = agent_context(dialect, &copy.file, &[]);
        assert_eq!(after_doc["leafId"], done.id.as_str(), "{at}: the new entry is the file's leaf");
        let (b, a) = (before_doc["fullMessages"].as_array().unwrap(), after_doc["fullMessages"].as_array().unwrap());
        assert_eq!(a.len(), b.len(), "{at}: as many messages");
        assert_eq!(a[0]["role"], "compactionSummary", "{at}");
        assert_eq!(a[0]["summary"], NEW, "{at}");
        let mut expected0 = b[0].clone();
        expected0["summary"] = NEW.into();
        expected0["timestamp"] = a[0]["timestamp"].clone();
        assert_eq!(a[0], expected0, "{at}: the summary message differs only in its text (and the new entry's time)");
        assert_eq!(a[1..], b[1..], "{at}: every other message is the same");
        let (bl, al) = (before_doc["fullLlm"].as_array().unwrap(), after_doc["fullLlm"].as_array().unwrap());
        assert_eq!(al.len(), bl.len(), "{at}");
        // The message's `timestamp` is the entry's (the time of the write); providers are not sent it.
        let mut old0 = bl[0].clone();
        if old0.get("timestamp").is_some() {
            old0["timestamp"] = al[0]["timestamp"].clone();
        }
        let old_text = serde_json::to_string(&old0).unwrap();
        let new_text = serde_json::to_string(&al[0]).unwrap();
        let esc = |t: &str| serde_json::to_string(t).unwrap().trim_matches('"').to_owned();
        assert_eq!(new_text, old_text.replacen(&esc(&old_summary), &esc(NEW), 1), "{at}: the LLM sees only the summary replaced");
        assert_eq!(al[1..], bl[1..], "{at}");
        // contextree reads the written file as the agent does.
        assert_eq!(our_entry_ids(&copy.file, dialect), agent_entry_ids(&after_doc), "{at}: contextree agrees with the agent");
    }
}

#[test]
fn an_undone_compaction_leaves_the_context_of_its_parent_in_both_agents() {
    for (fixture, dialect) in CASES {
        let at = format!("{fixture} {dialect}");
        let copy = Copy::new(fixture);
        let before_bytes = std::fs::read(&copy.file).unwrap();
        let loaded = load(&copy.file, dialect);
        let s = &loaded.session;
        let compaction = context::build(s, Leaf::Last).compaction.unwrap_or_else(|| panic!("{at}: a compaction in effect"));
        let pv = undo_compaction::preview(&loaded, compaction).unwrap();
        let parent = s.entry(s.tree().parent(compaction).unwrap()).id.to_string();
        assert_eq!(pv.target_id, parent, "{at}");
        let expected = agent_context(dialect, &copy.file, &["--leaf", &parent]);

        let done = undo_compaction::run(&loaded, compaction).unwrap();
        let entry = one_line_appended(&before_bytes, &copy.file);
        assert_eq!(
            (entry["type"].as_str(), entry["customType"].as_str(), entry["parentId"].as_str()),
            (Some("custom"), Some("contextree-continue"), Some(parent.as_str())),
            "{at}"
        );
        assert_eq!(entry["id"], done.id.as_str(), "{at}");

        let after = agent_context(dialect, &copy.file, &[]);
        assert_eq!(after["leafId"], done.id.as_str(), "{at}: the marker is the file's leaf");
        assert!(
            after["messages"]
                .as_array()
                .unwrap()
                .iter()
                .all(|m| m["role"] != "compactionSummary" || m["entryId"] != s.entry(compaction).id.to_string().as_str()),
            "{at}: the undone summary is gone"
        );
        assert_eq!(after["fullMessages"], expected["fullMessages"], "{at}: the context of the compaction's parent");
        assert_eq!(after["fullLlm"], expected["fullLlm"], "{at}");
        assert_eq!(our_entry_ids(&copy.file, dialect), agent_entry_ids(&after), "{at}: contextree agrees with the agent");
    }
}

#[test]
fn undo_and_edit_refuse_entries_that_are_not_compactions() {
    let copy = Copy::new("synthetic/E06.jsonl");
    let loaded = load(&copy.file, "pi");
    let u1 = loaded.session.node("u1").unwrap();
    assert_eq!(undo_compaction::preview(&loaded, u1).unwrap_err().kind(), "refused");
    assert_eq!(edit_summary::run(&loaded, u1, "x").unwrap_err().kind(), "refused");
    assert_eq!(
        std::fs::read(&copy.file).unwrap(),
        std::fs::read(repo().join("tests/fixtures/synthetic/E06.jsonl")).unwrap(),
        "nothing written"
    );
}
