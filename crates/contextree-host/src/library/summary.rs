//! One session file as the library shows it, read without parsing the whole file: the
//! header line, the lines up to the first user message, a newline count and pi's
//! `session_info` lines.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use contextree_core::Dialect;
use memchr::memmem;
use serde_json::Value;

use super::{dialect_of_id, file_dialect};

/// How many bytes from the start of a file are searched for the first user message.
pub const SCAN_CAP: u64 = 4 * 1024 * 1024;

/// Longest first request kept, in characters (an ellipsis ends a cut one).
pub const FIRST_REQUEST_CHARS: usize = 120;

/// Read size of the streaming pass.
pub(super) const CHUNK: usize = 1024 * 1024;

/// A line longer than this is not kept whole for the `session_info` search (those lines are tiny).
pub(super) const MAX_KEPT_LINE: usize = 1024 * 1024;

/// The first line of `text`, trimmed, at most [`FIRST_REQUEST_CHARS`] characters.
pub fn first_line(text: &str) -> Option<String> {
    let line = text.trim().lines().next()?.trim();
    if line.is_empty() {
        return None;
    }
    if line.chars().count() <= FIRST_REQUEST_CHARS {
        return Some(line.to_owned());
    }
    let mut cut: String = line.chars().take(FIRST_REQUEST_CHARS - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    Some(cut)
}

/// The text of a user message's `content` (a string, or the first text block).
pub(super) fn user_text(content: &Value) -> Option<&str> {
    match content {
        Value::String(s) => Some(s),
        Value::Array(blocks) => blocks.iter().find_map(|b| (b.get("type")? == "text").then(|| b.get("text")?.as_str()).flatten()),
        _ => None,
    }
}

/// What the library shows of one session file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    /// The session file.
    pub path: PathBuf,
    /// The agent that wrote it: by the header id's shape, else the root's agent, else the
    /// folder name ([`file_dialect`]); `None` when none tells.
    pub dialect: Option<Dialect>,
    /// File size in bytes.
    pub size: u64,
    /// Lines after the header (a newline count: blank or broken lines count too).
    pub entry_count: u64,
    /// The header's `id`.
    pub id: Option<String>,
    /// The header's `cwd`.
    pub cwd: Option<String>,
    /// The header's `timestamp` (creation).
    pub created: Option<String>,
    /// pi: the last `session_info` name (empty clears it); omp: the header `title`.
    pub name: Option<String>,
    /// The first line of the first user message, trimmed, ≤ 120 characters.
    pub first_request: Option<String>,
    /// The file's modification time.
    pub modified: Option<SystemTime>,
    /// Whether the first line is a session header (`type: "session"`, string `id`).
    pub valid: bool,
}

/// Reads the summary of one file: header, lines up to the first user message (within
/// [`SCAN_CAP`] bytes), a newline count and pi's `session_info` lines; never parses the rest.
pub fn read_summary(path: &Path, root_dialect: Option<Dialect>, folder: &str) -> io::Result<SessionSummary> {
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    let mut s = SessionSummary {
        path: path.to_path_buf(),
        dialect: None,
        size: meta.len(),
        entry_count: 0,
        id: None,
        cwd: None,
        created: None,
        name: None,
        first_request: None,
        modified: meta.modified().ok(),
        valid: false,
    };
    let info_finder = memmem::Finder::new(br#""type":"session_info""#);
    let user_finder = memmem::Finder::new(br#""role":"user""#);
    let mut newlines = 0u64;
    let mut last_byte = b'\n';
    let mut pos = 0u64; // file offset of buf[0]
    let mut buf: Vec<u8> = Vec::with_capacity(2 * CHUNK);
    let mut in_long_line = false; // buf[0] is inside a line whose start was dropped
    let mut header_done = false;
    let mut pi_name: Option<Option<String>> = None;
    loop {
        let old = buf.len();
        buf.resize(old + CHUNK, 0);
        let n = loop {
            match file.read(&mut buf[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        buf.truncate(old + n);
        if n > 0 {
            newlines += memchr::memchr_iter(b'\n', &buf[old..]).count() as u64;
            last_byte = buf[buf.len() - 1];
        }
        let complete = if n == 0 { buf.len() } else { memchr::memrchr(b'\n', &buf).map_or(0, |i| i + 1) };
        if complete > 0 {
            let region = &buf[..complete];
            if !header_done {
                // A header line longer than MAX_KEPT_LINE is not read (the file shows as invalid).
                header_done = true;
                if !in_long_line {
                    let end = memchr::memchr(b'\n', region).unwrap_or(region.len());
                    read_header(&region[..end], &mut s);
                }
            }
            // pi's `session_info` lines, anywhere in the file.
            let mut after = 0;
            for hit in info_finder.find_iter(region) {
                if hit < after {
                    continue;
                }
                let start = memchr::memrchr(b'\n', &region[..hit]).map_or(0, |i| i + 1);
                let end = memchr::memchr(b'\n', &region[hit..]).map_or(region.len(), |i| hit + i);
                after = end;
                if start == 0 && in_long_line {
                    continue;
                }
                if let Ok(v) = serde_json::from_slice::<Value>(&region[start..end]) {
                    if v.get("type") == Some(&Value::from("session_info")) {
                        pi_name = Some(v.get("name").and_then(Value::as_str).map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned));
                    }
                }
            }
            // The first user message, within the cap.
            if s.first_request.is_none() && pos < SCAN_CAP {
                let limit = region.len().min(usize::try_from(SCAN_CAP - pos).unwrap_or(usize::MAX));
                let mut after = 0;
                for hit in user_finder.find_iter(&region[..limit]) {
                    if hit < after {
                        continue;
                    }
                    let start = memchr::memrchr(b'\n', &region[..hit]).map_or(0, |i| i + 1);
                    let end = memchr::memchr(b'\n', &region[hit..]).map_or(region.len(), |i| hit + i);
                    after = end;
                    if start == 0 && in_long_line {
                        continue;
                    }
                    let Ok(v) = serde_json::from_slice::<Value>(&region[start..end]) else { continue };
                    let msg = v.get("message");
                    if v.get("type") == Some(&Value::from("message")) && msg.and_then(|m| m.get("role")) == Some(&Value::from("user")) {
                        s.first_request = msg.and_then(|m| m.get("content")).and_then(user_text).and_then(first_line);
                        if s.first_request.is_some() {
                            break;
                        }
                    }
                }
            }
            buf.drain(..complete);
            pos += complete as u64;
            in_long_line = false;
        } else if buf.len() > MAX_KEPT_LINE {
            // One very long line: keep counting, stop keeping it.
            pos += buf.len() as u64;
            buf.clear();
            in_long_line = true;
        }
        if n == 0 {
            break;
        }
    }
    let lines = newlines + u64::from(s.size > 0 && last_byte != b'\n');
    s.entry_count = lines.saturating_sub(1);
    if let Some(name) = pi_name {
        if s.name.is_none() || s.dialect_hint_is_pi() {
            s.name = name;
        }
    }
    s.dialect = file_dialect(s.id.as_deref(), root_dialect, folder);
    Ok(s)
}

impl SessionSummary {
    fn dialect_hint_is_pi(&self) -> bool {
        self.id.as_deref().and_then(dialect_of_id) == Some(Dialect::Pi)
    }

    /// Modification time in milliseconds since the Unix epoch.
    pub fn modified_ms(&self) -> Option<u64> {
        self.modified.and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(|d| d.as_millis() as u64)
    }
}

pub(super) fn read_header(line: &[u8], s: &mut SessionSummary) {
    let Ok(Value::Object(h)) = serde_json::from_slice::<Value>(line) else { return };
    let text = |k: &str| h.get(k).and_then(Value::as_str).map(str::to_owned);
    s.valid = h.get("type") == Some(&Value::from("session")) && h.get("id").is_some_and(Value::is_string);
    if !s.valid {
        return;
    }
    s.id = text("id");
    s.cwd = text("cwd");
    s.created = text("timestamp");
    s.name = text("title").map(|t| t.trim().to_owned()).filter(|t| !t.is_empty());
}
