//! What a compaction may drop: the user's requests it summarizes, each checked against the
//! summary for the concrete things the user named — file paths, identifiers, text in
//! backticks or quotes. Plain term matching, no model: a request none of whose terms appear in
//! the summary is flagged "may be lost"; a request without such terms cannot be checked.
//!
//! For an existing compaction the summary is its own; for a preview (no summary yet) the
//! terms are what the instructions could ask the summary to keep.

use serde::Serialize;
use serde_json::Value;

use crate::context::materialize::{agent_message, ReadBackError};
use crate::context::preview::message_text;
use crate::context::Item;
use crate::session::{NodeId, Role, Session, Source};

/// One term a request names, and whether the summary has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Term {
    /// The term as the user wrote it.
    pub text: String,
    /// `path`, `identifier` or `quoted`.
    pub kind: &'static str,
    /// Found in the summary (`None` when there is no summary to look in).
    pub found: Option<bool>,
}

/// A user request a compaction summarizes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// The user message's entry.
    pub entry_id: String,
    /// Its first line (at most 120 characters).
    pub preview: String,
    /// The terms it names.
    pub terms: Vec<Term>,
    /// It names terms and the summary has none of them.
    pub may_be_lost: bool,
}

/// The requests of `nodes` (the entries a compaction summarizes, in order), checked against
/// `summary` when there is one. Only user messages are requests.
pub fn check_requests(
    session: &Session,
    nodes: &[NodeId],
    summary: Option<&str>,
    source: &dyn Source,
) -> Result<Vec<Request>, ReadBackError> {
    requests(session, nodes, summary, source).collect()
}

/// [`check_requests`] one request at a time (a million requests need not be held).
pub fn requests<'a>(
    session: &'a Session,
    nodes: &'a [NodeId],
    summary: Option<&'a str>,
    source: &'a dyn Source,
) -> impl Iterator<Item = Result<Request, ReadBackError>> + 'a {
    nodes.iter().filter(|&&n| is_request(session, n)).map(move |&n| request(session, n, summary, source))
}

/// Whether the entry is a request: a user message.
pub fn is_request(session: &Session, node: NodeId) -> bool {
    session.entry(node).message().is_some_and(|m| m.role == Role::User)
}

fn request(session: &Session, n: NodeId, summary: Option<&str>, source: &dyn Source) -> Result<Request, ReadBackError> {
    let msg: Value = agent_message(session, Item::Entry(n), source)?;
    let text = message_text(&msg);
    let terms: Vec<Term> = terms_of(&text)
        .into_iter()
        .map(|(t, kind)| {
            let found = summary.map(|s| mentions(s, &t, kind));
            Term { text: t, kind, found }
        })
        .collect();
    let may_be_lost = summary.is_some() && !terms.is_empty() && terms.iter().all(|t| t.found == Some(false));
    let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let preview: String =
        if first.chars().count() > 120 { format!("{}…", first.chars().take(119).collect::<String>()) } else { first.to_owned() };
    Ok(Request { entry_id: session.entry(n).id.to_string(), preview, terms, may_be_lost })
}

/// Whether `summary` mentions `term`: as written, or for a path its file name.
fn mentions(summary: &str, term: &str, kind: &str) -> bool {
    if summary.contains(term) {
        return true;
    }
    kind == "path" && term.rsplit('/').next().is_some_and(|name| name.len() > 2 && name != term && summary.contains(name))
}

/// The terms of a request, in order of appearance, each once: `text in backticks`, "quoted
/// text", paths (a `/` or a file extension), identifiers (`snake_case`, `camelCase`,
/// `Type::name`, `--flag`).
pub fn terms_of(text: &str) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = Vec::new();
    let mut push = |t: &str, kind: &'static str| {
        let t = t.trim_matches(|c: char| ".,;:!?()[]{}<>'\"".contains(c));
        if t.chars().count() >= 3 && !out.iter().any(|(x, _)| x == t) {
            out.push((t.to_owned(), kind));
        }
    };
    for quote in ['`', '"'] {
        let mut parts = text.split(quote);
        parts.next();
        while let (Some(inside), Some(_)) = (parts.next(), parts.next()) {
            if !inside.contains('\n') && inside.chars().count() <= 80 {
                push(inside, "quoted");
            }
        }
    }
    for word in text.split(|c: char| c.is_whitespace() || c == '`' || c == '"' || c == ',' || c == '(' || c == ')') {
        let w = word.trim_matches(|c: char| ".,;:!?'[]{}<>".contains(c));
        if w.is_empty() || w.starts_with("http") {
            continue;
        }
        if is_path(w) {
            push(w, "path");
        } else if is_identifier(w) {
            push(w, "identifier");
        }
    }
    out
}

fn is_path(w: &str) -> bool {
    let name_ok = w.chars().all(|c| c.is_alphanumeric() || "/._-~@".contains(c));
    if !name_ok || !w.chars().any(char::is_alphabetic) {
        return false;
    }
    let has_ext = w.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
    });
    (w.contains('/') && w.len() > 2) || has_ext
}

fn is_identifier(w: &str) -> bool {
    if !w.chars().all(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '-')
        || !w.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '-')
    {
        return false;
    }
    let inner_upper = w.chars().skip(1).any(char::is_uppercase) && w.chars().any(char::is_lowercase);
    w.contains('_') || w.contains("::") || w.starts_with("--") || inner_upper
}

/// The entries compaction `c` summarized: on its path, after what the previous compaction
/// already summarized (from that one's first kept entry) and before its own first kept entry.
pub fn summarized_by(s: &Session, c: NodeId) -> Vec<NodeId> {
    let path = s.tree().path_to(c);
    let k = path.len() - 1;
    let kept_from = |at: usize| {
        let first = s.entry(path[at]).str_field("firstKeptEntryId");
        path[..at].iter().position(|&n| Some(&*s.entry(n).id) == first).or_else(|| {
            // omp ≥ 18.3: an Anthropic snapshot compaction retains what follows its replay point.
            let through =
                crate::context::snapshot_replay_point(s, &path, at).filter(|_| crate::context::has_anthropic_payload(s.entry(path[at])));
            through.map(|t| t + 1).filter(|&t| t < at)
        })
    };
    let end = kept_from(k).unwrap_or(k);
    let start = path[..k].iter().rposition(|&n| &*s.entry(n).entry_type == "compaction").map_or(0, |p| kept_from(p).unwrap_or(p + 1));
    path[start.min(end)..end].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_paths_identifiers_and_quoted_text() {
        let t = terms_of("Fix the parser in src/session/load.rs so `read_values` keeps \"omp swallowed\" lines; also parseIsoMs and Session::assemble, see README.md. Thanks, OK?");
        let texts: Vec<&str> = t.iter().map(|(x, _)| x.as_str()).collect();
        assert_eq!(texts, ["read_values", "omp swallowed", "src/session/load.rs", "parseIsoMs", "Session::assemble", "README.md"]);
        assert_eq!(t[2].1, "path");
        assert_eq!(t[0].1, "quoted");
        assert!(terms_of("ok, go on").is_empty());
        assert!(terms_of("see https://example.com/a/b.html").is_empty());
    }

    #[test]
    fn a_path_counts_as_mentioned_by_its_file_name() {
        assert!(mentions("Edited load.rs to keep lines.", "src/session/load.rs", "path"));
        assert!(!mentions("Edited the loader.", "src/session/load.rs", "path"));
        assert!(!mentions("uses parse", "parseIsoMs", "identifier"));
    }
}
