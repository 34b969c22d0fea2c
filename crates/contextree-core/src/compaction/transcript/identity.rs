//! `preferredDialect(modelId)` of omp 18 (pi-catalog `identity/dialect.ts` over
//! `classifyModel("", id, { lenient: true })`): which model family a summary model belongs to,
//! and so which transcript format its summarizer input is written in.
//!
//! Classification, as the catalog does it with no provider: a provider-agnostic identity
//! override by bare id first; else a declared variant suffix (`-thinking`, `-high`, …) is
//! collapsed; then every class's matchers are ranked — exact 4 › bounded 3 › namespace 2 ›
//! prefix 1 › glob 0, longer token first — and two classes tying for the best rank make the
//! id `unknown` (lenient). Only the class matters here.

use super::taxonomy::{CLASSES, OVERRIDES, SUFFIXES};
use super::SummaryDialect;

#[derive(Debug, Clone, Copy)]
pub(super) enum Matcher {
    Exact(&'static str),
    Bounded(&'static str),
    /// Token, and whether the parts are split on `/.:` (else `/`) and matched bounded.
    Namespace(&'static str, bool),
    Prefix(&'static str),
    Glob(&'static str),
}

impl Matcher {
    fn token(self) -> &'static str {
        match self {
            Matcher::Exact(t) | Matcher::Bounded(t) | Matcher::Namespace(t, _) | Matcher::Prefix(t) | Matcher::Glob(t) => t,
        }
    }

    fn rank(self) -> (u8, usize) {
        let kind = match self {
            Matcher::Exact(_) => 4,
            Matcher::Bounded(_) => 3,
            Matcher::Namespace(..) => 2,
            Matcher::Prefix(_) => 1,
            Matcher::Glob(_) => 0,
        };
        (kind, self.token().encode_utf16().count())
    }

    fn matches(self, lower: &str, bare: &str) -> bool {
        match self {
            Matcher::Exact(t) => bare == t,
            Matcher::Bounded(t) => bounded(bare, t),
            Matcher::Namespace(t, true) => lower.split(['/', '.', ':']).any(|p| !p.is_empty() && bounded(p, t)),
            Matcher::Namespace(t, false) => lower.split('/').any(|p| !p.is_empty() && p == t),
            Matcher::Prefix(t) => bare.starts_with(t),
            Matcher::Glob(t) => glob(t, bare),
        }
    }
}

/// `value` is `token`, or starts with it followed by `-`, `_`, `.`, `:` or a digit.
fn bounded(value: &str, token: &str) -> bool {
    match value.strip_prefix(token) {
        Some(rest) => rest.is_empty() || rest.starts_with(['-', '_', '.', ':']) || rest.starts_with(|c: char| c.is_ascii_digit()),
        None => false,
    }
}

/// The catalog's `*` glob: head, middle pieces found in order, tail.
fn glob(pattern: &str, value: &str) -> bool {
    let segments: Vec<&str> = pattern.split('*').collect();
    if segments.len() == 1 {
        return value == pattern;
    }
    let Some(mut rest) = value.strip_prefix(segments[0]) else { return false };
    for seg in &segments[1..segments.len() - 1] {
        if seg.is_empty() {
            continue;
        }
        match rest.find(seg) {
            Some(at) => rest = &rest[at + seg.len()..],
            None => return false,
        }
    }
    let last = segments[segments.len() - 1];
    last.is_empty() || rest.ends_with(last)
}

fn bare_of(id: &str) -> &str {
    id.rsplit_once('/').map_or(id, |(_, b)| b)
}

/// The class of `model` by its matchers (`classifyRanks`, lenient).
fn class_by_rank(model: &str) -> &'static str {
    let lower = crate::js::js_trim(model).to_lowercase();
    let bare = bare_of(&lower);
    let mut winner: Option<((u8, usize), &'static str)> = None;
    let mut tied = false;
    for &(id, matchers) in CLASSES {
        for &m in matchers {
            if !m.matches(&lower, bare) {
                continue;
            }
            let rank = m.rank();
            match winner {
                Some((r, c)) if r == rank && c != id => tied = true,
                Some((r, _)) if r >= rank => {}
                _ => {
                    winner = Some((rank, id));
                    tied = false;
                }
            }
        }
    }
    match winner {
        Some((_, id)) if !tied => id,
        _ => "unknown",
    }
}

/// `classifyModel("", model, { lenient: true }).class`.
pub(crate) fn model_class(model: &str) -> &'static str {
    let trimmed = crate::js::js_trim(model);
    let bare = bare_of(trimmed).to_lowercase();
    if let Some(&(_, logical, class)) = OVERRIDES.iter().find(|(m, ..)| *m == bare) {
        // Every agnostic override names its class.
        let _ = logical;
        return class;
    }
    if trimmed.len() != model.len() {
        return class_by_rank(trimmed);
    }
    let lower = model.to_lowercase();
    let lower_bare = bare_of(&lower);
    let suffix = SUFFIXES.iter().filter(|(s, except)| lower.ends_with(s) && !except.is_some_and(|p| lower_bare.starts_with(p))).fold(
        None::<&str>,
        |best, (s, _)| match best {
            Some(b) if b.len() >= s.len() => Some(b),
            _ => Some(s),
        },
    );
    match suffix {
        Some(s) if model.len() >= s.len() && model.is_char_boundary(model.len() - s.len()) => {
            class_by_rank(&model[..model.len() - s.len()])
        }
        _ => class_by_rank(model),
    }
}

/// omp 18's `preferredDialect(modelId)`.
pub fn preferred_dialect(model: &str) -> SummaryDialect {
    match model_class(model) {
        "anthropic" => SummaryDialect::Anthropic,
        "glm" => SummaryDialect::Glm,
        "gemini" => SummaryDialect::Gemini,
        "gemma" => SummaryDialect::Gemma,
        "kimi" => SummaryDialect::Kimi,
        "qwen" => SummaryDialect::Qwen3,
        "deepseek" => SummaryDialect::Deepseek,
        "minimax" => SummaryDialect::Minimax,
        "openai" | "gpt-oss" => SummaryDialect::Harmony,
        _ => SummaryDialect::Xml,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families() {
        for (id, d) in [
            ("claude-sonnet-4-5", SummaryDialect::Anthropic),
            ("anthropic/claude-opus-4", SummaryDialect::Anthropic),
            ("gpt-5.2", SummaryDialect::Harmony),
            ("o3", SummaryDialect::Harmony),
            ("openai/gpt-oss-120b", SummaryDialect::Harmony),
            ("gemini-2.5-pro", SummaryDialect::Gemini),
            ("gemma-3-27b-it", SummaryDialect::Gemma),
            ("glm-4.6", SummaryDialect::Glm),
            ("kimi-k2-thinking", SummaryDialect::Kimi),
            ("qwen3-coder", SummaryDialect::Qwen3),
            ("deepseek-r1-distill-qwen-32b", SummaryDialect::Qwen3),
            ("deepseek-v3.2", SummaryDialect::Deepseek),
            ("MiniMax-M2", SummaryDialect::Minimax),
            ("llama-3.1-8b", SummaryDialect::Xml),
            ("daybreak-blue-latest", SummaryDialect::Xml),
            ("", SummaryDialect::Xml),
        ] {
            assert_eq!(preferred_dialect(id), d, "{id}");
        }
    }
}
