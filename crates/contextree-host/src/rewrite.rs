//! Rewriting a session file: applying a prune plan (decisions.md D15,
//! pruning.md §4).
//!
//! Pruning changes lines in the middle of the file, so it cannot be an
//! append. The rewrite goes through a temporary file in the same folder
//! (same filesystem, so the final `rename` is atomic): every line that is not
//! pruned is copied byte for byte (blank and malformed lines, unknown
//! entries, blob references and CRLF endings included), each pruned line is
//! replaced by omp's rewritten line with one `prunedAt` for the batch.
//!
//! The agents may be appending to the file meanwhile. So the fingerprint is
//! checked before anything is written and once more right before the rename;
//! the original is kept as a backup by a hard link taken before the rename,
//! which means an append landing in the short window between that last check
//! and the rename goes to the backup's inode, where it is noticed and copied
//! to the new file ([`Rewritten::recovered_bytes`]). Nothing is lost either way.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use contextree_core::prune::{pruned_line, PrunePlan, PrunedLineError};
use contextree_core::session::Span;

use crate::load::{Fingerprint, LoadedSession};
use crate::write::{Change, WriteError};

/// Why the file was not rewritten. In every case the original is untouched.
#[derive(Debug, thiserror::Error)]
pub enum RewriteError {
    /// The file changed since it was loaded (reload and re-plan), or an IO
    /// error: the same typed errors as appends.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// A version 1 or 2 file: the agents migrate it in memory, so the ids a
    /// plan names may not exist in the file; let an agent upgrade it first.
    #[error("{path}: a version-{version} file is migrated in memory only; its entries cannot be rewritten in place (let an agent upgrade it first)")]
    Migrated {
        /// The file.
        path: PathBuf,
        /// The header's version.
        version: u32,
    },
    /// A line to prune could not be rewritten.
    #[error("{path}: line {line}: {source}")]
    BadLine {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: u32,
        /// Why.
        source: PrunedLineError,
    },
    /// Two replacements overlap or one lies outside the file (a plan from
    /// another file).
    #[error("{path}: replacement at byte {start} overlaps another or lies outside the file")]
    BadSpan {
        /// The file.
        path: PathBuf,
        /// Offset of the replacement.
        start: u64,
    },
}

/// A replacement of one line's JSON value (the span as indexed; surrounding
/// whitespace, e.g. a CRLF's `\r`, is kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// The bytes replaced.
    pub span: Span,
    /// The new JSON value, without line break.
    pub text: String,
}

/// What a rewrite did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewritten {
    /// The original file, kept next to it.
    pub backup: PathBuf,
    /// Lines replaced.
    pub replaced: usize,
    /// Bytes another process appended between the last check and the rename
    /// (they landed in the backup and were copied to the new file).
    pub recovered_bytes: u64,
    /// The new file's fingerprint, for a further write.
    pub fingerprint: Fingerprint,
}

/// A pruning applied: the rewrite and the batch's `prunedAt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruned {
    /// The rewrite.
    pub rewritten: Rewritten,
    /// `prunedAt` of every pruned entry (ms since the epoch).
    pub pruned_at_ms: u64,
}

/// Applies `plan` (made from `loaded`) to the file: every result the plan
/// prunes gets omp's pruned line with `pruned_at_ms`. A plan that prunes
/// nothing writes nothing (no backup either) and returns `None`.
pub fn prune_loaded(loaded: &LoadedSession, plan: &PrunePlan, pruned_at_ms: u64) -> Result<Option<Pruned>, RewriteError> {
    let s = &loaded.session;
    if s.original_version() < 3 {
        return Err(RewriteError::Migrated { path: loaded.path.clone(), version: s.original_version() });
    }
    let pruned = plan.pruned();
    if pruned.is_empty() {
        return Ok(None);
    }
    let io = |source| WriteError::Io { path: loaded.path.clone(), source };
    let file = File::open(&loaded.path).map_err(io)?;
    // The lines are read from the file as it is now; the fingerprint check
    // below makes sure that is the file the plan was made from.
    check_unchanged(&loaded.path, &file, &loaded.fingerprint)?;
    let mut replacements = Vec::with_capacity(pruned.len());
    for r in pruned {
        let e = s.entry(r.node);
        let mut buf = vec![0; e.span.len as usize];
        file.read_exact_at(&mut buf, e.span.start).map_err(io)?;
        let bad = |source| RewriteError::BadLine { path: loaded.path.clone(), line: e.line, source };
        let original = std::str::from_utf8(buf.trim_ascii()).map_err(|err| bad(PrunedLineError::Json(err.to_string())))?;
        let text = pruned_line(original, &r.notice(), pruned_at_ms).map_err(bad)?;
        replacements.push(Replacement { span: e.span, text });
    }
    let rewritten = rewrite_lines(&loaded.path, &loaded.fingerprint, &replacements)?;
    Ok(Some(Pruned { rewritten, pruned_at_ms }))
}

/// Rewrites `path`, if it still matches `expected`, with `replacements`
/// applied and every other byte copied. See the module comment for the steps.
pub fn rewrite_lines(path: &Path, expected: &Fingerprint, replacements: &[Replacement]) -> Result<Rewritten, RewriteError> {
    rewrite_with_hook(path, expected, replacements, &mut |_| {})
}

/// The moments a test can append at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// The temporary file is complete; the final check comes next.
    BeforeFinalCheck,
    /// The final check passed; the backup link and the rename come next.
    BeforeRename,
}

/// [`rewrite_lines`] with `hook` run at each [`Stage`], so tests can append
/// at the worst moments.
fn rewrite_with_hook(path: &Path, expected: &Fingerprint, replacements: &[Replacement], hook: &mut dyn FnMut(Stage)) -> Result<Rewritten, RewriteError> {
    let io = |source| WriteError::Io { path: path.to_owned(), source };
    for (index, r) in replacements.iter().enumerate() {
        // JSON.stringify never emits raw line breaks; one would split the entry.
        if r.text.contains(['\n', '\r']) {
            return Err(WriteError::BadLine { index, reason: "contains a line break" }.into());
        }
    }
    let mut order: Vec<&Replacement> = replacements.iter().collect();
    order.sort_by_key(|r| r.span.start);
    let mut end = 0;
    for r in &order {
        if r.span.start < end || r.span.end() > expected.len {
            return Err(RewriteError::BadSpan { path: path.to_owned(), start: r.span.start });
        }
        end = r.span.end();
    }

    let original = File::open(path).map_err(io)?;
    let len = check_unchanged(path, &original, expected)?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map_or_else(|| "session.jsonl".into(), |n| n.to_string_lossy().into_owned());
    let tmp_path = dir.join(format!(".{name}.contextree-tmp-{}-{:08x}", std::process::id(), crate::write::random_u32()));
    let tmp = OpenOptions::new().write(true).create_new(true).open(&tmp_path).map_err(io)?;
    // Whatever fails from here on, the temporary file must not stay behind.
    let cleanup = TempGuard(&tmp_path);
    copy_with_replacements(&original, &tmp, len, &order).map_err(io)?;
    // Keep the permissions of the original (a session may be private).
    if let Ok(meta) = original.metadata() {
        let _ = tmp.set_permissions(meta.permissions());
    }
    tmp.sync_all().map_err(io)?;

    hook(Stage::BeforeFinalCheck);
    // An agent may have appended while we copied: that is the common case
    // this re-check catches; the rename comes right after it.
    check_unchanged(path, &original, expected)?;
    hook(Stage::BeforeRename);
    let backup = link_backup(path, dir, &name).map_err(io)?;
    if let Err(e) = std::fs::rename(&tmp_path, path) {
        let _ = std::fs::remove_file(&backup);
        return Err(io(e).into());
    }
    cleanup.disarm();
    // An append that slipped in after the check went to the old inode (now
    // only the backup): copy those bytes to the new file so none are lost.
    let grown = original.metadata().map_err(io)?.len();
    let mut recovered_bytes = 0;
    let new = OpenOptions::new().read(true).append(true).open(path).map_err(io)?;
    if grown > len {
        let mut extra = vec![0; (grown - len) as usize];
        original.read_exact_at(&mut extra, len).map_err(io)?;
        (&new).write_all(&extra).map_err(io)?;
        new.sync_all().map_err(io)?;
        recovered_bytes = grown - len;
    }
    // The rename itself is durable only once the folder is synced.
    File::open(dir).and_then(|d| d.sync_all()).map_err(io)?;
    let fingerprint = Fingerprint::of(&new).map_err(io)?;
    Ok(Rewritten { backup, replaced: replacements.len(), recovered_bytes, fingerprint })
}

/// Streams `original[..len]` into `out`, each replacement's span swapped for
/// its text with the span's leading and trailing whitespace kept.
fn copy_with_replacements(original: &File, out: &File, len: u64, order: &[&Replacement]) -> std::io::Result<()> {
    let mut w = BufWriter::with_capacity(1 << 20, out);
    let mut r = original;
    r.seek(SeekFrom::Start(0))?;
    let mut reader = r.take(len);
    let mut pos = 0u64;
    for rep in order {
        std::io::copy(&mut Read::by_ref(&mut reader).take(rep.span.start - pos), &mut w)?;
        let mut old = vec![0; rep.span.len as usize];
        reader.read_exact(&mut old)?;
        let lead = old.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let trail = old[lead..].iter().rev().take_while(|b| b.is_ascii_whitespace()).count();
        w.write_all(&old[..lead])?;
        w.write_all(rep.text.as_bytes())?;
        w.write_all(&old[old.len() - trail..])?;
        pos = rep.span.end();
    }
    std::io::copy(&mut reader, &mut w)?;
    w.flush()
}

/// Hard-links the original as `<name>.bak-<ms>` (`-N` added while taken):
/// never overwrites a backup, costs no copy, and keeps the original's bytes
/// exactly since the original inode is never written.
fn link_backup(path: &Path, dir: &Path, name: &str) -> std::io::Result<PathBuf> {
    let ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis());
    for n in 0..1000 {
        let suffix = if n == 0 { String::new() } else { format!("-{n}") };
        let backup = dir.join(format!("{name}.bak-{ms}{suffix}"));
        match std::fs::hard_link(path, &backup) {
            Ok(()) => return Ok(backup),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            // No hard links here (some network or FAT filesystems): copy,
            // still refusing to overwrite.
            Err(_) => {
                let mut dst = match OpenOptions::new().write(true).create_new(true).open(&backup) {
                    Ok(f) => f,
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(e),
                };
                std::io::copy(&mut File::open(path)?, &mut dst)?;
                dst.sync_all()?;
                return Ok(backup);
            }
        }
    }
    Err(std::io::Error::new(std::io::ErrorKind::AlreadyExists, "no free backup name"))
}

/// Removes the temporary file unless disarmed.
struct TempGuard<'a>(&'a Path);

impl TempGuard<'_> {
    fn disarm(self) {
        std::mem::forget(self);
    }
}

impl Drop for TempGuard<'_> {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.0);
    }
}

/// The file's length if it matches `expected` (as appends check it).
fn check_unchanged(path: &Path, file: &File, expected: &Fingerprint) -> Result<u64, WriteError> {
    use std::os::unix::fs::MetadataExt;
    let io = |source| WriteError::Io { path: path.to_owned(), source };
    // The file at `path` may have been replaced since `file` was opened; an
    // append only ever extends the same inode, a rewrite renames over it.
    let now = std::fs::metadata(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if (now.dev(), now.ino()) != (meta.dev(), meta.ino()) {
        let change = Change::Rewritten;
        return Err(WriteError::Changed { path: path.to_owned(), change, loaded_len: expected.len, len: now.len() });
    }
    crate::write::check_unchanged(path, file, expected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load_session;
    use contextree_core::context::Leaf;
    use contextree_core::prune::{plan_prune, PruneConfig};
    use std::sync::atomic::{AtomicU32, Ordering};

    /// A private temporary folder, removed on drop.
    struct TempDir(PathBuf);

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn temp_dir() -> TempDir {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!("contextree-rewrite-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/synthetic").join(name)).unwrap()
    }

    /// E13b with everything a rewrite must leave alone: a blank line, a
    /// malformed line, an unknown entry with a blob reference, CRLF endings
    /// (on the pruned line too) and no final newline.
    fn messy_e13b() -> Vec<u8> {
        let text = String::from_utf8(fixture("E13b.jsonl")).unwrap();
        let mut out = String::new();
        for (i, line) in text.lines().enumerate() {
            out.push_str(line);
            out.push_str(if i % 2 == 1 { "\r\n" } else { "\n" });
            if i == 1 {
                out.push_str("   \n");
                out.push_str("{\"type\":\"message\",\"id\":\"broken\"\n");
                out.push_str(r#"{"type":"future_thing","id":"ft","parentId":"u1","timestamp":"2026-01-01T00:00:01.500Z","image":"blob:sha256:00ff","n":1.0e0}"#);
                out.push('\n');
            }
        }
        out.pop();
        out.into_bytes()
    }

    fn lines(b: &[u8]) -> Vec<&[u8]> {
        b.split(|&c| c == b'\n').collect()
    }

    fn prune_copy(bytes: &[u8]) -> (TempDir, PathBuf, crate::LoadedSession, PrunePlan) {
        let dir = temp_dir();
        let path = dir.0.join("s.jsonl");
        std::fs::write(&path, bytes).unwrap();
        let loaded = load_session(&path, Some(contextree_core::RuleSet::Omp13.into())).unwrap();
        let plan = plan_prune(&loaded.session, Leaf::Last, &PruneConfig::default());
        (dir, path, loaded, plan)
    }

    #[test]
    fn only_the_pruned_lines_change_and_the_backup_is_the_original() {
        let before = messy_e13b();
        let (dir, path, loaded, plan) = prune_copy(&before);
        assert_eq!(plan.pruned_count(), 1);
        let done = prune_loaded(&loaded, &plan, 1_767_225_700_000).unwrap().unwrap();
        assert_eq!((done.rewritten.replaced, done.rewritten.recovered_bytes), (1, 0));
        let after = std::fs::read(&path).unwrap();
        assert_eq!(std::fs::read(&done.rewritten.backup).unwrap(), before);
        assert!(done.rewritten.backup.file_name().unwrap().to_string_lossy().starts_with("s.jsonl.bak-"));
        let (old, new) = (lines(&before), lines(&after));
        assert_eq!(old.len(), new.len());
        let differing: Vec<usize> = (0..old.len()).filter(|&i| old[i] != new[i]).collect();
        // Line 7 of the messy file is r1 (3 lines inserted after u1), CRLF-ended.
        assert_eq!(differing, [6]);
        let r1 = std::str::from_utf8(old[6]).unwrap().trim_end_matches('\r');
        let expected = pruned_line(r1, "[Output truncated - 25000 tokens]", 1_767_225_700_000).unwrap();
        assert_eq!(new[6], format!("{expected}\r").as_bytes());
        assert_eq!(done.rewritten.fingerprint.len, after.len() as u64);
        // omp reads it back as pruned; nothing is left to prune.
        let again = load_session(&path, Some(contextree_core::RuleSet::Omp13.into())).unwrap();
        let plan = plan_prune(&again.session, Leaf::Last, &PruneConfig::default());
        assert_eq!((plan.pruned_count(), plan.already_pruned().count()), (0, 1));
        // No temporary file is left behind.
        let names: Vec<String> = std::fs::read_dir(&dir.0).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // A second rewrite never overwrites the first backup.
        let b2 = rewrite_lines(&path, &done.rewritten.fingerprint, &[]).unwrap().backup;
        assert_ne!(b2, done.rewritten.backup);
        assert_eq!(std::fs::read(&done.rewritten.backup).unwrap(), before);
    }

    /// omp 18's title slot (omp-18.md §1.1) is not an entry: a prune under
    /// `omp@18` rewrites the pruned line only, the 256 slot bytes stay as
    /// they were.
    #[test]
    fn omp18_title_slot_stays_byte_exact() {
        let slot = {
            let head = r#"{"type":"title","v":1,"title":"Prune me — ✓","source":"user","updatedAt":"2026-11-20T10:00:00.000Z","pad":""#;
            let pad = 256 - head.len() - 3;
            format!("{head}{}\"}}\n", " ".repeat(pad))
        };
        assert_eq!(slot.len(), 256);
        let before = [slot.as_bytes(), &fixture("E13b.jsonl")].concat();
        let dir = temp_dir();
        let path = dir.0.join("s.jsonl");
        std::fs::write(&path, &before).unwrap();
        let loaded = load_session(&path, Some(contextree_core::RuleSet::Omp18.into())).unwrap();
        assert_eq!(loaded.session.title_slot().map(|t| t.title.as_str()), Some("Prune me — ✓"));
        let plan = plan_prune(&loaded.session, Leaf::Last, &PruneConfig { cache_warm_suffix_tokens: None, ..PruneConfig::agent(contextree_core::RuleSet::Omp18) });
        assert_eq!(plan.pruned_count(), 2);
        prune_loaded(&loaded, &plan, 1_767_225_700_000).unwrap().unwrap();
        let after = std::fs::read(&path).unwrap();
        assert_eq!(after[..256], before[..256]);
        let again = load_session(&path, Some(contextree_core::RuleSet::Omp18.into())).unwrap();
        assert_eq!(again.session.entries().len(), loaded.session.entries().len());
        assert!(again.session.title_slot().is_some());
    }

    #[test]
    fn an_append_after_loading_refuses_and_leaves_the_file_alone() {
        let (dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"type\":\"custom\",\"id\":\"zz\",\"parentId\":\"a5\",\"timestamp\":\"t\"}\n").unwrap();
        let snapshot = std::fs::read(&path).unwrap();
        let err = prune_loaded(&loaded, &plan, 1).unwrap_err();
        assert!(matches!(err, RewriteError::Write(WriteError::Changed { change: Change::Grew, .. })), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), snapshot);
        assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 1, "no backup, no temporary file");
    }

    #[test]
    fn an_append_during_the_rewrite_is_caught_before_the_rename() {
        let (dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        let r1 = loaded.session.entry(plan.pruned()[0].node).span;
        let rep = Replacement { span: r1, text: "{}".into() };
        let agent = b"{\"type\":\"custom\",\"id\":\"zz\",\"parentId\":\"a5\",\"timestamp\":\"t\"}\n";
        let mut append = |stage| {
            if stage == Stage::BeforeFinalCheck {
                OpenOptions::new().append(true).open(&path).unwrap().write_all(agent).unwrap();
            }
        };
        let err = rewrite_with_hook(&path, &loaded.fingerprint, &[rep], &mut append).unwrap_err();
        assert!(matches!(err, RewriteError::Write(WriteError::Changed { change: Change::Grew, .. })), "{err}");
        let mut expected = fixture("E13b.jsonl");
        expected.extend_from_slice(agent);
        assert_eq!(std::fs::read(&path).unwrap(), expected);
        assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 1, "no backup, no temporary file");
    }

    #[test]
    fn an_append_after_the_final_check_is_carried_over() {
        // The window between the last check and the rename: the agent's line
        // lands in the old inode (the backup) and is copied to the new file.
        let (_dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        let r1 = loaded.session.entry(plan.pruned()[0].node).span;
        let rep = Replacement { span: r1, text: "{}".into() };
        let agent = b"{\"type\":\"custom\",\"id\":\"zz\",\"parentId\":\"a5\",\"timestamp\":\"t\"}\n";
        let mut append = |stage| {
            if stage == Stage::BeforeRename {
                OpenOptions::new().append(true).open(&path).unwrap().write_all(agent).unwrap();
            }
        };
        let done = rewrite_with_hook(&path, &loaded.fingerprint, &[rep], &mut append).unwrap();
        assert_eq!(done.recovered_bytes, agent.len() as u64);
        let after = std::fs::read(&path).unwrap();
        assert!(after.ends_with(agent));
        assert_eq!(done.fingerprint.len, after.len() as u64);
        let original = fixture("E13b.jsonl");
        assert_eq!(after.len(), original.len() - r1.len as usize + 2 + agent.len());
    }

    #[test]
    fn a_writer_appending_throughout_loses_nothing() {
        // Another thread appends whole lines by path, as the agents do, while
        // we rewrite repeatedly: every line it wrote must end up in the file,
        // whether a rewrite was refused, won, or raced the rename.
        let dir = temp_dir();
        let path = dir.0.join("s.jsonl");
        std::fs::write(&path, fixture("E13b.jsonl")).unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let writer = {
            let (path, stop) = (path.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut n = 0u32;
                while !stop.load(Ordering::Relaxed) && n < 400 {
                    let line = format!("{{\"type\":\"custom\",\"id\":\"w{n}\",\"parentId\":null,\"timestamp\":\"t\"}}\n");
                    OpenOptions::new().append(true).open(&path).unwrap().write_all(line.as_bytes()).unwrap();
                    n += 1;
                    std::thread::yield_now();
                }
                n
            })
        };
        let (mut won, mut refused) = (0, 0);
        for _ in 0..200 {
            let loaded = load_session(&path, Some(contextree_core::RuleSet::Omp13.into())).unwrap();
            let r1 = loaded.session.node("r1").unwrap();
            let rep = Replacement { span: loaded.session.entry(r1).span, text: format!("{{\"type\":\"message\",\"id\":\"r1\",\"parentId\":\"a1\",\"timestamp\":\"t\",\"message\":{{\"role\":\"toolResult\",\"content\":\"{won}\"}}}}") };
            match rewrite_lines(&path, &loaded.fingerprint, &[rep]) {
                Ok(done) => {
                    won += 1;
                    let _ = std::fs::remove_file(done.backup);
                }
                Err(RewriteError::Write(WriteError::Changed { .. })) => refused += 1,
                Err(e) => panic!("{e}"),
            }
        }
        stop.store(true, Ordering::Relaxed);
        let written = writer.join().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        for n in 0..written {
            assert!(text.contains(&format!("\"id\":\"w{n}\"")), "line w{n} lost ({won} rewrites, {refused} refused)");
        }
        assert!(won > 0, "no rewrite went through");
    }

    #[test]
    fn migrated_files_are_refused() {
        let v2 = String::from_utf8(fixture("E13b.jsonl")).unwrap().replacen("\"version\":3", "\"version\":2", 1);
        let (_dir, path, loaded, plan) = prune_copy(v2.as_bytes());
        assert!(matches!(prune_loaded(&loaded, &plan, 1), Err(RewriteError::Migrated { version: 2, .. })));
        assert_eq!(std::fs::read(&path).unwrap(), v2.as_bytes());
    }
}
