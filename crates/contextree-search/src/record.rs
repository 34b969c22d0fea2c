//! The per-file record: how far a session file was indexed and what it looked like then, so
//! that the next update can tell an append (index from `through`) from a rewrite (index it
//! again whole). Records are documents of the index itself, committed with the entries they
//! describe: a killed indexer can never leave a record that disagrees with the index.

use std::fs::File;
use std::os::unix::fs::FileExt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Bytes of the file's head whose hash is kept: a prune or any other rewrite changes them or
/// the last indexed line (or shrinks the file).
pub const HEAD: u64 = 1024;

/// What the index knows of one session file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// The file.
    pub path: String,
    /// Its length when last seen.
    pub len: u64,
    /// Its modification time (ns since the epoch) when last seen.
    pub mtime_ns: i128,
    /// Its inode: a file replaced by a rename (how agents rewrite) gets a new one.
    pub inode: u64,
    /// Every line before this offset is indexed.
    pub through: u64,
    /// The start of the last indexed line.
    pub last_line_start: u64,
    /// Hash of the first `min(HEAD, through)` bytes.
    pub head_hash: String,
    /// Hash of the bytes `last_line_start..through`.
    pub last_line_hash: String,
    /// The header's session id.
    pub session_id: Option<String>,
    /// The project folder (header `cwd`).
    pub project: Option<String>,
    /// `pi` or `omp`, when known.
    pub agent: Option<String>,
    /// The header's format version.
    pub version: Option<String>,
    /// The model the last indexed entries ran under (carried into appended entries).
    pub model: Option<String>,
}

/// What to do with a file given its record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Nothing changed.
    Same,
    /// Lines were added: index from this offset.
    Grown(u64),
    /// New, rewritten or shrunk: index it whole (after dropping its old entries).
    Whole,
}

/// Hex SHA-256 of `bytes` (the first 16 bytes: a collision needs a crafted file, and then
/// only costs a missed re-index of that file).
pub fn hash(bytes: &[u8]) -> String {
    Sha256::digest(bytes)[..16].iter().map(|b| format!("{b:02x}")).collect()
}

fn read_range(file: &File, start: u64, end: u64) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0; (end - start) as usize];
    file.read_exact_at(&mut buf, start)?;
    Ok(buf)
}

impl FileRecord {
    /// What the up-to-date check compares.
    pub fn stamp(&self) -> crate::known::Stamp {
        crate::known::Stamp { len: self.len, mtime_ns: self.mtime_ns, inode: self.inode }
    }

    /// How `file` (now `len` bytes, `mtime_ns`, `inode`) differs from this record.
    pub fn change(&self, file: &File, len: u64, mtime_ns: i128, inode: u64) -> std::io::Result<Change> {
        if inode != self.inode || len < self.through {
            return Ok(Change::Whole);
        }
        if len == self.len && mtime_ns == self.mtime_ns {
            return Ok(Change::Same);
        }
        // Same length but touched, or longer: the bytes indexed must still be there as they
        // were, else the file was rewritten in place.
        if hash(&read_range(file, 0, HEAD.min(self.through))?) != self.head_hash
            || hash(&read_range(file, self.last_line_start, self.through)?) != self.last_line_hash
        {
            return Ok(Change::Whole);
        }
        Ok(if len > self.through { Change::Grown(self.through) } else { Change::Same })
    }

    /// Sets the hashes for lines indexed through `through`, the last one starting at
    /// `last_line_start`.
    pub fn seal(&mut self, file: &File, last_line_start: u64, through: u64) -> std::io::Result<()> {
        self.through = through;
        self.last_line_start = last_line_start;
        self.head_hash = hash(&read_range(file, 0, HEAD.min(through))?);
        self.last_line_hash = hash(&read_range(file, last_line_start, through)?);
        Ok(())
    }
}
