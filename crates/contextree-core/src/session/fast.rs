//! The hot path of indexing: a `message` line measured by a purpose-built JSON
//! scanner that never builds a tree and never copies text.
//!
//! Nearly all of a session file's bytes are message lines, and all the index
//! needs of them is a handful of short fields and the UTF-16 length of the
//! texts. The scanner validates the line's JSON grammar while it walks it,
//! counts UTF-16 units eight bytes at a time, and gives up (returns `None`) on
//! anything unusual — a duplicate key, an escaped key, a field of an unexpected
//! type — so that the reference reading ([`super::probe`]) decides. The test
//! `fast_and_reference_readings_agree` holds the two readings together.

use std::borrow::Cow;

use super::block::Block;
use super::call_id::{call_id_hash_bytes, NULL_CALL_ID, UNDEFINED_CALL_ID};
use super::classify::{self, Classify};
use super::entry::{EntryKind, MessageMeta, ReplyFacts, Role, TurnFacts, Usage};
use super::name::Name;
use super::probe::{parse_iso_ms_bytes, Parent, Probe};
use super::window::Window;
use crate::js;

const IMAGE_CHARS: u64 = 4800;

/// Reads a `message` line, or None when the line needs the reference reading.
pub(super) fn probe_message_line(bytes: &[u8]) -> Option<Probe> {
    probe_message_prefix(bytes).filter(|&(_, len)| len == bytes.len()).map(|(probe, _)| probe)
}

/// Reads the `message` line `bytes` starts with, and says how long the line is
/// (up to its `\n` or the end of `bytes`); None when the line needs the
/// reference reading. Saves finding the line's end before reading it: the
/// scanner never steps over a `\n` (not even as whitespace), so it stops in
/// the first line.
pub(super) fn probe_message_prefix(bytes: &[u8]) -> Option<(Probe, usize)> {
    let mut s = Scanner::new(bytes);
    let line = s.line()?;
    s.ws();
    let len = s.i;
    if !matches!(bytes.get(len), None | Some(b'\n')) || line.ty.as_deref() != Some(&b"message"[..]) {
        return None;
    }
    // The reference parser rejects invalid UTF-8; so must this path. Bytes
    // above 0x7f can only stand inside strings, which note them.
    if s.non_ascii {
        simdutf8::basic::from_utf8(&bytes[..len]).ok()?;
    }
    let msg = line.message?;
    let role = Role::parse(msg.role.as_deref().unwrap_or(""));
    if msg.stop_reason.as_deref() == Some("error") {
        // Rare turns omp 18 may leave out (`isEmptyErrorTurn`): the reference reading decides.
        return None;
    }
    if role == Role::System {
        // Sections and tool declarations are measured by the reference reading.
        return None;
    }
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
        Role::Developer | Role::FileMention | Role::PythonExecution | Role::System | Role::Other(_) => 0,
    };
    // omp 18's fragment count (omp-18.md §4.2).
    let omp18_tokens = match role {
        Role::User | Role::Developer | Role::ToolResult | Role::Custom | Role::HookMessage if c.is_string => c.string_b4,
        Role::User | Role::Developer | Role::ToolResult | Role::Custom | Role::HookMessage => c.text_b4 + 1200 * c.images,
        Role::Assistant if c.is_string => 0,
        Role::Assistant => c.assistant_b4,
        Role::BashExecution => msg.command_b4 + msg.output_b4,
        Role::BranchSummary => msg.summary_b4,
        // Snapcompact blocks and images of a stored summary: the reference reading.
        Role::CompactionSummary => return None,
        Role::FileMention | Role::PythonExecution | Role::System | Role::Other(_) => 0,
    };
    let is_assistant = role == Role::Assistant;
    let model = match (msg.provider, msg.model) {
        (None, None) => None,
        (p, m) => Some(Name::shared_pair(p.as_deref().unwrap_or_default(), m.as_deref().unwrap_or_default())),
    };
    let meta = MessageMeta {
        chars,
        omp18_tokens,
        images: if role == Role::User { c.images as u32 } else { 0 },
        reply: ReplyFacts {
            usage: msg.usage.filter(|_| is_assistant),
            stop_reason: msg.stop_reason.as_deref().map(Name::shared),
            model: model.filter(|_| is_assistant),
        }
        .into(),
        exclude_from_context: msg.exclude_from_context,
        pruned: msg.pruned_at,
        tool_name: msg.tool_name.as_deref().map(Name::shared),
        turn: TurnFacts {
            call_ids: if is_assistant { c.call_ids.clone().into() } else { Box::default() },
            tool_call_id: (role == Role::ToolResult).then(|| msg.tool_call_id.unwrap_or(UNDEFINED_CALL_ID)),
            other_blocks: if is_assistant && !c.call_ids.is_empty() { c.other_blocks } else { 0 },
            retry_recovery: false,
            empty_error: false,
            useless: false,
            skill_reads: 0,
            omp183_fields: false,
        }
        .into(),
        role,
    };
    let probe = Probe {
        entry_type: Some("message".into()),
        id: line.id.as_deref().map(Name::from),
        parent: line.parent,
        timestamp_ms: line.timestamp.as_deref().and_then(parse_iso_ms_bytes).into(),
        kind: EntryKind::Message(meta),
    };
    Some((probe, len))
}

/// The line's fields, borrowing the line's text where it holds no escapes.
struct LineFields<'a> {
    ty: Option<Cow<'a, [u8]>>,
    id: Option<Cow<'a, str>>,
    parent: Parent,
    timestamp: Option<Cow<'a, [u8]>>,
    message: Option<MessageFields<'a>>,
}

#[derive(Default)]
struct MessageFields<'a> {
    role: Option<Cow<'a, str>>,
    content: Content,
    command: u64,
    output: u64,
    summary: u64,
    command_b4: u64,
    output_b4: u64,
    summary_b4: u64,
    usage: Option<Usage>,
    stop_reason: Option<Cow<'a, str>>,
    provider: Option<Cow<'a, str>>,
    model: Option<Cow<'a, str>>,
    exclude_from_context: bool,
    pruned_at: bool,
    tool_name: Option<Cow<'a, str>>,
    /// The key of `toolCallId` (None: the field is missing).
    tool_call_id: Option<u64>,
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
    /// omp 18's count of the string content.
    string_b4: u64,
    /// omp 18's count of the text blocks.
    text_b4: u64,
    /// omp 18's count of an assistant's blocks.
    assistant_b4: u64,
    /// Keys of the `toolCall` blocks' ids (`call_id`).
    call_ids: Vec<u64>,
    /// Blocks that are neither `toolCall` nor `redactedThinking`.
    other_blocks: u32,
}

/// `JSON.stringify(value)` measured: its UTF-16 length, and how many more UTF-8
/// bytes than that it takes (omp 18 counts bytes).
struct Stringified {
    units: u64,
    utf8_extra: u64,
}

/// A string literal: where its bytes are (without quotes), its UTF-16
/// length, and whether it holds escapes.
struct Str {
    start: usize,
    end: usize,
    units: u64,
    /// UTF-8 bytes of the decoded value (a lone surrogate as U+FFFD, 3 bytes, as Node writes it).
    utf8: u64,
    escaped: bool,
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
    /// A string held a byte above 0x7f: the line needs UTF-8 validation.
    non_ascii: bool,
    /// The AVX2 classifier when the CPU has it, for [`Scanner::string`].
    #[cfg(target_arch = "x86_64")]
    avx2: Option<classify::Avx2>,
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

impl<'a> Scanner<'a> {
    fn new(b: &'a [u8]) -> Self {
        Self {
            b,
            i: 0,
            non_ascii: false,
            #[cfg(target_arch = "x86_64")]
            avx2: classify::Avx2::detect(),
        }
    }

    /// Whitespace within a line: a `\n` ends the line, so it is never skipped.
    fn ws(&mut self) {
        // The files hold no whitespace between tokens: one compare rules out all of it,
        // where the match alone became a jump table at every token.
        while let Some(b' ' | b'\t' | b'\r') = self.b.get(self.i).filter(|&&c| c <= b' ') {
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

    fn line(&mut self) -> Option<LineFields<'a>> {
        let mut f = LineFields { ty: None, id: None, parent: Parent::Absent, timestamp: None, message: None };
        let mut seen = Seen(0);
        self.object(|s, key| {
            match key {
                b"type" => {
                    seen.first(0)?;
                    f.ty = Some(s.raw()?);
                }
                b"id" => {
                    seen.first(1)?;
                    f.id = Some(s.text()?);
                }
                b"parentId" => {
                    seen.first(2)?;
                    f.parent = if s.literal(b"null") { Parent::Null } else { Parent::Id(Name::from(&*s.text()?)) };
                }
                b"timestamp" => {
                    seen.first(3)?;
                    f.timestamp = Some(s.raw()?);
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

    fn message(&mut self) -> Option<MessageFields<'a>> {
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
                    (m.command, m.command_b4) = s.opt_len_b4()?;
                }
                b"output" => {
                    seen.first(3)?;
                    (m.output, m.output_b4) = s.opt_len_b4()?;
                }
                b"summary" => {
                    seen.first(4)?;
                    (m.summary, m.summary_b4) = s.opt_len_b4()?;
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
                b"toolCallId" => {
                    seen.first(12)?;
                    m.tool_call_id = Some(if s.literal(b"null") { NULL_CALL_ID } else { call_id_hash_bytes(&s.raw()?) });
                }
                // Rare fields omp 18 reads: the reference reading decides.
                // Rare fields the reference reading decides on (omp 18's dropped turns and
                // useless results, omp 18.3's evidence).
                b"retryRecovery" | b"useless" | b"requestControls" | b"credentialId" => return None,
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
                let lit = self.string()?;
                c.string = lit.units;
                c.string_b4 = Self::fragment_tokens(&lit);
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
        let mut ty: Option<Cow<'_, [u8]>> = None;
        let (mut text, mut thinking, mut name, mut args) = (0, 0, 0, 0);
        // omp 18's fragment counts of the same fields, and of a thinking
        // signature and redacted thinking data.
        let (mut text_b4, mut thinking_b4, mut name_b4, mut args_b4, mut signature_b4, mut data_b4) = (0, 0, 0, 0, 0, 0);
        // The id's key; None for an id the scanner leaves to the reference reading.
        let mut id = Some(UNDEFINED_CALL_ID);
        let mut seen = Seen(0);
        self.object(|s, key| {
            match key {
                b"type" => {
                    seen.first(0)?;
                    ty = if s.literal(b"null") { None } else { Some(s.raw()?) };
                }
                b"text" => {
                    seen.first(1)?;
                    (text, text_b4) = s.opt_len_b4()?;
                }
                b"thinking" => {
                    seen.first(2)?;
                    (thinking, thinking_b4) = s.opt_len_b4()?;
                }
                b"name" => {
                    seen.first(3)?;
                    (name, name_b4) = s.opt_len_b4()?;
                }
                b"arguments" => {
                    seen.first(4)?;
                    let from = s.i;
                    let stringified = s.stringified_len()?;
                    // A `skill://` path (omp 18 protects skill reads): the reference reading.
                    if memchr::memmem::find(&s.b[from..s.i], b"skill://").is_some() {
                        return None;
                    }
                    args = stringified.units;
                    // omp 18 counts the UTF-8 bytes of the stringified arguments.
                    args_b4 = (stringified.units + stringified.utf8_extra + 3) >> 2;
                }
                b"thinkingSignature" => {
                    seen.first(5)?;
                    signature_b4 = s.opt_len_b4()?.1;
                }
                b"id" => {
                    seen.first(7)?;
                    id = match s.peek()? {
                        b'"' => Some(call_id_hash_bytes(&s.raw()?)),
                        b'n' if s.literal(b"null") => Some(NULL_CALL_ID),
                        // Numbers, booleans, objects: the reference reading (a toolCall's only).
                        _ => s.skip().map(|_| None)?,
                    };
                }
                b"data" => {
                    seen.first(6)?;
                    data_b4 = if s.peek()? == b'"' { s.opt_len_b4()?.1 } else { s.skip().map(|_| 0)? };
                }
                _ => s.skip()?,
            }
            Some(())
        })?;
        if !matches!(ty.as_deref(), Some(b"toolCall" | b"redactedThinking")) {
            c.other_blocks += 1;
        }
        match ty.as_deref() {
            Some(b"text") => {
                c.text += text;
                c.text_b4 += text_b4;
                c.assistant_b4 += text_b4;
            }
            Some(b"thinking") => {
                c.thinking += thinking;
                c.assistant_b4 += thinking_b4 + signature_b4;
            }
            Some(b"toolCall") => {
                c.tool_calls += name + args;
                c.assistant_b4 += name_b4 + args_b4;
                c.call_ids.push(id?);
            }
            Some(b"image") => c.images += 1,
            Some(b"redactedThinking") => c.assistant_b4 += data_b4,
            // Measured as JSON of its `block`: the reference reading.
            Some(b"anthropicServerTool") => return None,
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

    /// A string value (null is not accepted where the caller needs text), borrowed from the
    /// line unless it holds escapes.
    fn text(&mut self) -> Option<Cow<'a, str>> {
        let s = self.string()?;
        let b: &'a [u8] = self.b;
        if s.escaped {
            serde_json::from_slice(&b[s.start - 1..s.end + 1]).ok().map(Cow::Owned)
        } else {
            std::str::from_utf8(&b[s.start..s.end]).ok().map(Cow::Borrowed)
        }
    }

    /// A string value's decoded bytes, for fields that are only compared, hashed or parsed
    /// (types, timestamps, call ids): borrowed unless it holds escapes, and without the UTF-8
    /// check of [`Scanner::text`], about a hundred instructions a string. The line's own
    /// check (`probe_message_prefix`) still rejects invalid UTF-8 anywhere in it.
    fn raw(&mut self) -> Option<Cow<'a, [u8]>> {
        let s = self.string()?;
        let b: &'a [u8] = self.b;
        if s.escaped {
            serde_json::from_slice::<String>(&b[s.start - 1..s.end + 1]).ok().map(|t| Cow::Owned(t.into_bytes()))
        } else {
            Some(Cow::Borrowed(&b[s.start..s.end]))
        }
    }

    fn opt_text(&mut self) -> Option<Option<Cow<'a, str>>> {
        if self.literal(b"null") {
            Some(None)
        } else {
            self.text().map(Some)
        }
    }

    /// A string's UTF-16 length (null counts 0) and omp 18's count of the same string
    /// (`(UTF-8 bytes + 3) >> 2`; null counts 0).
    fn opt_len_b4(&mut self) -> Option<(u64, u64)> {
        if self.literal(b"null") {
            return Some((0, 0));
        }
        let lit = self.string()?;
        Some((lit.units, Self::fragment_tokens(&lit)))
    }

    /// `(UTF-8 bytes + 3) >> 2` of a string literal's value (omp 18's fragment count).
    fn fragment_tokens(lit: &Str) -> u64 {
        (lit.utf8 + 3) >> 2
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
        let raw = self.number_text()?;
        // Up to 15 digits are exact in a double: no float parsing (most numbers are counts).
        if raw.len() <= 15 && raw.iter().all(u8::is_ascii_digit) {
            return Some(raw.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0')) as f64);
        }
        std::str::from_utf8(raw).ok()?.parse().ok()
    }

    /// A JSON number's text, validated against the grammar (skipped values need no more).
    fn number_text(&mut self) -> Option<&[u8]> {
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
        Some(&b[start..i])
    }

    /// `JSON.stringify(value).length` of the value at the cursor, measured on
    /// the raw text: whitespace dropped, strings re-escaped the way JS escapes
    /// them, numbers in JS's shortest form. Gives up on a repeated or escaped
    /// key (JS would keep one value per key), like the rest of this path.
    fn stringified_len(&mut self) -> Option<Stringified> {
        // Per open container: its closing byte and, for objects, the keys seen.
        let mut stack: Vec<(u8, Vec<(usize, usize)>)> = Vec::new();
        let mut len = 0u64;
        let mut utf8_extra = 0u64;
        loop {
            match self.peek()? {
                b'"' => {
                    let (units, extra) = self.string_stringified_len()?;
                    len += units;
                    utf8_extra += extra;
                }
                b'{' => {
                    self.i += 1;
                    len += 2;
                    if self.peek()? == b'}' {
                        self.i += 1;
                    } else {
                        stack.push((b'}', Vec::new()));
                        let (units, extra) = self.member_key(&mut stack)?;
                        len += units;
                        utf8_extra += extra;
                        continue;
                    }
                }
                b'[' => {
                    self.i += 1;
                    len += 2;
                    if self.peek()? == b']' {
                        self.i += 1;
                    } else {
                        stack.push((b']', Vec::new()));
                        continue;
                    }
                }
                b't' if self.literal(b"true") => len += 4,
                b'f' if self.literal(b"false") => len += 5,
                b'n' if self.literal(b"null") => len += 4,
                _ => {
                    let raw = self.number_text()?;
                    // A plain integer of up to 15 digits prints as written.
                    let digits = raw.strip_prefix(b"-").unwrap_or(raw);
                    len += if digits.len() <= 15 && digits.iter().all(u8::is_ascii_digit) && raw != b"-0" {
                        raw.len() as u64
                    } else {
                        js::number_to_js_string(std::str::from_utf8(raw).ok()?.parse().ok()?).len() as u64
                    };
                }
            }
            loop {
                let Some(&(close, _)) = stack.last() else { return Some(Stringified { units: len, utf8_extra }) };
                match self.peek()? {
                    b',' => {
                        self.i += 1;
                        len += 1;
                        if close == b'}' {
                            let (units, extra) = self.member_key(&mut stack)?;
                            len += units;
                            utf8_extra += extra;
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

    /// A member's key and colon inside the innermost object: their stringified
    /// length and UTF-8 bytes beyond it, after checking that the key is new and unescaped.
    fn member_key(&mut self, stack: &mut [(u8, Vec<(usize, usize)>)]) -> Option<(u64, u64)> {
        let key = self.string()?;
        if key.escaped {
            return None;
        }
        let (_, keys) = stack.last_mut()?;
        let text = &self.b[key.start..key.end];
        if keys.iter().any(|&(a, b)| &self.b[a..b] == text) {
            return None;
        }
        keys.push((key.start, key.end));
        self.eat(b':')?;
        Some((key.units + 3, key.utf8 - key.units))
    }

    /// `JSON.stringify` length of the string literal at the cursor: its decoded
    /// text re-escaped as JS does (quotes, backslashes and the short escapes
    /// take two units, other controls and lone surrogates six, a pair two), and
    /// how many more UTF-8 bytes than units that text takes.
    fn string_stringified_len(&mut self) -> Option<(u64, u64)> {
        let lit = self.string()?;
        let mut len = lit.units + 2;
        if !lit.escaped {
            return Some((len, lit.utf8 - lit.units));
        }
        // Lone surrogates print as six-unit ASCII escapes, where `lit.utf8` holds U+FFFD.
        let mut lone = 0;
        let b = &self.b[lit.start..lit.end];
        let mut i = 0;
        // End of the last high-surrogate escape, counted as lone until a low
        // half follows right after it.
        let mut high_end = None;
        while let Some(j) = memchr::memchr(b'\\', &b[i..]) {
            i += j;
            if b[i + 1] != b'u' {
                // `\"` `\\` `\b` `\f` `\n` `\r` `\t` print as two units; `\/` as `/`.
                len += u64::from(b[i + 1] != b'/');
                high_end = None;
                i += 2;
                continue;
            }
            let unit = u16::from_str_radix(std::str::from_utf8(&b[i + 2..i + 6]).ok()?, 16).ok()?;
            let paired_low = high_end == Some(i);
            high_end = None;
            match unit {
                0x22 | 0x5c | 0x08 | 0x09 | 0x0a | 0x0c | 0x0d => len += 1,
                0..=0x1f => len += 5,
                0xd800..=0xdbff => {
                    len += 5;
                    lone += 1;
                    high_end = Some(i + 6);
                }
                // The pair prints raw: take back the high half's escape cost.
                0xdc00..=0xdfff if paired_low => {
                    len -= 5;
                    lone -= 1;
                }
                0xdc00..=0xdfff => {
                    len += 5;
                    lone += 1;
                }
                _ => {}
            }
            i += 6;
        }
        Some((len, lit.utf8 - lit.units - 2 * lone))
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
                    self.number_text()?;
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

    /// UTF-16 units of the low `n` bytes of `x` (valid UTF-8, higher bytes
    /// zero): one per byte that starts a character (not `10xxxxxx`), one more
    /// per 4-byte lead (`11110xxx`).
    fn word_units(&mut self, x: u64, n: u32) -> u64 {
        if x & HIGHS == 0 {
            return u64::from(n); // ASCII, the common case
        }
        self.non_ascii = true;
        let continuation = x & !(x << 1) & HIGHS;
        let lead4 = x & (x << 1) & (x << 2) & (x << 3) & HIGHS;
        u64::from(n - continuation.count_ones() + lead4.count_ones())
    }

    /// A string literal at the cursor: validated (no raw control characters,
    /// valid escapes) and measured in UTF-16 units without decoding. Runs
    /// between escapes are short (text is full of `\n`), so the bytes are
    /// classified 64 at a time with the two-byte escapes measured in the same
    /// pass ([`Window`]); the last bytes of a chunk sixteen at a time
    /// ([`Block`]); `\u` escapes and anything invalid byte by byte.
    #[inline]
    fn string(&mut self) -> Option<Str> {
        // The AVX2 copy where the CPU has it: the body inlined into a function compiled with
        // AVX2, BMI and POPCNT (the escape and unit counts are bit counts).
        #[cfg(target_arch = "x86_64")]
        if let Some(avx2) = self.avx2 {
            return avx2.run(|c| self.string_with(c));
        }
        self.string_base()
    }

    // A call of its own, so that `string` stays a test and a jump: with the base body inlined
    // there, its register saves ran before the test, on the AVX2 path too (about twenty
    // instructions a string, callgrind).
    #[inline(never)]
    fn string_base(&mut self) -> Option<Str> {
        self.string_with(classify::BASE)
    }

    /// [`Scanner::string`] with the classifier `c`; inlined into each form's caller, so that
    /// the AVX2 form's code is compiled with AVX2.
    #[inline(always)]
    fn string_with(&mut self, c: impl Classify) -> Option<Str> {
        self.eat(b'"')?;
        let b = self.b;
        let start = self.i;
        let mut i = start;
        let mut units = 0u64;
        // Raw bytes of the escapes minus the UTF-8 bytes they decode to.
        let mut saved = 0u64;
        let mut escaped = false;
        loop {
            let mut stopped = false;
            // Most strings are short (keys, ids, names, timestamps, call ids): their first 32
            // bytes sixteen at a time, where classifying 64 would cost more than the string.
            while let Some(bytes) = b.get(i..i + 16).and_then(|w| <&[u8; 16]>::try_from(w).ok()).filter(|_| !stopped && i - start < 32) {
                let (run, run_units, non_ascii) = Block::run(c, bytes);
                units += u64::from(run_units);
                self.non_ascii |= non_ascii;
                i += run as usize;
                stopped = run < 16;
            }
            // Sixty-four bytes at a time, two-byte escapes included, while that many are left.
            while let Some(bytes) = b.get(i..i + 64).and_then(|w| <&[u8; 64]>::try_from(w).ok()).filter(|_| !stopped) {
                let run = Window::run(c, bytes);
                units += u64::from(run.units);
                saved += u64::from(run.escapes);
                escaped |= run.escapes > 0;
                self.non_ascii |= run.non_ascii;
                i += run.len as usize;
                if run.len < 64 {
                    stopped = true;
                    break;
                }
            }
            // Near the chunk's end, sixteen bytes at a time while no byte ends the run.
            while let Some(bytes) = b.get(i..i + 16).and_then(|w| <&[u8; 16]>::try_from(w).ok()).filter(|_| !stopped) {
                let (run, run_units, non_ascii) = Block::run(c, bytes);
                units += u64::from(run_units);
                self.non_ascii |= non_ascii;
                i += run as usize;
                if run == 16 {
                    continue;
                }
                // The common escapes of text (`\n`, `\"`, `\\`, `\t`) go on with the next block
                // here; anything else is for the byte-wise code below.
                match (bytes[run as usize], b.get(i + 1)) {
                    (b'\\', Some(b'n' | b'"' | b'\\' | b't' | b'r' | b'/')) => {
                        escaped = true;
                        units += 1;
                        saved += 1;
                        i += 2;
                    }
                    _ => break,
                }
            }
            // The last bytes of the chunk, eight at a time (a stop found above ends this at once).
            while let Some(word) = b.get(i..i + 8).filter(|_| !stopped) {
                let x = u64::from_le_bytes(word.try_into().unwrap_or_default());
                let stops = attention(x);
                if stops == 0 {
                    units += self.word_units(x, 8);
                    i += 8;
                    continue;
                }
                // The lowest flagged byte is exact (false flags only appear above a true one).
                let k = stops.trailing_zeros() / 8;
                if k > 0 {
                    units += self.word_units(x & ((1u64 << (8 * k)) - 1), k);
                    i += k as usize;
                }
                break;
            }
            let c = *b.get(i)?;
            match c {
                b'"' => {
                    self.i = i + 1;
                    let utf8 = (i - start) as u64 - saved;
                    return Some(Str { start, end: i, units, utf8, escaped });
                }
                b'\\' => {
                    escaped = true;
                    units += 1;
                    match *b.get(i + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                            saved += 1;
                            i += 2;
                        }
                        b'u' => {
                            let unit = hex4(b.get(i + 2..i + 6)?)?;
                            i += 6;
                            let low_follows = || {
                                b.get(i..i + 2) == Some(b"\\u")
                                    && b.get(i + 2..i + 6).and_then(hex4).is_some_and(|l| (0xdc00..=0xdfff).contains(&l))
                            };
                            saved += match unit {
                                0..=0x7f => 5,
                                0x80..=0x7ff => 4,
                                // A pair: twelve bytes for one 4-byte character.
                                0xd800..=0xdbff if low_follows() => {
                                    units += 1;
                                    i += 6;
                                    8
                                }
                                _ => 3,
                            };
                        }
                        _ => return None,
                    }
                }
                0..=0x1f => return None,
                _ => {
                    units += u64::from((c as i8) >= -0x40) + u64::from(c >= 0xF0);
                    self.non_ascii |= c >= 0x80;
                    i += 1;
                }
            }
        }
    }
}

/// The value of four hex digits (a `\u` escape's), or None.
fn hex4(digits: &[u8]) -> Option<u16> {
    digits.iter().try_fold(0u16, |acc, &d| Some(acc << 4 | char::from(d).to_digit(16)? as u16))
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// High bit set in each byte of `x` that is `"`, `\` or below 0x20 (exact for
/// the lowest such byte; bytes above it may be flagged falsely).
fn attention(x: u64) -> u64 {
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let below_0x20 = x.wrapping_sub(ONES * 0x20) & !x & HIGHS;
    below_0x20 | zero(x ^ (ONES * u64::from(b'"'))) | zero(x ^ (ONES * u64::from(b'\\')))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scanner of `b` for each classifier form this CPU has: the base form, and AVX2 where
    /// detected; the string tests hold every form to the same answers.
    fn each_form(b: &[u8]) -> Vec<Scanner<'_>> {
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
        let mut forms = vec![Scanner::new(b)];
        #[cfg(target_arch = "x86_64")]
        {
            forms[0].avx2 = None;
            forms.extend(classify::Avx2::detect().map(|avx2| Scanner { avx2: Some(avx2), ..Scanner::new(b) }));
        }
        forms
    }

    #[test]
    fn strings_are_measured_in_utf16_units_word_by_word() {
        for n in 0..40 {
            let text = "aé€😀 ~".repeat(n);
            let lit = format!("\"{text}\\n{text}\"");
            for mut scanner in each_form(lit.as_bytes()) {
                let s = scanner.string().unwrap();
                assert_eq!(s.units, 2 * crate::js::utf16_len(&text) as u64 + 1, "{n}");
                assert_eq!(s.utf8, 2 * text.len() as u64 + 1, "{n}");
            }
            let raw_tab = format!("\"{text}\t\"");
            assert!(each_form(raw_tab.as_bytes()).iter_mut().all(|s| s.string().is_none()));
        }
    }

    /// Strings of text, escapes and multi-byte characters at every offset of the 64-byte
    /// windows and the sixteen-byte blocks, with and without the rest of a line after them
    /// (the windows need 64 bytes), against serde_json's decoding (lone surrogates are the
    /// next test's); an invalid piece anywhere makes the string unreadable.
    #[test]
    fn strings_are_measured_alike_wherever_windows_cut_them() {
        let pieces =
            ["a", "bcdefgh", "é", "€", "😀", "\\n", "\\\"", "\\\\", "\\/", "\\t", "\\r", "\\b", "\\f", "\\u00e9", "\\ud83d\\ude00"];
        let invalid = ["\\x", "\u{1}", "\\\u{1}", "\\u12x"];
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for round in 0..3000 {
            let mut text = String::new();
            let len = next(200);
            while text.len() < len {
                text.push_str(pieces[next(pieces.len())]);
            }
            let bad = round % 4 == 0;
            if bad {
                let at = (0..=next(text.len() + 1)).rev().find(|&k| text.is_char_boundary(k) && !text[..k].ends_with('\\')).unwrap_or(0);
                text.insert_str(at, invalid[next(invalid.len())]);
            }
            let tail = if round % 2 == 0 { "" } else { ",\"k\":1}                                                                 " };
            let lit = format!("\"{text}\"{tail}");
            for mut scanner in each_form(lit.as_bytes()) {
                let got = scanner.string();
                if bad {
                    assert!(got.is_none(), "{lit}");
                    continue;
                }
                let got = got.expect(&lit);
                let value: String = serde_json::from_str(&format!("\"{text}\"")).unwrap();
                assert_eq!((got.start, got.end, got.escaped), (1, 1 + text.len(), text.contains('\\')), "{lit}");
                assert_eq!((got.units, got.utf8), (js::utf16_len(&value) as u64, value.len() as u64), "{lit}");
                assert_eq!(scanner.non_ascii, !text.is_ascii(), "{lit}");
            }
        }
    }

    #[test]
    fn decoded_utf8_lengths_count_escapes_as_their_characters() {
        for raw in [r#""a\n\"\\\/\u0041\u00e9\u20ac\ud83d\ude00 é€😀""#, r#""\u0000\u007f\u0080\u07ff\u0800\uffff""#] {
            let text: String = serde_json::from_str(raw).unwrap();
            for mut scanner in each_form(raw.as_bytes()) {
                let s = scanner.string().unwrap();
                assert_eq!((s.units, s.utf8), (crate::js::utf16_len(&text) as u64, text.len() as u64), "{raw}");
            }
        }
        // A lone surrogate decodes to U+FFFD (3 bytes) as Node writes it; a high half before a
        // raw character is lone too.
        for (raw, bytes) in [(r#""\ud83d""#, 3), (r#""\ude00\ud83d""#, 6), (r#""\ud83d😀""#, 7)] {
            for mut scanner in each_form(raw.as_bytes()) {
                assert_eq!(scanner.string().unwrap().utf8, bytes, "{raw}");
            }
        }
    }

    #[test]
    fn stringified_lengths_match_the_reference_stringifier() {
        for raw in [
            r#"{"path":"src/app.css","offset":10,"limit":null}"#,
            r#"{"a":[1,2.50,-0,1e21,1E-7,123456789012345678,true,false,{}],"b":{"c":[]}}"#,
            r#"{ "s" : "q\"b\\s\/n\n\t\u0001\u00e9\ud83d\ude00 x\u2028" }"#,
            r#"{"2":1,"1":2,"x":"é😀"}"#,
            r#"{"ключ":"значение 日本 😀 \u00e9\u0800\ud83d\ude00","списки":["ü",{"ä":"\n€"}]}"#,
        ] {
            let mut s = Scanner::new(raw.as_bytes());
            let fast = s.stringified_len().expect(raw);
            let v: serde_json::Value = serde_json::from_str(raw).unwrap();
            assert_eq!(fast.units, js::stringify_len(&v) as u64, "{raw}");
            assert_eq!(fast.units + fast.utf8_extra, js::stringify(&v).len() as u64, "{raw}");
        }
        // Lone surrogates (serde_json cannot hold them): JS prints each as a
        // six-unit escape and a pair raw. `"\ud83d x"` is 2 + 6 + 2 units; the
        // array prints as `["\ud800𐀀"]`, 1 + 1 + 6 + 2 + 1 + 1.
        // Their UTF-8 bytes: the escapes are ASCII, the pair four bytes.
        for (raw, js_len, js_bytes) in
            [(&br#""\ud83d x""#[..], 10, 10), (br#"["\ud800\ud800\udc00"]"#, 12, 14), (br#""\udc00\ud800""#, 14, 14)]
        {
            let fast = Scanner::new(raw).stringified_len().unwrap();
            assert_eq!((fast.units, fast.units + fast.utf8_extra), (js_len, js_bytes));
        }
        let mut dup = Scanner::new(br#"{"a":1,"a":2}"#);
        assert!(dup.stringified_len().is_none());
    }

    #[test]
    fn odd_shapes_fall_back_to_the_reference_reading() {
        // Invalid UTF-8 inside a string, also in the fields read as bytes (timestamp, call
        // ids): the line's own check rejects it.
        assert!(
            probe_message_line(b"{\"type\":\"message\",\"id\":\"a\",\"message\":{\"role\":\"user\",\"content\":\"\xff\xfe\"}}").is_none()
        );
        for line in [
            &b"{\"type\":\"message\",\"id\":\"a\",\"timestamp\":\"2025-11-03\xff\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}"[..],
            b"{\"type\":\"message\",\"id\":\"a\",\"message\":{\"role\":\"toolResult\",\"toolCallId\":\"c\xff\",\"content\":\"x\"}}",
        ] {
            assert!(probe_message_line(line).is_none(), "{}", String::from_utf8_lossy(line));
        }
        // An escaped type reads as its text.
        assert!(probe_message_line(br#"{"type":"mess\u0061ge","id":"a","message":{"role":"user","content":"x"}}"#).is_some());
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
