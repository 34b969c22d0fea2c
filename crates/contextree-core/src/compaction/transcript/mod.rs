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
pub mod identity;
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
    Anthropic,
    Glm,
    Gemini,
    Gemma,
    Kimi,
    Qwen3,
    Deepseek,
    Minimax,
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
pub fn serialize_for_summary(llm: &[Value], dialect: SummaryDialect) -> String {
    let msgs = render::prepare(llm, dialect == SummaryDialect::Anthropic);
    let text = dialect.render(&msgs);
    let text = if dialect == SummaryDialect::Harmony { harmony::escape_control_tokens(&text) } else { text };
    escape_boundary_tags(&text)
}

/// `escapeSummaryBoundaryTags`: `<conversation>`, `</conversation>`, `<previous-summary>`,
/// `</previous-summary>` (ASCII case-insensitive, whitespace allowed after `<`, around `/` and
/// before `>`) get their `<` replaced by `&lt;`.
pub fn escape_boundary_tags(text: &str) -> String {
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
