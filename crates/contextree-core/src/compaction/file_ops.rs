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

    /// `computeFileLists`: modified = edited ∪ written; read-only = read −
    /// modified; both in JS default sort order.
    pub fn lists(&self) -> FileLists {
        let mut modified = self.edited.clone();
        for p in self.written.as_slice() {
            modified.add(p);
        }
        let mut read_files: Vec<String> = self.read.as_slice().iter().filter(|p| !modified.contains(p)).cloned().collect();
        let mut modified_files = modified.order;
        read_files.sort_by(|a, b| cmp_utf16(a, b));
        modified_files.sort_by(|a, b| cmp_utf16(a, b));
        FileLists { read_files, modified_files }
    }
}

#[cfg(test)]
mod tests {
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
