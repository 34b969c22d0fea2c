//! Appending entries to a session file (decisions.md D15).
//!
//! The agents may be running on the same file, and they never re-read it:
//! each holds its entries in memory and appends. So contextree only ever
//! appends whole lines, and only when the file is exactly as it was when it
//! was loaded (same length, same last bytes, [`Fingerprint`]). If an agent
//! appended meanwhile, the write is refused with [`WriteError::Changed`]: the
//! caller reloads and re-plans, because the new entry's parent (the leaf)
//! and its summary were computed from the old contents.
//!
//! The file is opened in append mode, so even an agent's append that lands
//! between the check and the write cannot be overwritten; both lines stay
//! whole, and [`Appended::raced`] reports it. The file is never rewritten.

use std::fs::{File, OpenOptions};
use std::io::{Seek, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::load::{Fingerprint, LoadedSession};

/// How the file differs from its fingerprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Longer than when loaded: most likely an agent appended entries.
    Grew,
    /// Shorter than when loaded: truncated or replaced.
    Shrank,
    /// Same length, different last bytes: rewritten in place.
    Rewritten,
}

/// Why nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The file is no longer what was loaded; reload and re-plan.
    #[error("{path}: the file changed since it was loaded ({change:?}: {loaded_len} bytes then, {len} now); reload it and try again")]
    Changed {
        /// The file.
        path: PathBuf,
        /// What changed.
        change: Change,
        /// Length when loaded.
        loaded_len: u64,
        /// Length now.
        len: u64,
    },
    /// A line to append is not a single JSONL line.
    #[error("line {index} to append is not a single line: {reason}")]
    BadLine {
        /// 0-based index in the lines given.
        index: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// Reading, writing or syncing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The IO error.
        source: std::io::Error,
    },
}

/// What an append wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    /// Offset of the first appended line in the file.
    pub offset: u64,
    /// Bytes written, the separating newline included.
    pub bytes: u64,
    /// The file did not end with a newline, so one was written first.
    pub added_newline: bool,
    /// Another process appended between the check and the write: the lines
    /// are whole but follow its bytes (their parent is still the old leaf).
    pub raced: bool,
    /// The file's fingerprint after the write, for a further append.
    pub fingerprint: Fingerprint,
}

/// Appends `lines` (JSON values without newline) to the loaded session's file.
pub fn append_to_loaded(loaded: &LoadedSession, lines: &[String]) -> Result<Appended, WriteError> {
    append_lines(&loaded.path, &loaded.fingerprint, lines)
}

/// Appends `lines` to `path` if it still matches `expected`: one `write` of
/// whole lines (preceded by a newline if the file lacks a final one), then
/// fsync. On any refusal the file is untouched.
pub fn append_lines(path: &Path, expected: &Fingerprint, lines: &[String]) -> Result<Appended, WriteError> {
    let io = |source| WriteError::Io { path: path.to_owned(), source };
    let mut buf = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if line.is_empty() {
            return Err(WriteError::BadLine { index, reason: "empty" });
        }
        // JSON.stringify never emits raw line breaks; one would split the entry.
        if line.contains(['\n', '\r']) {
            return Err(WriteError::BadLine { index, reason: "contains a line break" });
        }
        buf.extend_from_slice(line.as_bytes());
        buf.push(b'\n');
    }
    let mut file = OpenOptions::new().read(true).append(true).open(path).map_err(io)?;
    let len = check_unchanged(path, &file, expected)?;
    let added_newline = expected.tail.last().is_some_and(|&b| b != b'\n');
    if added_newline {
        // The last line would otherwise run into ours and both would be lost.
        buf.insert(0, b'\n');
    }
    if buf.is_empty() {
        return Ok(Appended { offset: len, bytes: 0, added_newline: false, raced: false, fingerprint: expected.clone() });
    }
    file.write_all(&buf).map_err(io)?;
    file.sync_all().map_err(io)?;
    // In append mode the position is the end of our write, wherever it landed.
    let end = file.stream_position().map_err(io)?;
    let start = end - buf.len() as u64;
    let fingerprint = Fingerprint::of(&file).map_err(io)?;
    Ok(Appended {
        offset: start + u64::from(added_newline),
        bytes: buf.len() as u64,
        added_newline,
        raced: start != len,
        fingerprint,
    })
}

/// The file's length if it matches `expected` (shared with the rewrite,
/// which adds its own check that `path` is still the same file).
pub(crate) fn check_unchanged(path: &Path, file: &File, expected: &Fingerprint) -> Result<u64, WriteError> {
    let io = |source| WriteError::Io { path: path.to_owned(), source };
    let len = file.metadata().map_err(io)?.len();
    let changed = |change| WriteError::Changed { path: path.to_owned(), change, loaded_len: expected.len, len };
    if len > expected.len {
        return Err(changed(Change::Grew));
    }
    if len < expected.len {
        return Err(changed(Change::Shrank));
    }
    let mut tail = vec![0; expected.tail.len()];
    file.read_exact_at(&mut tail, len - expected.tail.len() as u64).map_err(io)?;
    if tail != expected.tail {
        return Err(changed(Change::Rewritten));
    }
    Ok(len)
}

/// The current time as the agents write it (`new Date().toISOString()`).
pub fn now_iso() -> String {
    let ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    iso_from_ms(ms)
}

/// `new Date(ms).toISOString()` for years 0–9999: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn iso_from_ms(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, milli) = (in_day / 3_600_000, in_day / 60_000 % 60, in_day / 1000 % 60, in_day % 1000);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

/// 32 random bits for entry ids (the agents cut a random UUID): from the
/// OS, else from std's per-process random hash keys and the clock.
pub fn random_u32() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    use std::io::Read;
    let mut buf = [0u8; 4];
    if File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut buf)).is_ok() {
        return u32::from_le_bytes(buf);
    }
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    h.finish() as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load_session;
    use contextree_core::compaction::{compaction_result, new_entry, plan, summary_requests, Answers, CompactionSettings, PromptOptions};
    use contextree_core::context::{build, Item, Leaf};
    use contextree_core::prompts::PromptPack;
    use contextree_core::Dialect;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// A copy of a synthetic fixture in its own temporary folder, removed on drop.
    struct TempCopy(PathBuf);

    impl std::ops::Deref for TempCopy {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl AsRef<Path> for TempCopy {
        fn as_ref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempCopy {
        fn drop(&mut self) {
            if let Some(dir) = self.0.parent() {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }

    fn copy_fixture(name: &str) -> TempCopy {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!("contextree-write-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
        std::fs::create_dir_all(&dir).unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/synthetic").join(name);
        let dst = dir.join(name);
        std::fs::copy(src, &dst).unwrap();
        TempCopy(dst)
    }

    /// E02's compaction entry line (K = 45) for `dialect`, built from the loaded file.
    fn compaction_line(loaded: &LoadedSession) -> (String, String) {
        let s = &loaded.session;
        let ctx = build(s, Leaf::Last);
        let plan = plan(s, &ctx, &CompactionSettings { keep_recent_tokens: 45, ..Default::default() }, &loaded.source).unwrap();
        let opts = PromptOptions::default();
        let req = summary_requests(s, &plan, &loaded.source, &PromptPack::placeholders(s.dialect()), &opts).unwrap();
        let answers = Answers { history: Some("## Goal\nCreate hello.py.".into()), turn_prefix: None, short: Some("Short.".into()) };
        let result = compaction_result(s, &plan, &req, &answers, &opts.hook).unwrap();
        let e = new_entry(s, &plan, &result, "2026-01-01T00:10:00.000Z", &mut || 0x1234_abcd);
        (e.id, e.line)
    }

    #[test]
    fn append_then_reload_starts_the_context_with_the_summary() {
        for dialect in Dialect::ALL {
            let path = copy_fixture("E02.jsonl");
            let before = std::fs::read(&path).unwrap();
            let loaded = load_session(&path, Some(contextree_core::RuleSet::oldest(dialect).into())).unwrap();
            let (id, line) = compaction_line(&loaded);
            let done = append_to_loaded(&loaded, std::slice::from_ref(&line)).unwrap();
            assert!(!done.raced && !done.added_newline);
            assert_eq!(done.offset, before.len() as u64);

            let after = std::fs::read(&path).unwrap();
            assert_eq!(&after[..before.len()], &before[..], "old bytes are an untouched prefix");
            assert_eq!(&after[before.len()..], format!("{line}\n").as_bytes());
            assert_eq!(done.fingerprint.len, after.len() as u64);

            let reloaded = load_session(&path, Some(contextree_core::RuleSet::oldest(dialect).into())).unwrap();
            let s = &reloaded.session;
            assert_eq!(s.leaf().map(|n| &*s.entry(n).id), Some(id.as_str()));
            let ctx = build(s, Leaf::Last);
            assert!(matches!(ctx.items[0], Item::CompactionSummary(_)));
            let kept: Vec<&str> = ctx.items[1..].iter().map(|i| &*s.entry(i.node()).id).collect();
            assert_eq!(kept, ["u2", "a3", "r2", "a4"]);
            // The fingerprint returned allows a second append without reloading.
            append_lines(&path, &done.fingerprint, &[r#"{"type":"custom","customType":"x","id":"c0ffee00","parentId":null,"timestamp":"t"}"#.to_owned()]).unwrap();
        }
    }

    #[test]
    fn a_concurrent_append_refuses_and_leaves_the_file_alone() {
        let path = copy_fixture("E02.jsonl");
        let loaded = load_session(&path, None).unwrap();
        let (_, line) = compaction_line(&loaded);
        // An agent appends an entry after we loaded.
        let agent = "{\"type\":\"message\",\"id\":\"zz\",\"parentId\":\"a4\",\"timestamp\":\"2026-01-01T00:00:09.000Z\",\"message\":{\"role\":\"user\",\"content\":\"more\"}}\n";
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(agent.as_bytes()).unwrap();
        let snapshot = std::fs::read(&path).unwrap();
        let err = append_to_loaded(&loaded, std::slice::from_ref(&line)).unwrap_err();
        assert!(matches!(err, WriteError::Changed { change: Change::Grew, .. }), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), snapshot);

        // Same length, other bytes: also refused.
        let rewritten = snapshot.iter().map(|&b| if b == b'z' { b'y' } else { b }).collect::<Vec<u8>>();
        std::fs::write(&path, &rewritten).unwrap();
        let fp = Fingerprint { len: snapshot.len() as u64, tail: snapshot[snapshot.len() - 4096.min(snapshot.len())..].to_vec() };
        let err = append_lines(&path, &fp, &[line]).unwrap_err();
        assert!(matches!(err, WriteError::Changed { change: Change::Rewritten, .. }), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), rewritten);
    }

    #[test]
    fn a_missing_final_newline_is_added_first() {
        let path = copy_fixture("E02.jsonl");
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.pop();
        std::fs::write(&path, &bytes).unwrap();
        let loaded = load_session(&path, None).unwrap();
        let (id, line) = compaction_line(&loaded);
        let done = append_to_loaded(&loaded, std::slice::from_ref(&line)).unwrap();
        assert!(done.added_newline);
        assert_eq!(done.offset, bytes.len() as u64 + 1);
        let after = std::fs::read(&path).unwrap();
        assert_eq!(&after[..bytes.len()], &bytes[..]);
        assert_eq!(&after[bytes.len()..], format!("\n{line}\n").as_bytes());
        let s = load_session(&path, None).unwrap().session;
        assert_eq!(s.leaf().map(|n| s.entry(n).id.to_string()), Some(id));
    }

    #[test]
    fn timestamps_and_ids() {
        assert_eq!(iso_from_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_from_ms(1_767_225_601_000), "2026-01-01T00:00:01.000Z");
        assert_eq!(iso_from_ms(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(now_iso().len(), 24);
        // Not a proof of randomness; only that the bits are not constant.
        assert!((0..8).map(|_| random_u32()).collect::<std::collections::HashSet<_>>().len() > 1);
    }

    #[test]
    fn bad_lines_are_refused_before_opening() {
        let fp = Fingerprint { len: 0, tail: Vec::new() };
        let missing = Path::new("/nonexistent/contextree/x.jsonl");
        assert!(matches!(append_lines(missing, &fp, &["{}\n{}".into()]), Err(WriteError::BadLine { index: 0, .. })));
        assert!(matches!(append_lines(missing, &fp, &["{}".into(), String::new()]), Err(WriteError::BadLine { index: 1, .. })));
        assert!(matches!(append_lines(missing, &fp, &["{}".into()]), Err(WriteError::Io { .. })));
    }
}
