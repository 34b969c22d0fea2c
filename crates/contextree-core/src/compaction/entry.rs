//! The compaction entry (compaction.md §6.3, §7): the stored summary with its
//! file tags, and the JSON line each agent appends.
//!
//! Two ways to a result, as in the agents:
//! - [`compaction_result`]: the model's answers to the calls of
//!   [`super::prompt::SummaryRequests`], merged and tagged per dialect;
//! - [`supplied_result`]: a summary given by the user or a
//!   `session_before_compact` hook, used verbatim (no model call, no file
//!   tags) and marked `fromHook` (pi) / `fromExtension` (omp).
//!
//! [`entry_line`] then writes the line with the agents' key order; ids come
//! from [`new_entry_id`], which takes its randomness as a parameter.

use serde_json::{Map, Value};

use super::file_ops::FileLists;
use super::plan::{CompactionPlan, NothingToCompact};
use super::prompt::{CompactingHook, SummaryRequests};
use crate::context::materialize::ReadBackError;
use crate::context::{omp_format, system, Context};
use crate::js::{is_js_whitespace, is_truthy, js_trim, js_trim_end, json_number, stringify};
use crate::session::probe::parse_iso_ms;
use crate::session::{Session, Source};
use crate::Dialect;
use crate::RawJson;

/// omp lists at most this many files per tag (the details keep them all).
const OMP_FILE_LIST_LIMIT: usize = 20;

/// The key omp drops from carried-over `preserveData` unless native OpenAI
/// compaction re-adds it (compaction.md §6.6; contextree never does).
const OPENAI_REMOTE_KEY: &str = "openaiRemoteCompaction";

/// `compact()`'s result plus what the session appends with it: every field
/// of the compaction entry except the base fields.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionResult {
    /// Whose layout the entry follows.
    pub dialect: Dialect,
    /// The stored summary (file tags included for a default compaction).
    pub summary: String,
    /// omp's short summary (`None`: key omitted; always `None` in pi).
    pub short_summary: Option<String>,
    /// Where the kept part starts.
    pub first_kept_entry_id: String,
    /// The size before compaction (docs/decisions.md D3).
    pub tokens_before: f64,
    /// `{readFiles, modifiedFiles}` for a default compaction; whatever a
    /// supplier gave otherwise (`None`: key omitted).
    pub details: Option<Value>,
    /// `fromHook` (pi) / `fromExtension` (omp).
    pub from_extension: bool,
    /// omp's `preserveData` (`None`: key omitted; always `None` in pi).
    pub preserve_data: Option<Value>,
    /// pi ≥ 0.81: the summary calls' usage (`None`: key omitted).
    pub usage: Option<Value>,
    /// pi ≥ 0.86: the replayed system message of the context at the leaf
    /// ([`system_checkpoint`]), stored with the entry's own time as its
    /// `timestamp` (`None`: key omitted).
    pub system_message: Option<Value>,
    /// omp ≥ 18: the compaction `method` (`"soft"` for an LLM summary;
    /// `None`: key omitted, as omp 13 and extension results have it).
    pub method: Option<String>,
}

/// The model's answers to the calls of a [`SummaryRequests`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answers {
    /// Answer to the history call (ignored when the history is a literal).
    pub history: Option<String>,
    /// Answer to the turn-prefix call.
    pub turn_prefix: Option<String>,
    /// omp: answer to the short-summary call.
    pub short: Option<String>,
}

/// A summary given instead of the model's (hooks-and-settings.md §2
/// `session_before_compact` → `compaction`). Unset ids and sizes default to
/// the plan's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SuppliedCompaction {
    /// The summary, stored as given.
    pub summary: String,
    /// omp: the short summary (pi has no such field).
    pub short_summary: Option<String>,
    /// Default: the plan's first kept entry.
    pub first_kept_entry_id: Option<String>,
    /// Default: the plan's `tokensBefore`.
    pub tokens_before: Option<f64>,
    /// Stored as given; omitted when `None`. Later compactions ignore the
    /// details of extension-made entries anyway.
    pub details: Option<RawJson>,
    /// omp: stored as given.
    pub preserve_data: Option<RawJson>,
}

/// Why no result could be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    /// The agent would not compact (it throws before any hook or model call).
    #[error("{0}")]
    Nothing(NothingToCompact),
    /// A call's answer is missing.
    #[error("no answer for the {0} summary")]
    MissingAnswer(&'static str),
    /// omp would throw here: the previous compaction's `preserveData` is a
    /// truthy non-object, and omp's `"openaiRemoteCompaction" in preserveData`
    /// is a TypeError on it.
    #[error("omp cannot compact: the previous compaction's preserveData is {0}, not an object")]
    BadPreserveData(String),
    /// JSON a hook supplied that cannot be read back to be written (nested too deep).
    #[error("the hook's {field} cannot be stored: {message}")]
    HookJson {
        /// Which value (`details`, `preserveData`).
        field: &'static str,
        /// serde_json's reason.
        message: String,
    },
}

/// `json` read back as a value to store, or why not.
fn hook_value(field: &'static str, json: Option<&RawJson>) -> Result<Option<Value>, EntryError> {
    json.map(|j| j.to_value().map_err(|e| EntryError::HookJson { field, message: e.to_string() })).transpose()
}

/// The summary with the dialect's file tags (§6.3). `merged` is the summary
/// of the calls (split-turn layout included, see [`SummaryRequests::merge`]).
pub(crate) fn tagged_summary(dialect: Dialect, merged: &str, lists: &FileLists) -> String {
    match dialect {
        Dialect::Pi => format!("{merged}{}", pi_file_tags(lists)),
        Dialect::Omp => omp_upsert_file_tags(merged, lists),
    }
}

/// pi's `formatFileOperations`: appended as is, sections one blank line apart.
fn pi_file_tags(lists: &FileLists) -> String {
    let mut sections = Vec::new();
    if !lists.read_files.is_empty() {
        sections.push(format!("<read-files>\n{}\n</read-files>", lists.read_files.join("\n")));
    }
    if !lists.modified_files.is_empty() {
        sections.push(format!("<modified-files>\n{}\n</modified-files>", lists.modified_files.join("\n")));
    }
    if sections.is_empty() {
        String::new()
    } else {
        format!("\n\n{}", sections.join("\n\n"))
    }
}

/// omp's `upsertFileOperations`: strip existing tag blocks, right-trim, then
/// add the rendered `file-operations.md` (docs/decisions.md D7 quirks: entries
/// joined by a literal backslash-n, sections glued together).
fn omp_upsert_file_tags(summary: &str, lists: &FileLists) -> String {
    let stripped = strip_file_tags(summary);
    let base = js_trim_end(&stripped);
    let tags = omp_file_tags(lists);
    if tags.is_empty() {
        base.to_owned()
    } else if base.is_empty() {
        tags
    } else {
        format!("{base}\n\n{tags}")
    }
}

/// omp's `stripFileOperationTags` before its `trimEnd`: the summary without
/// `<read-files>` / `<modified-files>` blocks (and the whitespace after each).
pub fn strip_file_tags(summary: &str) -> String {
    strip_tag_blocks(&strip_tag_blocks(summary, "read-files"), "modified-files")
}

/// `summary.replace(/<TAG>[\s\S]*?<\/TAG>\s*/g, "")`.
fn strip_tag_blocks(s: &str, tag: &str) -> String {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    // Non-greedy: each opening tag pairs with the nearest closing tag after
    // it. Without one no later opening tag can match either, so the scan ends.
    while let Some((at, close_at)) = rest.find(&open).and_then(|at| Some((at, rest[at + open.len()..].find(&close)?))) {
        let end = at + open.len() + close_at + close.len();
        out.push_str(&rest[..at]);
        rest = rest[end..].trim_start_matches(is_js_whitespace);
    }
    out.push_str(rest);
    out
}

/// omp's `formatFileOperations`: the Handlebars template rendered by hand.
/// Its `{{join files "\n"}}` passes a backslash and an `n` (Handlebars string
/// literals have no escapes); the `xml` helper trims its content and emits
/// nothing for empty content; the standalone block lines leave no newline
/// between the sections; then the post-render formatter runs.
fn omp_file_tags(lists: &FileLists) -> String {
    if lists.read_files.is_empty() && lists.modified_files.is_empty() {
        return String::new();
    }
    let section = |tag: &str, files: &[String]| -> String {
        if files.is_empty() {
            return String::new();
        }
        let joined = truncate_file_list(files).join("\\n");
        let content = js_trim(&joined);
        if content.is_empty() {
            String::new()
        } else {
            format!("<{tag}>\n{content}\n</{tag}>")
        }
    };
    let rendered = section("read-files", &lists.read_files) + &section("modified-files", &lists.modified_files);
    omp_format::format(&rendered)
}

fn truncate_file_list(files: &[String]) -> Vec<String> {
    if files.len() <= OMP_FILE_LIST_LIMIT {
        return files.to_vec();
    }
    let mut out = files[..OMP_FILE_LIST_LIMIT].to_vec();
    out.push(format!("\u{2026} ({} more files omitted)", files.len() - OMP_FILE_LIST_LIMIT));
    out
}

/// A default compaction's result from the model's answers (§6.2 merge, §6.3
/// tags, §7 preserveData). `hook` is the emulated `session.compacting`
/// result (omp; only its `preserve_data` matters here).
pub fn compaction_result(
    session: &Session,
    plan: &CompactionPlan,
    requests: &SummaryRequests,
    answers: &Answers,
    hook: &CompactingHook,
) -> Result<CompactionResult, EntryError> {
    let prepared = plan.outcome.as_ref().map_err(|&r| EntryError::Nothing(r))?;
    let dialect = plan.dialect;
    if matches!(requests.history, super::prompt::HistoryStep::Call(_)) && answers.history.is_none() {
        return Err(EntryError::MissingAnswer("history"));
    }
    if requests.turn_prefix.is_some() && answers.turn_prefix.is_none() {
        return Err(EntryError::MissingAnswer("turn-prefix"));
    }
    if requests.has_short() && answers.short.is_none() {
        return Err(EntryError::MissingAnswer("short"));
    }
    let merged = requests.merge(answers.history.as_deref(), answers.turn_prefix.as_deref());
    let lists = prepared.file_ops.lists();
    let omp18 = session.rules().cuts_oldest_fitting_suffix();
    let summary = match omp18 {
        true => omp18_upsert_files(&merged, &lists, &prepared.file_ops.read),
        false => tagged_summary(dialect, &merged, &lists),
    };
    let preserve_data = match dialect {
        Dialect::Pi => None,
        Dialect::Omp => Some(omp_preserve_data(session, plan, hook)?),
    };
    Ok(CompactionResult {
        dialect,
        summary,
        short_summary: match dialect {
            Dialect::Pi => None,
            Dialect::Omp => answers.short.clone(),
        },
        first_kept_entry_id: session.entry(prepared.first_kept).id.to_string(),
        tokens_before: plan.tokens_before,
        details: Some(details_value(&lists)),
        from_extension: false,
        preserve_data,
        usage: None,
        system_message: None,
        // omp 18 records the method of every harness compaction; a local LLM summary is `soft`.
        method: omp18.then(|| "soft".to_owned()),
    })
}

/// What pi ≥ 0.86's `appendCompaction` stores as `systemMessage`:
/// `getCurrentSystemMessage` of the context at the leaf (`ctx`), for the
/// rule sets that keep system messages (pi-1.6.md §4.7); `None` otherwise
/// or when the context has no system message.
pub fn system_checkpoint(session: &Session, ctx: &Context, source: &dyn Source) -> Result<Option<Value>, ReadBackError> {
    if !session.rules().projects_context_edits() {
        return Ok(None);
    }
    system::current_system(session, ctx, source)
}

/// omp ≥ 18's `upsertFileOperations` (omp-18.md §5.5): old `<files>`,
/// `<read-files>` and `<modified-files>` blocks stripped, the summary
/// right-trimmed, then one `<files>` block — the sorted files (at most 20,
/// then `[…N files elided…]`) as a prefix-folded tree, each marked
/// ` (Read)`, ` (Write)` or ` (RW)` (modified and also read).
pub(crate) fn omp18_upsert_files(summary: &str, lists: &FileLists, read: &super::file_ops::PathSet) -> String {
    let stripped = strip_tag_blocks(&strip_tag_blocks(&strip_tag_blocks(summary, "files"), "read-files"), "modified-files");
    let base = js_trim_end(&stripped);
    let block = omp18_files_block(lists, read);
    match (base.is_empty(), block.is_empty()) {
        (_, true) => base.to_owned(),
        (true, false) => block,
        (false, false) => format!("{base}\n\n{block}"),
    }
}

/// `formatFileOperations` of omp ≥ 18, rendered through `file-operations.md`
/// (`{{#xml "files"}}`: trimmed content, nothing when empty) and the 18 formatter.
fn omp18_files_block(lists: &FileLists, read: &super::file_ops::PathSet) -> String {
    if lists.read_files.is_empty() && lists.modified_files.is_empty() {
        return String::new();
    }
    let mut mode: Vec<(String, &str)> = lists.read_files.iter().map(|f| (f.clone(), "Read")).collect();
    for f in &lists.modified_files {
        let m = if read.contains(f) { "RW" } else { "Write" };
        match mode.iter_mut().find(|(p, _)| p == f) {
            Some(slot) => slot.1 = m,
            None => mode.push((f.clone(), m)),
        }
    }
    mode.sort_by(|a, b| crate::js::cmp_utf16(&a.0, &b.0));
    let shown: Vec<String> = mode.iter().take(OMP_FILE_LIST_LIMIT).map(|(p, _)| p.clone()).collect();
    let annotate = |p: &str| mode.iter().find(|(q, _)| q == p).map_or(String::new(), |(_, m)| format!(" ({m})"));
    let mut files = grouped_paths(&shown, &annotate);
    if mode.len() > OMP_FILE_LIST_LIMIT {
        files.push_str(&format!("\n[\u{2026}{} files elided\u{2026}]", mode.len() - OMP_FILE_LIST_LIMIT));
    }
    let content = js_trim(&files);
    if content.is_empty() {
        return String::new();
    }
    omp_format::format18(&format!("<files>\n{content}\n</files>"))
}

/// `pi-utils` `formatGroupedPaths`: the paths' tree ([`crate::path_tree`]),
/// a directory as `#` × (depth + 1) and its folded name, a file as its name
/// and its annotation.
fn grouped_paths(paths: &[String], annotate: &dyn Fn(&str) -> String) -> String {
    crate::path_tree::walk(paths.iter().map(|p| (p.as_str(), p.as_str())))
        .into_iter()
        .map(|s| if s.is_dir { format!("{} {}/", "#".repeat(s.depth + 1), s.name) } else { format!("{}{}", s.name, annotate(s.key)) })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `{readFiles, modifiedFiles}`.
pub fn details_value(lists: &FileLists) -> Value {
    let mut m = Map::new();
    m.insert("readFiles".into(), lists.read_files.clone().into());
    m.insert("modifiedFiles".into(), lists.modified_files.clone().into());
    Value::Object(m)
}

/// omp's stored `preserveData` of a default compaction:
/// `{...hook.preserveData, ...withOpenAiRemoteCompactionPreserveData(previous)}`.
fn omp_preserve_data(session: &Session, plan: &CompactionPlan, hook: &CompactingHook) -> Result<Value, EntryError> {
    let previous = plan.previous.and_then(|p| session.entry(p.node).object()?.get("preserveData").cloned());
    let carried = without_openai_key(previous)?;
    let mut out = Map::new();
    spread_into(hook_value("preserveData", hook.preserve_data.as_ref())?.as_ref(), &mut out);
    spread_into(carried.as_ref(), &mut out);
    Ok(Value::Object(out))
}

/// `withOpenAiRemoteCompactionPreserveData(previous, undefined)`: the
/// previous data without the native-compaction key (`None` when nothing is left).
fn without_openai_key(previous: Option<Value>) -> Result<Option<Value>, EntryError> {
    match previous {
        Some(Value::Object(mut map)) if map.contains_key(OPENAI_REMOTE_KEY) => {
            map.shift_remove(OPENAI_REMOTE_KEY);
            Ok((!map.is_empty()).then_some(Value::Object(map)))
        }
        Some(v @ (Value::Object(_) | Value::Array(_))) => Ok(Some(v)),
        v if !is_truthy(v.as_ref()) => Ok(v),
        Some(v) => Err(EntryError::BadPreserveData(stringify(&v))),
        None => Ok(None),
    }
}

/// JS object spread `{...v}` into `out`: an object's own keys, an array's
/// indices, a string's UTF-16 units; nothing for other values.
fn spread_into(v: Option<&Value>, out: &mut Map<String, Value>) {
    match v {
        Some(Value::Object(map)) => {
            for (k, v) in map {
                out.insert(k.clone(), v.clone());
            }
        }
        Some(Value::Array(items)) => {
            for (i, v) in items.iter().enumerate() {
                out.insert(i.to_string(), v.clone());
            }
        }
        Some(Value::String(s)) => {
            for (i, unit) in s.encode_utf16().enumerate() {
                out.insert(i.to_string(), String::from_utf16_lossy(&[unit]).into());
            }
        }
        _ => {}
    }
}

/// A supplied summary's result: fields as given, `fromHook`/`fromExtension`
/// true, no file tags. The agents refuse before asking any hook when there is
/// nothing to compact, so a prepared plan is required.
pub fn supplied_result(session: &Session, plan: &CompactionPlan, supplied: &SuppliedCompaction) -> Result<CompactionResult, EntryError> {
    let prepared = plan.outcome.as_ref().map_err(|&r| EntryError::Nothing(r))?;
    let omp = plan.dialect == Dialect::Omp;
    Ok(CompactionResult {
        dialect: plan.dialect,
        summary: supplied.summary.clone(),
        short_summary: supplied.short_summary.clone().filter(|_| omp),
        first_kept_entry_id: supplied.first_kept_entry_id.clone().unwrap_or_else(|| session.entry(prepared.first_kept).id.to_string()),
        tokens_before: supplied.tokens_before.unwrap_or(plan.tokens_before),
        details: hook_value("details", supplied.details.as_ref())?,
        from_extension: true,
        preserve_data: hook_value("preserveData", supplied.preserve_data.as_ref().filter(|_| omp))?,
        usage: None,
        system_message: None,
        method: None,
    })
}

/// A new entry id: 8 lowercase hex digits from `draw` (both agents cut a
/// random UUID to 8 characters), redrawn on collision with an existing id up
/// to 100 times as they do; then 16 digits from two draws.
pub fn new_entry_id(session: &Session, draw: &mut dyn FnMut() -> u32) -> String {
    for _ in 0..100 {
        let id = format!("{:08x}", draw());
        if session.node(&id).is_none() {
            return id;
        }
    }
    format!("{:08x}{:08x}", draw(), draw())
}

/// The compaction entry as a JSON object, keys in the order the agent writes
/// them (session-format.md §4; pi 1.6 adds `usage` before `fromHook` and
/// `systemMessage` last, its `timestamp` the entry's own time in ms,
/// pi-1.6.md §1.4, §4.7); `undefined` fields left out.
pub(crate) fn entry_value(result: &CompactionResult, id: &str, parent_id: Option<&str>, timestamp: &str) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), "compaction".into());
    m.insert("id".into(), id.into());
    m.insert("parentId".into(), parent_id.map_or(Value::Null, Value::from));
    m.insert("timestamp".into(), timestamp.into());
    m.insert("summary".into(), result.summary.clone().into());
    if result.dialect == Dialect::Omp {
        if let Some(s) = &result.short_summary {
            m.insert("shortSummary".into(), s.clone().into());
        }
    }
    m.insert("firstKeptEntryId".into(), result.first_kept_entry_id.clone().into());
    m.insert("tokensBefore".into(), json_number(result.tokens_before));
    if let Some(method) = &result.method {
        // omp 18's `appendCompaction` order: tokensAfter, method, providerReplayThroughEntryId, details, fromExtension, preserveData.
        m.insert("method".into(), method.clone().into());
        if let Some(d) = &result.details {
            m.insert("details".into(), d.clone());
        }
        m.insert(Dialect::Omp.extension_flag().into(), result.from_extension.into());
        if let Some(p) = &result.preserve_data {
            m.insert("preserveData".into(), p.clone());
        }
        return Value::Object(m);
    }
    if let Some(d) = &result.details {
        m.insert("details".into(), d.clone());
    }
    match result.dialect {
        Dialect::Pi => {
            if let Some(u) = &result.usage {
                m.insert("usage".into(), u.clone());
            }
            m.insert(Dialect::Pi.extension_flag().into(), result.from_extension.into());
            if let Some(Value::Object(sys)) = &result.system_message {
                // `{...systemMessage, timestamp: new Date(timestamp).getTime()}`:
                // the key keeps its place, a new one goes last.
                let mut sys = sys.clone();
                sys.insert("timestamp".into(), json_number(parse_iso_ms(timestamp).unwrap_or(f64::NAN)));
                m.insert("systemMessage".into(), Value::Object(sys));
            }
        }
        Dialect::Omp => {
            m.insert(Dialect::Omp.extension_flag().into(), result.from_extension.into());
            if let Some(p) = &result.preserve_data {
                m.insert("preserveData".into(), p.clone());
            }
        }
    }
    Value::Object(m)
}

/// The line the agent appends (`JSON.stringify(entry)`, no newline).
pub fn entry_line(result: &CompactionResult, id: &str, parent_id: Option<&str>, timestamp: &str) -> String {
    stringify(&entry_value(result, id, parent_id, timestamp))
}

/// The compaction entry for `plan`'s leaf: a fresh id, the leaf as parent.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEntry {
    /// The new id.
    pub id: String,
    /// The parent (the plan's leaf).
    pub parent_id: Option<String>,
    /// The JSON line, without newline.
    pub line: String,
}

/// [`entry_line`] for `plan`'s leaf with an id from [`new_entry_id`].
pub fn new_entry(
    session: &Session,
    plan: &CompactionPlan,
    result: &CompactionResult,
    timestamp: &str,
    draw: &mut dyn FnMut() -> u32,
) -> NewEntry {
    let id = new_entry_id(session, draw);
    let parent_id = plan.leaf.map(|n| session.entry(n).id.to_string());
    let line = entry_line(result, &id, parent_id.as_deref(), timestamp);
    NewEntry { id, parent_id, line }
}

#[cfg(test)]
mod omp18_tests {
    use super::*;

    #[test]
    fn files_block_of_the_spec_example() {
        // omp-18.md §5.5: read README.md, src/a/x.ts; modified src/a/y.ts (also read), src/b/z.ts.
        let mut ops = super::super::FileOps::default();
        for p in ["README.md", "src/a/x.ts", "src/a/y.ts"] {
            ops.read.add(p);
        }
        ops.edited.add("src/a/y.ts");
        ops.written.add("src/b/z.ts");
        let text = omp18_upsert_files("Summary.  \n\n<read-files>\nold\n</read-files>\n", &ops.lists(), &ops.read);
        assert_eq!(text, "Summary.\n\n<files>\nREADME.md (Read)\n# src/\n## a/\nx.ts (Read)\ny.ts (RW)\n## b/\nz.ts (Write)\n</files>");
    }
}
