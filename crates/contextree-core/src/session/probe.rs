//! Facts of one parsed JSON value: what the index keeps of a line.
//!
//! [`probe_line`] reads a line once. Message entries go through a typed,
//! borrowing deserializer that measures texts without copying them (the hot
//! path: they are nearly all of a file's bytes); every other entry, and any
//! message the typed path does not accept (odd shapes, duplicate keys), is
//! parsed as a `serde_json::Value`, whose reading is the reference.

use serde_json::{Map, Value};

use super::call_id::{call_block_key, call_key};
use super::entry::{EntryKind, MessageMeta, ReplyFacts, Role, Timestamp, TurnFacts, Usage};
use super::name::Name;
use crate::tokens::estimate::estimate_message_chars;
use crate::RuleSet;

/// The fields common to every line, as found.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    /// `type`, when a string.
    pub entry_type: Option<Name>,
    /// `id`, when a string.
    pub id: Option<Name>,
    /// `parentId` as written.
    pub parent: Parent,
    /// Entry timestamp in ms, when it parses as an ISO date.
    pub timestamp_ms: Timestamp,
    /// Payload facts.
    pub kind: EntryKind,
}

/// The `parentId` field as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parent {
    /// No `parentId` key (v1 files).
    Absent,
    /// `null`: a root.
    Null,
    /// A string id.
    Id(Name),
    /// Something else (a number, an object): treated as "not found".
    Invalid,
}

/// Why a line is not one JSON object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeError {
    /// Not valid JSON (or trailing data after the value); the message and the
    /// byte offset in the line where the parser stopped.
    Syntax {
        /// serde_json's description of the error.
        message: String,
        /// Where the parser stopped: a 0-based byte offset into the line.
        offset: usize,
    },
    /// Valid JSON that is not an object (`[..]`, a number, a string).
    NotObject(&'static str),
}

/// Reads one JSON value that makes up a whole line.
pub fn probe_line(bytes: &[u8]) -> Result<Probe, ProbeError> {
    match super::fast::probe_message_line(bytes) {
        Some(probe) => Ok(probe),
        None => probe_line_reference(bytes),
    }
}

/// [`probe_line`] without the scanner: for a line the scanner already gave up on.
pub(super) fn probe_line_reference(bytes: &[u8]) -> Result<Probe, ProbeError> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => Ok(probe_object(map)),
        Ok(other) => Err(ProbeError::NotObject(json_kind(&other))),
        Err(e) => Err(ProbeError::Syntax { offset: error_offset(bytes, &e), message: e.to_string() }),
    }
}

/// Builds the facts of a parsed entry object.
pub fn probe_object(mut map: Map<String, Value>) -> Probe {
    let entry_type = map.get("type").and_then(Value::as_str).map(Name::from);
    let id = map.get("id").and_then(Value::as_str).map(Name::from);
    let parent = match map.get("parentId") {
        None => Parent::Absent,
        Some(Value::Null) => Parent::Null,
        Some(Value::String(s)) => Parent::Id(s.as_str().into()),
        Some(_) => Parent::Invalid,
    };
    let timestamp_ms = map.get("timestamp").and_then(Value::as_str).and_then(parse_iso_ms);
    let kind = match (entry_type.as_deref(), map.get_mut("message")) {
        (Some("message"), Some(Value::Object(msg))) => EntryKind::Message(message_meta(msg)),
        _ => EntryKind::Other(Box::new(map)),
    };
    Probe { entry_type, id, parent, timestamp_ms: timestamp_ms.into(), kind }
}

/// The facts of a message object (reference reading, on a `Value`).
pub(crate) fn message_meta(msg: &Map<String, Value>) -> MessageMeta {
    let role = Role::parse(msg.get("role").and_then(Value::as_str).unwrap_or(""));
    // `chars` is dialect-neutral: custom and hookMessage count like tool
    // results (pi counts `custom`, omp `hookMessage`; MessageMeta::estimate
    // zeroes the other).
    let counting = match role {
        Role::HookMessage => RuleSet::Omp13,
        // Only pi ≥ 0.86 measures system messages; `MessageMeta::estimate` zeroes them for the rest.
        Role::System => RuleSet::Pi16,
        _ => RuleSet::Pi073,
    };
    let chars = estimate_message_chars(msg, counting);
    let images = match (&role, msg.get("content")) {
        (Role::User, Some(Value::Array(blocks))) => {
            blocks.iter().filter(|b| b.get("type").and_then(Value::as_str) == Some("image")).count() as u32
        }
        _ => 0,
    };
    let usage = msg.get("usage").and_then(Value::as_object).map(|u| {
        let n = |k: &str| u.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        Usage {
            input: n("input"),
            output: n("output"),
            cache_read: n("cacheRead"),
            cache_write: n("cacheWrite"),
            total_tokens: n("totalTokens"),
        }
    });
    let text = |k: &str| msg.get(k).and_then(Value::as_str).map(Name::shared);
    let str_field = |k: &str| msg.get(k).and_then(Value::as_str);
    let model = match (str_field("provider"), str_field("model")) {
        (None, None) => None,
        (p, m) => Some(Name::shared_pair(p.unwrap_or_default(), m.unwrap_or_default())),
    };
    let is_assistant = role == Role::Assistant;
    MessageMeta {
        chars,
        omp18_tokens: crate::tokens::estimate::omp18_message_tokens(msg),
        images,
        reply: ReplyFacts {
            usage: if is_assistant { usage } else { None },
            stop_reason: text("stopReason"),
            model: if is_assistant { model } else { None },
        }
        .into(),
        exclude_from_context: msg.get("excludeFromContext").and_then(Value::as_bool).unwrap_or(false),
        // omp tests `prunedAt === undefined`: any stored value, even null, counts.
        pruned: msg.contains_key("prunedAt"),
        tool_name: text("toolName"),
        turn: turn_facts(msg, &role).into(),
        role,
    }
}

/// The [`TurnFacts`] of a message (reference reading).
pub(crate) fn turn_facts(msg: &Map<String, Value>, role: &Role) -> TurnFacts {
    let mut t = TurnFacts::default();
    match role {
        Role::ToolResult => {
            t.tool_call_id = call_key(msg.get("toolCallId"));
            t.useless = msg.get("useless") == Some(&Value::Bool(true)) && msg.get("isError") != Some(&Value::Bool(true));
        }
        Role::Assistant => {
            let blocks = msg.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
            fn ty(b: &Value) -> &str {
                b.get("type").and_then(Value::as_str).unwrap_or("")
            }
            t.call_ids = blocks.iter().filter(|b| ty(b) == "toolCall").map(call_block_key).collect();
            let calls = blocks.iter().filter(|b| ty(b) == "toolCall");
            t.skill_reads = calls.enumerate().take(64).fold(0, |mask, (k, b)| {
                let path = b.get("arguments").and_then(|a| a.get("path")).and_then(Value::as_str);
                let skill = b.get("name").and_then(Value::as_str) == Some("read") && path.is_some_and(|p| p.starts_with("skill://"));
                if skill {
                    mask | 1 << k
                } else {
                    mask
                }
            });
            if !t.call_ids.is_empty() {
                // Read only when calls are stripped; 0 otherwise keeps a call-less turn's facts empty.
                t.other_blocks = blocks.iter().filter(|b| !matches!(ty(b), "toolCall" | "redactedThinking")).count() as u32;
            }
            t.retry_recovery = crate::js::is_truthy(msg.get("retryRecovery"));
            t.omp183_fields = msg.contains_key("requestControls") || msg.contains_key("credentialId");
            let filled = |b: &Value, k: &str| b.get(k).and_then(Value::as_str).is_some_and(|s| !crate::js::js_trim(s).is_empty());
            t.empty_error = msg.get("stopReason").and_then(Value::as_str) == Some("error")
                && !blocks.iter().any(|b| match ty(b) {
                    "text" => filled(b, "text"),
                    "thinking" => filled(b, "thinking") || filled(b, "thinkingSignature"),
                    "redactedThinking" => filled(b, "data"),
                    "fallback" => false,
                    _ => true,
                });
        }
        _ => {}
    }
    t
}

pub(crate) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        // The JS-falsy values are named apart ([`is_falsy_kind`]).
        Value::Bool(false) => "false",
        Value::Bool(true) => "true",
        Value::Number(n) if n.as_f64() == Some(0.0) => "the number 0",
        Value::Number(_) => "a number",
        Value::String(s) if s.is_empty() => "an empty string",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Whether a [`json_kind`] names a value JavaScript treats as false (`null`,
/// `false`, `0`, `""`).
pub(crate) fn is_falsy_kind(kind: &str) -> bool {
    matches!(kind, "null" | "false" | "the number 0" | "an empty string")
}

/// Byte offset in `bytes` of serde_json's 1-based line/column error position.
pub(crate) fn error_offset(bytes: &[u8], e: &serde_json::Error) -> usize {
    let mut line = 1;
    let mut line_start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if line == e.line() {
            break;
        }
        if b == b'\n' {
            line += 1;
            line_start = i + 1;
        }
    }
    (line_start + e.column().saturating_sub(1)).min(bytes.len())
}

/// Parses a JSON value as the agents' `JSON.parse` does where serde_json cannot: a string
/// with a lone surrogate escape (`"\ud83d"`, which `JSON.stringify` writes for half of a pair
/// cut apart) is valid JSON to them, but a Rust `String` cannot hold it. Such escapes are read
/// as U+FFFD, one UTF-16 unit like the lone half, so text lengths stay the agents'. Used by the
/// read-back of entries the fast scanner indexed (it measures lone surrogates exactly); the
/// index's reference reading stays strict.
pub fn parse_value_lenient(bytes: &[u8]) -> serde_json::Result<Value> {
    match serde_json::from_slice(bytes) {
        Err(e) if e.to_string().contains("surrogate") || e.to_string().contains("hex escape") => match replace_lone_surrogates(bytes) {
            Some(fixed) => serde_json::from_slice(&fixed),
            None => Err(e),
        },
        other => other,
    }
}

/// `bytes` with every `\uD800`–`\uDFFF` escape that is not half of a pair replaced by
/// `\ufffd`; `None` when there is none.
fn replace_lone_surrogates(bytes: &[u8]) -> Option<Vec<u8>> {
    let unit_at = |i: usize| -> Option<u16> {
        if bytes.get(i) != Some(&b'\\') || bytes.get(i + 1) != Some(&b'u') {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(bytes.get(i + 2..i + 6)?).ok()?, 16).ok()
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            match unit_at(i) {
                Some(0xd800..=0xdbff) if matches!(unit_at(i + 6), Some(0xdc00..=0xdfff)) => {
                    out.extend_from_slice(&bytes[i..i + 12]);
                    i += 12;
                }
                Some(0xd800..=0xdfff) => {
                    out.extend_from_slice(b"\\ufffd");
                    changed = true;
                    i += 6;
                }
                // Any other escape is copied whole, so `\\` never starts a false one.
                _ => {
                    out.extend_from_slice(&bytes[i..(i + 2).min(bytes.len())]);
                    i += 2;
                }
            }
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    changed.then_some(out)
}

/// Parses the ISO-8601 timestamps the agents write (`Date.parse` subset):
/// `YYYY-MM-DDTHH:MM:SS(.fff)?(Z|±HH:MM)?`, and a bare date.
pub fn parse_iso_ms(s: &str) -> Option<f64> {
    parse_iso_ms_bytes(s.as_bytes())
}

/// [`parse_iso_ms`] of the text's bytes (the scanner's, which need no `&str`).
pub(super) fn parse_iso_ms_bytes(b: &[u8]) -> Option<f64> {
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(r)?;
        if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        // At most four digits: no overflow, and no text parser (every message line has a
        // timestamp, read on the indexing threads).
        Some(part.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')))
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    if b.len() == 10 {
        return Some(days as f64 * 86_400_000.0);
    }
    if b.len() < 16 || (b[10] != b'T' && b[10] != b't') || b[13] != b':' {
        return None;
    }
    let (hour, minute) = (num(11..13)?, num(14..16)?);
    let mut pos = 16;
    let mut second = 0;
    let mut millis = 0.0;
    if b.get(pos) == Some(&b':') {
        second = num(pos + 1..pos + 3)?;
        pos += 3;
        if b.get(pos) == Some(&b'.') {
            let start = pos + 1;
            let mut end = start;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
            if end == start {
                return None;
            }
            // Date keeps millisecond precision: extra digits are truncated.
            let digits = &b[start..end.min(start + 3)];
            let value = digits.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
            millis = f64::from(value) * 10f64.powi(3 - digits.len() as i32);
            pos = end;
        }
    }
    if hour > 24 || minute > 59 || second > 59 {
        return None;
    }
    let offset_min = match &b[pos..] {
        [] => 0, // JS reads a date-time without zone as local time; the agents always write Z.
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), ..] if b.len() == pos + 6 && b[pos + 3] == b':' => {
            let m = num(pos + 1..pos + 3)? * 60 + num(pos + 4..pos + 6)?;
            if *sign == b'+' {
                m
            } else {
                -m
            }
        }
        _ => return None,
    };
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offset_min * 60;
    Some(secs as f64 * 1000.0 + millis)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_timestamps_parse_like_date_parse() {
        assert_eq!(parse_iso_ms("1970-01-01T00:00:00.000Z"), Some(0.0));
        assert_eq!(parse_iso_ms("2026-01-01T00:00:01.000Z"), Some(1_767_225_601_000.0));
        assert_eq!(parse_iso_ms("2026-01-01T00:00:01.5Z"), Some(1_767_225_601_500.0));
        assert_eq!(parse_iso_ms("2026-01-01T01:00:01.000+01:00"), Some(1_767_225_601_000.0));
        assert_eq!(parse_iso_ms("not a date"), None);
        assert_eq!(parse_iso_ms("2026-13-01T00:00:00Z"), None);
    }

    /// Every message line of every fixture reads the same on the typed hot path
    /// as on the reference `Value` path.
    #[test]
    fn omp18_counts_agree_on_escapes_and_signatures() {
        let lines = [
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"caf\u00e9 \ud83d\ude00\n","thinkingSignature":"sig=="},{"type":"redactedThinking","data":"zzzzz"},{"type":"text","text":"ab"},{"type":"toolCall","id":"c1","name":"ls","arguments":{}}]}}"#,
            r#"{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"\u00e9\u2603 x"}}"#,
            r#"{"type":"message","id":"r","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"\t\u0041"},{"type":"image","data":"AAAA"}]}}"#,
        ];
        // thinking 11 bytes → 3, signature 2, data 2, text 1, name 1, `{}` 1; user 6 bytes → 2; tab+A 1 + image.
        let expected = [3 + 2 + 2 + 1 + 1 + 1, 2, 1 + 1200];
        for (line, want) in lines.iter().zip(expected) {
            let fast = super::super::fast::probe_message_line(line.as_bytes()).expect("fast path");
            let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(line.as_bytes()) else { panic!() };
            let reference = probe_object(map);
            assert_eq!(fast, reference);
            let EntryKind::Message(m) = fast.kind else { panic!() };
            assert_eq!(m.omp18_tokens, want, "{line}");
        }
    }

    #[test]
    fn fast_and_reference_readings_agree() {
        let root = contextree_testkit::repo().join("tests/fixtures");
        let root = root.display();
        let mut checked = 0;
        for dir in ["synthetic", "real", "generated", "edge", "omp18", "omp183"] {
            let Ok(files) = std::fs::read_dir(format!("{root}/{dir}")) else { continue };
            for f in files.flatten().filter(|f| f.path().extension().is_some_and(|x| x == "jsonl")) {
                let bytes = std::fs::read(f.path()).unwrap();
                for line in bytes.split(|&b| b == b'\n') {
                    let Some(fast) = super::super::fast::probe_message_line(line) else { continue };
                    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(line) else {
                        panic!("{}: fast path accepted a line the reference rejects", f.path().display())
                    };
                    assert_eq!(fast, probe_object(map), "{}", f.path().display());
                    checked += 1;
                }
            }
        }
        assert!(checked > 3000, "only {checked} message lines checked: fixtures missing?");
        // Found by the fuzz test: `\u` escapes in tool-call arguments stringify to characters
        // whose UTF-8 length (omp 18's count) is not their UTF-16 length.
        let line = br#"{"type":"message","id":"c1","parentId":"u2","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"r1","name":"bash","arguments":{"command":"\t\ud83d\ude00\ud83d\ude00 \u00e9"}}],"timestamp":42}}"#;
        let reference = match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(map)) => probe_object(map),
            other => panic!("{other:?}"),
        };
        let fast = super::super::fast::probe_message_line(line).expect("the scanner reads it");
        assert_eq!(fast, reference);
        // Non-ASCII tool-call arguments (raw and escaped, in keys and values) are the scanner's.
        let line = r#"{"type":"message","id":"c2","parentId":"c1","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"é"},{"type":"toolCall","id":"r2","name":"edit","arguments":{"путь":"src/日本.rs","new":"« 😀 » \u00e9\ud83d\ude00\n","n":[1,"€"]}}],"timestamp":43}}"#;
        let reference = match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(map)) => probe_object(map),
            other => panic!("{other:?}"),
        };
        let fast = super::super::fast::probe_message_line(line.as_bytes()).expect("the scanner reads it");
        assert_eq!(fast, reference);
    }

    #[test]
    fn tool_call_ids_keep_their_javascript_identity() {
        let turn = |line: &str| {
            let reference = match serde_json::from_str::<Value>(line) {
                Ok(Value::Object(map)) => probe_object(map),
                other => panic!("{other:?}"),
            };
            // The scanner reads the line the same way, or leaves it to the reference reading.
            if let Some(fast) = super::super::fast::probe_message_line(line.as_bytes()) {
                assert_eq!(fast, reference, "{line}");
            }
            let EntryKind::Message(m) = reference.kind else { panic!("{line}") };
            (m.turn.call_ids.to_vec(), m.turn.tool_call_id)
        };
        let call = |id: &str| {
            turn(&format!(r#"{{"type":"message","id":"a","message":{{"role":"assistant","content":[{{"type":"text","text":"t"}},{{"type":"toolCall","name":"n","arguments":{{}}{id}}}]}}}}"#)).0
        };
        let result = |id: &str| turn(&format!(r#"{{"type":"message","id":"r","message":{{"role":"toolResult","content":[]{id}}}}}"#)).1;
        // A call without an id and a result without a toolCallId are a pair (undefined === undefined).
        assert_eq!(call(""), vec![result("").unwrap()]);
        assert_eq!(call(r#","id":null"#), vec![result(r#","toolCallId":null"#).unwrap()]);
        assert_eq!(call(r#","id":7"#), vec![result(r#","toolCallId":7.0"#).unwrap()]);
        assert_eq!(call(r#","id":"c1""#), vec![result(r#","toolCallId":"c1""#).unwrap()]);
        assert_ne!(call(r#","id":"8""#), vec![result(r#","toolCallId":8"#).unwrap()]);
        assert_ne!(call(""), vec![result(r#","toolCallId":null"#).unwrap()]);
        // An object id pairs with nothing.
        assert_eq!(result(r#","toolCallId":{"k":1}"#), None);
        assert_ne!(call(r#","id":{"k":1}"#), vec![result("").unwrap()]);
    }

    #[test]
    fn a_line_that_is_not_an_object_is_reported_as_such() {
        assert_eq!(probe_line(b"[1,2]"), Err(ProbeError::NotObject("an array")));
        assert!(matches!(probe_line(b"{\"a\":1}{\"b\":2}"), Err(ProbeError::Syntax { offset: 7, .. })));
    }
}
