//! What the fuzz tests share (`tests/it/fuzz.rs` with proptest, and the libFuzzer targets under
//! `fuzz/`): a structure-aware generator that turns any bytes into a session file, and the
//! checks run on a file.
//!
//! The checks, for every rule set (`RuleSet::ALL`) and the file's own choice:
//! - nothing panics: parse, assemble, `context::build` for several leaves, entry states,
//!   materialize (agent messages, LLM messages, token numbers), serialize, the estimate, the
//!   tree rows, the compaction plan and the prune plan;
//! - two readings, one answer: every line reads the same through `probe_line` (the fast
//!   scanner first) as through the reference `serde_json::Value` reading;
//! - chunked indexing (cut at the given line starts, re-indexed across a boundary as the host
//!   does) gives the session a single pass gives.

#![allow(dead_code)]

use contextree_core::compaction::{plan, CompactionSettings};
use contextree_core::context::{build, context_tokens, entry_states, estimate_context_tokens, llm_messages, serialize_context, Leaf};
use contextree_core::prompts::PromptPack;
use contextree_core::prune::{plan_prune, PruneConfig};
use contextree_core::session::{
    index_chunk, parse_value_lenient, probe_line, probe_object, ChunkIndex, EntryKind, NodeId, Probe, ProbeError, RulePolicy, Session,
};
use contextree_core::view::tree_rows;
use contextree_core::RuleSet;
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// The generator

/// Reads choices from the input bytes; zeros once they run out (so every input makes a file).
pub struct U<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> U<'a> {
    pub fn new(data: &'a [u8]) -> U<'a> {
        U { data, pos: 0 }
    }

    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    fn exhausted(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// `0..n`.
    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let v = if n > 256 { usize::from(self.byte()) << 8 | usize::from(self.byte()) } else { usize::from(self.byte()) };
        v % n
    }

    fn chance(&mut self, in_256: u8) -> bool {
        self.byte() < in_256
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const IDS: &[&str] = &["u1", "a1", "r1", "u2", "a2", "c1", "b1", "x", "", "0", "deadbeef"];
const ROLES: &[&str] = &[
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "pythonExecution",
    "custom",
    "hookMessage",
    "branchSummary",
    "compactionSummary",
    "system",
    "developer",
    "fileMention",
    "unknownRole",
];
const TYPES: &[&str] = &[
    "message",
    "message",
    "message",
    "message",
    "compaction",
    "branch_summary",
    "label",
    "custom",
    "custom_message",
    "model_change",
    "thinking_level_change",
    "session_info",
    "context_edit",
    "future_thing",
];

/// `object(u, depth, &[fields])`, the field values drawn before the object's own choices.
macro_rules! obj {
    ($u:expr, $d:expr, [$(($k:expr, $v:expr)),* $(,)?]) => {{
        let fields: Vec<(&str, String)> = vec![$(($k, $v)),*];
        object($u, $d, &fields)
    }};
}

/// A JSON string literal, with the escapes and code points that matter to UTF-16 lengths.
fn string(u: &mut U) -> String {
    const PIECES: &[&str] = &[
        "",
        "hello",
        "Run the tests.",
        "é",
        "😀",
        "\\n",
        "\\\"",
        "\\\\",
        "\\u00e9",
        "\\ud83d\\ude00",
        "\\ud800",
        "\\udc00x",
        "\\u0000",
        "\\/",
        "\\t",
        "\u{2028}",
        "\\x",
        "\t",
        "line\\r\\nbreak",
        "<read-files>\\na.rs\\n</read-files>",
        "[Output truncated - 12 tokens]",
    ];
    let mut s = String::from("\"");
    for _ in 0..u.below(5) {
        let p = u.pick(PIECES);
        if u.chance(12) {
            s.push_str(&p.repeat(u.below(300) + 1));
        } else {
            s.push_str(p);
        }
    }
    if !u.chance(6) {
        s.push('"');
    }
    s
}

fn number(u: &mut U) -> String {
    u.pick(&["0", "-0", "1", "42", "1.5", "1e3", "1E+2", "2.5e-3", "12345678901234567890", "-7", "0.1", "1767225601000", "01", "1.", "3.0"])
        .to_owned()
}

fn timestamp(u: &mut U) -> String {
    match u.below(6) {
        0 => number(u),
        1 => "\"not a date\"".into(),
        2 => "\"2026-13-01T00:00:00Z\"".into(),
        _ => format!("\"2026-01-01T00:{:02}:{:02}.000Z\"", u.below(60), u.below(60)),
    }
}

fn id_value(u: &mut U) -> String {
    match u.below(12) {
        0 => "null".into(),
        1 => number(u),
        2 => format!("\"{:08x}\"", u.below(1 << 16)),
        _ => format!("\"{}\"", u.pick(IDS)),
    }
}

/// Any JSON value (a small one), now and then malformed.
fn value(u: &mut U, depth: u32) -> String {
    match u.below(if depth > 3 { 4 } else { 7 }) {
        0 => string(u),
        1 => number(u),
        2 => u.pick(&["true", "false", "null"]).to_owned(),
        3 => id_value(u),
        4 => {
            let items: Vec<String> = (0..u.below(4)).map(|_| value(u, depth + 1)).collect();
            format!("[{}]", items.join(","))
        }
        _ => object(u, depth + 1, &[]),
    }
}

/// An object with `fields` (some left out, some duplicated, order shuffled a little) and
/// a few random ones.
fn object(u: &mut U, depth: u32, fields: &[(&str, String)]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for (k, v) in fields {
        if u.chance(240) {
            parts.push(format!("\"{k}\":{v}"));
        }
        if u.chance(3) {
            parts.push(format!("\"{k}\":{}", value(u, depth + 1)));
        }
    }
    for _ in 0..u.below(if depth > 2 { 1 } else { 3 }) {
        let key = u.pick(&["extra", "details", "type", "id", "text", "content", "\\u0074ype", "usage", "role"]);
        parts.push(format!("\"{key}\":{}", value(u, depth + 1)));
    }
    if parts.len() > 1 && u.chance(30) {
        let i = u.below(parts.len());
        let j = u.below(parts.len());
        parts.swap(i, j);
    }
    let sep = if u.chance(20) { ", " } else { "," };
    format!("{{{}}}", parts.join(sep))
}

fn block(u: &mut U) -> String {
    match u.below(6) {
        0 => obj!(u, 2, [("type", "\"thinking\"".into()), ("thinking", string(u))]),
        1 => obj!(
            u,
            2,
            [
                ("type", "\"toolCall\"".into()),
                ("id", id_value(u)),
                ("name", "\"bash\"".into()),
                ("arguments", obj!(u, 3, [("command", string(u))]))
            ]
        ),
        2 => obj!(u, 2, [("type", "\"image\"".into()), ("data", "\"AAAA\"".into()), ("mimeType", "\"image/png\"".into())]),
        3 => value(u, 2),
        _ => obj!(u, 2, [("type", "\"text\"".into()), ("text", string(u))]),
    }
}

fn content(u: &mut U) -> String {
    if u.chance(90) {
        return string(u);
    }
    let blocks: Vec<String> = (0..u.below(4)).map(|_| block(u)).collect();
    format!("[{}]", blocks.join(","))
}

fn message(u: &mut U) -> String {
    let role = u.pick(ROLES);
    let usage = obj!(
        u,
        3,
        [("input", number(u)), ("output", number(u)), ("cacheRead", number(u)), ("cacheWrite", number(u)), ("totalTokens", number(u))]
    );
    let mut fields = vec![("role", format!("\"{role}\"")), ("content", content(u)), ("timestamp", number(u))];
    match role {
        "assistant" => fields.extend([
            ("usage", usage),
            ("stopReason", u.pick(&["\"stop\"", "\"toolUse\"", "\"error\"", "\"length\"", "\"aborted\""]).to_owned()),
            ("provider", "\"anthropic\"".into()),
            ("model", "\"claude-sonnet-4-5\"".into()),
        ]),
        "toolResult" => fields.extend([("toolCallId", id_value(u)), ("toolName", "\"bash\"".into()), ("isError", "false".into())]),
        "bashExecution" | "pythonExecution" => fields.extend([
            ("command", string(u)),
            ("output", string(u)),
            ("exitCode", number(u)),
            ("excludeFromContext", u.pick(&["true", "false"]).to_owned()),
        ]),
        "branchSummary" | "compactionSummary" => {
            fields.extend([("summary", string(u)), ("fromId", id_value(u)), ("tokensBefore", number(u))])
        }
        "custom" | "hookMessage" => fields.extend([("customType", "\"note\"".into()), ("display", "true".into())]),
        _ => {}
    }
    object(u, 1, &fields)
}

fn entry(u: &mut U) -> String {
    let ty = u.pick(TYPES);
    let mut fields = vec![("type", format!("\"{ty}\"")), ("id", id_value(u)), ("parentId", id_value(u)), ("timestamp", timestamp(u))];
    match ty {
        "message" => fields.push(("message", message(u))),
        "compaction" => {
            fields.extend([
                ("summary", string(u)),
                ("tokensBefore", number(u)),
                ("details", obj!(u, 2, [("readFiles", "[\"a.rs\"]".into())])),
            ]);
            if u.chance(60) {
                fields.push(("firstKeptEntryIndex", number(u)));
            } else {
                fields.push(("firstKeptEntryId", id_value(u)));
            }
        }
        "branch_summary" => fields.extend([("fromId", id_value(u)), ("summary", string(u))]),
        "label" => fields.extend([("targetId", id_value(u)), ("label", string(u))]),
        "custom" => fields.extend([("customType", "\"contextree-continue\"".into()), ("data", value(u, 2))]),
        "custom_message" => fields.extend([("customType", "\"note\"".into()), ("content", content(u)), ("display", "true".into())]),
        "model_change" => fields.extend([("provider", "\"openai\"".into()), ("modelId", "\"gpt-5\"".into())]),
        "thinking_level_change" => fields.push(("thinkingLevel", "\"high\"".into())),
        "session_info" => fields.push(("name", string(u))),
        "context_edit" => fields.extend([("targetIds", format!("[{}]", id_value(u))), ("replacement", value(u, 2))]),
        _ => fields.push(("payload", value(u, 2))),
    }
    object(u, 0, &fields)
}

fn header(u: &mut U) -> Option<String> {
    Some(match u.below(9) {
        0 => return None,
        1 => r#"{"type":"session","id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#.into(),
        2 => r#"{"type":"session","version":2,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#.into(),
        3 => r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p""#.into(),
        4 => entry(u),
        5 => format!(
            r#"{{"type":"session","version":{},"id":"s1","timestamp":{},"cwd":"/p","title":{}}}"#,
            number(u),
            timestamp(u),
            string(u)
        ),
        _ => r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#.into(),
    })
}

/// A line that is not one JSON object: truncated, trailing data, another kind of value, bytes
/// that are not UTF-8, a value that goes on over the next lines (omp reads across them).
fn garbage(u: &mut U) -> Vec<u8> {
    let e = entry(u);
    match u.below(9) {
        0 => {
            let cut = u.below(e.len());
            e.as_bytes()[..cut].to_vec()
        }
        1 => format!("{e}{}", u.pick(&["{}", " x", "]", ",", "\"", "{\"type\":\"message\"}"])).into_bytes(),
        2 => u.pick(&["[1,2]", "\"text\"", "42", "null", "true", "{", "}", "[[[[[[[[", "{\"a\":", "\u{feff}{}"]).as_bytes().to_vec(),
        3 => {
            let mut b = e.into_bytes();
            let at = u.below(b.len());
            b.insert(at, u.pick(&[0xff, 0xc3, 0x80, 0x00, 0xed]));
            b
        }
        4 => {
            // A value broken over lines: the first half here, the rest on the next line.
            let cut = u.below(e.len());
            [&e.as_bytes()[..cut], b"\n", &e.as_bytes()[cut..]].concat()
        }
        5 => "[".repeat(u.below(200) + 1).into_bytes(),
        6 => format!("{{\"type\":\"message\",\"type\":\"message\",\"id\":\"d\",\"message\":{}}}", message(u)).into_bytes(),
        _ => (0..u.below(40)).map(|_| u.byte()).filter(|&b| b != b'\n').collect(),
    }
}

/// A session file made from `data`, and the line starts to cut it at for chunked indexing.
pub fn session_file(data: &[u8]) -> (Vec<u8>, Vec<usize>) {
    let mut u = U::new(data);
    let mut out = Vec::new();
    if u.chance(20) {
        out.extend_from_slice(&[0xEF, 0xBB, 0xBF]);
    }
    let crlf = u.chance(30);
    let mut lines: Vec<Vec<u8>> = Vec::new();
    if let Some(h) = header(&mut u) {
        lines.push(h.into_bytes());
    }
    let n = u.below(40);
    for _ in 0..n {
        if u.exhausted() && lines.len() > 3 {
            break;
        }
        let line = match u.below(20) {
            0 => b"".to_vec(),
            1 => b"   \t ".to_vec(),
            2 | 3 => garbage(&mut u),
            _ => entry(&mut u).into_bytes(),
        };
        let line = if u.chance(10) { [b"  ", &line[..], b" "].concat() } else { line };
        lines.push(line);
    }
    let mut starts = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        starts.push(out.len());
        out.extend_from_slice(line);
        let last = i + 1 == lines.len();
        if !last || !u.chance(40) {
            out.extend_from_slice(if crlf || u.chance(5) { b"\r\n" } else { b"\n" });
        }
    }
    let cuts = starts.into_iter().filter(|&s| s > 0 && u.chance(90)).collect();
    (out, cuts)
}

// ---------------------------------------------------------------------------------------------
// The checks

/// The reference reading of a line: `serde_json::Value`, then the facts of the object.
fn reference(line: &[u8]) -> Result<Probe, &'static str> {
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(map)) => Ok(probe_object(map)),
        Ok(_) => Err("not an object"),
        Err(_) => Err("syntax"),
    }
}

/// Takes the character count out of a message's facts (zeroed), returning it.
fn chars(p: &mut Probe) -> u64 {
    match &mut p.kind {
        EntryKind::Message(m) => std::mem::take(&mut m.chars),
        _ => 0,
    }
}

/// The lines `index_chunk` reads (a leading byte order mark dropped).
fn lines(file: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = file.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(file);
    body.split(|&b| b == b'\n')
}

/// Checks (b): the scanner's reading of every line is the reference's. Returns the lines
/// compared.
pub fn check_readings(file: &[u8]) -> usize {
    let mut n = 0;
    for line in lines(file) {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let ours = probe_line(line);
        let theirs = reference(line);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "the fast and the reference readings differ on {:?}", String::from_utf8_lossy(line)),
            // The one deliberate difference: a lone surrogate escape, valid to JSON.parse and
            // measured exactly by the scanner, which serde_json cannot hold. The read-back
            // reads it as U+FFFD (`parse_value_lenient`): everything but the character count
            // agrees (a lone half in a tool call's arguments stringifies to six units in JS,
            // U+FFFD to one).
            (Ok(a), Err("syntax")) => {
                let Ok(Value::Object(map)) = parse_value_lenient(line) else {
                    panic!("the fast reading accepted a line the reference rejects: {:?}", String::from_utf8_lossy(line))
                };
                let b = probe_object(map);
                let (mut a, mut b) = (a.clone(), b);
                let (ca, cb) = (chars(&mut a), chars(&mut b));
                assert_eq!(a, b, "the fast and the lenient reference readings differ on {:?}", String::from_utf8_lossy(line));
                assert!(ca >= cb, "lone surrogates: fast {ca} < lenient {cb} on {:?}", String::from_utf8_lossy(line));
            }
            (Err(ProbeError::Syntax { .. }), Err("syntax")) | (Err(ProbeError::NotObject(_)), Err("not an object")) => {}
            _ => panic!("the readings differ on {:?}: {ours:?} vs {theirs:?}", String::from_utf8_lossy(line)),
        }
        n += 1;
    }
    n
}

/// Everything observable about a session, as text (as `contextree-host/tests/it/chunks.rs`).
pub fn fingerprint(s: &Session) -> String {
    let mut out = format!("{:?} {:?} v{} {:?}\n", s.dialect(), s.rules(), s.original_version(), s.header());
    // Each chunk's signals are read on their own and merged: the merge must give the one-pass answer.
    out.push_str(&format!("{:?}\n", s.detection()));
    for (i, e) in s.entries().iter().enumerate() {
        let n = NodeId(i as u32);
        out.push_str(&format!("{} {} {:?} {:?} {:?} {}\n", e.line, e.id, e.span, s.tree().parent(n), e.kind, s.entry_tokens(n)));
    }
    for (n, l) in s.labels() {
        out.push_str(&format!("label {n:?} {l}\n"));
    }
    for d in s.diagnostics() {
        out.push_str(&format!("{d}\n"));
    }
    out.push_str(&format!("leaf {:?} lines {}\n", s.leaf(), s.n_lines()));
    out
}

/// The chunks of `file` cut at `cuts` (line starts), indexed as the host indexes them: each
/// on its own, numbered from line 1, a chunk whose malformed value runs past its end indexed
/// again together with the next, then the line numbers shifted.
pub fn chunked(file: &[u8], cuts: &[usize]) -> Vec<ChunkIndex> {
    let mut bounds = vec![0];
    bounds.extend(cuts.iter().copied().filter(|&c| c > 0 && c < file.len()));
    bounds.sort_unstable();
    bounds.dedup();
    bounds.push(file.len());
    let mut starts: Vec<usize> = bounds[..bounds.len() - 1].to_vec();
    let mut indexed: Vec<ChunkIndex> = bounds.windows(2).map(|w| index_chunk(&file[w[0]..w[1]], w[0] as u64, 1)).collect();
    let mut i = 0;
    while i + 1 < indexed.len() {
        if !indexed[i].omp_open_at_end {
            i += 1;
            continue;
        }
        let end = starts.get(i + 2).copied().unwrap_or(file.len());
        indexed[i] = index_chunk(&file[starts[i]..end], starts[i] as u64, 1);
        indexed.remove(i + 1);
        starts.remove(i + 1);
    }
    let mut first_line = 0;
    for chunk in &mut indexed {
        for rec in &mut chunk.records {
            rec.line += first_line;
        }
        first_line += chunk.n_lines;
    }
    indexed
}

/// Checks (a) and (c) for one rule set (`None`: the file's own choice).
pub fn check_session(file: &[u8], cuts: &[usize], rules: Option<RuleSet>) {
    let whole = Session::parse(file, rules);
    let policy = rules.map_or_else(RulePolicy::default, RulePolicy::exact);
    let split = Session::assemble(chunked(file, cuts), &policy, None);
    assert_eq!(fingerprint(&split), fingerprint(&whole), "chunked indexing (cuts {cuts:?}) differs from one pass under {rules:?}");
    let s = &whole;
    let bytes = file.to_vec();
    let source = &bytes;
    let pack = PromptPack::own(s.dialect());
    let _ = s.rows();
    let _ = s.tree().preorder();
    let n = s.entries().len();
    let mut leaves = vec![Leaf::Last, Leaf::Reset];
    for i in [0, n / 3, n / 2, n.saturating_sub(1)] {
        if i < n {
            leaves.push(Leaf::At(NodeId(i as u32)));
        }
    }
    for leaf in leaves {
        let ctx = build(s, leaf);
        let states = entry_states(s, &ctx);
        let _ = tree_rows(s, &states, ctx.leaf);
        if let Ok(tokens) = context_tokens(s, &ctx, &pack, source) {
            let _ = estimate_context_tokens(s, &ctx, &tokens);
        }
        let _ = llm_messages(s, &ctx, &pack, source);
        let _ = serialize_context(s, &ctx, &pack, source);
        let _ = plan(s, &ctx, &CompactionSettings { keep_recent_tokens: 10, ..Default::default() }, source);
        let _ = plan_prune(s, leaf, &PruneConfig::default());
    }
}

/// Every check on one file. Returns the lines whose two readings were compared.
pub fn check_file(file: &[u8], cuts: &[usize]) -> usize {
    let lines = check_readings(file);
    check_session(file, cuts, None);
    for rules in RuleSet::ALL {
        check_session(file, cuts, Some(rules));
    }
    lines
}
