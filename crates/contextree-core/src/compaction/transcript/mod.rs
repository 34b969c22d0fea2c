//! omp 18's summarizer input (omp-18.md §5.5, §7): `serializeConversationForSummary(
//! convertToLlm(messages), preferredDialect(summaryModel.id))` — the conversation written as a
//! transcript in the summary model's own chat format, one format per model family.
//!
//! Before rendering, tool results flagged useless (and not errors) are left out with their
//! calls, tool results keep only their text (cut at 2000 UTF-16 units), an assistant message
//! left with no blocks is dropped, and the anthropic format drops thinking. After rendering, the
//! harmony format's reserved control tokens are made inert (`<|x|>` → `<\|x\|>`) and every
//! `<conversation>` / `<previous-summary>` tag (either direction, any case, spaces inside) gets
//! its `<` written `&lt;`, so the text cannot close the prompt's own blocks.
//!
//! - [`identity`]: which family a model id belongs to (`preferredDialect`).
//! - [`render`]: the pieces the formats share (message parts, Python and JSON literals, the
//!   two generic layouts: the `Human:`/`Assistant:` text layout and ChatML).
//! - one file per family: [`anthropic`] (also `minimax` and the `xml` fallback), [`glm`],
//!   [`gemini`], [`gemma`], [`kimi`], [`qwen3`], [`deepseek`], [`harmony`].

mod anthropic;
mod deepseek;
mod gemini;
mod gemma;
mod glm;
mod harmony;
mod identity;
mod kimi;
mod qwen3;
mod render;
mod taxonomy;

use serde_json::Value;

pub use identity::preferred_dialect;
use render::Msg;

/// A transcript format of omp 18's summarizer input (pi-ai's dialects that
/// `preferredDialect` can name; `hermes` it never does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SummaryDialect {
    /// Claude models: `Human:` / `Assistant:` turns, calls in `<function_calls>`.
    Anthropic,
    /// GLM models: `[gMASK]<sop>`, `<|role|>` turns, `<arg_key>` / `<arg_value>` calls.
    Glm,
    /// Gemini models: `<start_of_turn>` turns, calls as Python in a `tool_code` fence.
    Gemini,
    /// Gemma models: `<|turn>` turns, `<|tool_call>call:name{…}` calls.
    Gemma,
    /// Kimi models: `<|im_role|>` turns, `functions.name:index` call ids.
    Kimi,
    /// Qwen models (and DeepSeek's Qwen distills): ChatML turns, `<tool_call>` JSON calls.
    Qwen3,
    /// DeepSeek models: `<｜User｜>` / `<｜Assistant｜>` turns, `<｜tool▁call▁begin｜>` calls.
    Deepseek,
    /// MiniMax models: the anthropic layout with calls in `<minimax:tool_call>`.
    Minimax,
    /// OpenAI models (GPT, o-series, gpt-oss): harmony `<|start|>role<|message|>` messages.
    Harmony,
    /// The fallback for models of no known family.
    Xml,
}

impl SummaryDialect {
    /// Every format.
    pub const ALL: [SummaryDialect; 10] = [
        SummaryDialect::Anthropic,
        SummaryDialect::Glm,
        SummaryDialect::Gemini,
        SummaryDialect::Gemma,
        SummaryDialect::Kimi,
        SummaryDialect::Qwen3,
        SummaryDialect::Deepseek,
        SummaryDialect::Minimax,
        SummaryDialect::Harmony,
        SummaryDialect::Xml,
    ];

    /// The agent's name of the format.
    pub fn name(self) -> &'static str {
        match self {
            SummaryDialect::Anthropic => "anthropic",
            SummaryDialect::Glm => "glm",
            SummaryDialect::Gemini => "gemini",
            SummaryDialect::Gemma => "gemma",
            SummaryDialect::Kimi => "kimi",
            SummaryDialect::Qwen3 => "qwen3",
            SummaryDialect::Deepseek => "deepseek",
            SummaryDialect::Minimax => "minimax",
            SummaryDialect::Harmony => "harmony",
            SummaryDialect::Xml => "xml",
        }
    }

    /// The format of that name.
    pub fn from_name(name: &str) -> Option<SummaryDialect> {
        SummaryDialect::ALL.into_iter().find(|d| d.name() == name)
    }

    /// What the format writes once, before the first message.
    fn prefix(self) -> &'static str {
        match self {
            SummaryDialect::Glm => glm::PREFIX,
            SummaryDialect::Gemini => gemini::PREFIX,
            SummaryDialect::Gemma => gemma::PREFIX,
            SummaryDialect::Deepseek => deepseek::PREFIX,
            _ => "",
        }
    }

    fn render(self, msgs: &[Msg]) -> String {
        match self {
            SummaryDialect::Anthropic => anthropic::transcript(msgs, anthropic::Flavor::Anthropic),
            SummaryDialect::Minimax => anthropic::transcript(msgs, anthropic::Flavor::Minimax),
            SummaryDialect::Xml => anthropic::transcript(msgs, anthropic::Flavor::Xml),
            SummaryDialect::Glm => glm::transcript(msgs),
            SummaryDialect::Gemini => gemini::transcript(msgs),
            SummaryDialect::Gemma => gemma::transcript(msgs),
            SummaryDialect::Kimi => kimi::transcript(msgs),
            SummaryDialect::Qwen3 => qwen3::transcript(msgs),
            SummaryDialect::Deepseek => deepseek::transcript(msgs),
            SummaryDialect::Harmony => harmony::transcript(msgs),
        }
    }
}

/// `serializeConversationForSummary(llm, dialect)`: `llm` is `convertToLlm`'s output.
pub(crate) fn serialize_for_summary(llm: &[Value], dialect: SummaryDialect) -> String {
    let msgs = render::prepare(llm, dialect == SummaryDialect::Anthropic);
    let text = dialect.render(&msgs);
    let text = if dialect == SummaryDialect::Harmony { harmony::escape_control_tokens(&text) } else { text };
    escape_boundary_tags(&text)
}

/// [`serialize_for_summary`] written a few messages at a time, so that a long history is never
/// held as one list of messages: the messages are [`pushed`](ChunkedTranscript::push) in order
/// and the transcript is the same text.
///
/// The list is cut only before a `user` message whose previous kept message is not a
/// `developer` one. There every format starts a turn of its own (no tool-result run, no
/// pending developer text crosses the cut) and the text of the part after the cut is the
/// whole's text from that message on, but for the format's one-time prefix (`<bos>`,
/// `[gMASK]<sop>`, deepseek's begin-of-sentence), which is left out after the first part. Each
/// part starts with `\n\n` then a letter, or with `<` (a turn marker), so neither escape
/// (`<|…|>`, `<…conversation>`) can match across a cut: they are applied part by part.
pub(crate) struct ChunkedTranscript {
    dialect: SummaryDialect,
    useless: std::collections::HashSet<u64>,
    buffer: Vec<Value>,
    chunk: usize,
    out: String,
    started: bool,
    /// With a limit: the text is counted (o200k_base) as it is written, and once the count
    /// exceeds the limit the counted text is no longer kept.
    limit: Option<u64>,
    /// Bytes of `out` counted, tokens they make, bytes of `out` searched for a cut.
    counted: usize,
    tokens: u64,
    scanned: usize,
    over: bool,
}

impl ChunkedTranscript {
    /// A transcript in `dialect`; `useless` must hold [`ChunkedTranscript::useless_key`] of
    /// every message that will be pushed (the results left out, with their calls); a part is
    /// written once `chunk` messages wait.
    pub(crate) fn new(dialect: SummaryDialect, useless: std::collections::HashSet<u64>, chunk: usize) -> ChunkedTranscript {
        ChunkedTranscript {
            dialect,
            useless,
            buffer: Vec::new(),
            chunk: chunk.max(1),
            out: String::new(),
            started: false,
            limit: None,
            counted: 0,
            tokens: 0,
            scanned: 0,
            over: false,
        }
    }

    /// Counts the text as it is written; [`ChunkedTranscript::finish_within`] then gives only
    /// the count when it exceeds `limit`.
    pub(crate) fn with_limit(mut self, limit: u64) -> ChunkedTranscript {
        self.limit = Some(limit);
        self
    }

    /// The transcript, or (with a limit, when its o200k_base count exceeds it) that count.
    pub(crate) fn finish_within(mut self) -> Result<String, u64> {
        self.flush();
        let Some(limit) = self.limit else { return Ok(self.out) };
        let tokens = self.tokens + o200k_count(&self.out[self.counted..]);
        if tokens > limit {
            Err(tokens)
        } else {
            Ok(self.out)
        }
    }

    /// The key a tool result flagged useless (not an error) puts in the set of results left out.
    pub(crate) fn useless_key(msg: &Value) -> Option<u64> {
        render::useless_key(msg)
    }

    /// The next message of `convertToLlm`'s output.
    pub(crate) fn push(&mut self, msg: Value) {
        if self.buffer.len() >= self.chunk && render::role(&msg) == "user" && !self.ends_with_developer() {
            self.flush();
        }
        self.buffer.push(msg);
    }

    /// The transcript.
    pub(crate) fn finish(mut self) -> String {
        self.flush();
        self.out
    }

    /// Whether the last message the waiting ones leave is a `developer` one (its text would
    /// join the next user turn in some formats).
    fn ends_with_developer(&self) -> bool {
        let drop_thinking = self.dialect == SummaryDialect::Anthropic;
        for i in (0..self.buffer.len()).rev() {
            let one = render::prepare_with(&self.buffer[i..=i], drop_thinking, &self.useless);
            if let Some(m) = one.first() {
                return matches!(m, Msg::Plain { role, .. } if role == "developer");
            }
        }
        false
    }

    fn flush(&mut self) {
        let msgs = render::prepare_with(&self.buffer, self.dialect == SummaryDialect::Anthropic, &self.useless);
        if !msgs.is_empty() {
            let text = self.dialect.render(&msgs);
            drop(msgs);
            let part = if self.started { text.strip_prefix(self.dialect.prefix()).unwrap_or(&text) } else { &text };
            let part = if self.dialect == SummaryDialect::Harmony { harmony::escape_control_tokens(part) } else { part.to_owned() };
            self.out.push_str(&escape_boundary_tags(&part));
            self.started = true;
        }
        self.buffer.clear();
        if let Some(limit) = self.limit {
            let b = self.out.as_bytes();
            // The last cut of the text not yet searched (none is after `counted` before it).
            if let Some(q) = (self.scanned.max(self.counted + 1)..b.len()).rev().find(|&q| o200k_cut(b, q)) {
                self.tokens += o200k_count(&self.out[self.counted..q]);
                self.counted = q;
                self.over |= self.tokens > limit;
                if self.over {
                    self.out.drain(..q);
                    self.counted = 0;
                }
            }
            self.scanned = self.out.len();
        }
    }
}

/// Whether o200k_base's pre-tokens of a text end at byte `q` of `b` whatever comes after, and
/// do so in `b[..q]` alone: `b[q]` is an ASCII letter after `\n`. No pre-token of the pattern
/// holds both (the letter alternatives may start with one character that is not `\r`, `\n`, a
/// letter or a number; the punctuation one may end with `[\r\n/]*`; the others are numbers or
/// spaces only), and none before it reads past it (the only look-ahead, `\s+(?!\S)`, is tried
/// after `\s*[\r\n]+`, which matches anywhere in a run of spaces ending in `\n`). The text is
/// pre-tokenized, and so encoded, as its two parts are.
fn o200k_cut(b: &[u8], q: usize) -> bool {
    q > 0 && q < b.len() && b[q - 1] == b'\n' && b[q].is_ascii_alphabetic()
}

/// The o200k_base count of `text`, counted a piece of about a MiB at a time (cut where
/// [`o200k_cut`] allows), so that no list of every token of a long history is made.
pub(crate) fn o200k_count(text: &str) -> u64 {
    o200k_count_in(text, 1 << 20)
}

/// [`o200k_count`] with pieces of `piece` bytes (where a cut allows).
pub(crate) fn o200k_count_in(text: &str, piece: usize) -> u64 {
    let count = |t: &str| crate::tokens::tokenizer::count(crate::tokens::tokenizer::TokenizerKind::O200kBase, t) as u64;
    let piece = piece.max(1);
    let mut total = 0;
    let mut rest = text;
    while rest.len() > piece {
        let b = rest.as_bytes();
        let Some(q) = (1..piece).rev().find(|&q| o200k_cut(b, q)).or_else(|| (piece..b.len()).find(|&q| o200k_cut(b, q))) else {
            break;
        };
        total += count(&rest[..q]);
        rest = &rest[q..];
    }
    total + count(rest)
}

/// `escapeSummaryBoundaryTags`: `<conversation>`, `</conversation>`, `<previous-summary>`,
/// `</previous-summary>` (ASCII case-insensitive, whitespace allowed after `<`, around `/` and
/// before `>`) get their `<` replaced by `&lt;`.
pub(crate) fn escape_boundary_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        if boundary_tag_len(tail).is_some() {
            out.push_str("&lt;");
        } else {
            out.push('<');
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// Length of `\s*\/?\s*(conversation|previous-summary)\s*>` at the start of `s`, if it matches.
fn boundary_tag_len(s: &str) -> Option<usize> {
    let ws = |s: &str| s.len() - crate::js::js_trim_start(s).len();
    let mut i = ws(s);
    if s[i..].starts_with('/') {
        i += 1;
        i += ws(&s[i..]);
    }
    let name = ["conversation", "previous-summary"]
        .into_iter()
        .find(|n| s.len() >= i + n.len() && s.as_bytes()[i..i + n.len()].eq_ignore_ascii_case(n.as_bytes()))?;
    i += name.len();
    i += ws(&s[i..]);
    s[i..].starts_with('>').then_some(i + 1)
}

#[cfg(test)]
mod tests;
