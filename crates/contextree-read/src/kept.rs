//! What a compaction's summary keeps of the concrete facts in the part it summarizes: file
//! paths, shell commands and numbers, each counted once, and the share of each the summary
//! has verbatim (`contextree drops`, the app's compaction view; issue 22, item 5).
//!
//! Where the facts come from (the summarized entries' messages):
//! - paths: the `path` / `file_path` / `filePath` argument of every tool call, and the path-like
//!   words of user and assistant text: with a `/`, or a name with a common source or document
//!   extension ([`EXTENSIONS`]: `README.md` is a path, `log.debug` and `e.g` are not);
//! - commands: the `command` argument of `bash` tool calls and the command of a user's `!`
//!   shell run (`bashExecution`);
//! - numbers: user and assistant text only.
//!
//! Tool results and thinking are left out: a file's contents or a listing would bring
//! thousands of paths and numbers nobody asked about, and thinking is not what the summarizer
//! is told to keep.
//!
//! Normalisation, the same on both sides where it applies:
//! - a path: surrounding punctuation trimmed, a leading `./` dropped, a path under the
//!   session's working directory (the header's `cwd`) made relative to it, as the agents'
//!   tools take absolute paths and summaries name them relative; kept when the summary
//!   holds it verbatim (unlike the request check, a bare file name does not count: the share is
//!   the verbatim one the study of compactions measured);
//! - a command: trimmed, every run of whitespace (newlines too) made one space, in the command
//!   and in the summary; kept when the summary holds it;
//! - a number: a run of at least two digits, with `.` between digit groups (`3.14`, `1.2.3`)
//!   and `,` only as a thousands separator (`1,200` → `1200`), standing alone (no letter, digit
//!   or `_` next to it: not the `256` of `sha256`, not the `1` of `c1`); kept when the same
//!   number, so normalised, is one of the summary's numbers (`12` is not kept by `2012`).

use std::collections::HashSet;

use contextree_core::context::{agent_message, Item, ReadBackError};
use contextree_core::drops::terms_of;
use contextree_core::session::{NodeId, Session, Source};
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

/// The paths, commands and numbers a summarized part names, and what its summary keeps.
#[derive(Debug, Clone, Default, Serialize, TS, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct KeptFacts {
    /// File paths.
    pub paths: FactShare,
    /// Shell commands.
    pub commands: FactShare,
    /// Numbers.
    pub numbers: FactShare,
}

/// One kind of fact: each distinct one in order of appearance.
#[derive(Debug, Clone, Default, Serialize, TS, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FactShare {
    /// Distinct facts in the summarized part.
    pub total: usize,
    /// How many the summary keeps (`None`: no summary yet).
    pub kept: Option<usize>,
    /// `kept / total` (`None` without a summary or without facts).
    pub share: Option<f64>,
    /// The facts, normalised.
    pub items: Vec<Fact>,
}

/// A fact and whether the summary keeps it.
#[derive(Debug, Clone, Serialize, TS, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Fact {
    /// Normalised (contextree-read's `kept` module says how).
    pub text: String,
    /// In the summary (`None`: no summary yet).
    pub kept: Option<bool>,
}

impl KeptFacts {
    /// The facts of `nodes` (the entries a compaction summarizes), checked against `summary`.
    pub fn new(s: &Session, nodes: &[NodeId], summary: Option<&str>, source: &dyn Source) -> Result<Self, ReadBackError> {
        let cwd = s.header().and_then(|h| h.get("cwd")).and_then(Value::as_str).map(|c| format!("{}/", c.trim_end_matches('/')));
        let mut found = Found { cwd, ..Found::default() };
        for &n in nodes {
            if s.entry(n).message().is_none() {
                continue;
            }
            let msg: Value = agent_message(s, Item::Entry(n), source)?;
            found.message(&msg);
        }
        let summary_numbers: HashSet<String> = summary.map(numbers_in).unwrap_or_default().into_iter().collect();
        let spaced = summary.map(collapse);
        Ok(Self {
            paths: FactShare::of(found.paths, summary.map(|s| move |p: &str| s.contains(p))),
            commands: FactShare::of(found.commands, spaced.as_deref().map(|s| move |c: &str| s.contains(c))),
            numbers: FactShare::of(found.numbers, summary.map(|_| |n: &str| summary_numbers.contains(n))),
        })
    }
}

impl FactShare {
    /// `items` checked by `kept` (`None`: no summary to check against).
    fn of(items: Vec<String>, kept: Option<impl Fn(&str) -> bool>) -> Self {
        let items: Vec<Fact> = items.into_iter().map(|text| Fact { kept: kept.as_ref().map(|k| k(&text)), text }).collect();
        let total = items.len();
        let kept = kept.map(|_| items.iter().filter(|f| f.kept == Some(true)).count());
        let share = kept.filter(|_| total > 0).map(|k| k as f64 / total as f64);
        Self { total, kept, share, items }
    }
}

/// The distinct facts met so far, in order.
#[derive(Default)]
struct Found {
    /// The working directory with a trailing `/`.
    cwd: Option<String>,
    paths: Vec<String>,
    commands: Vec<String>,
    numbers: Vec<String>,
}

impl Found {
    fn message(&mut self, msg: &Value) {
        let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        match msg.get("role").and_then(Value::as_str) {
            Some("bashExecution") => {
                if let Some(c) = str_of(msg, "command") {
                    push(&mut self.commands, collapse(&c));
                }
            }
            Some("user" | "assistant") => match msg.get("content") {
                Some(Value::String(t)) => self.text(t),
                Some(Value::Array(blocks)) => {
                    for b in blocks {
                        match b.get("type").and_then(Value::as_str) {
                            Some("text") => self.text(b.get("text").and_then(Value::as_str).unwrap_or("")),
                            Some("toolCall") => self.tool_call(b),
                            _ => {}
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }

    fn text(&mut self, t: &str) {
        for (term, kind) in terms_of(t) {
            if kind == "path" && is_text_path(&term) {
                let p = self.relative(norm_path(&term));
                push(&mut self.paths, p);
            }
        }
        for n in numbers_in(t) {
            push(&mut self.numbers, n);
        }
    }

    /// `p` relative to the working directory when under it.
    fn relative(&self, p: String) -> String {
        match self.cwd.as_deref().and_then(|c| p.strip_prefix(c)) {
            Some(rest) if !rest.is_empty() => rest.to_owned(),
            _ => p,
        }
    }

    fn tool_call(&mut self, b: &Value) {
        let Some(args) = b.get("arguments") else { return };
        for k in ["path", "file_path", "filePath"] {
            if let Some(p) = args.get(k).and_then(Value::as_str).filter(|p| !p.trim().is_empty()) {
                let p = self.relative(norm_path(p));
                push(&mut self.paths, p);
            }
        }
        if b.get("name").and_then(Value::as_str) == Some("bash") {
            if let Some(c) = args.get("command").and_then(Value::as_str).filter(|c| !c.trim().is_empty()) {
                push(&mut self.commands, collapse(c));
            }
        }
    }
}

fn push(list: &mut Vec<String>, item: String) {
    if !item.is_empty() && !list.contains(&item) {
        list.push(item);
    }
}

/// File extensions that make a word without a `/` a path. Prose is full of `object.member`
/// and abbreviations (`log.debug`, `e.g`); a file named alone mostly has one of these.
pub const EXTENSIONS: &[&str] = &[
    "c", "cc", "cfg", "cjs", "conf", "cpp", "cs", "css", "csv", "go", "h", "hpp", "html", "ini", "java", "js", "json", "jsonl", "jsx",
    "kt", "lock", "log", "lua", "md", "mjs", "php", "py", "rb", "rs", "scss", "sh", "sql", "svelte", "swift", "toml", "ts", "tsx", "txt",
    "vue", "xml", "yaml", "yml", "zig",
];

/// A path-like word of prose: one with a `/`, or a name with one of [`EXTENSIONS`].
fn is_text_path(w: &str) -> bool {
    w.contains('/') || w.rsplit_once('.').is_some_and(|(stem, ext)| !stem.is_empty() && EXTENSIONS.contains(&ext))
}

fn norm_path(p: &str) -> String {
    let punct = |c: char| ",;:!?()[]{}<>'\"`".contains(c);
    // A trailing `.` ends a sentence; a leading one may start `./` or `.github`.
    let p = p.trim().trim_start_matches(punct).trim_end_matches(|c| punct(c) || c == '.');
    p.strip_prefix("./").unwrap_or(p).to_owned()
}

/// `text` trimmed with every run of whitespace made one space.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The numbers of `text`, normalised (module docs), in order, repeats included.
pub fn numbers_in(text: &str) -> Vec<String> {
    let c: Vec<char> = text.chars().collect();
    let word = |i: usize| c.get(i).is_some_and(|&ch| ch.is_alphanumeric() || ch == '_');
    let digits_from = |i: usize| c[i..].iter().take_while(|ch| ch.is_ascii_digit()).count();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if !c[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        if i > 0 && word(i - 1) {
            // Digits inside a word (`sha256`, `v1.2`): skip the word with its dotted tail.
            while i < c.len() && (word(i) || (c[i] == '.' && c.get(i + 1).is_some_and(char::is_ascii_digit))) {
                i += 1;
            }
            continue;
        }
        let mut end = i + digits_from(i);
        let mut num: String = c[i..end].iter().collect();
        // Join `.` + digits, and `,` + exactly three digits not followed by another digit.
        while let Some(&sep) = c.get(end) {
            let run = if end + 1 < c.len() { digits_from(end + 1) } else { 0 };
            if !((sep == '.' && run > 0) || (sep == ',' && run == 3)) {
                break;
            }
            if sep == '.' {
                num.push('.');
            }
            num.extend(&c[end + 1..end + 1 + run]);
            end += 1 + run;
        }
        if !word(end) && num.chars().filter(char::is_ascii_digit).count() >= 2 {
            out.push(num);
        }
        i = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_stand_alone_and_lose_their_thousands_separators() {
        let n =
            numbers_in("Set the limit to 1,200 (was 800), pi 3.14, v1.2 and 1.2.3; sha256 c1 7 items, 2026-01-05. List: 1,2,3 and 12,34.");
        assert_eq!(n, ["1200", "800", "3.14", "1.2.3", "2026", "01", "05", "12", "34"]);
        assert!(numbers_in("0x1f 550e8400 a12 v2.10").is_empty());
    }

    #[test]
    fn paths_and_commands_are_normalised() {
        assert_eq!(norm_path("./src/a.rs"), "src/a.rs");
        assert_eq!(norm_path("(docs/guide.md)."), "docs/guide.md");
        assert!(!is_text_path("e.g") && !is_text_path("log.debug") && is_text_path("README.md") && is_text_path("src/bin"));
        assert_eq!(collapse("  cargo test \\\n   --workspace\t-q "), "cargo test \\ --workspace -q");
    }
}
