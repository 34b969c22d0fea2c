//! Which processes hold a file open for writing, read from Linux's `/proc`.
//!
//! oh-my-pi keeps one `O_APPEND` descriptor on its session file for the
//! session's lifetime. A rewrite renames a new file over the path, so such a
//! descriptor keeps pointing at the old inode (the backup) and every entry the
//! agent writes afterwards would land there. The rewrite therefore asks this
//! module before it writes anything, and again right before its rename.
//!
//! The scan looks at every `/proc/PID/fd/N`: the target is `stat`ed through
//! the link (so renamed or hard-linked names still match by device and inode)
//! and `/proc/PID/fdinfo/N`'s `flags:` say whether it was opened for writing.
//! Limits, on purpose: processes whose descriptors we may not read (another
//! user's, without privileges) are skipped, and on systems without `/proc`
//! the answer is empty; a writer we cannot see is not reported. Descriptors of
//! our own process are included (a read-only one is not a writer).

use std::fmt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// A process with a descriptor open for writing on the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Writer {
    /// Its process id.
    pub pid: u32,
    /// Its command name (`/proc/PID/comm`), `?` when unreadable.
    pub command: String,
}

impl fmt::Display for Writer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (pid {})", self.command, self.pid)
    }
}

/// `a (pid 1), b (pid 2)`: the writers as an error message names them.
pub fn describe(writers: &[Writer]) -> String {
    writers.iter().map(Writer::to_string).collect::<Vec<_>>().join(", ")
}

/// The processes holding the file with this device and inode open for
/// writing (`O_WRONLY` or `O_RDWR`), each once, by pid.
pub fn writers_of(dev: u64, ino: u64) -> Vec<Writer> {
    let Ok(procs) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut found = Vec::new();
    for proc_entry in procs.flatten() {
        let Some(pid) = proc_entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let base = proc_entry.path();
        if holds_for_writing(&base, dev, ino) {
            let command = std::fs::read_to_string(base.join("comm")).map_or_else(|_| "?".to_owned(), |c| c.trim_end().to_owned());
            found.push(Writer { pid, command });
        }
    }
    found.sort_by_key(|w| w.pid);
    found
}

/// The writers of the file at `path` (see [`writers_of`]).
pub fn writers_of_path(path: &Path) -> std::io::Result<Vec<Writer>> {
    let meta = std::fs::metadata(path)?;
    Ok(writers_of(meta.dev(), meta.ino()))
}

/// Whether the process at `/proc/PID` has a descriptor for writing on the file.
fn holds_for_writing(proc_dir: &Path, dev: u64, ino: u64) -> bool {
    // Unreadable (another user's process, or it just exited): skipped.
    let Ok(fds) = std::fs::read_dir(proc_dir.join("fd")) else { return false };
    for fd in fds.flatten() {
        let link = fd.path();
        // Pipes, sockets and anonymous inodes read as `pipe:[..]` etc.; only
        // a path can be the file, and skipping the rest saves a stat each.
        match std::fs::read_link(&link) {
            Ok(target) if target.is_absolute() => {}
            _ => continue,
        }
        let Ok(meta) = std::fs::metadata(&link) else { continue };
        if (meta.dev(), meta.ino()) != (dev, ino) {
            continue;
        }
        let info = proc_dir.join("fdinfo").join(fd.file_name());
        if std::fs::read_to_string(info).ok().and_then(|text| open_flags(&text)).is_some_and(|flags| flags & 0o3 != 0) {
            return true;
        }
    }
    false
}

/// The `flags:` field of an fdinfo text (octal, as the kernel prints it).
fn open_flags(fdinfo: &str) -> Option<u32> {
    let line = fdinfo.lines().find_map(|l| l.strip_prefix("flags:"))?;
    u32::from_str_radix(line.trim(), 8).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::{File, OpenOptions};

    /// A one-line file in a scratch folder (removed with the folder).
    fn temp_file(tag: &str) -> (contextree_testkit::Scratch, std::path::PathBuf) {
        let scratch = contextree_testkit::Scratch::new(&format!("writers-{tag}"));
        let path = scratch.write("s.jsonl", b"x\n");
        (scratch, path)
    }

    #[test]
    fn fdinfo_flags_are_octal() {
        assert_eq!(open_flags("pos:\t0\nflags:\t0102001\nmnt_id:\t30\n"), Some(0o102001));
        assert_eq!(open_flags("pos:\t0\n"), None);
    }

    #[test]
    fn a_descriptor_for_appending_is_found_a_read_only_one_is_not() {
        let (_tmp, path) = temp_file("own");
        let me = std::process::id();
        let reader = File::open(&path).unwrap();
        assert!(!writers_of_path(&path).unwrap().iter().any(|w| w.pid == me), "a read-only descriptor is not a writer");
        let appender = OpenOptions::new().append(true).open(&path).unwrap();
        let found = writers_of_path(&path).unwrap();
        let mine = found.iter().find(|w| w.pid == me).expect("our own append descriptor is found");
        assert!(!mine.command.is_empty() && mine.command != "?");
        assert_eq!(mine.to_string(), format!("{} (pid {me})", mine.command));
        drop(appender);
        assert!(!writers_of_path(&path).unwrap().iter().any(|w| w.pid == me), "closed");
        drop(reader);
    }

    #[test]
    fn another_process_is_named_and_a_hard_link_is_the_same_file() {
        let (_tmp, path) = temp_file("child");
        let link = path.with_extension("link");
        std::fs::hard_link(&path, &link).unwrap();
        // `exec 3>>` opens O_WRONLY|O_APPEND in the shell itself; `read` waits on stdin.
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("exec 3>>'{}'; echo ready; read _", path.display()))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.as_mut().unwrap()), &mut line).unwrap();
        let found = writers_of_path(&link).unwrap();
        assert!(found.iter().any(|w| w.pid == child.id() && w.command == "sh"), "{found:?}");
        drop(child.stdin.take());
        child.wait().unwrap();
        assert!(!writers_of_path(&path).unwrap().iter().any(|w| w.pid == child.id()));
    }
}
