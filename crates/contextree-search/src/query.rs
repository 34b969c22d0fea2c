//! What people type, turned into one Tantivy query: the filters (`role:`, `tool:`,
//! `project:`, `agent:`, `model:`, `session:`, `after:`, `before:`) and prefixes (`word*`)
//! are read here; the words and "quoted phrases" go to Tantivy's query parser, after anything
//! it could trip on has been quoted, so user input gives a query or a clear error, never a
//! panic.

use std::ops::Bound;

use tantivy::query::{BooleanQuery, Occur, PhrasePrefixQuery, PhraseQuery, Query, QueryParser, RangeQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::tokenizer::TokenStream;
use tantivy::{Index, Term};

use crate::schema::{Fields, KIND_ENTRY};
use crate::SearchError;

/// A query split into its parts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Free text for Tantivy's parser (words, phrases, `-word`), quoted where needed.
    pub text: String,
    /// `word*` prefixes (lowercased, without the star).
    pub prefixes: Vec<String>,
    /// `-word` / `-"a phrase"`: for the parser one by one (it refuses a query of exclusions
    /// only, and they must not shape the snippet).
    pub excluded: Vec<String>,
    /// `(field, value, negated)` filters, `after`/`before` as ms.
    pub filters: Vec<Filter>,
}

/// One filter of the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter {
    /// `role:`, `tool:`, `agent:`, `session:`: the whole value, case-insensitive.
    Key { field: &'static str, value: String, negated: bool },
    /// `project:`, `model:`: the words of the value, in order.
    Words { field: &'static str, value: String, negated: bool },
    /// `after:DATE` (from the start of that day, UTC) / `before:DATE` (up to it), ms.
    Time { from: Option<i64>, to: Option<i64> },
}

/// Splits `input` at blanks outside double quotes.
fn tokens(input: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in input.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                cur.push(c);
            }
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A date (`2026-11-01`) or a timestamp (`2026-11-01T10:00:00Z`) as ms since the epoch (UTC).
fn date_ms(s: &str) -> Option<i64> {
    if let Ok(t) = s.parse::<jiff::Timestamp>() {
        return Some(t.as_millisecond());
    }
    let d: jiff::civil::Date = s.parse().ok()?;
    d.to_zoned(jiff::tz::TimeZone::UTC).ok().map(|z| z.timestamp().as_millisecond())
}

/// A word the parser reads as it is: letters, digits, `_`, with an optional leading `-`/`+`.
fn plain(word: &str) -> bool {
    let w = word.strip_prefix(['-', '+']).unwrap_or(word);
    !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '_') && !matches!(w, "AND" | "OR" | "NOT")
        || matches!(word, "AND" | "OR" | "NOT")
}

/// Splits a query into filters, prefixes and text.
pub fn parse(input: &str) -> Result<Parsed, SearchError> {
    let mut p = Parsed::default();
    let mut text: Vec<String> = Vec::new();
    let mut from = None;
    let mut to = None;
    for tok in tokens(input) {
        let (negated, body) = match tok.strip_prefix('-') {
            Some(rest) if rest.contains(':') => (true, rest),
            _ => (false, tok.as_str()),
        };
        if let Some((name, value)) = body.split_once(':') {
            let value = value.trim_matches('"');
            let key = |field| Filter::Key { field, value: value.to_lowercase(), negated };
            let words = |field| Filter::Words { field, value: value.to_owned(), negated };
            let filter = match name.to_ascii_lowercase().as_str() {
                "role" => Some(key("role")),
                "tool" => Some(key("tool")),
                "agent" => Some(key("agent")),
                "session" => Some(Filter::Key { field: "session", value: value.to_owned(), negated }),
                "project" => Some(words("project")),
                "model" => Some(words("model")),
                "after" | "before" => {
                    let ms = date_ms(value).ok_or_else(|| SearchError::Query(format!("{name}:{value}: not a date (YYYY-MM-DD)")))?;
                    if name.eq_ignore_ascii_case("after") {
                        from = Some(ms);
                    } else {
                        to = Some(ms);
                    }
                    continue;
                }
                _ => None,
            };
            if let Some(f) = filter {
                if value.is_empty() {
                    return Err(SearchError::Query(format!("{name}: needs a value")));
                }
                p.filters.push(f);
                continue;
            }
        }
        if let Some(stem) = tok.strip_suffix('*').filter(|s| plain(s) && !s.starts_with(['-', '+'])) {
            p.prefixes.push(stem.to_lowercase());
        } else if plain(&tok) || (tok.len() >= 2 && tok.starts_with('"') && tok.ends_with('"') && tok.matches('"').count() == 2) {
            text.push(tok);
        } else {
            // Anything else (paths, `std::fs`, `a(b)`, a stray quote) is searched as the
            // phrase of its words.
            // One leading `-` before a word excludes it; `--flag` is searched as written.
            let inner: String = tok.chars().filter(|&c| c != '"').collect();
            let (sign, inner) = match inner.strip_prefix('-') {
                Some(rest) if rest.starts_with(char::is_alphanumeric) => ("-", rest.to_owned()),
                _ => ("", inner),
            };
            if inner.chars().any(char::is_alphanumeric) {
                text.push(format!("{sign}\"{inner}\""));
            }
        }
    }
    if from.is_some() || to.is_some() {
        p.filters.push(Filter::Time { from, to });
    }
    let (excluded, included): (Vec<String>, Vec<String>) = text.into_iter().partition(|t| t.starts_with('-'));
    p.excluded = excluded.into_iter().map(|t| t[1..].to_owned()).filter(|t| !t.is_empty()).collect();
    p.text = included.join(" ");
    Ok(p)
}

/// The words of `value` as the field's tokenizer cuts them.
fn words(index: &Index, field: Field, value: &str) -> Result<Vec<Term>, SearchError> {
    let mut tok = index.tokenizer_for_field(field)?;
    let mut stream = tok.token_stream(value);
    let mut out = Vec::new();
    while let Some(t) = stream.next() {
        out.push(Term::from_field_text(field, &t.text));
    }
    Ok(out)
}

/// A query and its text part ([`build`]).
pub type Built = (Box<dyn Query>, Option<Box<dyn Query>>);

/// The query for `parsed` over `index`, and the part of it that matches text (for snippets);
/// `None` when there is no text part.
pub fn build(index: &Index, f: &Fields, parsed: &Parsed) -> Result<Built, SearchError> {
    // No `kind:entry` clause beside a positive one: file records hold none of the fields
    // searched, and that clause, matching every entry, made each query score the whole of
    // its words' postings against it instead of skipping the blocks that cannot make the top.
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    let mut text_clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    let mut qp = QueryParser::for_index(index, vec![f.text]);
    qp.set_conjunction_by_default();
    let parse = |text: &str| qp.parse_query(text).map_err(|e| SearchError::Query(format!("{text}: {e}")));
    if !parsed.text.trim().is_empty() {
        text_clauses.push((Occur::Must, parse(&parsed.text)?));
    }
    for x in &parsed.excluded {
        clauses.push((Occur::MustNot, parse(x)?));
    }
    for p in &parsed.prefixes {
        let mut q = PhrasePrefixQuery::new(vec![Term::from_field_text(f.text, p)]);
        q.set_max_expansions(200);
        text_clauses.push((Occur::Must, Box::new(q)));
    }
    let mut has_positive = !text_clauses.is_empty();
    for filter in &parsed.filters {
        let (occur, q): (Occur, Box<dyn Query>) = match filter {
            Filter::Key { field, value, negated } => {
                let field = match *field {
                    "role" => f.role,
                    "tool" => f.tool,
                    "agent" => f.agent,
                    _ => f.session,
                };
                (occur_of(*negated), Box::new(TermQuery::new(Term::from_field_text(field, value), IndexRecordOption::Basic)))
            }
            Filter::Words { field, value, negated } => {
                let field = if *field == "project" { f.project } else { f.model };
                let terms = words(index, field, value)?;
                let q: Box<dyn Query> = match terms.len() {
                    0 => return Err(SearchError::Query(format!("{value}: no words to match"))),
                    1 => Box::new(TermQuery::new(terms.into_iter().next().expect("one"), IndexRecordOption::Basic)),
                    _ => Box::new(PhraseQuery::new(terms)),
                };
                (occur_of(*negated), q)
            }
            Filter::Time { from, to } => {
                let b = |v: Option<i64>, incl: bool| match v {
                    Some(ms) if incl => Bound::Included(Term::from_field_i64(f.time, ms)),
                    Some(ms) => Bound::Excluded(Term::from_field_i64(f.time, ms)),
                    None => Bound::Unbounded,
                };
                (Occur::Must, Box::new(RangeQuery::new(b(*from, true), b(*to, false))))
            }
        };
        has_positive |= occur == Occur::Must;
        clauses.push((occur, q));
    }
    if !has_positive && parsed.filters.is_empty() {
        return Err(SearchError::Query("nothing to search for".into()));
    }
    if !has_positive {
        clauses.push((Occur::Must, Box::new(TermQuery::new(Term::from_field_text(f.kind, KIND_ENTRY), IndexRecordOption::Basic))));
    }
    let text_query: Option<Box<dyn Query>> = match text_clauses.len() {
        0 => None,
        _ => Some(Box::new(BooleanQuery::new(text_clauses.iter().map(|(o, q)| (*o, q.box_clone())).collect()))),
    };
    clauses.extend(text_clauses);
    Ok((Box::new(BooleanQuery::new(clauses)), text_query))
}

fn occur_of(negated: bool) -> Occur {
    if negated {
        Occur::MustNot
    } else {
        Occur::Must
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_prefixes_and_text_are_told_apart() {
        let p = parse(r#"role:User tool:bash auth* "auth race" -flaky project:my-app after:2026-11-01 std::fs"#).unwrap();
        assert_eq!(p.prefixes, ["auth"]);
        assert_eq!(p.text, r#""auth race" "std::fs""#);
        assert_eq!(p.excluded, ["flaky"]);
        assert!(p.filters.contains(&Filter::Key { field: "role", value: "user".into(), negated: false }));
        assert!(p.filters.contains(&Filter::Key { field: "tool", value: "bash".into(), negated: false }));
        assert!(p.filters.contains(&Filter::Words { field: "project", value: "my-app".into(), negated: false }));
        assert!(p.filters.contains(&Filter::Time { from: Some(1_793_491_200_000), to: None }));
    }

    #[test]
    fn bad_dates_and_empty_filters_are_errors() {
        assert!(matches!(parse("after:yesterday"), Err(SearchError::Query(_))));
        assert!(matches!(parse("role:"), Err(SearchError::Query(_))));
    }

    #[test]
    fn any_input_is_a_query_or_a_clear_error() {
        let (schema, f) = crate::schema::schema();
        let index = Index::create_in_ram(schema);
        crate::schema::register_tokenizers(&index);
        let mut inputs: Vec<String> =
            ["a(b", "\"unclosed", "x:y", "[1 TO", "^~*", "-", "a)b(c", "foo\"bar", "AND", "OR OR", "-x", "\"\"", "*", "a:*", "{}"]
                .map(str::to_owned)
                .into();
        // Every short string over the parser's special characters.
        let alphabet = ['a', '"', '(', ')', '[', ']', '{', '}', ':', '*', '^', '~', '-', '+', ' ', '\\', '!', '\''];
        for &x in &alphabet {
            for &y in &alphabet {
                for &z in &alphabet {
                    inputs.push([x, y, z].iter().collect());
                }
            }
        }
        for input in inputs {
            match parse(&input).and_then(|p| build(&index, &f, &p)) {
                Ok(_) | Err(SearchError::Query(_)) => {}
                Err(e) => panic!("{input}: {e}"),
            }
        }
    }
}
