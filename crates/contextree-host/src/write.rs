//! Appending entries to a session file (docs/decisions.md D15).
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
//! whole, and [`Appended::raced`] reports it (the callers pass it on as a
//! warning). The file is never rewritten.
//!
//! A write that fails half-way (a full disk, a file size limit) must not
//! leave a torn line: the agent's next append would join it, and the agents
//! drop the joined line, losing their entry too. So our partial bytes are
//! taken back (truncated, or blanked when someone appended after them) before
//! the error is reported ([`WriteError::Incomplete`]).

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
    /// The write stopped after part of the bytes (a full disk, a file size
    /// limit); what became of those bytes is in `repair`.
    #[error("{path}: the append failed after {written} of {total} bytes ({source}); {repair}")]
    Incomplete {
        /// The file.
        path: PathBuf,
        /// Our bytes in the file when the write failed.
        written: u64,
        /// Our bytes in all.
        total: u64,
        /// Why the write stopped.
        source: std::io::Error,
        /// How the partial bytes were taken back.
        repair: Repair,
    },
    /// The lines were written whole, but by then the path no longer named
    /// the file they went to: another process renamed a file over it or
    /// removed it meanwhile. The session file does not hold them.
    #[error("{path}: the file was replaced or removed while the lines were written; they went to the old file, which is no longer the session, so the session file does not hold them; reload it and try again")]
    Replaced {
        /// The file.
        path: PathBuf,
    },
    /// Opening, reading or writing failed before any byte was written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The IO error.
        source: std::io::Error,
    },
}

/// What became of the bytes of an append that failed half-way.
#[derive(Debug)]
pub enum Repair {
    /// Truncated away: the file is byte for byte what it was before.
    Truncated,
    /// Another process appended after them, so they could not be cut without
    /// cutting its line: they were overwritten with spaces ending in a line
    /// break, a blank line both agents skip.
    Blanked,
    /// Taking them back failed too: the file ends with (or holds) a partial
    /// line from `offset` on.
    Failed {
        /// Where our bytes start.
        offset: u64,
        /// Why the repair failed.
        error: std::io::Error,
    },
}

impl std::fmt::Display for Repair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Repair::Truncated => f.write_str("the partial bytes were removed and the file is as it was"),
            Repair::Blanked => f.write_str("another process appended after them, so the partial bytes were blanked into an empty line (the agents skip it); the file is otherwise as it was"),
            Repair::Failed { offset, error } => write!(f, "removing the partial bytes failed too ({error}): the file holds a partial line from byte {offset}"),
        }
    }
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
    /// The lines were written whole, but the fsync after them failed: they
    /// are in the file yet may not survive a crash. Not an error, because
    /// a retry would append them a second time.
    pub sync_error: Option<String>,
    /// The file's fingerprint after the write, for a further append.
    pub fingerprint: Fingerprint,
}

impl Appended {
    /// The warning for a failed fsync, if there was one.
    pub fn sync_warning(&self) -> Option<String> {
        self.sync_error.as_ref().map(|e| {
            format!("the lines were written, but syncing them to disk failed ({e}): they may not survive a crash; do not write them again")
        })
    }
}

/// Appends `lines` (JSON values without newline) to the loaded session's file.
pub fn append_to_loaded(loaded: &LoadedSession, lines: &[String]) -> Result<Appended, WriteError> {
    append_lines(&loaded.path, &loaded.fingerprint, lines)
}

/// Appends `lines` to `path` if it still matches `expected`: one `write` of
/// whole lines (preceded by a newline if the file lacks a final one), then
/// fsync. On any refusal the file is untouched; a write that fails half-way
/// is taken back ([`WriteError::Incomplete`]).
pub fn append_lines(path: &Path, expected: &Fingerprint, lines: &[String]) -> Result<Appended, WriteError> {
    append_with(path, expected, lines, &mut Kernel)
}

/// The system calls of an append that can fail half-way: a seam, so tests
/// can fail them at moments the kernel cannot be made to (after another
/// process appended, in the fsync).
trait Disk {
    /// One `write` call: how many of `bytes` went to the file.
    fn write(&mut self, file: &File, bytes: &[u8]) -> std::io::Result<usize>;
    /// `fsync`.
    fn sync(&mut self, file: &File) -> std::io::Result<()>;
}

/// The real calls.
struct Kernel;

impl Disk for Kernel {
    fn write(&mut self, mut file: &File, bytes: &[u8]) -> std::io::Result<usize> {
        file.write(bytes)
    }

    fn sync(&mut self, file: &File) -> std::io::Result<()> {
        file.sync_all()
    }
}

/// [`append_lines`] through `disk`.
fn append_with(path: &Path, expected: &Fingerprint, lines: &[String], disk: &mut dyn Disk) -> Result<Appended, WriteError> {
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
        return Ok(Appended { offset: len, bytes: 0, added_newline: false, raced: false, sync_error: None, fingerprint: expected.clone() });
    }
    let start = write_whole(path, &mut file, &buf, disk)?;
    // The bytes are in the file: a failed sync is a warning, not a failure
    // (see `Appended::sync_error`).
    let sync_error = disk.sync(&file).err().map(|e| e.to_string());
    // A file renamed over the path, or the path removed, after it was opened:
    // the lines went to an inode the session no longer is. Success would be
    // a lie (the fault tests caught it, tests/it/faults).
    if !names_file(path, &file) {
        return Err(WriteError::Replaced { path: path.to_owned() });
    }
    let fingerprint = Fingerprint::of(&file).map_err(io)?;
    Ok(Appended {
        offset: start + u64::from(added_newline),
        bytes: buf.len() as u64,
        added_newline,
        raced: start != len,
        sync_error,
        fingerprint,
    })
}

/// Writes all of `buf` to the append-mode `file` and returns where it
/// landed. Each `write` call lands at the end of the file as it is then; in
/// append mode the position afterwards is the end of what that call wrote,
/// which locates our bytes. If a call fails (or the bytes of two calls are
/// not adjacent, because another process appended between them), the bytes
/// written so far are taken back and the error says how.
fn write_whole(path: &Path, file: &mut File, buf: &[u8], disk: &mut dyn Disk) -> Result<u64, WriteError> {
    // Our bytes in the file, in order: (offset, length).
    let mut pieces: Vec<(u64, u64)> = Vec::new();
    let mut done = 0usize;
    let failure = loop {
        if done == buf.len() {
            return Ok(pieces[0].0);
        }
        let n = match disk.write(file, &buf[done..]) {
            Ok(0) => break std::io::Error::new(std::io::ErrorKind::WriteZero, "the file took no more bytes"),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => break e,
        };
        done += n;
        let end = match file.stream_position() {
            Ok(end) => end,
            Err(e) => break e,
        };
        let start = end - n as u64;
        if let Some(&(at, len)) = pieces.last() {
            if at + len != start {
                // Someone appended between two of our calls: our line is split.
                pieces.push((start, n as u64));
                break std::io::Error::other("another process appended in the middle of the line");
            }
        }
        pieces.push((start, n as u64));
    };
    let written: u64 = pieces.iter().map(|p| p.1).sum();
    if pieces.is_empty() {
        return Err(WriteError::Io { path: path.to_owned(), source: failure });
    }
    let repair = take_back(path, file, &pieces, buf);
    Err(WriteError::Incomplete { path: path.to_owned(), written, total: buf.len() as u64, source: failure, repair })
}

/// Removes our partial bytes (`pieces`, in order, consecutive parts of
/// `buf`): truncates when they end the file, else blanks them in place.
fn take_back(path: &Path, file: &File, pieces: &[(u64, u64)], buf: &[u8]) -> Repair {
    let first = pieces[0].0;
    let last_end = pieces.last().map_or(first, |&(at, len)| at + len);
    let adjacent = pieces.windows(2).all(|w| w[0].0 + w[0].1 == w[1].0);
    let attempt = || -> std::io::Result<Repair> {
        if adjacent && file.metadata()?.len() == last_end {
            // Nothing after ours: cut back to the old end. (An append landing
            // between this check and the truncation would be cut; the window
            // is two system calls wide and there is no lock to take.)
            file.set_len(first)?;
            file.sync_all()?;
            return Ok(Repair::Truncated);
        }
        // Someone appended after our bytes: cutting would cut their line.
        // Positioned writes on an append-mode descriptor append on Linux, so
        // the overwrite goes through a second descriptor of the same file.
        let plain = OpenOptions::new().write(true).open(path)?;
        {
            use std::os::unix::fs::MetadataExt;
            let (a, b) = (plain.metadata()?, file.metadata()?);
            if (a.dev(), a.ino()) != (b.dev(), b.ino()) {
                return Err(std::io::Error::other("the path now names another file"));
            }
        }
        let mut ours = buf;
        for &(at, len) in pieces {
            // Our line breaks stay (one may end an agent's unterminated
            // line), every other byte becomes a space, and the last byte of
            // each piece is a line break, so whatever follows a piece starts
            // on a line of its own.
            let (piece, rest) = ours.split_at(len as usize);
            ours = rest;
            let mut blank: Vec<u8> = piece.iter().map(|&b| if b == b'\n' { b'\n' } else { b' ' }).collect();
            blank[len as usize - 1] = b'\n';
            plain.write_all_at(&blank, at)?;
        }
        plain.sync_all()?;
        Ok(Repair::Blanked)
    };
    attempt().unwrap_or_else(|error| Repair::Failed { offset: first, error })
}

/// Whether `path` still names the file open as `file` (same device and inode).
fn names_file(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(path), file.metadata()) {
        (Ok(now), Ok(ours)) => (now.dev(), now.ino()) == (ours.dev(), ours.ino()),
        _ => false,
    }
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
    // Outside jiff's range (years -9999 to 9999, less a day at either end) only for a broken
    // clock; the epoch stands in then.
    let t = jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
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

    /// A copy of a synthetic fixture in its own temporary folder, removed on drop.
    struct TempCopy {
        _scratch: contextree_testkit::Scratch,
        path: PathBuf,
    }

    impl std::ops::Deref for TempCopy {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.path
        }
    }

    impl AsRef<Path> for TempCopy {
        fn as_ref(&self) -> &Path {
            &self.path
        }
    }

    fn copy_fixture(name: &str) -> TempCopy {
        let scratch = contextree_testkit::Scratch::new("write");
        let dst = scratch.copy_fixture(&format!("synthetic/{name}"));
        TempCopy { _scratch: scratch, path: dst }
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
            let loaded = load_session(&crate::HostEnv::default(), &path, Some(contextree_core::RuleSet::oldest(dialect).into())).unwrap();
            let (id, line) = compaction_line(&loaded);
            let done = append_to_loaded(&loaded, std::slice::from_ref(&line)).unwrap();
            assert!(!done.raced && !done.added_newline);
            assert_eq!(done.offset, before.len() as u64);

            let after = std::fs::read(&path).unwrap();
            assert_eq!(&after[..before.len()], &before[..], "old bytes are an untouched prefix");
            assert_eq!(&after[before.len()..], format!("{line}\n").as_bytes());
            assert_eq!(done.fingerprint.len, after.len() as u64);

            let reloaded = load_session(&crate::HostEnv::default(), &path, Some(contextree_core::RuleSet::oldest(dialect).into())).unwrap();
            let s = &reloaded.session;
            assert_eq!(s.leaf().map(|n| &*s.entry(n).id), Some(id.as_str()));
            let ctx = build(s, Leaf::Last);
            assert!(matches!(ctx.items[0], Item::CompactionSummary(_)));
            let kept: Vec<&str> = ctx.items[1..].iter().map(|i| &*s.entry(i.node()).id).collect();
            assert_eq!(kept, ["u2", "a3", "r2", "a4"]);
            // The fingerprint returned allows a second append without reloading.
            append_lines(
                &path,
                &done.fingerprint,
                &[r#"{"type":"custom","customType":"x","id":"c0ffee00","parentId":null,"timestamp":"t"}"#.to_owned()],
            )
            .unwrap();
        }
    }

    #[test]
    fn a_concurrent_append_refuses_and_leaves_the_file_alone() {
        let path = copy_fixture("E02.jsonl");
        let loaded = load_session(&crate::HostEnv::default(), &path, None).unwrap();
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
        let loaded = load_session(&crate::HostEnv::default(), &path, None).unwrap();
        let (id, line) = compaction_line(&loaded);
        let done = append_to_loaded(&loaded, std::slice::from_ref(&line)).unwrap();
        assert!(done.added_newline);
        assert_eq!(done.offset, bytes.len() as u64 + 1);
        let after = std::fs::read(&path).unwrap();
        assert_eq!(&after[..bytes.len()], &bytes[..]);
        assert_eq!(&after[bytes.len()..], format!("\n{line}\n").as_bytes());
        let s = load_session(&crate::HostEnv::default(), &path, None).unwrap().session;
        assert_eq!(s.leaf().map(|n| s.entry(n).id.to_string()), Some(id));
    }

    /// A disk that takes `first` bytes of the first write, then runs
    /// `between` (another process appending), then takes the rest if
    /// `rest_fails` is `None`, else fails with that error; its fsync fails
    /// when `sync_fails`.
    struct Faulty<'a> {
        first: usize,
        between: &'a mut dyn FnMut(),
        rest_fails: Option<std::io::ErrorKind>,
        sync_fails: bool,
        calls: usize,
    }

    impl Disk for Faulty<'_> {
        fn write(&mut self, mut file: &File, bytes: &[u8]) -> std::io::Result<usize> {
            self.calls += 1;
            match self.calls {
                1 => {
                    let n = file.write(&bytes[..self.first.min(bytes.len())])?;
                    (self.between)();
                    Ok(n)
                }
                _ => match self.rest_fails {
                    Some(kind) => Err(std::io::Error::new(kind, "No space left on device")),
                    None => file.write(bytes),
                },
            }
        }

        fn sync(&mut self, file: &File) -> std::io::Result<()> {
            if self.sync_fails {
                return Err(std::io::Error::other("Input/output error"));
            }
            file.sync_all()
        }
    }

    const AGENT: &str = "{\"type\":\"message\",\"id\":\"zz\",\"parentId\":\"a4\",\"timestamp\":\"2026-01-01T00:00:09.000Z\",\"message\":{\"role\":\"user\",\"content\":\"more\"}}\n";

    fn agent_appends(path: &Path) -> impl FnMut() + '_ {
        move || std::fs::OpenOptions::new().append(true).open(path).unwrap().write_all(AGENT.as_bytes()).unwrap()
    }

    #[test]
    fn a_write_failing_half_way_is_cut_back_to_the_old_end() {
        let path = copy_fixture("E02.jsonl");
        let before = std::fs::read(&path).unwrap();
        let loaded = load_session(&crate::HostEnv::default(), &path, None).unwrap();
        let (_, line) = compaction_line(&loaded);
        let mut nothing = || {};
        let mut disk =
            Faulty { first: 100, between: &mut nothing, rest_fails: Some(std::io::ErrorKind::StorageFull), sync_fails: false, calls: 0 };
        let err = append_with(&path, &loaded.fingerprint, std::slice::from_ref(&line), &mut disk).unwrap_err();
        let WriteError::Incomplete { written: 100, repair: Repair::Truncated, .. } = &err else { panic!("{err}") };
        assert!(err.to_string().contains("the file is as it was"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), before);
        // Nothing written at all: the plain error, the file untouched.
        let mut disk = Faulty { first: 0, between: &mut nothing, rest_fails: None, sync_fails: false, calls: 0 };
        let err = append_with(&path, &loaded.fingerprint, &[line], &mut disk).unwrap_err();
        assert!(matches!(err, WriteError::Io { .. }), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }

    #[test]
    fn a_write_failing_after_another_process_appended_leaves_a_blank_line_and_its_entry_whole() {
        let path = copy_fixture("E02.jsonl");
        let before = std::fs::read(&path).unwrap();
        let loaded = load_session(&crate::HostEnv::default(), &path, None).unwrap();
        let (_, line) = compaction_line(&loaded);
        let mut agent = agent_appends(&path);
        let mut disk =
            Faulty { first: 40, between: &mut agent, rest_fails: Some(std::io::ErrorKind::StorageFull), sync_fails: false, calls: 0 };
        let err = append_with(&path, &loaded.fingerprint, &[line], &mut disk).unwrap_err();
        let WriteError::Incomplete { written: 40, repair: Repair::Blanked, .. } = &err else { panic!("{err}") };
        let after = std::fs::read(&path).unwrap();
        let expected = [&before[..], " ".repeat(39).as_bytes(), b"\n", AGENT.as_bytes()].concat();
        assert_eq!(after, expected);
        for dialect in Dialect::ALL {
            let s =
                load_session(&crate::HostEnv::default(), &path, Some(contextree_core::RuleSet::oldest(dialect).into())).unwrap().session;
            assert_eq!(s.leaf().map(|n| s.entry(n).id.to_string()).as_deref(), Some("zz"), "{dialect}: the agent's entry is read");
            assert!(s.diagnostics().is_empty(), "{dialect}: {:?}", s.diagnostics());
        }
    }

    #[test]
    fn another_append_between_two_of_our_writes_blanks_both_pieces() {
        // The second call succeeds, but lands after the agent's line: our
        // line would be split around it, so both pieces are blanked.
        let path = copy_fixture("E02.jsonl");
        let before = std::fs::read(&path).unwrap();
        let loaded = load_session(&crate::HostEnv::default(), &path, None).unwrap();
        let (_, line) = compaction_line(&loaded);
        let mut agent = agent_appends(&path);
        let mut disk = Faulty { first: 40, between: &mut agent, rest_fails: None, sync_fails: false, calls: 0 };
        let err = append_with(&path, &loaded.fingerprint, std::slice::from_ref(&line), &mut disk).unwrap_err();
        let WriteError::Incomplete { repair: Repair::Blanked, .. } = &err else { panic!("{err}") };
        let rest = line.len() + 1 - 40;
        let expected = [&before[..], " ".repeat(39).as_bytes(), b"\n", AGENT.as_bytes(), " ".repeat(rest - 1).as_bytes(), b"\n"].concat();
        assert_eq!(std::fs::read(&path).unwrap(), expected);
        let s = load_session(&crate::HostEnv::default(), &path, None).unwrap().session;
        assert_eq!(s.leaf().map(|n| s.entry(n).id.to_string()).as_deref(), Some("zz"));
        assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    }

    #[test]
    fn a_file_replaced_or_removed_during_the_write_is_an_error_not_a_success() {
        // Found by the fault tests (tests/it/faults): the lines went to the old inode, the
        // session at the path never got them, and the append reported success.
        for remove in [false, true] {
            let path = copy_fixture("E02.jsonl");
            let before = std::fs::read(&path).unwrap();
            let loaded = load_session(&crate::HostEnv::default(), &path, None).unwrap();
            let (_, line) = compaction_line(&loaded);
            let replacement = [&before[..], AGENT.as_bytes()].concat();
            let mut swap = || {
                if remove {
                    std::fs::remove_file(&path).unwrap();
                } else {
                    let tmp = path.with_file_name("replacement");
                    std::fs::write(&tmp, &replacement).unwrap();
                    std::fs::rename(&tmp, &path).unwrap();
                }
            };
            let mut disk = Faulty { first: usize::MAX, between: &mut swap, rest_fails: None, sync_fails: false, calls: 0 };
            let err = append_with(&path, &loaded.fingerprint, &[line], &mut disk).unwrap_err();
            assert!(matches!(err, WriteError::Replaced { .. }), "{err}");
            assert!(err.to_string().contains("the session file does not hold them"), "{err}");
            if remove {
                assert!(!path.exists());
            } else {
                assert_eq!(std::fs::read(&path).unwrap(), replacement, "the replacement is left alone");
            }
        }
    }

    #[test]
    fn a_failed_fsync_after_a_whole_write_is_a_warning_not_a_failure() {
        let path = copy_fixture("E02.jsonl");
        let loaded = load_session(&crate::HostEnv::default(), &path, None).unwrap();
        let (id, line) = compaction_line(&loaded);
        let mut nothing = || {};
        let mut disk = Faulty { first: usize::MAX, between: &mut nothing, rest_fails: None, sync_fails: true, calls: 0 };
        let done = append_with(&path, &loaded.fingerprint, &[line], &mut disk).unwrap();
        assert_eq!(done.sync_error.as_deref(), Some("Input/output error"));
        assert!(done.sync_warning().unwrap().contains("do not write them again"));
        let s = load_session(&crate::HostEnv::default(), &path, None).unwrap().session;
        assert_eq!(s.leaf().map(|n| s.entry(n).id.to_string()), Some(id));
    }

    #[test]
    fn timestamps_and_ids() {
        assert_eq!(iso_from_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_from_ms(1_767_225_601_000), "2026-01-01T00:00:01.000Z");
        assert_eq!(iso_from_ms(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso_from_ms(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(iso_from_ms(-62_135_596_800_000), "0001-01-01T00:00:00.000Z");
        assert_eq!(iso_from_ms(253_402_041_600_000), "9999-12-29T00:00:00.000Z");
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
