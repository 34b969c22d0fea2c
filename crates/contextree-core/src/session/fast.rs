//! The hot path of indexing: a `message` line measured by a purpose-built JSON
//! scanner that never builds a tree and never copies text.
//!
//! Nearly all of a session file's bytes are message lines, and all the index
//! needs of them is a handful of short fields and the UTF-16 length of the
//! texts. The scanner validates the line's JSON grammar while it walks it,
//! counts UTF-16 units over whole runs between escapes, and gives up (returns `None`) on
//! anything unusual — a duplicate key, an escaped key, a field of an unexpected
//! type — so that the reference reading ([`super::probe`]) decides. The test
//! `fast_and_reference_readings_agree` holds the two readings together.

use serde_json::Value;

use super::entry::{EntryKind, MessageMeta, Role, Usage};
use super::probe::{parse_iso_ms, Parent, Probe};
use crate::js;

const IMAGE_CHARS: u64 = 4800;

/// Reads a `message` line, or None when the line needs the reference reading.
pub fn probe_message_line(bytes: &[u8]) -> Option<Probe> {
    // The reference parser rejects invalid UTF-8; so must this path.
    std::str::from_utf8(bytes).ok()?;
    let mut s = Scanner { b: bytes, i: 0 };
    let line = s.line()?;
    s.ws();
    if s.i != bytes.len() || line.ty.as_deref() != Some("message") {
        return None;
    }
    let msg = line.message?;
    let role = Role::parse(msg.role.as_deref().unwrap_or(""));
    let c = &msg.content;
    let chars = match role {
        Role::User if c.is_string => c.string,
        Role::User => c.text,
        Role::Assistant if c.is_string => 0,
        Role::Assistant => c.text + c.thinking + c.tool_calls,
        Role::ToolResult | Role::Custom | Role::HookMessage if c.is_string => c.string,
        Role::ToolResult | Role::Custom | Role::HookMessage => c.text + IMAGE_CHARS * c.images,
        Role::BashExecution => msg.command + msg.output,
        Role::BranchSummary | Role::CompactionSummary => msg.summary,
        Role::Developer | Role::FileMention | Role::PythonExecution | Role::Other(_) => 0,
    };
    let is_assistant = role == Role::Assistant;
    let model = match (msg.provider, msg.model) {
        (None, None) => None,
        (p, m) => Some((p.unwrap_or_default().into(), m.unwrap_or_default().into())),
    };
    let meta = MessageMeta {
        chars,
        usage: msg.usage.filter(|_| is_assistant),
        stop_reason: msg.stop_reason.map(Into::into),
        model: model.filter(|_| is_assistant),
        exclude_from_context: msg.exclude_from_context,
        pruned: msg.pruned_at,
        tool_name: msg.tool_name.map(Into::into),
        role,
    };
    Some(Probe {
        entry_type: Some("message".into()),
        id: line.id.map(Into::into),
        parent: line.parent,
        timestamp_ms: line.timestamp.as_deref().and_then(parse_iso_ms),
        kind: EntryKind::Message(meta),
    })
}

struct LineFields {
    ty: Option<String>,
    id: Option<String>,
    parent: Parent,
    timestamp: Option<String>,
    message: Option<MessageFields>,
}

#[derive(Default)]
struct MessageFields {
    role: Option<String>,
    content: Content,
    command: u64,
    output: u64,
    summary: u64,
    usage: Option<Usage>,
    stop_reason: Option<String>,
    provider: Option<String>,
    model: Option<String>,
    exclude_from_context: bool,
    pruned_at: bool,
    tool_name: Option<String>,
}

/// What a `content` field adds up to, per kind of block.
#[derive(Default)]
struct Content {
    is_string: bool,
    string: u64,
    text: u64,
    thinking: u64,
    tool_calls: u64,
    images: u64,
}

/// A string literal: where its bytes are (without quotes), its UTF-16
/// length, and whether it holds escapes.
struct Str {
    start: usize,
    end: usize,
    units: u64,
    escaped: bool,
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

/// Marks keys already seen in one object; a repeat gives up (JS keeps the
/// last value, which the reference reading reproduces).
struct Seen(u32);

impl Seen {
    fn first(&mut self, bit: u32) -> Option<()> {
        let fresh = self.0 & (1 << bit) == 0;
        self.0 |= 1 << bit;
        fresh.then_some(())
    }
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.b.get(self.i) == Some(&c)).then(|| self.i += 1)
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.i).copied()
    }

    /// Walks `{ "key": value, ... }`, handing each key to `field`, which must
    /// consume the value.
    fn object(&mut self, mut field: impl FnMut(&mut Self, &[u8]) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(());
        }
        loop {
            let key = self.string()?;
            if key.escaped {
                return None;
            }
            let (start, end) = (key.start, key.end);
            self.eat(b':')?;
            let bytes = self.b;
            field(self, &bytes[start..end])?;
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn line(&mut self) -> Option<LineFields> {
        let mut f = LineFields { ty: None, id: None, parent: Parent::Absent, timestamp: None, message: None };
        let mut seen = Seen(0);
        self.object(|s, key| {
            match key {
                b"type" => {
                    seen.first(0)?;
                    f.ty = Some(s.text()?);
                }
                b"id" => {
                    seen.first(1)?;
                    f.id = Some(s.text()?);
                }
                b"parentId" => {
                    seen.first(2)?;
                    f.parent = if s.literal(b"null") { Parent::Null } else { Parent::Id(s.text()?.into()) };
                }
                b"timestamp" => {
                    seen.first(3)?;
                    f.timestamp = Some(s.text()?);
                }
                b"message" => {
                    seen.first(4)?;
                    f.message = Some(s.message()?);
                }
                _ => s.skip()?,
            }
            Some(())
        })?;
        Some(f)
    }

    fn message(&mut self) -> Option<MessageFields> {
        let mut m = MessageFields::default();
        let mut seen = Seen(0);
        self.object(|s, key| {
            match key {
                b"role" => {
                    seen.first(0)?;
                    m.role = Some(s.text()?);
                }
                b"content" => {
                    seen.first(1)?;
                    m.content = s.content()?;
                }
                b"command" => {
                    seen.first(2)?;
                    m.command = s.opt_len()?;
                }
                b"output" => {
                    seen.first(3)?;
                    m.output = s.opt_len()?;
                }
                b"summary" => {
                    seen.first(4)?;
                    m.summary = s.opt_len()?;
                }
                b"usage" => {
                    seen.first(5)?;
                    m.usage = s.usage()?;
                }
                b"stopReason" => {
                    seen.first(6)?;
                    m.stop_reason = s.opt_text()?;
                }
                b"provider" => {
                    seen.first(7)?;
                    m.provider = s.opt_text()?;
                }
                b"model" => {
                    seen.first(8)?;
                    m.model = s.opt_text()?;
                }
                b"excludeFromContext" => {
                    seen.first(9)?;
                    m.exclude_from_context = if s.literal(b"true") {
                        true
                    } else if s.literal(b"false") || s.literal(b"null") {
                        false
                    } else {
                        return None;
                    };
                }
                b"prunedAt" => {
                    // Present at all, even as null, counts (omp tests `=== undefined`).
                    seen.first(10)?;
                    m.pruned_at = true;
                    s.skip()?;
                }
                b"toolName" => {
                    seen.first(11)?;
                    m.tool_name = s.opt_text()?;
                }
                _ => s.skip()?,
            }
            Some(())
        })?;
        Some(m)
    }

    fn content(&mut self) -> Option<Content> {
        let mut c = Content::default();
        match self.peek()? {
            b'"' => {
                c.is_string = true;
                c.string = self.string()?.units;
            }
            b'n' if self.literal(b"null") => {}
            b'[' => {
                self.i += 1;
                if self.peek()? == b']' {
                    self.i += 1;
                    return Some(c);
                }
                loop {
                    self.block(&mut c)?;
                    match self.peek()? {
                        b',' => self.i += 1,
                        b']' => {
                            self.i += 1;
                            break;
                        }
                        _ => return None,
                    }
                }
            }
            _ => return None,
        }
        Some(c)
    }

    fn block(&mut self, c: &mut Content) -> Option<()> {
        let mut ty: Option<String> = None;
        let (mut text, mut thinking, mut name, mut args) = (0, 0, 0, 0);
        let mut seen = Seen(0);
        self.object(|s, key| {
            match key {
                b"type" => {
                    seen.first(0)?;
                    ty = s.opt_text()?;
                }
                b"text" => {
                    seen.first(1)?;
                    text = s.opt_len()?;
                }
                b"thinking" => {
                    seen.first(2)?;
                    thinking = s.opt_len()?;
                }
                b"name" => {
                    seen.first(3)?;
                    name = s.opt_len()?;
                }
                b"arguments" => {
                    // Arguments are small; their `JSON.stringify` length comes
                    // from the reference stringifier.
                    seen.first(4)?;
                    let start = s.i;
                    s.skip()?;
                    let v: Value = serde_json::from_slice(&s.b[start..s.i]).ok()?;
                    args = js::stringify_len(&v) as u64;
                }
                _ => s.skip()?,
            }
            Some(())
        })?;
        match ty.as_deref() {
            Some("text") => c.text += text,
            Some("thinking") => c.thinking += thinking,
            Some("toolCall") => c.tool_calls += name + args,
            Some("image") => c.images += 1,
            _ => {}
        }
        Some(())
    }

    fn usage(&mut self) -> Option<Option<Usage>> {
        if self.literal(b"null") {
            return Some(None);
        }
        let mut u = Usage::default();
        let mut seen = Seen(0);
        self.object(|s, key| {
            let slot = match key {
                b"input" => &mut u.input,
                b"output" => &mut u.output,
                b"cacheRead" => &mut u.cache_read,
                b"cacheWrite" => &mut u.cache_write,
                b"totalTokens" => &mut u.total_tokens,
                _ => return s.skip(),
            };
            let bit = match key {
                b"input" => 0,
                b"output" => 1,
                b"cacheRead" => 2,
                b"cacheWrite" => 3,
                _ => 4,
            };
            seen.first(bit)?;
            *slot = if s.literal(b"null") { 0.0 } else { s.number()? };
            Some(())
        })?;
        Some(Some(u))
    }

    /// A string value (null is not accepted where the caller needs text).
    fn text(&mut self) -> Option<String> {
        let s = self.string()?;
        let raw = &self.b[s.start..s.end];
        if s.escaped {
            let quoted = &self.b[s.start - 1..s.end + 1];
            serde_json::from_slice(quoted).ok()
        } else {
            std::str::from_utf8(raw).ok().map(str::to_owned)
        }
    }

    fn opt_text(&mut self) -> Option<Option<String>> {
        if self.literal(b"null") {
            Some(None)
        } else {
            self.text().map(Some)
        }
    }

    fn opt_len(&mut self) -> Option<u64> {
        if self.literal(b"null") {
            Some(0)
        } else {
            self.string().map(|s| s.units)
        }
    }

    fn literal(&mut self, word: &[u8]) -> bool {
        self.ws();
        let hit = self.b[self.i..].starts_with(word);
        if hit {
            self.i += word.len();
        }
        hit
    }

    /// A JSON number, validated against the grammar, as JS reads it.
    fn number(&mut self) -> Option<f64> {
        self.ws();
        let start = self.i;
        let b = self.b;
        let digits = |i: &mut usize| {
            let from = *i;
            while b.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i > from
        };
        let mut i = self.i;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                digits(&mut i);
            }
            _ => return None,
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            if !digits(&mut i) {
                return None;
            }
        }
        if let Some(b'e' | b'E') = b.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            if !digits(&mut i) {
                return None;
            }
        }
        self.i = i;
        std::str::from_utf8(&b[start..i]).ok()?.parse().ok()
    }

    /// Skips any value, validating it. Iterative: nesting depth costs no stack.
    fn skip(&mut self) -> Option<()> {
        let mut stack: Vec<u8> = Vec::new();
        loop {
            // A value.
            match self.peek()? {
                b'"' => {
                    self.string()?;
                }
                b'{' => {
                    self.i += 1;
                    if self.peek()? == b'}' {
                        self.i += 1;
                    } else {
                        stack.push(b'}');
                        let key = self.string()?;
                        let _ = key;
                        self.eat(b':')?;
                        continue;
                    }
                }
                b'[' => {
                    self.i += 1;
                    if self.peek()? == b']' {
                        self.i += 1;
                    } else {
                        stack.push(b']');
                        continue;
                    }
                }
                b't' if self.literal(b"true") => {}
                b'f' if self.literal(b"false") => {}
                b'n' if self.literal(b"null") => {}
                _ => {
                    self.number()?;
                }
            }
            // After a value: close containers or move to the next element.
            loop {
                let Some(&close) = stack.last() else { return Some(()) };
                match self.peek()? {
                    b',' => {
                        self.i += 1;
                        if close == b'}' {
                            self.string()?;
                            self.eat(b':')?;
                        }
                        break;
                    }
                    c if c == close => {
                        self.i += 1;
                        stack.pop();
                    }
                    _ => return None,
                }
            }
        }
    }

    /// A string literal at the cursor: validated (no raw control characters,
    /// valid escapes) and measured in UTF-16 units without decoding. Plain runs
    /// between escapes are found with `memchr2` and measured in bulk.
    fn string(&mut self) -> Option<Str> {
        self.eat(b'"')?;
        let b = self.b;
        let start = self.i;
        let mut i = start;
        let mut units = 0u64;
        let mut escaped = false;
        loop {
            let run = memchr::memchr2(b'"', b'\\', &b[i..])?;
            let plain = &b[i..i + run];
            if has_control_byte(plain) {
                return None;
            }
            units += utf16_units(plain);
            i += run;
            if b[i] == b'"' {
                self.i = i + 1;
                return Some(Str { start, end: i, units, escaped });
            }
            escaped = true;
            units += 1;
            match *b.get(i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'u' if b.get(i + 2..i + 6)?.iter().all(u8::is_ascii_hexdigit) => i += 6,
                _ => return None,
            }
        }
    }
}

/// Whether a run holds a byte below 0x20 (JSON forbids them raw in strings).
/// Written as a fold without early exit so that it vectorises.
fn has_control_byte(run: &[u8]) -> bool {
    run.iter().fold(0u8, |acc, &c| acc | u8::from(c < 0x20)) != 0
}

/// UTF-16 units of valid UTF-8: one per byte that starts a character (not
/// `10xxxxxx`), one more per 4-byte lead (`11110xxx`). Vectorises.
fn utf16_units(run: &[u8]) -> u64 {
    run.iter().map(|&c| u64::from((c as i8) >= -0x40) + u64::from(c >= 0xF0)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_measured_in_utf16_units_and_control_bytes_found() {
        assert_eq!(utf16_units("aé€😀".as_bytes()), 1 + 1 + 1 + 2);
        assert!(has_control_byte(b"ab\ncd"));
        assert!(!has_control_byte("aé€😀 ~".as_bytes()));
    }

    #[test]
    fn odd_shapes_fall_back_to_the_reference_reading() {
        // Duplicate key, escaped key, number id, raw control character, trailing data.
        for line in [
            r#"{"type":"message","id":"a","id":"b","message":{"role":"user","content":"x"}}"#,
            r#"{"type":"message","i\u0064":"a","message":{"role":"user","content":"x"}}"#,
            r#"{"type":"message","id":1,"message":{"role":"user","content":"x"}}"#,
            "{\"type\":\"message\",\"id\":\"a\",\"message\":{\"role\":\"user\",\"content\":\"a\u{1}\"}}",
            r#"{"type":"message","id":"a","message":{"role":"user","content":"x"}} x"#,
        ] {
            assert!(probe_message_line(line.as_bytes()).is_none(), "{line}");
        }
    }
}
