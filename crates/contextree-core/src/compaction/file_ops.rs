//! File-operation tracking (compaction.md §5): which files the summarized
//! part read, wrote and edited, carried over from compaction to compaction
//! through the entry's `details`.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::js::{cmp_utf16, is_truthy};
use crate::session::Entry;

/// A set of paths in insertion order (a JS `Set`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathSet {
    order: Vec<String>,
    seen: HashSet<String>,
}

impl PathSet {
    /// Adds a path unless it is already there.
    pub fn add(&mut self, path: &str) {
        if self.seen.insert(path.to_owned()) {
            self.order.push(path.to_owned());
        }
    }

    /// Whether the set holds `path`.
    pub fn contains(&self, path: &str) -> bool {
        self.seen.contains(path)
    }

    /// The paths, in insertion order.
    pub fn as_slice(&self) -> &[String] {
        &self.order
    }
}

/// The agents' `FileOperations {read, written, edited}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileOps {
    /// Paths of `read` tool calls (and the previous compaction's `readFiles`).
    pub read: PathSet,
    /// Paths of `write` tool calls.
    pub written: PathSet,
    /// Paths of `edit` tool calls (and the previous compaction's `modifiedFiles`).
    pub edited: PathSet,
    /// omp ≥ 18: `computeFileLists` leaves `scheme://` paths out.
    pub drop_scheme_paths: bool,
}

/// `computeFileLists`: what the compaction entry stores as `details` and lists
/// after the summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileLists {
    /// Read and never modified, JS-sorted.
    pub read_files: Vec<String>,
    /// Edited or written, JS-sorted.
    pub modified_files: Vec<String>,
}

impl FileOps {
    /// Carries over the previous compaction's `details` unless an extension
    /// wrote it (`fromExtension` in omp, `fromHook` in pi: the agents test
    /// whichever their own field is, by JS truthiness). Returns the number of
    /// non-string list items skipped (the agents would carry them over as-is).
    pub fn add_previous_details(&mut self, compaction: &Entry, extension_flag: &str) -> usize {
        let Some(map) = compaction.object() else { return 0 };
        if is_truthy(map.get(extension_flag)) || !is_truthy(map.get("details")) {
            return 0;
        }
        let details = map.get("details").and_then(Value::as_object);
        let list = |key: &str| details.and_then(|d| d.get(key)).and_then(Value::as_array);
        let mut skipped = 0;
        for (key, set) in [("readFiles", &mut self.read), ("modifiedFiles", &mut self.edited)] {
            for item in list(key).into_iter().flatten() {
                match item.as_str() {
                    Some(path) => set.add(path),
                    None => skipped += 1,
                }
            }
        }
        skipped
    }

    /// `extractFileOpsFromMessage`: the `path` argument of the `read`, `write`
    /// and `edit` tool calls of an assistant message (agent message object).
    pub fn add_tool_calls(&mut self, message: &Map<String, Value>) {
        if message.get("role").and_then(Value::as_str) != Some("assistant") {
            return;
        }
        let blocks = message.get("content").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object);
        for block in blocks {
            if block.get("type").and_then(Value::as_str) != Some("toolCall") {
                continue;
            }
            // `args.path` must be a non-empty string; other argument names and
            // tools (bash, grep, ...) are ignored.
            let path = block.get("arguments").and_then(Value::as_object).and_then(|a| a.get("path")).and_then(Value::as_str);
            let Some(path) = path.filter(|p| !p.is_empty()) else { continue };
            match block.get("name").and_then(Value::as_str) {
                Some("read") => self.read.add(path),
                Some("write") => self.written.add(path),
                Some("edit") => self.edited.add(path),
                _ => {}
            }
        }
    }

    /// pi ≥ 1.0: the `read`, `write` and `edit` calls a tool result records
    /// in `nestedCalls.calls` (codemode), with a non-empty string `path`
    /// argument as for tool calls.
    pub fn add_nested_calls(&mut self, message: &Map<String, Value>) {
        if message.get("role").and_then(Value::as_str) != Some("toolResult") {
            return;
        }
        let calls = message.get("nestedCalls").and_then(|n| n.get("calls")).and_then(Value::as_array);
        for call in calls.into_iter().flatten() {
            self.add_op(call.get("name").and_then(Value::as_str), call.get("arguments"));
        }
    }

    /// `addFileOp`: `args.path`, a non-empty string, by tool name.
    fn add_op(&mut self, tool: Option<&str>, args: Option<&Value>) {
        let path = args.and_then(Value::as_object).and_then(|a| a.get("path")).and_then(Value::as_str);
        let Some(path) = path.filter(|p| !p.is_empty()) else { return };
        match tool {
            Some("read") => self.read.add(path),
            Some("write") => self.written.add(path),
            Some("edit") => self.edited.add(path),
            _ => {}
        }
    }

    /// omp ≥ 18's carry-over of the previous compaction's `details`
    /// (omp-18.md §5.3 step 8): read paths lose their read selector.
    pub fn add_previous_details_omp18(&mut self, compaction: &Entry) {
        self.drop_scheme_paths = true;
        let Some(map) = compaction.object() else { return };
        if is_truthy(map.get("fromExtension")) || !is_truthy(map.get("details")) {
            return;
        }
        let list = |key: &str| {
            map.get("details").and_then(|d| d.get(key)).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str)
        };
        for path in list("readFiles") {
            self.read.add(strip_read_selector(path));
        }
        for path in list("modifiedFiles") {
            self.edited.add(path);
        }
    }

    /// omp ≥ 18's `extractFileOpsFromMessage`: as omp 13, but `scheme://`
    /// paths are skipped and read paths lose their selector (`:50-200`,
    /// `:raw`, …).
    pub fn add_tool_calls_omp18(&mut self, message: &Map<String, Value>) {
        self.drop_scheme_paths = true;
        if message.get("role").and_then(Value::as_str) != Some("assistant") {
            return;
        }
        let blocks = message.get("content").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object);
        for block in blocks.filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall")) {
            let path = block.get("arguments").and_then(Value::as_object).and_then(|a| a.get("path")).and_then(Value::as_str);
            let Some(path) = path.filter(|p| !p.is_empty() && !is_url_scheme_path(p)) else { continue };
            match block.get("name").and_then(Value::as_str) {
                Some("read") => self.read.add(strip_read_selector(path)),
                Some("write") => self.written.add(path),
                Some("edit") => self.edited.add(path),
                _ => {}
            }
        }
    }

    /// `computeFileLists`: modified = edited ∪ written; read-only = read −
    /// modified; both in JS default sort order (omp ≥ 18: without
    /// `scheme://` paths).
    pub fn lists(&self) -> FileLists {
        let keep = |p: &String| !(self.drop_scheme_paths && is_url_scheme_path(p));
        let mut modified = PathSet::default();
        for p in self.edited.as_slice().iter().chain(self.written.as_slice()).filter(|p| keep(p)) {
            modified.add(p);
        }
        let mut read_files: Vec<String> = self.read.as_slice().iter().filter(|p| keep(p) && !modified.contains(p)).cloned().collect();
        let mut modified_files = modified.order;
        read_files.sort_by(|a, b| cmp_utf16(a, b));
        modified_files.sort_by(|a, b| cmp_utf16(a, b));
        FileLists { read_files, modified_files }
    }
}

/// `isUrlSchemePath`: `/[a-z][a-z0-9+.-]*:\/\//i` anywhere in the path.
pub(crate) fn is_url_scheme_path(path: &str) -> bool {
    let b = path.as_bytes();
    let in_class = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-');
    let mut from = 0;
    while let Some(k) = path[from..].find("://") {
        let at = from + k;
        if b[..at].iter().rev().take_while(|&&c| in_class(c)).any(u8::is_ascii_alphabetic) {
            return true;
        }
        from = at + 1;
    }
    false
}

/// `stripReadSelector` (`splitReadSelector(path).path`): a trailing
/// `:selector` that is a line-range list, `raw` or `conflicts` goes, and a
/// `range:raw` / `raw:range` compound goes whole.
pub(crate) fn strip_read_selector(path: &str) -> &str {
    split_read_selector(path).0
}

/// `splitReadSelector(path)`: the base path and the trailing selector, if any
/// (a `range:raw` / `raw:range` compound is one selector).
pub(crate) fn split_read_selector(path: &str) -> (&str, Option<&str>) {
    let Some(colon) = path.rfind(':').filter(|&c| c > 0) else { return (path, None) };
    let candidate = &path[colon + 1..];
    let is_raw = |s: &str| s.eq_ignore_ascii_case("raw");
    if !(is_range_list(candidate) || is_raw(candidate) || candidate.eq_ignore_ascii_case("conflicts")) {
        return (path, None);
    }
    let base = &path[..colon];
    if let Some(inner) = base.rfind(':').filter(|&i| i > 0) {
        let inner_candidate = &base[inner + 1..];
        if (is_raw(inner_candidate) && is_range_list(candidate)) || (is_range_list(inner_candidate) && is_raw(candidate)) {
            return (&base[..inner], Some(&path[inner + 1..]));
        }
    }
    (base, Some(candidate))
}

/// `^L?\d+(?:(?:[-+]|\.\.)L?\d+|-|\.\.)?(?:,…)*$`, case-insensitive.
fn is_range_list(s: &str) -> bool {
    !s.is_empty() && s.split(',').all(is_range_chunk)
}

fn is_range_chunk(s: &str) -> bool {
    let number = |s: &str| -> Option<usize> {
        let s2 = s.strip_prefix(['L', 'l']).unwrap_or(s);
        let digits = s2.bytes().take_while(u8::is_ascii_digit).count();
        (digits > 0).then(|| s.len() - s2.len() + digits)
    };
    let Some(n) = number(s) else { return false };
    let rest = &s[n..];
    if rest.is_empty() || rest == "-" || rest == ".." {
        return true;
    }
    let after = rest.strip_prefix("..").or_else(|| rest.strip_prefix(['-', '+']));
    after.and_then(|a| number(a).map(|m| m == a.len())).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    #[test]
    fn omp18_read_selectors_and_schemes() {
        use super::{is_url_scheme_path, strip_read_selector};
        for (p, want) in [
            ("src/a.rs:50-200", "src/a.rs"),
            ("src/a.rs:raw", "src/a.rs"),
            ("src/a.rs:1-50:raw", "src/a.rs"),
            ("src/a.rs:raw:L5..L9", "src/a.rs"),
            ("src/a.rs:5-16,960-973", "src/a.rs"),
            ("src/a.rs:conflicts", "src/a.rs"),
            ("src/a.rs:50+10", "src/a.rs"),
            ("src/a.rs:x", "src/a.rs:x"),
            ("C:", "C:"),
            (":raw", ":raw"),
            ("a:raw:raw", "a:raw"),
        ] {
            assert_eq!(strip_read_selector(p), want, "{p}");
        }
        assert!(is_url_scheme_path("conflict://1"));
        assert!(is_url_scheme_path("file.ts:artifact://3"));
        assert!(!is_url_scheme_path("src/a.rs"));
        assert!(!is_url_scheme_path("9://x"));
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn tool_calls_and_lists() {
        // E17's second assistant message: edit, write, and a bash call whose
        // `path` argument is ignored.
        let a3 = json!({"role": "assistant", "content": [
            {"type": "toolCall", "name": "edit", "arguments": {"path": "src/lib.rs"}},
            {"type": "toolCall", "name": "write", "arguments": {"path": "src/new.rs"}},
            {"type": "toolCall", "name": "bash", "arguments": {"path": "ignored.txt"}},
            {"type": "toolCall", "name": "read", "arguments": {"path": ""}},
            {"type": "toolCall", "name": "read", "arguments": {"path": 7}},
            {"type": "toolCall", "name": "read", "arguments": {"path": "src/lib.rs"}},
            {"type": "toolCall", "name": "read", "arguments": {"path": "\u{ffff}.md"}},
            {"type": "toolCall", "name": "read", "arguments": {"path": "\u{1F600}.md"}}]});
        let mut ops = FileOps::default();
        ops.add_tool_calls(a3.as_object().unwrap());
        let lists = ops.lists();
        // UTF-16 order: the astral character (a surrogate pair) sorts before U+FFFF.
        assert_eq!(lists.read_files, ["\u{1F600}.md", "\u{ffff}.md"]);
        assert_eq!(lists.modified_files, ["src/lib.rs", "src/new.rs"]);
        assert_eq!(ops.read.as_slice().len(), 3);
    }

    #[test]
    fn user_messages_are_ignored() {
        let u = json!({"role": "user", "content": [{"type": "toolCall", "name": "read", "arguments": {"path": "x"}}]});
        let mut ops = FileOps::default();
        ops.add_tool_calls(u.as_object().unwrap());
        assert_eq!(ops, FileOps::default());
    }
}
