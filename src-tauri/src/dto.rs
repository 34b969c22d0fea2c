//! Wire types returned by the commands: camelCase JSON, converted from core values here.
//!
//! The core types do not derive `Serialize` for IPC; only this module knows the wire.

use contextree_core::session::Row;
use contextree_host::LoadedSession;
use serde::Serialize;

/// An opened session, as `open_session` returns it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    /// Absolute path of the file that was opened.
    pub path: String,
    /// Its file name, for the title bar.
    pub file_name: String,
    /// The agent dialect whose rules apply (`pi`, `omp`).
    pub dialect: &'static str,
    /// Number of entries, `entries.len()`.
    pub entry_count: usize,
    /// The entries in file order.
    pub entries: Vec<EntryView>,
}

/// One session entry (one row of the entry list).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryView {
    /// Entry id, unique in the file.
    pub id: String,
    /// Parent entry id; `None` for a root.
    pub parent_id: Option<String>,
    /// The entry's `type` (`message`, `compaction`, `label`, …).
    pub entry_type: String,
    /// The message role for message entries.
    pub role: Option<String>,
    /// 1-based line in the file.
    pub line: u32,
    /// Token estimate of the entry.
    pub tokens: u64,
}

impl From<Row> for EntryView {
    fn from(row: Row) -> Self {
        Self {
            id: row.id,
            parent_id: row.parent_id,
            entry_type: row.entry_type,
            role: row.role,
            line: row.line,
            tokens: row.tokens,
        }
    }
}

impl SessionView {
    /// Converts a loaded session.
    pub fn new(loaded: &LoadedSession) -> Self {
        let entries: Vec<EntryView> = loaded
            .session
            .rows()
            .into_iter()
            .map(EntryView::from)
            .collect();
        Self {
            path: loaded.path.display().to_string(),
            file_name: loaded
                .path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default(),
            dialect: loaded.session.dialect().name(),
            entry_count: entries.len(),
            entries,
        }
    }
}
