//! Which files the server reads: only session files under its roots. A path is refused when it
//! names `..`, is not absolute, or — once every symlink is resolved — lies outside every root
//! (canonical paths on both sides, so a symlink out of a root is refused too).

use std::path::{Component, Path, PathBuf};

/// The folders (and single files) the server may read.
#[derive(Debug, Clone, Default)]
pub struct Roots {
    /// Canonical folders.
    dirs: Vec<PathBuf>,
    /// Canonical files allowed on their own (the startup file, the demo).
    files: Vec<PathBuf>,
}

/// Why a path is refused (nothing of the file was read).
#[derive(Debug, thiserror::Error)]
#[error("{0}: not a session file under the server's roots")]
pub struct Outside(pub String);

impl Roots {
    /// The existing ones of `dirs` and `files`, canonicalized.
    pub fn new(dirs: &[PathBuf], files: &[PathBuf]) -> Self {
        let canon = |p: &PathBuf| p.canonicalize().ok();
        Self { dirs: dirs.iter().filter_map(canon).collect(), files: files.iter().filter_map(canon).collect() }
    }

    /// Also allows the file at `path`.
    pub fn allow_file(&mut self, path: &Path) {
        if let Ok(p) = path.canonicalize() {
            self.files.push(p);
        }
    }

    /// The canonical path of `asked` when it is a file inside a root (or an allowed file).
    pub fn check(&self, asked: &str) -> Result<PathBuf, Outside> {
        let refuse = || Outside(asked.to_owned());
        let path = Path::new(asked);
        if !path.is_absolute() || path.components().any(|c| matches!(c, Component::ParentDir)) {
            return Err(refuse());
        }
        let real = path.canonicalize().map_err(|_| refuse())?;
        let inside = self.files.contains(&real) || self.dirs.iter().any(|d| real.starts_with(d));
        if inside && real.is_file() {
            Ok(real)
        } else {
            Err(refuse())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_under_a_root_pass() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("p")).unwrap();
        std::fs::write(root.join("p/s.jsonl"), "{}\n").unwrap();
        std::fs::write(dir.path().join("outside.jsonl"), "{}\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("outside.jsonl"), root.join("p/link.jsonl")).unwrap();
        let roots = Roots::new(std::slice::from_ref(&root), &[]);
        let s = |p: &Path| p.to_str().unwrap().to_owned();
        assert!(roots.check(&s(&root.join("p/s.jsonl"))).is_ok());
        assert!(roots.check(&s(&root.join("p/../p/s.jsonl"))).is_err(), "`..` is refused even inside");
        assert!(roots.check(&s(&dir.path().join("outside.jsonl"))).is_err());
        assert!(roots.check("/etc/passwd").is_err());
        assert!(roots.check("p/s.jsonl").is_err(), "relative");
        assert!(roots.check(&s(&root.join("p"))).is_err(), "a folder");
        #[cfg(unix)]
        assert!(roots.check(&s(&root.join("p/link.jsonl"))).is_err(), "a symlink out of the root");
    }
}
