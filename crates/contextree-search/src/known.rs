//! What the up-to-date check needs of each file record (length, mtime, inode), kept in a small
//! file beside the index so that checking an unchanged library costs a `stat` per file and no
//! read of the index's records (10,000 stored documents).
//!
//! The records in the index stay the truth. This file is a copy named by the opstamp of the
//! commit it describes, and is trusted only while the index's last commit has that opstamp: a
//! process killed before writing it, a torn or lost write (it is not fsynced), or another
//! process's later commit all leave a copy of another opstamp, or one that does not parse, and
//! the records are then read from the index as before. So the copy can never run ahead of the
//! index, and a stale one costs time, never a wrong answer.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// The copy's file name, in the index's folder (Tantivy leaves files it did not make alone).
const NAME: &str = "contextree-known";
/// The first word of the copy; another format is ignored.
const MAGIC: &str = "contextree-known-v1";

/// What a file looked like when last indexed (or listed): equal now means unchanged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stamp {
    /// Its length.
    pub len: u64,
    /// Its mtime, ns since the epoch.
    pub mtime_ns: i128,
    /// Its inode.
    pub inode: u64,
}

impl Stamp {
    /// The stamp of metadata `m` (of the file itself, not a link to it).
    pub fn of(m: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp { len: m.len(), mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()), inode: m.ino() }
    }

    /// The stamp of the file at `path` now.
    pub fn of_path(path: &Path) -> std::io::Result<Stamp> {
        std::fs::metadata(path).map(|m| Stamp::of(&m))
    }
}

/// The stamps of the commit `opstamp`, if the copy in `dir` is of that commit and whole.
pub fn read(dir: &Path, opstamp: u64) -> Option<HashMap<String, Stamp>> {
    let text = std::fs::read_to_string(dir.join(NAME)).ok()?;
    let mut lines = text.split('\n');
    let mut head = lines.next()?.split(' ');
    if head.next()? != MAGIC || head.next()?.parse::<u64>().ok()? != opstamp {
        return None;
    }
    let count: usize = head.next()?.parse().ok()?;
    let mut out = HashMap::with_capacity(count);
    for _ in 0..count {
        let mut f = lines.next()?.splitn(4, ' ');
        let stamp = Stamp { len: f.next()?.parse().ok()?, mtime_ns: f.next()?.parse().ok()?, inode: f.next()?.parse().ok()? };
        out.insert(f.next()?.to_owned(), stamp);
    }
    // The end mark: a cut copy, or a path with a newline in it (two lines for one record), fails.
    (lines.next() == Some("end") && lines.next() == Some("") && lines.next().is_none()).then_some(out)
}

/// Writes the copy of commit `opstamp`: a temporary file renamed over the old copy, so a
/// reader sees the old copy or the new one. Not fsynced: see the module's comment.
pub fn write(dir: &Path, opstamp: u64, stamps: &HashMap<String, Stamp>) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(64 + stamps.len() * 160);
    writeln!(buf, "{MAGIC} {opstamp} {}", stamps.len())?;
    for (path, s) in stamps {
        writeln!(buf, "{} {} {} {path}", s.len, s.mtime_ns, s.inode)?;
    }
    buf.extend_from_slice(b"end\n");
    contextree_host::atomic::replace_unsynced(&dir.join(NAME), &buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamps() -> HashMap<String, Stamp> {
        let mut m = HashMap::new();
        m.insert("/a b/c.jsonl".to_owned(), Stamp { len: 10, mtime_ns: -5, inode: 7 });
        m.insert("/d.jsonl".to_owned(), Stamp { len: 0, mtime_ns: 1_700_000_000_000_000_000, inode: 1 });
        m
    }

    #[test]
    fn a_copy_is_read_back_only_for_its_own_commit() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path(), 3), None, "no copy yet");
        write(dir.path(), 3, &stamps()).unwrap();
        assert_eq!(read(dir.path(), 3), Some(stamps()));
        assert_eq!(read(dir.path(), 4), None, "a later commit");
        assert_eq!(read(dir.path(), 2), None);
    }

    #[test]
    fn a_cut_or_odd_copy_is_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), 3, &stamps()).unwrap();
        let whole = std::fs::read(dir.path().join(NAME)).unwrap();
        for cut in 0..whole.len() {
            std::fs::write(dir.path().join(NAME), &whole[..cut]).unwrap();
            assert_eq!(read(dir.path(), 3), None, "cut at {cut}");
        }
        let mut odd = stamps();
        odd.insert("/new\nline.jsonl".to_owned(), Stamp { len: 1, mtime_ns: 1, inode: 1 });
        write(dir.path(), 3, &odd).unwrap();
        assert_eq!(read(dir.path(), 3), None, "a path with a newline");
    }
}
