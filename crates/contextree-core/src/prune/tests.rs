//! The pruning passes over hand-made sessions (the pruning.md examples) and
//! the rewritten line against what omp 13.19 wrote.

use super::line::TRUNCATION_NOTICE;
use super::*;
use crate::context::{self, Leaf};
use crate::js;
use crate::session::Session;
use crate::RuleSet;

const HEADER: &str = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

fn tool_result(id: &str, parent: &str, tool: &str, chars: usize, pruned: bool) -> String {
    let pruned_at = if pruned { r#","prunedAt":1"# } else { "" };
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"toolResult","toolCallId":"c","toolName":"{tool}","content":[{{"type":"text","text":"{}"}}],"isError":false,"timestamp":1{pruned_at}}}}}"#,
        "x".repeat(chars)
    )
}

fn session(results: &[(&str, &str, usize, bool)]) -> Session {
    let mut lines = vec![HEADER.to_owned(), r#"{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"go","timestamp":1}}"#.to_owned()];
    let mut parent = "u".to_owned();
    for (id, tool, chars, pruned) in results {
        lines.push(tool_result(id, &parent, tool, *chars, *pruned));
        parent = (*id).to_owned();
    }
    Session::parse(lines.join("\n").as_bytes(), Some(crate::RuleSet::Omp13))
}

fn ids(s: &Session, rs: &[&ToolResult]) -> Vec<String> {
    rs.iter().map(|r| s.entry(r.node).id.to_string()).collect()
}

#[test]
fn e13_scaled_configuration() {
    // E13: r1 bash 30, r2 read 30, r3 bash 20, r4 bash 10 (newest last).
    let s = session(&[("r1", "bash", 120, false), ("r2", "read", 120, false), ("r3", "bash", 80, false), ("r4", "bash", 40, false)]);
    let config = PruneConfig { protect_tokens: 30, minimum_savings: 10, ..PruneConfig::default() };
    let plan = plan_prune(&s, Leaf::Last, &config);
    let decisions: Vec<Decision> = plan.tool_results.iter().map(|r| r.decision).collect();
    assert_eq!(decisions, [Decision::Candidate, Decision::ProtectedTool, Decision::Recent, Decision::Recent]);
    assert_eq!(plan.tool_results[0].newer_tokens, 60);
    assert_eq!(ids(&s, &plan.pruned()), ["r1"]);
    assert_eq!((plan.pruned_count(), plan.tokens_saved()), (1, 22));
    assert!(!plan.config.is_agent_default());
    // E13-nosave: a minimum of 25 stops it.
    let nosave = plan_prune(&s, Leaf::Last, &PruneConfig { minimum_savings: 25, ..config });
    assert_eq!((nosave.pruned_count(), nosave.tokens_saved()), (0, 0));
    assert_eq!(nosave.below_minimum_savings(), Some((1, 22)));
}

#[test]
fn e13b_default_configuration() {
    // pruning.md §5: four 25,000-token results, r2 a read.
    let s = session(&[
        ("r1", "bash", 100_000, false),
        ("r2", "read", 100_000, false),
        ("r3", "bash", 100_000, false),
        ("r4", "bash", 100_000, false),
    ]);
    let plan = plan_prune(&s, Leaf::Last, &PruneConfig::default());
    assert_eq!(ids(&s, &plan.pruned()), ["r1"]);
    assert_eq!(plan.tokens_saved(), 24_991);
    assert_eq!(notice(25_000), "[Output truncated - 25000 tokens]");
    assert!(plan.notes().is_empty());
    // 15,000 tokens would save 14,991 < 20,000: nothing changes.
    let small = session(&[
        ("r1", "bash", 60_000, false),
        ("r2", "read", 100_000, false),
        ("r3", "bash", 100_000, false),
        ("r4", "bash", 100_000, false),
    ]);
    let plan = plan_prune(&small, Leaf::Last, &PruneConfig::default());
    assert_eq!((plan.pruned_count(), plan.below_minimum_savings()), (0, Some((1, 14_991))));
}

#[test]
fn the_result_that_crosses_the_window_is_still_protected() {
    // Three 10-token results: with a window of 15 the middle one crosses it
    // (10 < 15 before adding) and stays; with 10 it starts at the limit.
    let s = session(&[("r1", "bash", 40, false), ("r2", "bash", 40, false), ("r3", "bash", 40, false)]);
    let pruned = |protect| {
        let plan = plan_prune(&s, Leaf::Last, &PruneConfig { protect_tokens: protect, minimum_savings: 0, ..PruneConfig::default() });
        ids(&s, &plan.pruned())
    };
    assert_eq!(pruned(15), ["r1"]);
    assert_eq!(pruned(10), ["r1", "r2"]);
}

#[test]
fn already_pruned_results_count_but_are_never_pruned_again() {
    let s = session(&[("r1", "bash", 100, false), ("r2", "bash", 100, true), ("r3", "bash", 8, false)]);
    let plan = plan_prune(&s, Leaf::Last, &PruneConfig { protect_tokens: 2, minimum_savings: 0, ..PruneConfig::default() });
    let decisions: Vec<Decision> = plan.tool_results.iter().map(|r| r.decision).collect();
    assert_eq!(decisions, [Decision::Candidate, Decision::AlreadyPruned, Decision::Recent]);
    assert_eq!(plan.already_pruned().count(), 1);
    assert_eq!(plan.below_minimum_savings(), None);
}

#[test]
fn pi_files_get_the_same_decision_with_a_note() {
    let empty = Session::parse(HEADER.as_bytes(), None);
    assert!(plan_prune(&empty, Leaf::Last, &PruneConfig::default()).tool_results.is_empty());
    let text = [HEADER, &tool_result("r1", "x", "bash", 40, false)].join("\n");
    let pi = plan_prune(&Session::parse(text.as_bytes(), Some(crate::RuleSet::Pi073)), Leaf::Last, &PruneConfig::default());
    assert!(!pi.agent_prunes());
    assert_eq!(pi.notes().len(), 1);
}

#[test]
fn read_supersede_keys() {
    let key = |name: &str, path: &str| read_supersede_key(name, &serde_json::json!({ "path": path }));
    assert_eq!(key("read", "src/a.ts"), Some("src/a.ts".into()));
    assert_eq!(key("read", "src/a.ts:10-20"), Some("src/a.ts\u{0}10-20".into()));
    assert_eq!(key("read", "src/a.ts:1-50:raw"), Some("src/a.ts\u{0}1-50:raw".into()));
    assert_eq!(key("read", "src/a.ts:RAW"), Some("src/a.ts\u{0}RAW".into()));
    assert_eq!(key("read", "skill://x"), None);
    assert_eq!(key("read", "notes.md:https://x"), None);
    assert_eq!(key("read", ""), None);
    assert_eq!(key("edit", "src/a.ts"), None);
    assert_eq!(read_supersede_key("read", &serde_json::json!({"path": 1})), None);
}

/// A v3 omp session: `read` calls of the given paths, each with its result of `chars`.
fn reads(paths: &[(&str, usize)], last_ts: u64) -> Vec<u8> {
    let mut lines = vec![HEADER.to_owned(), r#"{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"go","timestamp":1}}"#.to_owned()];
    let mut parent = "u".to_owned();
    for (k, (path, chars)) in paths.iter().enumerate() {
        let a = format!(
            r#"{{"type":"message","id":"a{k}","parentId":"{parent}","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"c{k}","name":"read","arguments":{{"path":"{path}"}}}}],"stopReason":"toolUse","timestamp":2}}}}"#
        );
        let r = format!(
            r#"{{"type":"message","id":"r{k}","parentId":"a{k}","timestamp":"2026-01-01T00:00:03.000Z","message":{{"role":"toolResult","toolCallId":"c{k}","toolName":"read","content":[{{"type":"text","text":"{}"}}],"isError":false,"timestamp":{last_ts}}}}}"#,
            "x".repeat(*chars)
        );
        lines.extend([a, r]);
        parent = format!("r{k}");
    }
    lines.join("\n").into_bytes()
}

#[test]
fn stale_pass_supersedes_and_respects_the_suffix_limit() {
    let bytes = reads(&[("a.ts", 400), ("a.ts:1-5", 400), ("a.ts", 400), ("b.ts", 40_000), ("b.ts:2-3", 40)], 1000);
    let s = Session::parse(&bytes, Some(RuleSet::Omp18));
    let ctx = context::build(&s, Leaf::Last);
    let plan = plan_stale(&s, &ctx, &StaleConfig::agent(false, 2000.0), &bytes).unwrap();
    // r0 (a.ts, superseded by r2) and r1 (a.ts:1-5, superseded by the bare r2); r3 is not
    // superseded by a later selector read. r0 and r1 have 10,000+ tokens after them.
    let got: Vec<(String, StaleDecision)> = plan.candidates.iter().map(|c| (s.entry(c.node).id.to_string(), c.decision)).collect();
    assert_eq!(got, [("r0".to_owned(), StaleDecision::WarmCache), ("r1".to_owned(), StaleDecision::WarmCache)]);
    assert!(!plan.idle);
    // Cold cache: 90 minutes after the last message, everything goes.
    let cold = plan_stale(&s, &ctx, &StaleConfig::agent(false, 1000.0 + STALE_IDLE_FLUSH_MS as f64), &bytes).unwrap();
    assert!(cold.idle);
    assert_eq!((cold.pruned_count(), cold.tokens_saved()), (2, 2 * (100 - 11)));
    assert_eq!(cold.pruned()[0].notice(), SUPERSEDED_NOTICE);
    // The overflow pass after it sees them as pruned, with the notice's count.
    let after = plan_prune_after(&s, &ctx, &PruneConfig::agent(RuleSet::Omp18), &cold.after());
    assert_eq!(after.already_pruned().map(|r| r.tokens).collect::<Vec<_>>(), [11, 11]);
    // The reachable scan prunes the same and lists only what it can reach.
    let reach = plan_stale_reachable(&s, &ctx, &StaleConfig::agent(false, 2000.0), &bytes).unwrap();
    assert!(reach.candidates.is_empty());
    let cold_reach = plan_stale_reachable(&s, &ctx, &StaleConfig::agent(false, 1000.0 + STALE_IDLE_FLUSH_MS as f64), &bytes).unwrap();
    assert_eq!(cold_reach.pruned(), cold.pruned());
    // Other rule sets have no stale pass.
    let s13 = Session::parse(&bytes, Some(RuleSet::Omp13));
    let ctx13 = context::build(&s13, Leaf::Last);
    assert!(plan_stale(&s13, &ctx13, &StaleConfig::agent(false, 1e13), &bytes).unwrap().candidates.is_empty());
}

#[test]
fn pruned_line_matches_omp_e13() {
    // pruning.md §4, confirmed by running omp 13.19's pruneToolOutputs + rewriteEntries.
    let before = r#"{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"LLLL"}],"isError":false,"timestamp":1767225603000}}"#;
    let after = r#"{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"[Output truncated - 30 tokens]"}],"isError":false,"timestamp":1767225603000,"prunedAt":1796220690963}}"#;
    assert_eq!(pruned_line(before, &notice(30), 1_796_220_690_963).unwrap(), after);
}

#[test]
fn pruned_line_normalises_like_omp() {
    // Odd but valid input, and the exact line omp 13.19 wrote for it: integer
    // keys first, numbers and escapes normalised, `partialJson` dropped,
    // duplicate keys keep their first position with the last value.
    let before = r#"{ "type" : "message", "id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","zz":1.50,"2":"two","message":{"content":[{"type":"image","data":"QUJD","mimeType":"image/png"}],"role":"toolResult","toolCallId":"c1","toolName":"bash","details":{"partialJson":"x","lineCount":3,"note":"caf\u00e9 \/ \ud83d\ude00 \u2028"},"isError":false,"timestamp":1767225603000.0,"10":true,"1":false,"extra":{"b":1,"a":[1e2,-0,0.1]},"toolName":"bash"}}"#;
    let after = "{\"2\":\"two\",\"type\":\"message\",\"id\":\"r1\",\"parentId\":\"a1\",\"timestamp\":\"2026-01-01T00:00:03.000Z\",\"zz\":1.5,\"message\":{\"1\":false,\"10\":true,\"content\":[{\"type\":\"text\",\"text\":\"[Output truncated - 1230 tokens]\"}],\"role\":\"toolResult\",\"toolCallId\":\"c1\",\"toolName\":\"bash\",\"details\":{\"lineCount\":3,\"note\":\"café / 😀 \u{2028}\"},\"isError\":false,\"timestamp\":1767225603000,\"extra\":{\"b\":1,\"a\":[100,0,0.1]},\"prunedAt\":1796220697122}}";
    assert_eq!(pruned_line(before, &notice(1230), 1_796_220_697_122).unwrap(), after);
}

#[test]
fn persistence_transform_cuts_clears_and_recounts() {
    let big = format!("{}😀{}", "Z".repeat(499_952), "Q".repeat(100));
    let mut v = serde_json::json!({"big": big, "thinkingSignature": "S".repeat(500_001), "short": "ok",
        "sub": {"content": "a\nb\nc", "lineCount": 9, "jsonlEvents": [1]}, "sub2": {"content": "a\nb", "lineCount": 9}});
    assert!(persist_transform(&mut v, None));
    let cut = v["big"].as_str().unwrap();
    // The pair straddles the limit: it is dropped whole.
    assert_eq!(js::utf16_len(cut), 499_952 + TRUNCATION_NOTICE.len());
    assert!(cut.ends_with(TRUNCATION_NOTICE) && !cut.contains('😀'));
    assert_eq!(v["thinkingSignature"], "");
    assert_eq!(v["sub"], serde_json::json!({"content": "a\nb\nc", "lineCount": 3}));
    assert_eq!(v["sub2"]["lineCount"], 9, "unchanged objects keep a stale lineCount");
    assert!(pruned_line("[1]", "n", 1).is_err());
}
