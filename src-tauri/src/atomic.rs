//! Whole-or-nothing file writes (the context export, the settings, the demo session): a reader
//! sees the old file or the new one, never half of it.

use std::fs::Permissions;
use std::io::{self, Write as _};
use std::path::Path;

/// Writes `bytes` to `path` through a temporary file beside it (fsync, then rename). The new
/// file gets `permissions` when given (a settings file may hold API keys). A failed write
/// removes its temporary file and leaves `path` as it was.
pub fn atomic_write(
    path: &Path,
    bytes: &[u8],
    permissions: Option<&Permissions>,
) -> io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("not a file name"))?;
    // The process id keeps two app instances from sharing a temporary file.
    let tmp = path.with_file_name(format!(
        ".{}.{}.contextree-tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let res = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        if let Some(p) = permissions {
            f.set_permissions(p.clone())?;
        }
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if res.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_replaced_whole() {
        let dir = std::env::temp_dir().join(format!("contextree-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("context.md");
        std::fs::write(&path, "old and longer").unwrap();
        atomic_write(&path, b"new", None).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file left"
        );
        assert!(atomic_write(&dir.join("missing/x.md"), b"x", None).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
