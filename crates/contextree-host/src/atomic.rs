//! Whole-or-nothing writes of files contextree owns (the settings, an export, the demo
//! session, caches): a reader sees the old file or the new one, never half of it. Session files are
//! not written here: appends are `write.rs`, rewrites `rewrite.rs` (they must keep an agent's
//! lines, which these files have none of).

use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::path::Path;

/// Writes `bytes` to `path` through a temporary file beside it: created with the final mode
/// (`mode`, else 0o644 less the umask; a settings file may hold API keys, so it never exists
/// readable by others for a moment), synced, renamed over `path`, then the folder synced so
/// the rename survives a crash. A failed write removes its temporary file and leaves `path`
/// as it was; a failed folder sync after the rename is not a failure (the new file is there).
pub fn write_whole(path: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    let name = path.file_name().ok_or_else(|| io::Error::other(format!("{}: not a file name", path.display())))?;
    // The process id keeps two contextree processes from sharing a temporary file.
    let tmp = path.with_file_name(format!(".{}.{}.contextree-tmp", name.to_string_lossy(), std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let res = (|| {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(mode.unwrap_or(0o644));
        }
        let mut f = options.open(&tmp)?;
        #[cfg(unix)]
        if let Some(mode) = mode {
            // The umask may have taken bits the caller asked for (a copied mode is exact).
            use std::os::unix::fs::PermissionsExt as _;
            f.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if res.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return res;
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = File::open(dir).and_then(|d| d.sync_all());
    }
    Ok(())
}

/// Replaces `path` with `bytes` through a temporary file beside it renamed over it (a reader
/// sees the old file or the new one), without syncing: for files that keep only what can be
/// computed again (the search index's stamps, the hits' states), where a write lost in a crash
/// costs a recomputation and a sync would cost every update. The temporary name is the
/// process's and the call's, so two writers never share one; a failed write removes it.
pub fn replace_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().ok_or_else(|| io::Error::other(format!("{}: not a file name", path.display())))?;
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let tmp = path.with_file_name(format!("{}.{}.{n}.tmp", name.to_string_lossy(), std::process::id()));
    std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path)).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsynced_replacement_is_whole_and_leaves_nothing_behind() {
        let tmp = scratch("unsynced");
        let path = tmp.path().join("stamps");
        std::fs::write(&path, "old and longer").unwrap();
        replace_unsynced(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1, "no temporary file left");
        let err = replace_unsynced(&tmp.path().join("missing/x"), b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
    }

    fn scratch(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new().prefix(&format!("contextree-atomic-{name}-")).tempdir().unwrap()
    }

    #[test]
    fn files_are_replaced_whole_and_nothing_is_left_behind() {
        let tmp = scratch("whole");
        let dir = tmp.path();
        let path = dir.join("context.md");
        std::fs::write(&path, "old and longer").unwrap();
        write_whole(&path, b"new", None).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir).unwrap().count(), 1, "no temporary file left");
        let err = write_whole(&dir.join("missing/x.md"), b"x", None).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert_eq!(std::fs::read_dir(dir).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn the_new_file_has_the_mode_asked_for() {
        use std::os::unix::fs::PermissionsExt as _;
        let tmp = scratch("mode");
        let dir = tmp.path();
        let path = dir.join("config.json");
        write_whole(&path, b"{}", Some(0o600)).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        write_whole(&path, b"{\"a\":1}", Some(0o640)).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
    }

    #[cfg(unix)]
    #[test]
    fn a_failed_write_leaves_the_old_file() {
        use std::os::unix::fs::PermissionsExt as _;
        if is_root() {
            return; // root writes into a read-only folder anyway
        }
        let tmp = scratch("fail");
        let dir = tmp.path();
        let path = dir.join("settings.json");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o500)).unwrap();
        assert!(write_whole(&path, b"new", None).is_err());
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir).unwrap().count(), 1);
    }

    /// Whether this process runs as root (from /proc, no libc call).
    fn is_root() -> bool {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(1) == Some("0")))
            .unwrap_or(false)
    }
}
