//! A private folder for a test to write in, removed when dropped (`tempfile`), with the copies
//! of fixtures the write tests work on.

use std::path::{Path, PathBuf};

use crate::paths;

/// A fresh folder under the system's temporary folder, unique per call, so tests running in
/// parallel never share one.
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    /// A new folder; `tag` shows in its name (`contextree-TAG-…`) for whoever finds it left over.
    pub fn new(tag: &str) -> Scratch {
        let dir = tempfile::Builder::new().prefix(&format!("contextree-{tag}-")).tempdir().expect("a temporary folder");
        Scratch { dir }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `REL` below the folder.
    pub fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes `bytes` to `REL` below the folder (parents created); its path.
    pub fn write(&self, rel: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create the folder");
        }
        std::fs::write(&path, bytes).expect("write into the scratch folder");
        path
    }

    /// A copy of `tests/fixtures/REL` in the folder, under the fixture's own file name.
    pub fn copy_fixture(&self, rel: &str) -> PathBuf {
        let src = paths::fixture(rel);
        let name = src.file_name().expect("a file name").to_owned();
        self.copy_fixture_as(rel, name)
    }

    /// A copy of `tests/fixtures/REL` in the folder as `NAME`.
    pub fn copy_fixture_as(&self, rel: &str, name: impl AsRef<Path>) -> PathBuf {
        let bytes = std::fs::read(paths::fixture(rel)).expect("read the fixture");
        self.write(name, bytes)
    }

    /// The names in the folder, sorted (what a write left behind).
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path())
            .expect("read the scratch folder")
            .map(|e| e.expect("a folder entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}
