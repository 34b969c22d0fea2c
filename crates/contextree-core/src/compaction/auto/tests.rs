//! The check end to end over hand-made sessions, one per rule set's path,
//! and the overflow patterns against tests/golden-overflow.

use serde_json::{json, Value};

use super::*;
use crate::compaction::settings::{CompactionSettings, Method, Strategy};
use crate::context::{build, Leaf};
use crate::session::{Session, Usage};
use crate::{Dialect, RuleSet};

const T0: u64 = 1_767_225_600_000;
const MODEL: (&str, &str) = ("anthropic", "claude-sonnet-4-5");

/// A hand-made session: one line per entry, each a second after the last.
struct B {
    lines: Vec<String>,
    last: Option<String>,
    second: u64,
}

fn iso(ms: u64) -> String {
    let s = (ms - T0) / 1000;
    format!("2026-01-01T{:02}:{:02}:{:02}.000Z", s / 3600, s / 60 % 60, s % 60)
}

impl B {
    fn new() -> B {
        let header = json!({"type":"session","version":3,"id":"s","timestamp":iso(T0),"cwd":"/p"});
        B { lines: vec![header.to_string()], last: None, second: 0 }
    }
    fn push(&mut self, id: &str, mut v: Value) -> u64 {
        self.second += 10;
        let ms = T0 + self.second * 1000;
        v["id"] = id.into();
        v["parentId"] = self.last.clone().map_or(Value::Null, Value::from);
        v["timestamp"] = iso(ms).into();
        self.lines.push(v.to_string());
        self.last = Some(id.into());
        ms
    }
    fn user(mut self, id: &str) -> B {
        let ms = T0 + (self.second + 10) * 1000;
        self.push(id, json!({"type":"message","message":{"role":"user","content":"go","timestamp":ms}}));
        self
    }
    /// An assistant message; `ts_shift` moves its message timestamp
    /// (ms) relative to its entry timestamp.
    fn asst_at(mut self, id: &str, stop: &str, usage: [u64; 4], total: u64, error: Option<&str>, ts_shift: i64) -> B {
        let ms = (T0 + (self.second + 10) * 1000) as i64 + ts_shift;
        let mut m = json!({"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":MODEL.0,"model":MODEL.1,"stopReason":stop,
            "usage":{"input":usage[0],"output":usage[1],"cacheRead":usage[2],"cacheWrite":usage[3],"totalTokens":total},"timestamp":ms});
        if let Some(e) = error {
            m["errorMessage"] = e.into();
        }
        self.push(id, json!({"type":"message","message":m}));
        self
    }
    fn asst(self, id: &str, stop: &str, total: u64) -> B {
        self.asst_at(id, stop, [total, 0, 0, 0], total, None, 0)
    }
    fn error(self, id: &str, message: &str) -> B {
        self.asst_at(id, "error", [0; 4], 0, Some(message), 0)
    }
    fn tool(mut self, id: &str, name: &str, chars: usize) -> B {
        let ms = T0 + (self.second + 10) * 1000;
        self.push(id, json!({"type":"message","message":{"role":"toolResult","toolCallId":id,"toolName":name,"content":[{"type":"text","text":"x".repeat(chars)}],"isError":false,"timestamp":ms}}));
        self
    }
    fn compaction(mut self, id: &str, first_kept: &str) -> B {
        self.push(id, json!({"type":"compaction","summary":"s","firstKeptEntryId":first_kept,"tokensBefore":1}));
        self
    }
    fn bytes(&self) -> Vec<u8> {
        (self.lines.join("\n") + "\n").into_bytes()
    }
}

fn check_with(b: &B, dialect: Dialect, settings: &CompactionSettings, window: u64, model: Option<(&str, &str)>) -> AutoCheck {
    let bytes = b.bytes();
    let session = Session::parse(&bytes, Some(crate::RuleSet::oldest(dialect)));
    let ctx = build(&session, Leaf::Last);
    auto_check(&session, &ctx, settings, window, model, &bytes).unwrap()
}

fn check(b: &B, dialect: Dialect) -> AutoCheck {
    check_with(b, dialect, &CompactionSettings::default(), 200_000, Some(MODEL))
}

const OVERFLOW: &str = "prompt is too long: 213462 tokens > 200000 maximum";

#[test]
fn golden_overflow_patterns() {
    let file = contextree_testkit::repo().join("tests/golden-overflow/overflow.json");
    let rows: Vec<Value> = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    assert!(rows.len() > 50);
    for row in rows {
        let m = row["message"].as_str().unwrap();
        assert_eq!(overflow_pattern(Dialect::Pi, m).is_some(), row["pi"].as_bool().unwrap(), "pi: {m:?}");
        assert_eq!(overflow_pattern(Dialect::Omp, m).is_some(), row["omp"].as_bool().unwrap(), "omp: {m:?}");
    }
}

fn check16(b: &B, inputs: &CheckInputs) -> AutoCheck {
    let bytes = b.bytes();
    let session = Session::parse(&bytes, Some(RuleSet::Pi16));
    let ctx = build(&session, Leaf::Last);
    auto_check_with(&session, &ctx, &CompactionSettings::default(), 200_000, Some(MODEL), inputs, &bytes).unwrap()
}

#[test]
fn pi16_stop_overflow_and_recoverable_length() {
    let none = CheckInputs::default();
    // A successful reply whose usage overflowed: compact, no retry (0.73: retry).
    let b = B::new().user("u1").asst_at("a1", "stop", [150_000, 10, 60_000, 0], 0, None, 0);
    let c = check16(&b, &none);
    assert_eq!((c.decision, c.will_retry), (AutoDecision::Overflow, false));
    assert!(check(&b, Dialect::Pi).will_retry);
    // A second one right after is not blocked by the one-recovery flag.
    let c = check16(&b.asst_at("a2", "stop", [150_000, 10, 60_000, 0], 0, None, 0), &none);
    assert_eq!((c.decision, c.will_retry), (AutoDecision::Overflow, false));
    // A length stop below the model's output limit: compact and retry, once.
    let len = B::new().user("u1").asst_at("a1", "length", [1000, 500, 0, 0], 1500, None, 0);
    let limit = CheckInputs { max_output_tokens: Some(32_000), ..none };
    let c = check16(&len, &limit);
    assert_eq!((c.decision, c.will_retry), (AutoDecision::Overflow, true));
    let len2 = B::new().user("u1").asst_at("a1", "length", [1000, 500, 0, 0], 1500, None, 0);
    let again = len2.compaction("c1", "u1").asst_at("a2", "length", [1000, 500, 0, 0], 1500, None, 0);
    assert_eq!(check16(&again, &limit).skipped, Some(Skip::RecoveryAlreadyAttempted));
    // At the limit, or with the limit unknown: the threshold path.
    let c = check16(&B::new().user("u1").asst_at("a1", "length", [1000, 32_000, 0, 0], 33_000, None, 0), &limit);
    assert_eq!((c.decision, c.skipped), (AutoDecision::None, None));
    let c = check16(&len, &none);
    assert_eq!(c.decision, AutoDecision::None);
    assert!(c.notes.iter().any(|n| n.contains("maxTokens")));
    // A context edit after an overflowed reply: its usage no longer counts.
    let mut b = B::new().user("u1").asst_at("a1", "stop", [150_000, 10, 60_000, 0], 0, None, 0);
    b.push("e1", json!({"type":"context_edit","targetId":"u1","replacement":{"content":"hello"}}));
    let c = check16(&b, &none);
    assert!(c.overflow.is_none() && c.decision != AutoDecision::Overflow);
    // pi 1.6's own patterns.
    let c = check16(&B::new().user("u1").asst("a0", "stop", 10).error("a1", "Prompt exceeds max length"), &none);
    assert_eq!(c.decision, AutoDecision::Overflow);
}

#[test]
fn golden_overflow_patterns_pi16() {
    let file = contextree_testkit::repo().join("tests/golden-overflow/overflow.json");
    let rows: Vec<Value> = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    for row in rows {
        let m = row["message"].as_str().unwrap();
        assert_eq!(pi16_overflow_pattern(m, None).is_some(), row["pi16"].as_bool().unwrap(), "pi16: {m:?}");
    }
    assert!(pi16_overflow_pattern("413 status code (no body)", Some("cerebras")).is_some());
    assert!(pi16_overflow_pattern("400 status code (no body)", Some("openai")).is_none());
}

#[test]
fn usage_overflow_rules() {
    let u = |input: f64, output: f64, cache_read: f64, cache_write: f64| {
        Some(Usage { input, output, cache_read, cache_write, total_tokens: 0.0 })
    };
    // omp: input + cacheRead + cacheWrite, any stop reason.
    assert!(context_overflow(Dialect::Omp, Some("toolUse"), None, u(100.0, 0.0, 50.0, 51.0), 200).is_some());
    assert!(context_overflow(Dialect::Omp, Some("stop"), None, u(100.0, 0.0, 50.0, 50.0), 200).is_none());
    assert!(context_overflow(Dialect::Omp, Some("stop"), None, u(1e9, 0.0, 0.0, 0.0), 0).is_none());
    // pi: input + cacheRead for `stop`; cacheWrite ignored; not for toolUse.
    assert!(context_overflow(Dialect::Pi, Some("stop"), None, u(150.0, 0.0, 51.0, 0.0), 200).is_some());
    assert!(context_overflow(Dialect::Pi, Some("stop"), None, u(150.0, 0.0, 0.0, 500.0), 200).is_none());
    assert!(context_overflow(Dialect::Pi, Some("toolUse"), None, u(500.0, 0.0, 0.0, 0.0), 200).is_none());
    // pi: `length` with zero output at ≥ 99 % of the window.
    assert!(context_overflow(Dialect::Pi, Some("length"), None, u(198.0, 0.0, 0.0, 0.0), 200).is_some());
    assert!(context_overflow(Dialect::Pi, Some("length"), None, u(197.0, 0.0, 0.0, 0.0), 200).is_none());
    assert!(context_overflow(Dialect::Pi, Some("length"), None, u(200.0, 1.0, 0.0, 0.0), 200).is_none());
    // Error patterns only for `error`.
    assert!(context_overflow(Dialect::Pi, Some("stop"), Some(OVERFLOW), u(0.0, 0.0, 0.0, 0.0), 200).is_none());
    assert_eq!(
        context_overflow(Dialect::Omp, Some("error"), Some(OVERFLOW), None, 0),
        Some(Overflow::ErrorMessage { pattern: "/prompt is too long/i" })
    );
}

#[test]
fn no_assistant_and_aborted() {
    for d in [Dialect::Pi, Dialect::Omp] {
        let c = check(&B::new().user("u1"), d);
        assert_eq!((c.decision, c.skipped), (AutoDecision::None, Some(Skip::NoAssistant)));
        let c = check(&B::new().user("u1").asst("a1", "aborted", 199_000), d);
        assert_eq!(c.skipped, Some(Skip::Aborted), "{d}");
    }
}

#[test]
fn pi_threshold() {
    let c = check(&B::new().user("u1").asst("a1", "stop", 183_617), Dialect::Pi);
    assert_eq!((c.decision, c.skipped, c.context_tokens, c.threshold), (AutoDecision::Threshold, None, Some(183_617.0), Some(183_616.0)));
    assert!(!c.will_retry);
    let c = check(&B::new().user("u1").asst("a1", "stop", 183_616), Dialect::Pi);
    assert_eq!((c.decision, c.skipped), (AutoDecision::None, None));
}

#[test]
fn pi16_threshold_inputs() {
    let pi16 = |b: &B| {
        let bytes = b.bytes();
        let session = Session::parse(&bytes, Some(crate::RuleSet::Pi16));
        let ctx = build(&session, Leaf::Last);
        auto_check(&session, &ctx, &CompactionSettings::default(), 200_000, Some(MODEL), &bytes).unwrap()
    };
    // The assistant's own usage, as in pi 0.73.
    let c = pi16(&B::new().user("u1").asst("a1", "stop", 183_617));
    assert_eq!((c.decision, c.context_tokens), (AutoDecision::Threshold, Some(183_617.0)));
    // A context edit: the projected estimate, which distrusts that usage (§3.3).
    let mut b = B::new().user("u1").asst("a1", "stop", 183_617);
    b.push("e1", json!({"type":"context_edit","targetId":"u1","replacement":{"content":"hello"}}));
    let c = pi16(&b);
    assert_eq!((c.decision, c.context_tokens), (AutoDecision::None, Some(3.0)));
    // All-zero usage: the estimate (pi 0.73 compared 0); no usage anywhere is not a skip.
    let c = pi16(&B::new().user("u1").asst("a1", "stop", 0));
    assert_eq!((c.decision, c.skipped, c.context_tokens), (AutoDecision::None, None, Some(2.0)));
    let c = check(&B::new().user("u1").asst("a1", "stop", 0), Dialect::Pi);
    assert_eq!(c.context_tokens, Some(0.0));
}

#[test]
fn pi_disabled_stops_overflow_too() {
    let s = CompactionSettings { enabled: false, ..Default::default() };
    let c = check_with(&B::new().user("u1").error("a1", OVERFLOW), Dialect::Pi, &s, 200_000, Some(MODEL));
    assert_eq!((c.decision, c.skipped), (AutoDecision::None, Some(Skip::Disabled)));
    assert!(c.overflow.is_some());
}

#[test]
fn pi_overflow_and_one_recovery() {
    let b = B::new().user("u1").asst("a0", "stop", 1000).error("a1", OVERFLOW);
    let c = check(&b, Dialect::Pi);
    assert_eq!((c.decision, c.will_retry), (AutoDecision::Overflow, true));
    // Compacted, retried, overflowed again: recovery already attempted.
    let b = b.compaction("c1", "a1").error("a2", OVERFLOW);
    let c = check(&b, Dialect::Pi);
    assert_eq!((c.decision, c.skipped), (AutoDecision::None, Some(Skip::RecoveryAlreadyAttempted)));
    // A new user prompt resets it.
    let c = check(&b.user("u2").error("a3", OVERFLOW), Dialect::Pi);
    assert_eq!(c.decision, AutoDecision::Overflow);
}

#[test]
fn pi_silent_overflow() {
    let c = check(&B::new().user("u1").asst_at("a1", "stop", [150_000, 10, 60_000, 0], 0, None, 0), Dialect::Pi);
    assert_eq!(c.decision, AutoDecision::Overflow);
    assert!(matches!(c.overflow, Some(Overflow::Usage { input_tokens, .. }) if input_tokens == 210_000.0));
}

#[test]
fn pi_other_model_error_goes_to_threshold() {
    // Another model's overflow: the error branch estimates from the last usable usage.
    let b = B::new().user("u1").asst("a0", "stop", 190_000).error("a1", OVERFLOW);
    let c = check_with(&b, Dialect::Pi, &CompactionSettings::default(), 200_000, Some(("openai", "gpt-5")));
    assert!(!c.same_model && c.overflow.is_some());
    assert_eq!(c.decision, AutoDecision::Threshold);
    // 190000 + the error message's own estimate ("ok" → 1 token).
    assert_eq!(c.context_tokens, Some(190_001.0));
}

#[test]
fn pi_error_without_overflow() {
    // Throttling is excluded from overflow by pi.
    let b = B::new().user("u1").asst("a0", "stop", 1000).error("a1", "Rate limit reached: too many tokens per minute");
    let c = check(&b, Dialect::Pi);
    assert!(c.overflow.is_none());
    assert_eq!((c.decision, c.skipped, c.context_tokens), (AutoDecision::None, None, Some(1001.0)));
    // No usable usage at all.
    let c = check(&B::new().user("u1").error("a1", "overloaded_error"), Dialect::Pi);
    assert_eq!(c.skipped, Some(Skip::NoUsage));
    // The usable usage predates the latest compaction.
    let b = B::new().user("u1").asst("a0", "stop", 190_000).compaction("c1", "u1").error("a1", "overloaded_error");
    let c = check(&b, Dialect::Pi);
    assert_eq!(c.skipped, Some(Skip::StaleUsage));
}

#[test]
fn stale_rules_differ() {
    // A's message timestamp equals the compaction's: pi stale (≤), omp not (<).
    let b = B::new().user("u1").asst("a0", "stop", 100).compaction("c1", "u1");
    let b = b.asst_at("a1", "error", [0; 4], 0, Some(OVERFLOW), -10_000);
    let c = check(&b, Dialect::Pi);
    assert_eq!((c.stale, c.skipped), (true, Some(Skip::Stale)));
    let c = check(&b, Dialect::Omp);
    assert_eq!((c.stale, c.decision), (false, AutoDecision::Overflow));
    // One ms earlier: stale for omp too; an error, so no threshold test.
    let b = B::new().user("u1").asst("a0", "stop", 100).compaction("c1", "u1");
    let b = b.asst_at("a1", "error", [0; 4], 0, Some(OVERFLOW), -10_001);
    let c = check(&b, Dialect::Omp);
    assert_eq!((c.stale, c.skipped), (true, Some(Skip::ErrorWithoutOverflow)));
}

#[test]
fn omp_overflow_paths() {
    let b = B::new().user("u1").error("a1", "413 Request Entity Too Large");
    let c = check(&b, Dialect::Omp);
    assert_eq!((c.decision, c.will_retry, c.context_promotion), (AutoDecision::Overflow, true, true));
    // pi does not know this pattern: an error without usage.
    assert_eq!(check(&b, Dialect::Pi).skipped, Some(Skip::NoUsage));
    let off = CompactionSettings { strategy: Strategy::Off, ..Default::default() };
    let c = check_with(&b, Dialect::Omp, &off, 200_000, Some(MODEL));
    assert_eq!((c.decision, c.skipped, c.context_promotion), (AutoDecision::None, Some(Skip::StrategyOff), true));
    let disabled = CompactionSettings { enabled: false, ..Default::default() };
    let c = check_with(&b, Dialect::Omp, &disabled, 200_000, Some(MODEL));
    assert_eq!(c.skipped, Some(Skip::Disabled));
    // Usage overflow counts cacheWrite, whatever the stop reason.
    let b = B::new().user("u1").asst_at("a1", "toolUse", [100_000, 5, 50_000, 50_001], 0, None, 0);
    assert_eq!(check(&b, Dialect::Omp).decision, AutoDecision::Overflow);
    assert_eq!(check(&b, Dialect::Pi).decision, AutoDecision::Threshold);
    // No model given: A's own model assumed.
    let c = check_with(&b, Dialect::Omp, &CompactionSettings::default(), 200_000, None);
    assert!(c.model_assumed && c.same_model);
}

#[test]
fn omp_error_and_gates() {
    let b = B::new().user("u1").asst("a0", "stop", 199_000).error("a1", "overloaded_error");
    let c = check(&b, Dialect::Omp);
    assert_eq!(c.skipped, Some(Skip::ErrorWithoutOverflow));
    let b = B::new().user("u1").asst("a1", "stop", 199_000);
    let off = CompactionSettings { strategy: Strategy::Off, ..Default::default() };
    assert_eq!(check_with(&b, Dialect::Omp, &off, 200_000, Some(MODEL)).skipped, Some(Skip::StrategyOff));
    let disabled = CompactionSettings { enabled: false, ..Default::default() };
    assert_eq!(check_with(&b, Dialect::Omp, &disabled, 200_000, Some(MODEL)).skipped, Some(Skip::Disabled));
}

fn check18(b: &B, settings: &CompactionSettings, window: u64, inputs: &CheckInputs) -> AutoCheck {
    let bytes = b.bytes();
    let session = Session::parse(&bytes, Some(RuleSet::Omp18));
    let ctx = build(&session, Leaf::Last);
    auto_check_with(&session, &ctx, settings, window, Some(MODEL), inputs, &bytes).unwrap()
}

#[test]
fn omp18_threshold_floors_usage_with_the_stored_estimate() {
    let s = CompactionSettings::default();
    let none = CheckInputs::default();
    // The usage decides; pruning savings are not subtracted (omp 13 subtracted 24991).
    let base = || B::new().user("u1").tool("t1", "bash", 100_000).tool("t2", "bash", 200_000);
    let c = check18(&base().asst("a1", "stop", 180_000), &s, 200_000, &none);
    assert_eq!(
        (c.decision, c.usage_tokens, c.context_tokens, c.threshold),
        (AutoDecision::Threshold, Some(180_000.0), Some(180_000.0), Some(170_000.0))
    );
    assert_eq!(c.rules, RuleSet::Omp18);
    assert!(c.reason.contains("contextree writes a `soft` summary"), "{}", c.reason);
    let m = c.method.as_ref().unwrap();
    assert_eq!(m.method, Some(Method::Handoff));
    assert!(matches!(m.steps[0], (Method::Remote, Usable::Unknown(_))) && matches!(m.steps[1], (Method::Snapcompact, Usable::Unknown(_))));
    // A vision model without native compaction: snapcompact, not an LLM summary.
    let vision = CheckInputs { accepts_images: Some(true), native_compaction: Some(false), ..none };
    let c = check18(&base().asst("a1", "stop", 180_000), &s, 200_000, &vision);
    assert_eq!(c.method.unwrap().method, Some(Method::Snapcompact));
    // A tiny usage: the stored estimate (75,000 tokens of output + the rest) decides.
    let c = check18(&base().asst("a1", "stop", 10), &s, 80_000, &none);
    assert_eq!(c.stored_estimate, Some(75_002));
    assert_eq!((c.decision, c.context_tokens, c.threshold), (AutoDecision::Threshold, Some(75_002.0), Some(63_616.0)));
    // A reply older than the latest compaction counts 0 usage.
    let b = B::new().user("u1").asst("a0", "stop", 100).compaction("c1", "u1");
    let c = check18(&b.asst_at("a1", "stop", [190_000, 0, 0, 0], 190_000, None, -10_001), &s, 200_000, &none);
    assert!(c.stale);
    assert_eq!((c.usage_tokens, c.decision), (Some(0.0), AutoDecision::None));
    // A small window with the default reserve: 15 % of it instead (omp 13: threshold 0).
    let c = check18(&B::new().user("u1").asst("a1", "stop", 13_601), &s, 16_000, &none);
    assert_eq!((c.threshold, c.decision), (Some(13_600.0), AutoDecision::Threshold));
    // No method configured: no check.
    let empty = CompactionSettings { method_order: super::super::MethodOrder::resolve([]), ..s };
    assert_eq!(check18(&base().asst("a1", "stop", 180_000), &empty, 200_000, &none).skipped, Some(Skip::NoMethod));
}

#[test]
fn omp18_overflow_length_and_payload() {
    let s = CompactionSettings::default();
    let none = CheckInputs::default();
    // A pattern omp 18 added.
    let b = B::new().user("u1").error("a1", "chat history exceeds the 100-message limit");
    let c = check18(&b, &s, 200_000, &none);
    assert_eq!((c.decision, c.will_retry), (AutoDecision::Overflow, true), "{c:?}");
    let m = c.method.unwrap();
    assert_eq!(m.method, Some(Method::Shake));
    assert_eq!(m.steps[2], (Method::Handoff, Usable::No("not for an overflow")));
    assert_eq!(check(&b, Dialect::Omp).skipped, Some(Skip::ErrorWithoutOverflow));
    // A `length` stop: recovery compaction, reason incomplete.
    let c = check18(&B::new().user("u1").asst("a1", "length", 1000), &s, 200_000, &none);
    assert_eq!((c.decision, c.will_retry), (AutoDecision::Incomplete, true));
    // A payload rejection with headroom: notice, no compaction.
    let c = check18(&B::new().user("u1").error("a1", "Request exceeds the maximum number of bytes"), &s, 200_000, &none);
    assert_eq!(c.skipped, Some(Skip::PayloadRejected));
    // Without a window it is not trusted: recovery, media methods excluded.
    let c = check18(&B::new().user("u1").error("a1", "Request exceeds the maximum number of bytes"), &s, 0, &none);
    assert_eq!(c.decision, AutoDecision::Overflow);
    assert_eq!(c.method.unwrap().steps[1].1, Usable::No("a payload rejection excludes media methods"));
    // The errorId flag alone.
    assert!(omp18_overflow(Some("error"), Some("boom"), Some(0x0080_1000), None, 0).is_some());
    assert!(omp18_overflow(Some("error"), Some("boom"), Some(0x8000_1000), None, 0).is_none());
}

#[test]
fn golden_overflow_patterns_omp18() {
    let file = contextree_testkit::repo().join("tests/golden-overflow/overflow.json");
    let rows: Vec<Value> = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    for row in rows {
        let m = row["message"].as_str().unwrap();
        let overflow = !m.is_empty() && omp18_overflow_pattern(m).is_some();
        assert_eq!(overflow, row["omp18"].as_bool().unwrap(), "omp18: {m:?}");
        assert_eq!(
            !m.is_empty() && omp18_payload_pattern(m).is_some(),
            row["omp18PayloadRejection"].as_bool().unwrap(),
            "omp18 payload: {m:?}"
        );
    }
}

#[test]
fn omp_threshold_after_pruning() {
    // An old 25000-token bash output behind 50000 newer tokens is pruned:
    // saving 25000 − 9 (the notice) = 24991.
    let base = || B::new().user("u1").tool("t1", "bash", 100_000).tool("t2", "bash", 200_000);
    let c = check(&base().asst("a1", "stop", 180_000), Dialect::Omp);
    assert_eq!((c.pruning_savings, c.pruned_count), (24_991, 1));
    assert_eq!((c.usage_tokens, c.context_tokens, c.threshold), (Some(180_000.0), Some(155_009.0), Some(170_000.0)));
    assert_eq!(c.decision, AutoDecision::None);
    let c = check(&base().asst("a1", "stop", 195_000), Dialect::Omp);
    assert_eq!((c.decision, c.context_tokens, c.context_promotion), (AutoDecision::Threshold, Some(170_009.0), true));
    // pi never prunes: its own threshold on the raw usage.
    let c = check(&base().asst("a1", "stop", 185_000), Dialect::Pi);
    assert_eq!((c.decision, c.pruning_savings), (AutoDecision::Threshold, 0));
    // Savings never push below 0.
    let c = check(&base().asst("a1", "stop", 10_000), Dialect::Omp);
    assert_eq!(c.context_tokens, Some(0.0));
}

fn check183(b: &B, settings: &CompactionSettings, window: u64) -> AutoCheck {
    let bytes = b.bytes();
    let session = Session::parse(&bytes, Some(RuleSet::Omp183));
    let ctx = build(&session, Leaf::Last);
    auto_check_with(&session, &ctx, settings, window, Some(MODEL), &CheckInputs::default(), &bytes).unwrap()
}

/// omp-18.3.md §2.2: below the threshold a `length` stop no longer compacts; at or above it,
/// and under omp 18.2's rules whatever the usage, it does.
#[test]
fn omp183_length_stops_below_the_threshold_keep_or_retry() {
    let s = CompactionSettings::default();
    let delivered = B::new().user("u1").asst("a1", "length", 1000);
    let c = check183(&delivered, &s, 200_000);
    assert_eq!((c.decision, c.skipped), (AutoDecision::None, Some(Skip::LengthKept)), "{}", c.reason);
    assert!(!c.will_retry);
    // Nothing delivered (only blank text): dropped and retried without compacting.
    let mut empty = B::new().user("u1");
    empty.push("a1", json!({"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"  "}],"provider":MODEL.0,"model":MODEL.1,"stopReason":"length",
        "usage":{"input":1000,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":1000},"timestamp":T0 + 20_000}}));
    let c = check183(&empty, &s, 200_000);
    assert_eq!((c.decision, c.skipped, c.will_retry), (AutoDecision::None, Some(Skip::LengthRetry), true), "{}", c.reason);
    // The window exhausted (usage above the threshold): recovery compaction as in omp 18.2.
    let full = B::new().user("u1").asst("a1", "length", 190_000);
    let c = check183(&full, &s, 200_000);
    assert_eq!(c.decision, AutoDecision::Incomplete, "{}", c.reason);
    // An unknown window keeps compacting.
    assert_eq!(check183(&delivered, &s, 0).decision, AutoDecision::Incomplete);
    // omp 18.2 compacts on every fresh length stop.
    assert_eq!(check18(&delivered, &s, 200_000, &CheckInputs::default()).decision, AutoDecision::Incomplete);
}

/// omp-18.3.md §2.3: a subagent's `session_init.compactionThreshold` replaces the settings'
/// threshold under omp@18.3 only.
#[test]
fn omp183_reads_the_threshold_recorded_in_session_init() {
    let s = CompactionSettings::default();
    let mut b = B::new();
    b.push("init", json!({"type":"session_init","compactionThreshold":{"thresholdPercent":-1,"thresholdTokens":50_000}}));
    let b = b.user("u1").asst("a1", "stop", 60_000);
    let c = check183(&b, &s, 200_000);
    assert_eq!((c.threshold, c.decision), (Some(50_000.0), AutoDecision::Threshold), "{}", c.reason);
    assert!(c.notes.iter().any(|n| n.contains("session_init")), "{:?}", c.notes);
    let c = check18(&b, &s, 200_000, &CheckInputs::default());
    assert_eq!(c.decision, AutoDecision::None, "omp 18.2 reads the settings files only: {}", c.reason);
}
