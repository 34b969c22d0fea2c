//! The golden `compact` results (fixtures/synthetic/expected/*.json): every
//! summarizer call and the `compact()` result of both agents, rebuilt from the
//! plan with the fixtures' placeholder prompt pack and the stub model's
//! canned answers (examples.md).

use std::path::PathBuf;

use serde_json::Value;

use super::*;
use crate::context::{build, Leaf};
use crate::prompts::PromptPack;
use crate::session::Session;
use crate::Dialect;

/// Per example: keepRecentTokens, the stub's answers (history, turn prefix,
/// short) and omp's `session.compacting` context lines (E06 only).
struct Stub {
    name: &'static str,
    keep_recent: u64,
    history: &'static str,
    turn_prefix: Option<&'static str>,
    short: &'static str,
    omp_context: &'static [&'static str],
}

const STUBS: &[Stub] = &[
    Stub {
        name: "E02",
        keep_recent: 45,
        history: "## Goal\nCreate hello.py.",
        turn_prefix: None,
        short: "I added hello.py and gave it a main guard.",
        omp_context: &[],
    },
    Stub {
        name: "E03",
        keep_recent: 25,
        history: "## Goal\nInspect the tree.",
        turn_prefix: Some("## Original Request\nRename foo to bar."),
        short: "I renamed foo to bar.",
        omp_context: &[],
    },
    Stub {
        name: "E06",
        keep_recent: 30,
        history: "## Goal\nSet up repo and CI.",
        turn_prefix: None,
        short: "I added a lint step.",
        omp_context: &["Branch: feature/ci", "Do not touch Cargo.lock"],
    },
    Stub { name: "E07a", keep_recent: 20_000, history: "Nothing.", turn_prefix: None, short: "", omp_context: &[] },
    Stub { name: "E17", keep_recent: 5, history: "## Goal\nPort to Rust.", turn_prefix: None, short: "I ported main.", omp_context: &[] },
];

fn fixtures() -> PathBuf {
    contextree_testkit::repo().join("tests/fixtures/synthetic")
}

/// Every expected file that has `compact.calls`, as (example, dialect, document).
fn golden_cases() -> Vec<(String, Dialect, Value)> {
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(fixtures().join("expected")).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    for path in paths {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(stem) = file.strip_suffix(".json") else { continue };
        let (name, impl_) = stem.rsplit_once('.').unwrap();
        let dialect = match impl_ {
            "pi" => Dialect::Pi,
            "omp" => Dialect::Omp,
            _ => continue,
        };
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        if doc.pointer("/compact/calls").is_some() {
            out.push((name.to_owned(), dialect, doc));
        }
    }
    out
}

struct Run {
    session: Session,
    plan: CompactionPlan,
    requests: SummaryRequests,
    hook: CompactingHook,
}

fn run(stub: &Stub, dialect: Dialect, bytes: Vec<u8>) -> Run {
    let session = Session::parse(&bytes, Some(crate::RuleSet::oldest(dialect)));
    let ctx = build(&session, Leaf::Last);
    let settings = CompactionSettings { keep_recent_tokens: stub.keep_recent, ..Default::default() };
    let plan = plan(&session, &ctx, &settings, &bytes).unwrap();
    let hook = CompactingHook { context: stub.omp_context.iter().map(|s| s.to_string()).collect(), ..Default::default() };
    let opts = PromptOptions { hook: hook.clone(), ..Default::default() };
    let requests = summary_requests(&session, &plan, &bytes, &PromptPack::placeholders(dialect), &opts).unwrap();
    Run { session, plan, requests, hook }
}

fn answers(stub: &Stub, dialect: Dialect) -> Answers {
    Answers {
        history: Some(stub.history.to_owned()),
        turn_prefix: stub.turn_prefix.map(str::to_owned),
        short: (dialect == Dialect::Omp).then(|| stub.short.to_owned()),
    }
}

#[test]
fn calls_and_results_match_the_agents() {
    let cases = golden_cases();
    assert!(cases.len() >= 9, "expected files with compact.calls: {}", cases.len());
    let mut failures = Vec::new();
    for (name, dialect, doc) in cases {
        let expected = &doc["compact"];
        let stub = STUBS.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("{name}: add the stub's answers to STUBS"));
        let bytes = std::fs::read(fixtures().join(format!("{name}.jsonl"))).unwrap();
        let r = run(stub, dialect, bytes.clone());
        let a = answers(stub, dialect);

        let calls: Vec<Value> =
            r.requests.all_calls(a.history.as_deref(), a.turn_prefix.as_deref()).iter().map(SummarizerCall::to_json).collect();
        if Value::Array(calls.clone()) != expected["calls"] {
            failures.push(format!("{name}.{dialect} calls:\n  got      {}\n  expected {}", Value::Array(calls), expected["calls"]));
        }

        // The conversation an offline summarizer reads is the one the golden
        // `prepare.serialized` holds.
        if let HistoryStep::Call(c) = &r.requests.history {
            assert_eq!(Some(c.conversation()), doc.pointer("/prepare/serialized").and_then(Value::as_str), "{name}.{dialect}");
        }

        let result = compaction_result(&r.session, &r.plan, &r.requests, &a, &r.hook).unwrap();
        let entry = entry::entry_value(&result, "deadbeef", Some("leaf"), "2026-01-01T00:10:00.000Z");
        let want = &expected["result"];
        for key in ["summary", "shortSummary", "firstKeptEntryId", "tokensBefore", "details"] {
            if entry.get(key) != want.get(key) {
                failures.push(format!("{name}.{dialect} result.{key}: got {:?}, expected {:?}", entry.get(key), want.get(key)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn entry_lines_follow_each_agents_key_order() {
    let stub = &STUBS[0];
    let bytes = std::fs::read(fixtures().join("E02.jsonl")).unwrap();
    let mut lines = Vec::new();
    for dialect in Dialect::ALL {
        let r = run(stub, dialect, bytes.clone());
        let result = compaction_result(&r.session, &r.plan, &r.requests, &answers(stub, dialect), &r.hook).unwrap();
        let mut draws = [0xa4u32, 0xdeadbeef].into_iter();
        // The first draw collides with nothing here; "000000a4" is taken as is.
        let e = new_entry(&r.session, &r.plan, &result, "2026-01-01T00:10:00.000Z", &mut || draws.next().unwrap());
        assert_eq!(e.id, "000000a4");
        assert_eq!(e.parent_id.as_deref(), Some("a4"));
        lines.push(e.line);
    }
    let common = r###""summary":"## Goal\nCreate hello.py.\n\n<modified-files>\nhello.py\n</modified-files>""###;
    assert_eq!(
        lines[0],
        format!(
            r#"{{"type":"compaction","id":"000000a4","parentId":"a4","timestamp":"2026-01-01T00:10:00.000Z",{common},"firstKeptEntryId":"u2","tokensBefore":0,"details":{{"readFiles":[],"modifiedFiles":["hello.py"]}},"fromHook":false}}"#
        )
    );
    assert_eq!(
        lines[1],
        format!(
            r#"{{"type":"compaction","id":"000000a4","parentId":"a4","timestamp":"2026-01-01T00:10:00.000Z",{common},"shortSummary":"I added hello.py and gave it a main guard.","firstKeptEntryId":"u2","tokensBefore":0,"details":{{"readFiles":[],"modifiedFiles":["hello.py"]}},"fromExtension":false,"preserveData":{{}}}}"#
        )
    );
}

#[test]
fn colliding_ids_are_redrawn() {
    let bytes = std::fs::read(fixtures().join("E02.jsonl")).unwrap();
    let session = Session::parse(&bytes, Some(crate::RuleSet::Pi073));
    // "u2" cannot collide with 8 hex digits; make a session whose id is hex.
    let line = String::from_utf8(bytes).unwrap().replace("\"u1\"", "\"0000000a\"");
    let hexy = Session::parse(line.as_bytes(), Some(crate::RuleSet::Pi073));
    let mut draws = [10u32, 11].into_iter();
    assert_eq!(entry::new_entry_id(&hexy, &mut || draws.next().unwrap()), "0000000b");
    let mut same = || 10u32;
    assert_eq!(entry::new_entry_id(&session, &mut same), "0000000a");
    // 100 collisions: the agents fall back to a longer id.
    assert_eq!(entry::new_entry_id(&hexy, &mut same), "0000000a0000000a");
}

#[test]
fn split_turn_without_history_uses_the_literal() {
    // E04: the whole history is the split turn's prefix.
    let bytes = std::fs::read(fixtures().join("E04.jsonl")).unwrap();
    for dialect in Dialect::ALL {
        let stub = Stub {
            name: "E04",
            keep_recent: 20,
            history: "unused",
            turn_prefix: Some("## Original Request\nShow the log."),
            short: "s",
            omp_context: &[],
        };
        let r = run(&stub, dialect, bytes.clone());
        assert_eq!(r.requests.history, HistoryStep::Literal("No prior history.".into()));
        let calls = r.requests.all_calls(None, stub.turn_prefix);
        assert_eq!(calls[0].kind, CallKind::TurnPrefix);
        assert_eq!(calls.len(), if dialect == Dialect::Omp { 2 } else { 1 });
        let a = Answers { history: None, turn_prefix: stub.turn_prefix.map(str::to_owned), short: Some("s".into()) };
        let result = compaction_result(&r.session, &r.plan, &r.requests, &a, &r.hook).unwrap();
        assert!(
            result.summary.starts_with("No prior history.\n\n---\n\n**Turn Context (split turn):**\n\n## Original Request\nShow the log."),
            "{}",
            result.summary
        );
    }
}

#[test]
fn custom_instructions_and_hook_prompt() {
    let bytes = std::fs::read(fixtures().join("E02.jsonl")).unwrap();
    for dialect in Dialect::ALL {
        let session = Session::parse(&bytes, Some(crate::RuleSet::oldest(dialect)));
        let ctx = build(&session, Leaf::Last);
        let plan = plan(&session, &ctx, &CompactionSettings { keep_recent_tokens: 45, reserve_tokens: 1000, ..Default::default() }, &bytes)
            .unwrap();
        let opts = PromptOptions {
            custom_instructions: Some("keep the paths".into()),
            hook: CompactingHook { prompt: Some("OVERRIDE".into()), context: vec!["ctx".into()], preserve_data: None },
            pi_reasoning: Some("medium".into()),
            summary_model: None,
        };
        let req = summary_requests(&session, &plan, &bytes, &PromptPack::placeholders(dialect), &opts).unwrap();
        let calls = req.all_calls(Some("H"), None);
        let history = &calls[0];
        assert_eq!(history.max_tokens, 800);
        match dialect {
            // pi has no session.compacting hook; reasoning is the given level.
            Dialect::Pi => {
                assert!(
                    history.prompt.ends_with("\n</conversation>\n\n<<pi:SUMMARIZATION_PROMPT>>\n\nAdditional focus: keep the paths"),
                    "{}",
                    history.prompt
                );
                assert_eq!(history.reasoning.as_deref(), Some("medium"));
                assert_eq!(calls.len(), 1);
            }
            Dialect::Omp => {
                assert!(history.prompt.ends_with("\n</conversation>\n\n<additional-context>\n- ctx\n</additional-context>\n\nOVERRIDE\n\nAdditional focus: keep the paths"), "{}", history.prompt);
                assert_eq!(history.reasoning.as_deref(), Some("high"));
                let short = &calls[1];
                assert_eq!(short.max_tokens, 200);
                // The short prompt keeps its own instructions and gets the context lines.
                assert!(short.prompt.ends_with("<previous-summary>\nH\n</previous-summary>\n\n<additional-context>\n- ctx\n</additional-context>\n\n<<omp:compaction/compaction-short-summary.md>>"), "{}", short.prompt);
            }
        }
    }
    assert_eq!(prompt::pi_reasoning(true, &Value::from("off")), None);
    assert_eq!(prompt::pi_reasoning(false, &Value::from("high")), None);
    assert_eq!(prompt::pi_reasoning(true, &Value::from("high")).as_deref(), Some("high"));
}

#[test]
fn supplied_summaries_are_marked_and_untagged() {
    let bytes = std::fs::read(fixtures().join("E17.jsonl")).unwrap();
    for dialect in Dialect::ALL {
        let session = Session::parse(&bytes, Some(crate::RuleSet::oldest(dialect)));
        let ctx = build(&session, Leaf::Last);
        let plan = plan(&session, &ctx, &CompactionSettings { keep_recent_tokens: 5, ..Default::default() }, &bytes).unwrap();
        let supplied = SuppliedCompaction { summary: "Mine.".into(), short_summary: Some("Short.".into()), ..Default::default() };
        let result = supplied_result(&session, &plan, &supplied).unwrap();
        let line = entry_line(&result, "0badf00d", Some("a4"), "T");
        let expected = match dialect {
            Dialect::Pi => {
                r#"{"type":"compaction","id":"0badf00d","parentId":"a4","timestamp":"T","summary":"Mine.","firstKeptEntryId":"u3","tokensBefore":0,"fromHook":true}"#
            }
            Dialect::Omp => {
                r#"{"type":"compaction","id":"0badf00d","parentId":"a4","timestamp":"T","summary":"Mine.","shortSummary":"Short.","firstKeptEntryId":"u3","tokensBefore":0,"fromExtension":true}"#
            }
        };
        assert_eq!(line, expected);
        // A hook's details and preserveData are stored byte for byte as JSON.stringify writes
        // them; details nested deeper than JSON is read back are an error, not a panic.
        let given = |text: &str| Some(crate::RawJson::from_text(text).unwrap());
        let supplied = SuppliedCompaction {
            summary: "Mine.".into(),
            details: given(r#"{"z":1,"a":[1.5,"\u00e9",null],"n":1e21}"#),
            preserve_data: given(r#"{"k":{"deep":true}}"#),
            ..Default::default()
        };
        let line = entry_line(&supplied_result(&session, &plan, &supplied).unwrap(), "0badf00d", Some("a4"), "T");
        assert!(line.contains(r#""details":{"z":1,"a":[1.5,"é",null],"n":1e+21}"#), "{line}");
        assert_eq!(line.contains(r#""preserveData":{"k":{"deep":true}}"#), dialect == Dialect::Omp, "{line}");
        let deep = (0..200).fold(Value::Null, |v, _| Value::Array(vec![v]));
        let supplied = SuppliedCompaction {
            summary: "Mine.".into(),
            details: Some(crate::RawJson::from_serialize(&deep).unwrap()),
            ..Default::default()
        };
        assert!(matches!(supplied_result(&session, &plan, &supplied), Err(EntryError::HookJson { field: "details", .. })));
    }
    // Nothing to compact: refused before any hook, as the agents do.
    let e07b = std::fs::read(fixtures().join("E07b.jsonl")).unwrap();
    let session = Session::parse(&e07b, Some(crate::RuleSet::Pi073));
    let plan = plan(&session, &build(&session, Leaf::Last), &CompactionSettings::default(), &e07b).unwrap();
    assert_eq!(
        supplied_result(&session, &plan, &SuppliedCompaction::default()),
        Err(EntryError::Nothing(NothingToCompact::AlreadyCompacted))
    );
}

#[test]
fn omp_file_tags() {
    use entry::tagged_summary;
    let lists = |r: &[&str], m: &[&str]| FileLists {
        read_files: r.iter().map(|s| s.to_string()).collect(),
        modified_files: m.iter().map(|s| s.to_string()).collect(),
    };
    // Existing tags are replaced and the base is right-trimmed even without new tags.
    assert_eq!(
        tagged_summary(
            Dialect::Omp,
            "S  \n\n<read-files>\nold\n</read-files>\n\n<modified-files>\nx\n</modified-files>\n",
            &lists(&[], &[])
        ),
        "S"
    );
    assert_eq!(tagged_summary(Dialect::Pi, "S  \n", &lists(&[], &[])), "S  \n");
    // Only tags when the summary is empty.
    assert_eq!(tagged_summary(Dialect::Omp, "", &lists(&["a"], &[])), "<read-files>\na\n</read-files>");
    // Over 20 entries: the first 20 and an omission line.
    let many: Vec<String> = (0..23).map(|i| format!("f{i:02}")).collect();
    let many_refs: Vec<&str> = many.iter().map(String::as_str).collect();
    let tagged = tagged_summary(Dialect::Omp, "S", &lists(&[], &many_refs));
    assert!(tagged.ends_with("f18\\nf19\\n\u{2026} (3 more files omitted)\n</modified-files>"), "{tagged}");
    assert!(!tagged.contains("f20"));
    // An unclosed tag is left alone.
    assert_eq!(tagged_summary(Dialect::Omp, "S <read-files> x", &lists(&[], &[])), "S <read-files> x");
    // Printed by omp 13.19's own `upsertFileOperations` (under Bun): the xml
    // helper trims the joined list, a list trimmed to nothing loses its tag.
    assert_eq!(
        tagged_summary(Dialect::Omp, "S", &lists(&[" a ", "b  "], &["| x | y |", "  "])),
        "S\n\n<read-files>\na \\nb\n</read-files><modified-files>\n| x | y |\\n\n</modified-files>"
    );
    assert_eq!(tagged_summary(Dialect::Omp, "S", &lists(&["  "], &["m"])), "S\n\n<modified-files>\nm\n</modified-files>");
    assert_eq!(
        tagged_summary(Dialect::Omp, "A\n\n- b\n\n\n", &lists(&["r"], &["m"])),
        "A\n\n- b\n\n<read-files>\nr\n</read-files><modified-files>\nm\n</modified-files>"
    );
}

#[test]
fn omp_preserve_data_is_carried_without_the_native_key() {
    let base = std::fs::read_to_string(fixtures().join("E06.jsonl")).unwrap();
    let with = |pd: &str| {
        base.replace(
            r#""details":{"readFiles":["README.md"],"modifiedFiles":["Cargo.toml"]}}"#,
            &format!(r#""details":{{"readFiles":["README.md"],"modifiedFiles":["Cargo.toml"]}},"preserveData":{pd}}}"#),
        )
    };
    let stub = &STUBS[2];
    let cases = [
        (r#"{"openaiRemoteCompaction":{"x":1},"keep":2}"#, Ok(r#"{"hook":true,"keep":2}"#)),
        (r#"{"openaiRemoteCompaction":{"x":1}}"#, Ok(r#"{"hook":true}"#)),
        (r#"{"2":"b","a":1}"#, Ok(r#"{"2":"b","hook":true,"a":1}"#)),
        ("0", Ok(r#"{"hook":true}"#)),
        ("7", Err(())),
    ];
    for (pd, want) in cases {
        let text = with(pd);
        assert!(text.contains("preserveData"));
        let mut r = run(stub, Dialect::Omp, text.into_bytes());
        r.hook.preserve_data = Some(crate::RawJson::from_serialize(&serde_json::json!({"hook": true})).unwrap());
        let got = compaction_result(&r.session, &r.plan, &r.requests, &answers(stub, Dialect::Omp), &r.hook);
        match (got, want) {
            (Ok(res), Ok(w)) => assert_eq!(crate::js::stringify(res.preserve_data.as_ref().unwrap()), w, "{pd}"),
            (Err(EntryError::BadPreserveData(_)), Err(())) => {}
            (got, want) => panic!("{pd}: {got:?} vs {want:?}"),
        }
    }
}

#[test]
fn preview_bounds_the_size_after() {
    let bytes = std::fs::read(fixtures().join("E03.jsonl")).unwrap();
    for dialect in Dialect::ALL {
        let r = run(&STUBS[1], dialect, bytes.clone());
        let p = preview::preview(&r.session, &r.plan, &r.requests).unwrap();
        // Kept a4 14 + r4 4 + a5 5; summary: 13107 + 8192 + the separator and
        // the tags one blank line after the summary (both dialects here).
        assert_eq!(p.kept_tokens, 23);
        let fixed = prompt::SPLIT_TURN_SEPARATOR.len() + "\n\n<modified-files>\nsrc/a.ts\n</modified-files>".len();
        assert_eq!(p.summary_budget, 13107 + 8192 + (fixed as u64).div_ceil(4));
        assert_eq!(p.estimated_tokens_after, p.kept_tokens + p.summary_budget);
        assert_eq!((p.messages_summarized, p.turn_prefix_messages, p.messages_kept), (9, 7, 3));
        assert_eq!(p.calls.len(), if dialect == Dialect::Omp { 3 } else { 2 });
        if dialect == Dialect::Omp {
            assert!(p.calls[2].prompt.contains(preview::SHORT_PREVIEW_MARKER));
        }
    }
}
