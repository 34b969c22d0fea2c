//! Pure response parsing: an incremental Server-Sent-Events parser ([`SseParser`]), the
//! per-provider reading of its events ([`StreamDecoder`]), and the non-streamed bodies
//! ([`decode_json_response`], [`decode_remote`]). No IO.
//!
//! The parser follows the WHATWG event-stream rules: lines end in CRLF, LF or CR (also when
//! a CRLF is split between two chunks), `:` starts a comment, `data` lines of one event are
//! joined with `\n`, a leading BOM is skipped, unknown fields are ignored. One deviation: an
//! event still open when the body ends is dispatched if its last line ended, so a server that
//! omits the final blank line loses nothing; an event cut off inside a line is dropped.
//!
//! Errors carry the byte offset (from the start of the body) of the offending line or byte.

use serde_json::Value;

use crate::error::LlmError;

/// Lines longer than this are refused (a broken server, not an answer).
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field; empty when the event had none.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The `id:` field, if the event had one.
    pub id: Option<String>,
    /// Byte offset of the event's first line in the body.
    pub offset: u64,
}

/// Bytes in, events out; keeps whatever part of a line or event a chunk ends in.
#[derive(Debug, Default)]
pub struct SseParser {
    /// The current, unterminated line.
    line: Vec<u8>,
    /// Offset of `line[0]`.
    line_start: u64,
    /// Bytes fed so far.
    pos: u64,
    /// The previous chunk ended in CR: an LF at the start of the next one belongs to it.
    skip_lf: bool,
    event: String,
    data: String,
    has_data: bool,
    id: Option<String>,
    event_start: Option<u64>,
}

impl SseParser {
    /// A parser at the start of a body.
    pub fn new() -> SseParser {
        SseParser::default()
    }

    /// Bytes fed so far.
    pub fn bytes_seen(&self) -> u64 {
        self.pos
    }

    /// Feeds the next piece of the body; complete events are appended to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), LlmError> {
        let mut idx = 0;
        if self.skip_lf && !chunk.is_empty() {
            self.skip_lf = false;
            if chunk[0] == b'\n' {
                idx = 1;
                self.line_start += 1;
            }
        }
        while idx < chunk.len() {
            let Some(rel) = memchr::memchr2(b'\n', b'\r', &chunk[idx..]) else {
                self.line.extend_from_slice(&chunk[idx..]);
                if self.line.len() > MAX_LINE_BYTES {
                    return Err(malformed(self.line_start, format!("line longer than {MAX_LINE_BYTES} bytes")));
                }
                break;
            };
            self.line.extend_from_slice(&chunk[idx..idx + rel]);
            let mut next = idx + rel + 1;
            if chunk[idx + rel] == b'\r' {
                if next < chunk.len() {
                    if chunk[next] == b'\n' {
                        next += 1;
                    }
                } else {
                    self.skip_lf = true;
                }
            }
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, out)?;
            self.line = line;
            self.line.clear();
            self.line_start = self.pos + next as u64;
            idx = next;
        }
        self.pos += chunk.len() as u64;
        Ok(())
    }

    /// The body ended. An event whose lines all ended is dispatched even without the
    /// closing blank line; an event whose last line was cut off is dropped (its data would
    /// be a fragment).
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) -> Result<(), LlmError> {
        if self.line.is_empty() {
            self.process_line(b"", out)
        } else {
            self.line.clear();
            self.event_start = None;
            self.event.clear();
            self.data.clear();
            self.has_data = false;
            Ok(())
        }
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), LlmError> {
        let line = if self.line_start == 0 { line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line) } else { line };
        if line.is_empty() {
            if let Some(offset) = self.event_start.take() {
                let event = std::mem::take(&mut self.event);
                let mut data = std::mem::take(&mut self.data);
                if self.has_data {
                    data.pop(); // The `\n` after the last data line.
                    out.push(SseEvent { event, data, id: self.id.clone(), offset });
                }
                self.has_data = false;
            }
            return Ok(());
        }
        let text =
            std::str::from_utf8(line).map_err(|err| malformed(self.line_start + err.valid_up_to() as u64, "invalid UTF-8".to_owned()))?;
        if text.starts_with(':') {
            return Ok(());
        }
        let (field, value) = match text.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (text, ""),
        };
        match field {
            "event" => self.event = value.to_owned(),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.id = Some(value.to_owned()),
            _ => return Ok(()), // `retry` and unknown fields.
        }
        self.event_start.get_or_insert(self.line_start);
        Ok(())
    }
}

/// Token counts a provider reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Prompt tokens (OpenAI `prompt_tokens`, Anthropic `input_tokens`).
    pub input_tokens: Option<u64>,
    /// Generated tokens (OpenAI `completion_tokens`, Anthropic `output_tokens`).
    pub output_tokens: Option<u64>,
}

/// Which streaming dialect a [`StreamDecoder`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamFormat {
    /// OpenAI chat-completion chunks, ended by `data: [DONE]`.
    OpenAi,
    /// Anthropic Messages events, ended by `message_stop`.
    Anthropic,
}

/// Turns one provider's events into text deltas, usage and the stop reason.
#[derive(Debug)]
pub struct StreamDecoder {
    format: StreamFormat,
    done: bool,
    complete: bool,
    usage: Usage,
    has_usage: bool,
    stop_reason: Option<String>,
    n_text_blocks: u32,
}

impl StreamDecoder {
    /// A decoder at the start of a response.
    pub fn new(format: StreamFormat) -> StreamDecoder {
        StreamDecoder {
            format,
            done: false,
            complete: false,
            usage: Usage::default(),
            has_usage: false,
            stop_reason: None,
            n_text_blocks: 0,
        }
    }

    /// Reads one event; summary text is passed to `on_text` in order.
    ///
    /// OpenAI: `choices[0].delta.content`; `delta.reasoning_content` / `delta.reasoning`
    /// (thinking) is skipped; `[DONE]` ends the stream; an `error` object is an error.
    /// Anthropic: `text_delta`s of text blocks, with `\n` between two text blocks (the agents
    /// join text blocks with `\n`); thinking is skipped; `message_stop` ends the stream;
    /// `event: error` is an error; `ping` and unknown events are ignored.
    pub fn decode(&mut self, event: &SseEvent, on_text: &mut dyn FnMut(&str)) -> Result<(), LlmError> {
        match self.format {
            StreamFormat::OpenAi => self.decode_openai(event, on_text),
            StreamFormat::Anthropic => self.decode_anthropic(event, on_text),
        }
    }

    /// The provider said the stream is over: stop reading.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Enough arrived to accept the text (the end marker, or at least a stop reason).
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// The usage the provider reported, if any.
    pub fn usage(&self) -> Option<Usage> {
        self.has_usage.then_some(self.usage)
    }

    /// `stop`, `length`, `end_turn`, `max_tokens`, ... as the provider said it.
    pub fn stop_reason(&self) -> Option<&str> {
        self.stop_reason.as_deref()
    }

    fn decode_openai(&mut self, event: &SseEvent, on_text: &mut dyn FnMut(&str)) -> Result<(), LlmError> {
        if event.data.trim() == "[DONE]" {
            self.done = true;
            self.complete = true;
            return Ok(());
        }
        let value = parse_event_json(event)?;
        if let Some(err) = value.get("error").filter(|e| !e.is_null()) {
            return Err(provider_error(err));
        }
        if event.event == "error" {
            return Err(provider_error(&value));
        }
        if let Some(choice) = value.get("choices").and_then(Value::as_array).and_then(|c| c.first()) {
            if let Some(text) = choice.pointer("/delta/content").and_then(Value::as_str) {
                if !text.is_empty() {
                    on_text(text);
                }
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.stop_reason = Some(reason.to_owned());
                self.complete = true;
            }
        }
        if let Some(usage) = value.get("usage").filter(|u| u.is_object()) {
            self.read_usage(usage, "prompt_tokens", "completion_tokens");
        }
        Ok(())
    }

    fn decode_anthropic(&mut self, event: &SseEvent, on_text: &mut dyn FnMut(&str)) -> Result<(), LlmError> {
        let value = parse_event_json(event)?;
        let kind =
            if event.event.is_empty() { value.get("type").and_then(Value::as_str).unwrap_or_default() } else { event.event.as_str() };
        match kind {
            "message_start" => {
                if let Some(usage) = value.pointer("/message/usage") {
                    self.read_usage(usage, "input_tokens", "output_tokens");
                }
            }
            "content_block_start" => {
                let block = value
                    .get("content_block")
                    .ok_or_else(|| malformed(event.offset, "content_block_start without content_block".into()))?;
                if block.get("type").and_then(Value::as_str) == Some("text") {
                    if self.n_text_blocks > 0 {
                        on_text("\n");
                    }
                    self.n_text_blocks += 1;
                    if let Some(text) = block.get("text").and_then(Value::as_str).filter(|t| !t.is_empty()) {
                        on_text(text);
                    }
                }
            }
            "content_block_delta" => {
                let delta = value.get("delta").ok_or_else(|| malformed(event.offset, "content_block_delta without delta".into()))?;
                if delta.get("type").and_then(Value::as_str) == Some("text_delta") {
                    let text = delta
                        .get("text")
                        .and_then(Value::as_str)
                        .ok_or_else(|| malformed(event.offset, "text_delta without text".into()))?;
                    on_text(text);
                }
            }
            "message_delta" => {
                if let Some(reason) = value.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(reason.to_owned());
                    self.complete = true;
                }
                if let Some(usage) = value.get("usage") {
                    self.read_usage(usage, "input_tokens", "output_tokens");
                }
            }
            "message_stop" => {
                self.done = true;
                self.complete = true;
            }
            "error" => return Err(provider_error(value.get("error").unwrap_or(&value))),
            _ => {} // ping, content_block_stop, and events added later.
        }
        Ok(())
    }

    fn read_usage(&mut self, usage: &Value, input: &str, output: &str) {
        if let Some(n) = usage.get(input).and_then(Value::as_u64) {
            self.usage.input_tokens = Some(n);
            self.has_usage = true;
        }
        if let Some(n) = usage.get(output).and_then(Value::as_u64) {
            self.usage.output_tokens = Some(n);
            self.has_usage = true;
        }
    }
}

/// A whole (non-streamed) JSON answer, for a server that ignored `stream: true`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonAnswer {
    /// The text (Anthropic: text blocks joined with `\n`).
    pub text: String,
    /// The usage, if reported.
    pub usage: Option<Usage>,
    /// The stop reason, if reported.
    pub stop_reason: Option<String>,
}

/// Reads a non-streamed chat-completion (OpenAI) or message (Anthropic) body.
pub fn decode_json_response(format: StreamFormat, body: &[u8]) -> Result<JsonAnswer, LlmError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|err| LlmError::MalformedResponse { reason: format!("invalid JSON: {err}") })?;
    if let Some(err) = value.get("error").filter(|e| !e.is_null()) {
        return Err(provider_error(err));
    }
    let missing = |what: &str| LlmError::MalformedResponse { reason: format!("no {what} in the response") };
    let mut decoder = StreamDecoder::new(format);
    let (text, stop_reason) = match format {
        StreamFormat::OpenAi => {
            let choice = value.pointer("/choices/0").ok_or_else(|| missing("choices[0]"))?;
            let text = choice.pointer("/message/content").and_then(Value::as_str).unwrap_or_default();
            let reason = choice.get("finish_reason").and_then(Value::as_str);
            if let Some(usage) = value.get("usage") {
                decoder.read_usage(usage, "prompt_tokens", "completion_tokens");
            }
            (text.to_owned(), reason)
        }
        StreamFormat::Anthropic => {
            let blocks = value.get("content").and_then(Value::as_array).ok_or_else(|| missing("content"))?;
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            if let Some(usage) = value.get("usage") {
                decoder.read_usage(usage, "input_tokens", "output_tokens");
            }
            (texts.join("\n"), value.get("stop_reason").and_then(Value::as_str))
        }
    };
    Ok(JsonAnswer { text, usage: decoder.usage(), stop_reason: stop_reason.map(str::to_owned) })
}

/// Reads the remote endpoint's answer: the string `summary` field (compaction.md §6.5).
pub fn decode_remote(body: &[u8]) -> Result<String, LlmError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|err| LlmError::MalformedResponse { reason: format!("invalid JSON: {err}") })?;
    match value.get("summary") {
        Some(Value::String(summary)) => Ok(summary.clone()),
        _ => Err(LlmError::RemoteMissingSummary),
    }
}

fn parse_event_json(event: &SseEvent) -> Result<Value, LlmError> {
    serde_json::from_str(&event.data).map_err(|err| {
        let name = if event.event.is_empty() { "" } else { event.event.as_str() };
        let sep = if name.is_empty() { "" } else { " " };
        malformed(event.offset, format!("invalid JSON in {name}{sep}event data: {err}"))
    })
}

fn provider_error(err: &Value) -> LlmError {
    let field = |name: &str| err.get(name).and_then(Value::as_str);
    let kind = field("type").or(field("code")).unwrap_or("error").to_owned();
    let message = match (field("message"), err.as_str()) {
        (Some(m), _) | (None, Some(m)) => m.to_owned(),
        (None, None) => err.to_string(),
    };
    LlmError::Provider { kind, message: crate::error::body_excerpt(&message, None) }
}

fn malformed(offset: u64, reason: String) -> LlmError {
    LlmError::MalformedStream { offset, reason }
}

#[cfg(test)]
mod tests;
