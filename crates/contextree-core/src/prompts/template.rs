//! The template language of prompt packs: text with `{{name}}` placeholders.
//!
//! This is the subset of Handlebars that the agents' compaction and branch
//! templates use (omp 13.19 `src/prompts/compaction/*.md`,
//! `system/summarization-system.md`): plain `{{name}}` substitution, the value
//! inserted verbatim (omp compiles with `noEscape`) and never re-parsed.
//! Anything else that opens with `{{` (blocks, helpers, comments, partials,
//! triple-stash) is refused at parse time rather than silently printed, so a
//! newer agent release that starts using such constructs is reported instead of
//! producing wrong text. `\{{` stands for a literal `{{`, as in Handlebars.
//!
//! Unlike omp (which compiles with `strict: false`), a placeholder without a
//! value is an error: an empty summary slot would be a silent bug here.

use std::fmt;

/// Why a template text could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// `{{` without a matching `}}`.
    #[error("`{{{{` at byte {offset} is never closed")]
    Unterminated {
        /// Byte offset of the opening braces.
        offset: usize,
    },
    /// A `{{...}}` that is not a plain `{{name}}` placeholder.
    #[error("unsupported template construct `{text}` at byte {offset} (only `{{{{name}}}}` placeholders are supported)")]
    Unsupported {
        /// Byte offset of the opening braces.
        offset: usize,
        /// The construct as written.
        text: String,
    },
}

/// Why rendering failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// The template has `{{name}}` but no value for `name` was given.
    #[error("no value for template variable `{0}`")]
    MissingVariable(String),
}

/// One piece of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Text copied as is.
    Literal(String),
    /// A `{{name}}` placeholder.
    Var(String),
}

/// A parsed template.
///
/// Built either from template text ([`Template::parse`]) or from pieces
/// ([`Template::from_segments`], used for pi's prefix/suffix constants, whose
/// text must not be reinterpreted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    segments: Vec<Segment>,
}

impl Template {
    /// Parses template text.
    pub fn parse(source: &str) -> Result<Template, TemplateError> {
        let mut segments = Vec::new();
        let mut literal = String::new();
        let mut rest = source;
        let mut consumed = 0;
        while let Some(open) = rest.find("{{") {
            if rest[..open].ends_with('\\') {
                literal.push_str(&rest[..open - 1]);
                literal.push_str("{{");
                rest = &rest[open + 2..];
                consumed += open + 2;
                continue;
            }
            literal.push_str(&rest[..open]);
            let offset = consumed + open;
            let after = &rest[open + 2..];
            let close = after.find("}}").ok_or(TemplateError::Unterminated { offset })?;
            let inner = &after[..close];
            let name = inner.trim();
            // `{{{x}}}` shows up as an inner text starting with `{`, so it is
            // refused along with blocks (`#`, `/`), comments (`!`) and partials (`>`).
            if !is_identifier(name) {
                return Err(TemplateError::Unsupported { offset, text: format!("{{{{{inner}}}}}") });
            }
            if !literal.is_empty() {
                segments.push(Segment::Literal(std::mem::take(&mut literal)));
            }
            segments.push(Segment::Var(name.to_owned()));
            rest = &after[close + 2..];
            consumed = offset + 2 + close + 2;
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            segments.push(Segment::Literal(literal));
        }
        Ok(Template { segments })
    }

    /// A template made of the given pieces, taken literally.
    pub fn from_segments(segments: impl IntoIterator<Item = Segment>) -> Template {
        let mut out: Vec<Segment> = Vec::new();
        for segment in segments {
            match (out.last_mut(), segment) {
                (_, Segment::Literal(s)) if s.is_empty() => {}
                (Some(Segment::Literal(prev)), Segment::Literal(s)) => prev.push_str(&s),
                (_, segment) => out.push(segment),
            }
        }
        Template { segments: out }
    }

    /// The pieces, in order.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Names of the placeholders, in order of appearance (repeats included).
    pub fn placeholders(&self) -> impl Iterator<Item = &str> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Var(name) => Some(name.as_str()),
            Segment::Literal(_) => None,
        })
    }

    /// Substitutes every placeholder with its value from `vars`.
    ///
    /// Values are inserted verbatim. Variables the template does not use are
    /// ignored. No dialect formatting happens here; see
    /// [`super::PromptPack::render`].
    pub fn render(&self, vars: &[(&str, &str)]) -> Result<String, RenderError> {
        let mut out = String::new();
        for segment in &self.segments {
            match segment {
                Segment::Literal(s) => out.push_str(s),
                Segment::Var(name) => {
                    let value =
                        vars.iter().find(|(k, _)| k == name).map(|(_, v)| *v).ok_or_else(|| RenderError::MissingVariable(name.clone()))?;
                    out.push_str(value);
                }
            }
        }
        Ok(out)
    }
}

/// Template text that parses back to the same template: literal `{{` is
/// written as `\{{`.
impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for segment in &self.segments {
            match segment {
                Segment::Literal(s) => f.write_str(&s.replace("{{", "\\{{"))?,
                Segment::Var(name) => write!(f, "{{{{{name}}}}}")?,
            }
        }
        Ok(())
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitutes_verbatim_without_reparsing() {
        let t = Template::parse("a {{summary}} b").unwrap();
        assert_eq!(t.render(&[("summary", "{{x}} <&>")]).unwrap(), "a {{x}} <&> b");
    }

    #[test]
    fn whitespace_inside_braces_is_allowed() {
        let t = Template::parse("{{ summary }}!").unwrap();
        assert_eq!(t.placeholders().collect::<Vec<_>>(), ["summary"]);
        assert_eq!(t.render(&[("summary", "S")]).unwrap(), "S!");
    }

    #[test]
    fn missing_variable_fails() {
        let t = Template::parse("{{summary}}").unwrap();
        assert_eq!(t.render(&[]), Err(RenderError::MissingVariable("summary".into())));
    }

    #[test]
    fn unsupported_constructs_fail() {
        for (src, offset) in [
            ("x {{#if a}}y{{/if}}", 2),
            ("{{! note }}", 0),
            ("{{{summary}}}", 0),
            ("{{> partial}}", 0),
            ("{{join a \"\\n\"}}", 0),
            ("{{}}", 0),
        ] {
            match Template::parse(src) {
                Err(TemplateError::Unsupported { offset: o, .. }) => assert_eq!(o, offset, "{src}"),
                other => panic!("{src}: {other:?}"),
            }
        }
        assert_eq!(Template::parse("ab {{x"), Err(TemplateError::Unterminated { offset: 3 }));
    }

    #[test]
    fn escaped_braces_are_literal_and_round_trip() {
        let t = Template::parse(r"\{{summary}} {{summary}}").unwrap();
        assert_eq!(t.render(&[("summary", "S")]).unwrap(), "{{summary}} S");
        assert_eq!(Template::parse(&t.to_string()).unwrap(), t);
    }

    #[test]
    fn segments_are_taken_literally() {
        let t = Template::from_segments([
            Segment::Literal("P {{".into()),
            Segment::Var("summary".into()),
            Segment::Literal(String::new()),
            Segment::Literal("}".into()),
        ]);
        assert_eq!(t.render(&[("summary", "S")]).unwrap(), "P {{S}");
        assert_eq!(Template::parse(&t.to_string()).unwrap(), t);
    }

    #[test]
    fn offsets_count_from_the_start() {
        let err = Template::parse("{{a}} \\{{ {{#b}}").unwrap_err();
        assert_eq!(err, TemplateError::Unsupported { offset: 10, text: "{{#b}}".into() });
    }
}
