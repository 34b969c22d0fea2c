//! Writes under `--dialect pi@1.6`, loaded back by pi 1.6.0 itself (the
//! oracle's `--impl pi16`): `contextree compact` (offline and with a supplied
//! summary) and `contextree navigate --summarize` on copies of pi 1.6
//! fixtures with system messages and context edits. The agent's context of
//! the written file (messages: role, entryId, tokens) must be the one
//! contextree promised: for a compaction, the replayed system prompt as the
//! checkpoint, the summary, then the kept messages the dry run named (minus
//! the system messages a compaction leaves behind); for a navigation, the
//! context at the placement plus the summary. The entries have pi 1.6's key
//! order (pi-1.6.md §1.4, §4.7, §5, §8).
//!
//! Needs the oracle with pi 1.6.0 (`scripts/install-oracle.sh`, or `ORACLE`):
//! without the agent this cannot show that it accepts what was written, so
//! it fails rather than skip.

use crate::support;

use std::path::Path;

use crate::support::oracle::{contextree, oracle_dir, oracle_impl, pi16_pack, TempDir};
use serde_json::Value;

const RULES: &str = "pi@1.6";

/// `(role, entryId, tokens)` of every context message.
fn messages(doc: &Value) -> Vec<(Value, Value, Value)> {
    doc["messages"].as_array().unwrap().iter().map(|m| (m["role"].clone(), m["entryId"].clone(), m["tokens"].clone())).collect()
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

/// The one line appended to `file` since `before`, parsed.
fn appended(file: &Path, before: &[u8], at: &str) -> Value {
    let after = std::fs::read(file).unwrap();
    assert_eq!(&after[..before.len()], before, "{at}: the old bytes are not an untouched prefix");
    let line = String::from_utf8(after[before.len()..].to_vec()).unwrap();
    assert!(line.ends_with('\n') && line.matches('\n').count() == 1, "{at}: one line appended: {line:?}");
    serde_json::from_str(line.trim_end()).unwrap()
}

/// Compacts a copy of `fixture` (offline, or with `summary`) and checks the
/// entry and the agent's reading of it.
fn compact_and_check(fixture: &str, keep_recent: &str, summary: Option<&str>) {
    let tmp = TempDir::new();
    let file = tmp.copy_from("pi16", fixture);
    let f = file.to_str().unwrap();
    let at = format!("{fixture} K={keep_recent} supplied={}", summary.is_some());
    let pack = pi16_pack();
    let pack = pack.to_str().unwrap();
    let before_bytes = std::fs::read(&file).unwrap();
    let agent_before = oracle_impl("pi16", "context", &file, &[]);

    let plan = contextree(&["compact", f, "--dialect", RULES, "--keep-recent", keep_recent, "--dry-run", "--json", "--prompts", pack]);
    assert_eq!(plan["ruleSet"]["name"], RULES, "{at}");
    let mut args = vec!["compact", f, "--dialect", RULES, "--keep-recent", keep_recent, "--yes", "--json", "--prompts", pack];
    match summary {
        Some(s) => args.extend(["--summary", s]),
        None => args.push("--offline"),
    }
    let done = contextree(&args);
    let entry = appended(&file, &before_bytes, &at);
    assert_eq!(entry, done["entry"], "{at}: the printed entry is the appended one");
    let id = entry["id"].as_str().unwrap();

    // pi 1.6's key order; the checkpoint as §8 says, with the entry's own time.
    let has_system = agent_before["currentSystem"].is_object();
    let mut expected_keys = vec!["type", "id", "parentId", "timestamp", "summary", "firstKeptEntryId", "tokensBefore"];
    if summary.is_none() {
        expected_keys.push("details");
    }
    expected_keys.push("fromHook");
    if has_system {
        expected_keys.push("systemMessage");
    }
    assert_eq!(keys(&entry), expected_keys, "{at}: key order");
    assert_eq!(entry["fromHook"], summary.is_some(), "{at}");
    if let Some(s) = summary {
        assert_eq!(entry["summary"], s, "{at}: a supplied summary is stored verbatim");
    }
    assert_eq!(entry["parentId"], plan["leafId"], "{at}");
    assert_eq!(entry["firstKeptEntryId"], plan["firstKeptEntryId"], "{at}");
    if has_system {
        let sys = &entry["systemMessage"];
        let order: Vec<&str> =
            ["role", "content", "sections", "toolsAdded", "timestamp"].into_iter().filter(|k| sys.get(k).is_some()).collect();
        assert_eq!(keys(sys), order, "{at}: checkpoint key order");
        let ms = contextree_core::session::parse_iso_ms(entry["timestamp"].as_str().unwrap()).unwrap();
        assert_eq!(sys["timestamp"].as_f64(), Some(ms), "{at}: the checkpoint carries the compaction's time");
    }

    // What contextree promised: [checkpoint], summary, the kept messages.
    let ours = contextree(&["context", f, "--json", "--dialect", RULES]);
    let theirs = oracle_impl("pi16", "context", &file, &["--full"]);
    assert_eq!(theirs["leafId"], id, "{at}: the agent's leaf is the new entry");
    assert_eq!(messages(&theirs), messages(&ours), "{at}: the agent's context is contextree's");
    let head: Vec<(Value, Value)> = messages(&ours).into_iter().take(if has_system { 2 } else { 1 }).map(|(r, e, _)| (r, e)).collect();
    let mut want = vec![(Value::from("compactionSummary"), Value::from(id))];
    if has_system {
        want.insert(0, (Value::from("system"), Value::from(id)));
        // The checkpoint is the replayed prompt the agent saw before: same size, sections, tools.
        let now = &theirs["currentSystem"];
        let was = &agent_before["currentSystem"];
        for k in ["tokens", "contentLength", "sections", "tools"] {
            assert_eq!(now[k], was[k], "{at}: checkpoint {k}");
        }
    }
    assert_eq!(head, want, "{at}: the context opens with the checkpoint and the summary");
    let kept: Vec<Value> = messages(&ours).into_iter().skip(want.len()).map(|(_, e, _)| e).collect();
    let planned: Vec<Value> = plan["recentMessagesIds"].as_array().unwrap().iter().filter(|id| kept.contains(id)).cloned().collect();
    assert_eq!(kept, planned, "{at}: the kept messages are the dry run's, in order");
    assert_eq!(theirs["fullMessages"][want.len() - 1]["summary"], entry["summary"], "{at}: the agent reads our summary");
    assert_eq!(theirs["messageTokens"], ours["messageTokens"], "{at}: same estimate");
}

#[test]
fn pi16_compactions_are_read_back_by_pi16() {
    oracle_dir(); // fails at once, with the install hint, when the agents are missing
                  // System messages, a compaction with a checkpoint, edits of a compaction.
    compact_and_check("pi16-system", "100", None);
    // Context edits (replacement and omission), no system message.
    compact_and_check("pi16-edit-example", "1", None);
    // A generated 1.6 session: system prompt, tools, patches, edits.
    compact_and_check("g16-small-s14", "2000", None);
    compact_and_check("g16-branchy-s112", "500", Some("## Goal\nSupplied by hand."));
}

/// Navigates a copy of `fixture` to `to` with an offline branch summary.
fn navigate_and_check(fixture: &str, to: &str) {
    let tmp = TempDir::new();
    let file = tmp.copy_from("pi16", fixture);
    let f = file.to_str().unwrap();
    let at = format!("{fixture} --to {to}");
    let pack = pi16_pack();
    let before_bytes = std::fs::read(&file).unwrap();
    let old_leaf = contextree(&["context", f, "--json", "--dialect", RULES])["leafId"].clone();
    let preview = contextree(&["branch", f, "--json", "--dialect", RULES, "--to", to]);
    let done = contextree(&[
        "navigate",
        f,
        "--dialect",
        RULES,
        "--to",
        to,
        "--summarize",
        "--offline",
        "--yes",
        "--json",
        "--prompts",
        pack.to_str().unwrap(),
    ]);
    let entry = appended(&file, &before_bytes, &at);
    assert_eq!(entry, done["entry"], "{at}");
    let id = entry["id"].as_str().unwrap();
    assert_eq!(keys(&entry), ["type", "id", "parentId", "timestamp", "fromId", "summary", "details", "fromHook"], "{at}: key order");
    assert_eq!(entry["type"], "branch_summary", "{at}");
    assert_eq!(entry["fromId"], old_leaf, "{at}: fromId is the leaf that was left (pi ≥ 0.84.3)");
    assert!(!preview["selectedIds"].as_array().unwrap().is_empty(), "{at}: something to summarize");

    // What contextree promised: the context at the placement (none for a
    // summary before the first entry, a new root, pi-1.6.md §1.5), then the summary.
    let ours = contextree(&["context", f, "--json", "--dialect", RULES]);
    let mut want: Vec<(Value, Value)> = match entry["parentId"].as_str() {
        Some(placement) => messages(&contextree(&["context", f, "--json", "--dialect", RULES, "--leaf", placement]))
            .into_iter()
            .map(|(r, e, _)| (r, e))
            .collect(),
        None => Vec::new(),
    };
    want.push((Value::from("branchSummary"), Value::from(id)));
    let got: Vec<(Value, Value)> = messages(&ours).into_iter().map(|(r, e, _)| (r, e)).collect();
    assert_eq!(got, want, "{at}: contextree's context after navigate");
    let theirs = oracle_impl("pi16", "context", &file, &["--full"]);
    assert_eq!(theirs["leafId"], id, "{at}: the agent's leaf is the new entry");
    assert_eq!(messages(&theirs), messages(&ours), "{at}: the agent's context is contextree's");
    let last = theirs["fullMessages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["summary"], entry["summary"], "{at}: the agent reads our summary");
    assert_eq!(last["fromId"], entry["fromId"], "{at}");
}

#[test]
fn pi16_branch_summaries_are_read_back_by_pi16() {
    oracle_dir(); // fails at once, with the install hint, when the agents are missing
                  // Targets of the golden branch jobs: another branch's leaf, a branch point, a user message.
    navigate_and_check("g16-branchy-s19", "7d748f8f");
    navigate_and_check("g16-branchy-s112", "967d7e4c");
    // A user message at the root: the summary becomes a second root.
    navigate_and_check("pi16-edit-example", "u1");
}

#[test]
fn pi16_dry_run_shows_pi16_prompts() {
    // E05 with K=8 splits the turn with nothing before it (both pi rule sets).
    let pack_dir = pi16_pack();
    let pack = contextree_host::agent::load_pack_from_dir(contextree_core::Dialect::Pi, &pack_dir).unwrap();
    let file = support::repo().join("tests/fixtures/synthetic/E05.jsonl");
    let f = file.to_str().unwrap();
    let plan = contextree(&[
        "compact",
        f,
        "--dialect",
        RULES,
        "--keep-recent",
        "8",
        "--dry-run",
        "--json",
        "--instructions",
        "focus X",
        "--prompts",
        pack_dir.to_str().unwrap(),
    ]);
    assert_eq!(plan["isSplitTurn"], true);
    assert_eq!(plan["historyLiteral"], "No prior history.", "no previous summary: the literal");
    let calls = plan["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1);
    let call = &calls[0];
    assert_eq!(call["kind"], "turnPrefix");
    assert!(call.get("maxTokens").is_none(), "pi 1.6 sends no maxTokens");
    let prefix = plan["turnPrefixIds"].as_array().unwrap();
    let last = prefix.last().unwrap().as_str().unwrap();
    let conv = contextree(&["serialize", f, "--json", "--dialect", RULES, "--leaf", last, "--prompts", pack_dir.to_str().unwrap()]);
    let text = pack.prompt(contextree_core::prompts::PromptId::CompactionTurnPrefix).unwrap();
    let want = format!("# Conversation\n{}\n\n# Instructions\n{text}\n\nAdditional focus: focus X", conv["text"].as_str().unwrap());
    assert_eq!(call["prompt"], want.as_str(), "pi 1.6's turn-prefix layout (pi-1.6.md §4.4)");
    assert_eq!(call["systemPrompt"], pack.prompt(contextree_core::prompts::PromptId::SummarizationSystem).unwrap().as_str());
}

#[test]
fn pi16_summaries_are_asked_of_the_edited_conversation() {
    // pi 1.6 summarizes the projection: a message a `context_edit` replaced goes to the model
    // with its replacement. The oracle's `serializeConversation` of what it would summarize
    // (`cut --full`) is the conversation in contextree's history prompt, edits included.
    let pack_dir = pi16_pack();
    let mut checked = 0;
    for (fixture, keep) in [
        ("g16-small-s7", "2000"),
        ("g16-small-s7", "8000"),
        ("g16-default-s54", "2000"),
        ("g16-branchy-s112", "2000"),
        ("g16-small-s14", "2000"),
    ] {
        let file = support::repo().join(format!("tests/fixtures/pi16/{fixture}.jsonl"));
        let theirs = oracle_impl("pi16", "cut", &file, &["--keep-recent", keep, "--full"]);
        let Some(serialized) = theirs["prepared"]["serialized"].as_str().filter(|s| !s.is_empty()) else { continue };
        let plan = contextree(&[
            "compact",
            file.to_str().unwrap(),
            "--dialect",
            RULES,
            "--keep-recent",
            keep,
            "--dry-run",
            "--json",
            "--prompts",
            pack_dir.to_str().unwrap(),
        ]);
        let history = plan["calls"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["kind"] == "history")
            .unwrap_or_else(|| panic!("{fixture} K={keep}: no history call"));
        assert!(
            history["prompt"].as_str().unwrap().starts_with(&format!("<conversation>\n{serialized}\n</conversation>")),
            "{fixture} K={keep}: the history prompt's conversation is not pi 1.6's"
        );
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} cuts to compare");
}
