//! Rewriting a session file: applying a prune plan (docs/decisions.md D15,
//! pruning.md §4).
//!
//! Pruning changes lines in the middle of the file, so it cannot be an
//! append. The rewrite goes through a temporary file in the same folder
//! (same filesystem, so putting it in place is atomic): every line that is not
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
//!
//! That recovery works for writers that open, append and close (pi), not for
//! one that keeps its descriptor (oh-my-pi holds one for the session's
//! lifetime): all its later entries would go to the backup. So a file another
//! process holds open for writing is refused ([`RewriteError::HeldOpen`],
//! [`crate::writers`]), checked before anything is written and again right
//! before the rename. After the rename the rewrite waits (up to
//! [`LATE_WRITER_WAIT`]) until no process holds the old inode for writing, so
//! an append-and-close that opened the old file just before the rename has
//! finished when its bytes are copied over.
//!
//! The "rename" is an exchange of the two names (`renameat2(RENAME_EXCHANGE)`), so a file an
//! agent renamed over the session after the last check is never destroyed: it comes out at the
//! temporary name, is seen not to be the file that was read, and is swapped back ([`swap_in`]).
//! Only where the kernel or filesystem cannot exchange is it a plain rename.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use contextree_core::prune::{pruned_line, PrunePlan, PrunedLineError};
use contextree_core::session::{NodeId, Span};

use crate::load::{Fingerprint, LoadedSession};
use crate::write::{Change, WriteError};
use crate::writers::{describe, writers_of, Writer};

/// How long the rewrite waits after its rename for writers of the old inode
/// (the backup) to close it before copying what they appended.
pub const LATE_WRITER_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Why the file was not rewritten. In every case the original is untouched
/// (what fails after the rename is a warning, [`Rewritten::warnings`]).
#[derive(Debug, thiserror::Error)]
pub enum RewriteError {
    /// The file changed since it was loaded (reload and re-plan), or an IO
    /// error: the same typed errors as appends.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The file does not start with a session header (empty, or not JSONL
    /// of an agent's session).
    #[error("{path}: not a session file (no valid session header on the first line); nothing was written")]
    NotASession {
        /// The file.
        path: PathBuf,
    },
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
    /// Another process has the file open for writing (oh-my-pi keeps its
    /// session file open while it runs): after the rename its descriptor
    /// would point at the backup, so its later entries would be lost to the
    /// session.
    #[error("{path}: {} has the file open for writing; a rewrite now would send its later entries to the backup instead of the session, so nothing was written. Quit the agent (or let it move to another session), then prune again", describe(writers))]
    HeldOpen {
        /// The file.
        path: PathBuf,
        /// Who holds it.
        writers: Vec<Writer>,
    },
    /// The file is read-only (its owner has no write permission).
    #[error("{path}: the file is read-only; nothing was written (make it writable to prune it)")]
    ReadOnly {
        /// The file.
        path: PathBuf,
    },
    /// The file has other names: the rewrite would give this name new
    /// contents and leave the others with the old.
    #[error(
        "{path}: the file has {links} hard links; a rewrite would split them (this name rewritten, the others not), so nothing was written"
    )]
    HardLinks {
        /// The file.
        path: PathBuf,
        /// Its link count.
        links: u64,
    },
    /// The new file could not be given the original's owner.
    #[error("{path}: cannot give the rewritten file the owner of the original (uid {uid}, gid {gid}): {source}; nothing was written")]
    Owner {
        /// The file.
        path: PathBuf,
        /// The original's owner.
        uid: u32,
        /// The original's group.
        gid: u32,
        /// Why.
        source: std::io::Error,
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
    /// Processes that still held the old file (now the backup) open for
    /// writing [`LATE_WRITER_WAIT`] after the rename: they opened it in the
    /// instant between the last check and the rename, and what they write from
    /// now on goes to the backup. Empty in all but that race.
    pub late_writers: Vec<Writer>,
    /// Temporary files of this session left behind by an earlier rewrite
    /// that was killed half-way, removed now.
    pub removed_temporaries: Vec<PathBuf>,
    /// What went wrong after the rename (the file is rewritten all the
    /// same): syncing the folder, copying late bytes.
    pub warnings: Vec<String>,
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
    let targets: Vec<(NodeId, String)> = plan.pruned().iter().map(|r| (r.node, r.notice())).collect();
    prune_entries(loaded, &targets, pruned_at_ms)
}

/// [`prune_loaded`] for any list of tool results and their notices (omp 18's
/// per-turn stale pass and its overflow pass rewrite in one go).
pub fn prune_entries(loaded: &LoadedSession, targets: &[(NodeId, String)], pruned_at_ms: u64) -> Result<Option<Pruned>, RewriteError> {
    let s = &loaded.session;
    // An empty or garbage file has no header (its version reads as 0): say
    // that, not that it would be migrated.
    if s.header().is_none() {
        return Err(RewriteError::NotASession { path: loaded.path.clone() });
    }
    if s.original_version() < 3 {
        return Err(RewriteError::Migrated { path: loaded.path.clone(), version: s.original_version() });
    }
    if targets.is_empty() {
        return Ok(None);
    }
    let io = |source| WriteError::Io { path: loaded.path.clone(), source };
    let file = File::open(&loaded.path).map_err(io)?;
    // The lines are read from the file as it is now; the fingerprint check
    // below makes sure that is the file the plan was made from.
    check_unchanged(&loaded.path, &file, &loaded.fingerprint)?;
    let mut replacements = Vec::with_capacity(targets.len());
    for (node, notice) in targets {
        let e = s.entry(*node);
        let mut buf = vec![0; e.span.len as usize];
        file.read_exact_at(&mut buf, e.span.start).map_err(io)?;
        let bad = |source| RewriteError::BadLine { path: loaded.path.clone(), line: e.line, source };
        let original = std::str::from_utf8(buf.trim_ascii()).map_err(|err| bad(PrunedLineError::Json(err.to_string())))?;
        let text = pruned_line(original, notice, pruned_at_ms).map_err(bad)?;
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
    /// The temporary file was just created, empty.
    TempCreated,
    /// The temporary file is complete; the final check comes next.
    BeforeFinalCheck,
    /// The final check passed; the backup link and the rename come next.
    BeforeRename,
    /// The backup link is taken and checked; the swap comes next.
    BackupTaken,
}

/// [`rewrite_lines`] with `hook` run at each [`Stage`], so tests can append
/// at the worst moments.
fn rewrite_with_hook(
    path: &Path,
    expected: &Fingerprint,
    replacements: &[Replacement],
    hook: &mut dyn FnMut(Stage),
) -> Result<Rewritten, RewriteError> {
    rewrite_with(path, expected, replacements, hook, &|dir| File::open(dir)?.sync_all())
}

/// [`rewrite_with_hook`] with the folder's fsync made by `sync_dir` (a seam:
/// tests fail it, which a real disk will not do on demand).
///
/// Long on purpose: the checks around the rename run in this order with nothing between
/// them (docs/reliability.md); split, the order would be spread over functions.
fn rewrite_with(
    path: &Path,
    expected: &Fingerprint,
    replacements: &[Replacement],
    hook: &mut dyn FnMut(Stage),
    sync_dir: &dyn Fn(&Path) -> std::io::Result<()>,
) -> Result<Rewritten, RewriteError> {
    // Through a symlink, the rename would replace the link by a regular file
    // and leave the real session as it was: rewrite the file it points to.
    let real = std::fs::canonicalize(path).map_err(|source| WriteError::Io { path: path.to_owned(), source })?;
    let path = real.as_path();
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
    let removed_temporaries = remove_stale_temporaries(dir, &name);
    let mut meta = original.metadata().map_err(io)?;
    let (dev, ino) = (meta.dev(), meta.ino());
    if meta.nlink() > 1 && remove_unrenamed_backups(dir, &name, dev, ino, meta.nlink()) {
        meta = original.metadata().map_err(io)?;
    }
    refuse_identity_changes(path, &meta)?;
    refuse_writers(path, dev, ino)?;
    let tmp_path = dir.join(format!("{}{}-{:08x}", temp_prefix(&name), std::process::id(), crate::write::random_u32()));
    // A session may be private: the temporary file is created with the
    // original's permission bits (narrowed by the umask), never the default
    // 0644, so its contents are not readable by others even for a moment.
    let mode = meta.permissions().mode() & 0o7777;
    // Readable too: the new file's fingerprint is taken through this descriptor at the end.
    let tmp = OpenOptions::new().read(true).write(true).create_new(true).mode(mode).open(&tmp_path).map_err(io)?;
    // Whatever fails from here on, the temporary file must not stay behind.
    let cleanup = TempGuard(&tmp_path);
    hook(Stage::TempCreated);
    // The new file keeps the original's owner (as root, it would otherwise
    // take someone else's session); if it cannot, nothing is rewritten.
    let made = tmp.metadata().map_err(io)?;
    if (made.uid(), made.gid()) != (meta.uid(), meta.gid()) {
        std::os::unix::fs::fchown(&tmp, Some(meta.uid()), Some(meta.gid())).map_err(|source| RewriteError::Owner {
            path: path.to_owned(),
            uid: meta.uid(),
            gid: meta.gid(),
            source,
        })?;
    }
    // The umask may have narrowed the bits (and a chown clears set-id bits):
    // the new file gets exactly the original's.
    tmp.set_permissions(std::fs::Permissions::from_mode(mode)).map_err(io)?;
    copy_with_replacements(&original, &tmp, len, &order).map_err(io)?;
    tmp.sync_all().map_err(io)?;

    hook(Stage::BeforeFinalCheck);
    // An agent may have appended while we copied: that is the common case
    // this re-check catches; the rename comes right after it.
    check_unchanged(path, &original, expected)?;
    // An agent may have started (and opened the file) while we copied.
    refuse_writers(path, dev, ino)?;
    hook(Stage::BeforeRename);
    let backup = link_backup(path, dir, &name).map_err(io)?;
    // The check above and the link are a /proc scan apart: a file renamed
    // over the path in between would be linked as the backup and then lost
    // under the rename (found by the fault tests, tests/it/faults). The backup
    // must be the inode that was checked.
    match std::fs::metadata(&backup) {
        Ok(b) if (b.dev(), b.ino()) == (dev, ino) => {}
        linked => {
            let _ = std::fs::remove_file(&backup);
            return Err(match linked {
                Err(e) => io(e).into(),
                Ok(_) => WriteError::Changed {
                    path: path.to_owned(),
                    change: Change::Rewritten,
                    loaded_len: expected.len,
                    len: std::fs::metadata(path).map_or(0, |m| m.len()),
                }
                .into(),
            });
        }
    }
    hook(Stage::BackupTaken);
    match swap_in(&tmp_path, path, dev, ino) {
        Ok(()) => {}
        Err(SwapError::Io(e)) => {
            let _ = std::fs::remove_file(&backup);
            return Err(io(e).into());
        }
        Err(SwapError::Replaced) => {
            let _ = std::fs::remove_file(&backup);
            return Err(WriteError::Changed {
                path: path.to_owned(),
                change: Change::Rewritten,
                loaded_len: expected.len,
                len: std::fs::metadata(path).map_or(0, |m| m.len()),
            }
            .into());
        }
        Err(SwapError::Stranded(other)) => {
            // Whatever the swap brought out is now at the temporary name: it must stay there.
            cleanup.disarm();
            let _ = std::fs::remove_file(&backup);
            return Err(WriteError::Io {
                path: path.to_owned(),
                source: std::io::Error::other(format!(
                    "the file was replaced while it was being rewritten, and putting the replacement back failed: it is at {}; nothing else was changed",
                    other.display()
                )),
            }
            .into());
        }
    }
    cleanup.disarm();
    // An append that slipped in after the check went to the old inode (now
    // only the backup): once its writer has closed it, copy those bytes to
    // the new file so none are lost.
    // From here on the file is rewritten: a failure is a warning, since an
    // error would tell the caller nothing was written.
    let late_writers = wait_for_writers(dev, ino, LATE_WRITER_WAIT);
    let mut warnings = Vec::new();
    let mut recovered_bytes = 0;
    match carry_over(&original, len, path) {
        Ok(n) => recovered_bytes = n,
        Err(e) => warnings.push(format!(
            "bytes another process appended during the rewrite are only in the backup {}: copying them failed ({e})",
            backup.display()
        )),
    }
    // The rename itself is durable only once the folder is synced.
    if let Err(e) = sync_dir(dir) {
        warnings.push(format!("{} was rewritten, but syncing its folder failed ({e}): after a crash the old contents may be back (they are also in the backup {})", path.display(), backup.display()));
    }
    // Through the descriptor, not the path: the file is rewritten whatever happens to the
    // path now (removed right after the rename, the fault tests saw an error reported for a
    // rewrite that had been done).
    let fingerprint = Fingerprint::of(&tmp).map_err(io)?;
    Ok(Rewritten { backup, replaced: replacements.len(), recovered_bytes, late_writers, removed_temporaries, warnings, fingerprint })
}

/// Why [`swap_in`] did not put the new file in place.
enum SwapError {
    /// The path named another file at the instant of the swap (renamed over it since the last
    /// check); it was put back, the new file is at its temporary name again.
    Replaced,
    /// As `Replaced`, but putting it back failed: the replacement is at this (temporary) name.
    Stranded(PathBuf),
    /// The swap itself failed (the path is gone, or an IO error); nothing moved.
    Io(std::io::Error),
}

/// Puts the new file `tmp` at `path` if `path` still names the inode `(dev, ino)` that was
/// read and checked.
///
/// A plain `rename` would destroy whatever `path` names at that instant: a file an agent
/// renamed over the session after the last check would be lost (the fault tests found that
/// window). `renameat2(RENAME_EXCHANGE)` swaps the two names atomically instead, so nothing is
/// destroyed: the old file comes out at `tmp`, where its inode is checked. If it is not the
/// one read, the swap is undone and the rewrite refused. On success `tmp` names the original,
/// which the backup link also names, so that name is removed.
fn swap_in(tmp: &Path, path: &Path, dev: u64, ino: u64) -> Result<(), SwapError> {
    match exchange(tmp, path) {
        Ok(()) => {}
        // No exchange on this filesystem or kernel: a plain rename, with its short window.
        Err(e) if e.kind() == std::io::ErrorKind::Unsupported => return std::fs::rename(tmp, path).map_err(SwapError::Io),
        Err(e) => return Err(SwapError::Io(e)),
    }
    match std::fs::symlink_metadata(tmp) {
        Ok(out) if (out.dev(), out.ino()) == (dev, ino) => {
            let _ = std::fs::remove_file(tmp);
            Ok(())
        }
        _ => match exchange(tmp, path) {
            Ok(()) => Err(SwapError::Replaced),
            Err(_) => Err(SwapError::Stranded(tmp.to_owned())),
        },
    }
}

/// Swaps the names `a` and `b` atomically; `ErrorKind::Unsupported` where the kernel or the
/// filesystem cannot (old kernels, some network and FUSE filesystems).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    use rustix::io::Errno;
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(|e| match e {
        Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP => std::io::ErrorKind::Unsupported.into(),
        e => e.into(),
    })
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// Copies what was appended to the old inode past `len` to the end of the
/// file now at `path`; returns how many bytes.
fn carry_over(original: &File, len: u64, path: &Path) -> std::io::Result<u64> {
    let grown = original.metadata()?.len();
    if grown <= len {
        return Ok(0);
    }
    let mut extra = vec![0; (grown - len) as usize];
    original.read_exact_at(&mut extra, len)?;
    let new = OpenOptions::new().append(true).open(path)?;
    (&new).write_all(&extra)?;
    new.sync_all()?;
    Ok(grown - len)
}

/// Refuses, before anything is written, a file whose rewrite would not be
/// the same file afterwards: read-only, or with other names (hard links).
fn refuse_identity_changes(path: &Path, meta: &std::fs::Metadata) -> Result<(), RewriteError> {
    // The owner's write bit: a file its owner made read-only is not rewritten
    // (even by root, whom the kernel would let).
    if meta.permissions().mode() & 0o200 == 0 {
        return Err(RewriteError::ReadOnly { path: path.to_owned() });
    }
    if meta.nlink() > 1 {
        return Err(RewriteError::HardLinks { path: path.to_owned(), links: meta.nlink() });
    }
    Ok(())
}

/// The start of the temporary file's name for the session `name`; the
/// process id and 8 hex digits follow.
/// Removes what killed rewrites of the session at `path` left behind (their temporary files;
/// [`rewrite_lines`] does this before every rewrite) and returns what was removed. For a write
/// that then finds nothing to rewrite: a rewrite killed right after putting its new file in
/// place leaves the original's second name at its temporary name, and a file with nothing left
/// to prune would otherwise never be rewritten again to clear it.
pub fn remove_leftovers(path: &Path) -> Vec<PathBuf> {
    let Ok(real) = std::fs::canonicalize(path) else { return Vec::new() };
    let dir = real.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let Some(name) = real.file_name().map(|n| n.to_string_lossy().into_owned()) else { return Vec::new() };
    remove_stale_temporaries(dir, &name)
}

fn temp_prefix(name: &str) -> String {
    format!(".{name}.contextree-tmp-")
}

/// Removes the temporary files of this session that a rewrite killed
/// half-way left behind: named like ours, by a process that no longer runs
/// (no `/proc/PID`). Done here, at the next rewrite, rather than on load:
/// loading only reads. Without `/proc` nothing is removed (a live rewrite's
/// file cannot be told from a dead one's). Failures are ignored: a leftover
/// costs disk space, not data.
fn remove_stale_temporaries(dir: &Path, name: &str) -> Vec<PathBuf> {
    let prefix = temp_prefix(name);
    let proc = Path::new("/proc");
    let mut removed = Vec::new();
    if !proc.join("self").exists() {
        return removed;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return removed };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else { continue };
        let Some((pid, random)) = rest.split_once('-') else { continue };
        let ours = pid.parse::<u32>().is_ok() && random.len() == 8 && random.bytes().all(|b| b.is_ascii_hexdigit());
        if !ours || proc.join(pid).exists() {
            continue;
        }
        let path = entry.path();
        // Only regular files: a directory or link of that name is not ours.
        if entry.file_type().is_ok_and(|t| t.is_file()) && std::fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

/// A rewrite killed between taking its backup link and the rename leaves the session with a
/// second name, `<name>.bak-<ms>`, for the same inode: not a backup (the live file is still
/// that inode, and agents append to it), and a hard link that would refuse every later
/// rewrite. When every other name of the file is such a link and no rewrite of this session is
/// running (no temporary file of a live process), those links are removed and `true` returned.
/// Found by the fault tests (prune × kill).
fn remove_unrenamed_backups(dir: &Path, name: &str, dev: u64, ino: u64, links: u64) -> bool {
    let (temp, backup) = (temp_prefix(name), format!("{name}.bak-"));
    let Ok(entries) = std::fs::read_dir(dir) else { return false };
    let mut ours = Vec::new();
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(n) = file_name.to_str() else { continue };
        // A live rewrite of this session (its temporary file outlived the sweep): its link is
        // about to become the real backup.
        if n.starts_with(&temp) {
            return false;
        }
        if n.starts_with(&backup) && entry.metadata().is_ok_and(|m| (m.dev(), m.ino()) == (dev, ino)) {
            ours.push(entry.path());
        }
    }
    if ours.is_empty() || ours.len() as u64 != links - 1 {
        return false;
    }
    ours.iter().all(|p| std::fs::remove_file(p).is_ok())
}

/// [`RewriteError::HeldOpen`] if any process holds the file open for writing.
fn refuse_writers(path: &Path, dev: u64, ino: u64) -> Result<(), RewriteError> {
    let writers = writers_of(dev, ino);
    if writers.is_empty() {
        return Ok(());
    }
    Err(RewriteError::HeldOpen { path: path.to_owned(), writers })
}

/// Polls every 10 ms until no process holds the inode open for writing, at
/// most `limit`; returns those still holding it then.
fn wait_for_writers(dev: u64, ino: u64, limit: std::time::Duration) -> Vec<Writer> {
    let start = std::time::Instant::now();
    loop {
        let writers = writers_of(dev, ino);
        if writers.is_empty() || start.elapsed() >= limit {
            return writers;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
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
            // The file is gone (removed since the check): no backup to take.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(e),
            // No hard links here (some network or FAT filesystems): copy,
            // still refusing to overwrite.
            Err(_) => {
                let mut dst = match OpenOptions::new().write(true).create_new(true).open(&backup) {
                    Ok(f) => f,
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(e),
                };
                // A failed copy must not leave a partial backup behind.
                let copied = File::open(path).and_then(|mut src| std::io::copy(&mut src, &mut dst)).and_then(|_| dst.sync_all());
                if let Err(e) = copied {
                    let _ = std::fs::remove_file(&backup);
                    return Err(e);
                }
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
    use std::sync::atomic::Ordering;

    use tempfile::TempDir;

    /// A private temporary folder (`tempfile`), removed on drop.
    fn temp_dir() -> TempDir {
        tempfile::Builder::new().prefix("contextree-rewrite-").tempdir().unwrap()
    }

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(contextree_testkit::fixture(&format!("synthetic/{name}"))).unwrap()
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
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, bytes).unwrap();
        let loaded = load_session(&crate::HostEnv::default(), &path, Some(contextree_core::RuleSet::Omp13.into())).unwrap();
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
        let again = load_session(&crate::HostEnv::default(), &path, Some(contextree_core::RuleSet::Omp13.into())).unwrap();
        let plan = plan_prune(&again.session, Leaf::Last, &PruneConfig::default());
        assert_eq!((plan.pruned_count(), plan.already_pruned().count()), (0, 1));
        // No temporary file is left behind.
        let names: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
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
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, &before).unwrap();
        let loaded = load_session(&crate::HostEnv::default(), &path, Some(contextree_core::RuleSet::Omp18.into())).unwrap();
        assert_eq!(loaded.session.title_slot().map(|t| t.title.as_str()), Some("Prune me — ✓"));
        let plan = plan_prune(
            &loaded.session,
            Leaf::Last,
            &PruneConfig { cache_warm_suffix_tokens: None, ..PruneConfig::agent(contextree_core::RuleSet::Omp18) },
        );
        assert_eq!(plan.pruned_count(), 2);
        prune_loaded(&loaded, &plan, 1_767_225_700_000).unwrap().unwrap();
        let after = std::fs::read(&path).unwrap();
        assert_eq!(after[..256], before[..256]);
        let again = load_session(&crate::HostEnv::default(), &path, Some(contextree_core::RuleSet::Omp18.into())).unwrap();
        assert_eq!(again.session.entries().len(), loaded.session.entries().len());
        assert!(again.session.title_slot().is_some());
    }

    #[test]
    fn an_append_after_loading_refuses_and_leaves_the_file_alone() {
        let (dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"type\":\"custom\",\"id\":\"zz\",\"parentId\":\"a5\",\"timestamp\":\"t\"}\n")
            .unwrap();
        let snapshot = std::fs::read(&path).unwrap();
        let err = prune_loaded(&loaded, &plan, 1).unwrap_err();
        assert!(matches!(err, RewriteError::Write(WriteError::Changed { change: Change::Grew, .. })), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), snapshot);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no backup, no temporary file");
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
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no backup, no temporary file");
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
        let path = dir.path().join("s.jsonl");
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
            let loaded = load_session(&crate::HostEnv::default(), &path, Some(contextree_core::RuleSet::Omp13.into())).unwrap();
            let r1 = loaded.session.node("r1").unwrap();
            let rep = Replacement { span: loaded.session.entry(r1).span, text: format!("{{\"type\":\"message\",\"id\":\"r1\",\"parentId\":\"a1\",\"timestamp\":\"t\",\"message\":{{\"role\":\"toolResult\",\"content\":\"{won}\"}}}}") };
            match rewrite_lines(&path, &loaded.fingerprint, &[rep]) {
                Ok(done) => {
                    won += 1;
                    let _ = std::fs::remove_file(done.backup);
                }
                // The writer thread's descriptor is seen while it is open.
                Err(RewriteError::Write(WriteError::Changed { .. }) | RewriteError::HeldOpen { .. }) => refused += 1,
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

    /// A `sh` holding `path` open with `exec 3>>` (O_WRONLY|O_APPEND), as
    /// oh-my-pi holds its session file, until its stdin closes.
    struct Holder(std::process::Child);

    impl Holder {
        fn open(path: &Path) -> Holder {
            use std::io::BufRead;
            let mut child = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("exec 3>>'{}'; echo ready; read _", path.display()))
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let mut ready = String::new();
            std::io::BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut ready).unwrap();
            assert_eq!(ready, "ready\n");
            Holder(child)
        }

        fn pid(&self) -> u32 {
            self.0.id()
        }
    }

    impl Drop for Holder {
        fn drop(&mut self) {
            drop(self.0.stdin.take());
            let _ = self.0.wait();
        }
    }

    #[test]
    fn a_file_another_process_holds_open_for_writing_is_refused_naming_it() {
        let (dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        let before = std::fs::read(&path).unwrap();
        let holder = Holder::open(&path);
        let err = prune_loaded(&loaded, &plan, 1).unwrap_err();
        let RewriteError::HeldOpen { writers, .. } = &err else { panic!("{err}") };
        assert!(writers.iter().any(|w| w.pid == holder.pid() && w.command == "sh"), "{writers:?}");
        let message = err.to_string();
        assert!(
            message.contains(&format!("sh (pid {})", holder.pid())) && message.contains("backup") && message.contains("prune again"),
            "{message}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no backup, no temporary file");
        // Once it lets go, the same plan goes through.
        drop(holder);
        assert!(prune_loaded(&loaded, &plan, 1).unwrap().is_some());
    }

    #[test]
    fn a_file_replaced_or_removed_right_before_the_rename_is_left_alone() {
        // Found by the fault tests (tests/it/faults): a file renamed over the session between the
        // last check and the backup link became the backup and was lost under the rename; a
        // removed one left an empty backup behind. One renamed over it after the link (the last
        // window, closed by the exchange) was destroyed by the rename.
        for at in [Stage::BeforeRename, Stage::BackupTaken] {
            for remove in [false, true] {
                let (dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
                let before = std::fs::read(&path).unwrap();
                let replacement = [&before[..], b"{\"type\":\"custom\",\"id\":\"zz\",\"parentId\":\"a5\",\"timestamp\":\"t\"}\n"].concat();
                let rep = Replacement { span: loaded.session.entry(plan.pruned()[0].node).span, text: "{}".into() };
                let mut swap = |stage| {
                    if stage == at {
                        if remove {
                            std::fs::remove_file(&path).unwrap();
                        } else {
                            std::fs::write(dir.path().join("other"), &replacement).unwrap();
                            std::fs::rename(dir.path().join("other"), &path).unwrap();
                        }
                    }
                };
                let err = rewrite_with_hook(&path, &loaded.fingerprint, &[rep], &mut swap).unwrap_err();
                let case = format!("{at:?}, removed: {remove}");
                if remove {
                    assert!(
                        matches!(&err, RewriteError::Write(WriteError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound),
                        "{case}: {err}"
                    );
                    assert!(!path.exists(), "{case}: not put back");
                    assert_eq!(names(&dir), Vec::<String>::new(), "{case}: no backup, no temporary file");
                } else {
                    assert!(matches!(err, RewriteError::Write(WriteError::Changed { change: Change::Rewritten, .. })), "{case}: {err}");
                    assert_eq!(std::fs::read(&path).unwrap(), replacement, "{case}: the replacement stays the session");
                    assert_eq!(names(&dir), vec!["s.jsonl".to_owned()], "{case}: no backup, no temporary file");
                }
            }
        }
    }

    #[test]
    fn a_writer_that_opens_during_the_rewrite_is_caught_before_the_rename() {
        let (dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        let before = std::fs::read(&path).unwrap();
        let rep = Replacement { span: loaded.session.entry(plan.pruned()[0].node).span, text: "{}".into() };
        // An agent starts while we copy and keeps its descriptor (in this
        // process; the scan sees our own descriptors too).
        let mut agent = None;
        let mut open = |stage| {
            if stage == Stage::BeforeFinalCheck {
                agent = Some(OpenOptions::new().append(true).open(&path).unwrap());
            }
        };
        let err = rewrite_with_hook(&path, &loaded.fingerprint, &[rep], &mut open).unwrap_err();
        let RewriteError::HeldOpen { writers, .. } = &err else { panic!("{err}") };
        assert_eq!(writers.iter().map(|w| w.pid).collect::<Vec<_>>(), [std::process::id()]);
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no backup, no temporary file");
        drop(agent);
    }

    #[test]
    fn an_append_and_close_writer_caught_by_the_rename_is_waited_for() {
        // pi opens, appends and closes. One that opened the old file just
        // before the rename writes to the backup a little later: its line
        // must still reach the new file.
        let (_dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        let rep = Replacement { span: loaded.session.entry(plan.pruned()[0].node).span, text: "{}".into() };
        let agent = b"{\"type\":\"custom\",\"id\":\"zz\",\"parentId\":\"a5\",\"timestamp\":\"t\"}\n";
        let mut slow = None;
        let mut open = |stage| {
            if stage == Stage::BeforeRename {
                let mut f = OpenOptions::new().append(true).open(&path).unwrap();
                slow = Some(std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_millis(300));
                    f.write_all(agent).unwrap();
                }));
            }
        };
        let done = rewrite_with_hook(&path, &loaded.fingerprint, &[rep], &mut open).unwrap();
        slow.take().unwrap().join().unwrap();
        assert_eq!((done.recovered_bytes, done.late_writers.len()), (agent.len() as u64, 0));
        let after = std::fs::read(&path).unwrap();
        assert!(after.ends_with(agent), "the late line reached the session");
        assert_eq!(done.fingerprint.len, after.len() as u64);
    }

    /// The hidden temporary files next to `path`.
    fn temp_files(path: &Path) -> Vec<PathBuf> {
        let prefix = format!(".{}.contextree-tmp-", path.file_name().unwrap().to_string_lossy());
        std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(&prefix))
            .collect()
    }

    #[test]
    fn a_private_session_is_never_readable_by_others_not_even_the_temporary_file() {
        let (_dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let rep = Replacement { span: loaded.session.entry(plan.pruned()[0].node).span, text: "{}".into() };
        let mut modes = Vec::new();
        let mut look = |stage| {
            if stage == Stage::TempCreated {
                let tmp = temp_files(&path);
                assert_eq!(tmp.len(), 1);
                modes.push(std::fs::metadata(&tmp[0]).unwrap().permissions().mode() & 0o777);
            }
        };
        rewrite_with_hook(&path, &loaded.fingerprint, &[rep], &mut look).unwrap();
        assert_eq!(modes, [0o600], "the temporary file is private from its creation");
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }

    #[test]
    fn temporary_files_a_killed_rewrite_left_are_removed_by_the_next() {
        let (dir, _path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        let me = std::process::id();
        // 999999999 is above any pid_max, so never a running process.
        let stale = dir.path().join(".s.jsonl.contextree-tmp-999999999-0badf00d");
        let kept = [
            format!(".s.jsonl.contextree-tmp-{me}-0badf00d"),        // a running process's
            ".t.jsonl.contextree-tmp-999999999-0badf00d".to_owned(), // another session's
            ".s.jsonl.contextree-tmp-999999999-notmine".to_owned(),  // not our pattern
        ];
        std::fs::write(&stale, fixture("E13b.jsonl")).unwrap();
        for k in &kept {
            std::fs::write(dir.path().join(k), b"x").unwrap();
        }
        let done = prune_loaded(&loaded, &plan, 1).unwrap().unwrap();
        assert_eq!(done.rewritten.removed_temporaries, std::slice::from_ref(&stale));
        assert!(!stale.exists());
        for k in &kept {
            assert!(dir.path().join(k).exists(), "{k} is kept");
        }
    }

    /// A rewrite killed right after its exchange leaves the original's second name at the
    /// temporary name while the session is already pruned (found by the fault tests, prune ×
    /// kill): a later prune with nothing to do still removes it.
    #[test]
    fn a_leftover_of_a_rewrite_killed_after_its_exchange_is_removed_without_a_rewrite() {
        let (dir, path, _, _) = prune_copy(&fixture("E13b.jsonl"));
        let backup = dir.path().join("s.jsonl.bak-1700000000000");
        std::fs::write(&backup, b"the original").unwrap();
        let leftover = dir.path().join(".s.jsonl.contextree-tmp-999999999-0badf00d");
        std::fs::hard_link(&backup, &leftover).unwrap();
        let live = dir.path().join(format!(".s.jsonl.contextree-tmp-{}-0badf00d", std::process::id()));
        std::fs::write(&live, b"x").unwrap();
        assert_eq!(remove_leftovers(&path), vec![leftover.clone()]);
        assert!(!leftover.exists() && live.exists());
        assert_eq!(std::fs::read(&backup).unwrap(), b"the original", "the backup keeps the original");
    }

    /// The folder's entries, sorted.
    fn names(dir: &TempDir) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn through_a_symlink_the_real_file_is_rewritten_and_the_link_stays() {
        let dir = temp_dir();
        let real_dir = dir.path().join("real");
        std::fs::create_dir(&real_dir).unwrap();
        let real = real_dir.join("s.jsonl");
        std::fs::write(&real, fixture("E13b.jsonl")).unwrap();
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let loaded = load_session(&crate::HostEnv::default(), &link, Some(contextree_core::RuleSet::Omp13.into())).unwrap();
        let plan = plan_prune(&loaded.session, Leaf::Last, &PruneConfig::default());
        let done = prune_loaded(&loaded, &plan, 1).unwrap().unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is still a link");
        assert_eq!(std::fs::read_link(&link).unwrap(), real);
        assert_eq!(done.rewritten.backup.parent(), Some(real_dir.as_path()), "the backup is next to the real file");
        assert_eq!(std::fs::read(&done.rewritten.backup).unwrap(), fixture("E13b.jsonl"));
        let again = load_session(&crate::HostEnv::default(), &real, Some(contextree_core::RuleSet::Omp13.into())).unwrap();
        assert_eq!(plan_prune(&again.session, Leaf::Last, &PruneConfig::default()).already_pruned().count(), 1, "the real file is pruned");
    }

    #[test]
    fn a_read_only_file_is_refused_before_writing() {
        let (dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        let err = prune_loaded(&loaded, &plan, 1).unwrap_err();
        assert!(matches!(err, RewriteError::ReadOnly { .. }), "{err}");
        assert!(err.to_string().contains("read-only"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), fixture("E13b.jsonl"));
        assert_eq!(names(&dir), ["s.jsonl"], "no backup, no temporary file");
    }

    #[test]
    fn a_file_with_hard_links_is_refused_before_writing() {
        let (dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        std::fs::hard_link(&path, dir.path().join("other-name.jsonl")).unwrap();
        let err = prune_loaded(&loaded, &plan, 1).unwrap_err();
        assert!(matches!(err, RewriteError::HardLinks { links: 2, .. }), "{err}");
        assert!(err.to_string().contains("2 hard links"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), fixture("E13b.jsonl"));
        assert_eq!(names(&dir), ["other-name.jsonl", "s.jsonl"], "no backup, no temporary file");
    }

    /// A rewrite killed after its backup link and before the rename leaves a second name of
    /// the live file: the next rewrite removes it (with the dead process's temporary file) and
    /// takes a real backup; a live rewrite's link, or another name, is left alone.
    #[test]
    fn a_killed_rewrites_backup_link_does_not_block_the_next() {
        let (dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        std::fs::hard_link(&path, dir.path().join("s.jsonl.bak-1700000000000")).unwrap();
        // A dead process's temporary file (no such pid).
        std::fs::write(dir.path().join(format!("{}4000000000-0badf00d", temp_prefix("s.jsonl"))), b"half").unwrap();
        let done = prune_loaded(&loaded, &plan, 1).unwrap().unwrap();
        assert_eq!(std::fs::read(&done.rewritten.backup).unwrap(), fixture("E13b.jsonl"), "the backup is the original");
        assert_eq!(std::fs::metadata(&path).unwrap().nlink(), 1);
        let left = names(&dir);
        assert_eq!(left.len(), 2, "the session and one backup: {left:?}");
        assert!(!left.iter().any(|n| n == "s.jsonl.bak-1700000000000"), "{left:?}");

        // The same with a temporary file of a live process (this one): refused, nothing removed.
        let (dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        std::fs::hard_link(&path, dir.path().join("s.jsonl.bak-1700000000000")).unwrap();
        std::fs::write(dir.path().join(format!("{}{}-0badf00d", temp_prefix("s.jsonl"), std::process::id())), b"half").unwrap();
        let err = prune_loaded(&loaded, &plan, 1).unwrap_err();
        assert!(matches!(err, RewriteError::HardLinks { links: 2, .. }), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), fixture("E13b.jsonl"));
    }

    #[test]
    fn the_owner_of_someone_elses_file_is_kept() {
        let (_dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        // Only root may give a file away; elsewhere this case cannot arise.
        if std::os::unix::fs::chown(&path, Some(1234), Some(1234)).is_err() {
            eprintln!("not root: skipped");
            return;
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        prune_loaded(&loaded, &plan, 1).unwrap().unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!((meta.uid(), meta.gid(), meta.permissions().mode() & 0o7777), (1234, 1234, 0o640));
    }

    #[test]
    fn a_failed_folder_sync_after_the_rename_is_a_warning() {
        let (_dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        let rep = Replacement { span: loaded.session.entry(plan.pruned()[0].node).span, text: "{}".into() };
        let fail = |_: &Path| Err(std::io::Error::other("Input/output error"));
        let done = rewrite_with(&path, &loaded.fingerprint, &[rep], &mut |_| {}, &fail).unwrap();
        assert_eq!(done.warnings.len(), 1);
        assert!(done.warnings[0].contains("syncing its folder failed (Input/output error)"), "{:?}", done.warnings);
        assert_ne!(std::fs::read(&path).unwrap(), fixture("E13b.jsonl"), "rewritten");
    }

    #[test]
    fn a_file_removed_right_after_the_rename_is_still_reported_rewritten() {
        // Found by the fault tests (tests/it/faults): the final fingerprint was read through the
        // path, so a removal after the rename turned a done rewrite into an error.
        let (_dir, path, loaded, plan) = prune_copy(&fixture("E13b.jsonl"));
        let rep = Replacement { span: loaded.session.entry(plan.pruned()[0].node).span, text: "{}".into() };
        let remove = |_: &Path| std::fs::remove_file(&path);
        let done = rewrite_with(&path, &loaded.fingerprint, &[rep], &mut |_| {}, &remove).unwrap();
        assert_eq!(std::fs::read(&done.backup).unwrap(), fixture("E13b.jsonl"));
        assert!(done.fingerprint.len > 0 && done.fingerprint.tail.ends_with(b"\n"));
    }

    #[test]
    fn an_empty_or_garbage_file_is_not_a_session() {
        for bytes in [&b""[..], b"garbage\n\x00\x01", b"{\"type\":\"message\"}\n"] {
            let (_dir, path, loaded, plan) = prune_copy(bytes);
            let err = prune_loaded(&loaded, &plan, 1).unwrap_err();
            assert!(matches!(err, RewriteError::NotASession { .. }), "{err}");
            assert!(err.to_string().contains("not a session file"), "{err}");
            assert_eq!(std::fs::read(&path).unwrap(), bytes);
        }
    }

    #[test]
    fn migrated_files_are_refused() {
        let v2 = String::from_utf8(fixture("E13b.jsonl")).unwrap().replacen("\"version\":3", "\"version\":2", 1);
        let (_dir, path, loaded, plan) = prune_copy(v2.as_bytes());
        assert!(matches!(prune_loaded(&loaded, &plan, 1), Err(RewriteError::Migrated { version: 2, .. })));
        assert_eq!(std::fs::read(&path).unwrap(), v2.as_bytes());
    }
}
