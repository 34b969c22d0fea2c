//! The demo session bundled into the binary, opened when no file is given.
//!
//! It is embedded (not read from the repository) so that the app works from any working
//! directory and from the installed `.deb`; the core reads sessions from files, so the bytes
//! are written to the app's cache directory first.

use std::io;
use std::path::{Path, PathBuf};

/// `demo/demo-session.jsonl` at the repository root.
pub const DEMO_SESSION: &[u8] = include_bytes!("../../../demo/demo-session.jsonl");

/// File name of the demo session once written out.
pub const DEMO_FILE_NAME: &str = "demo-session.jsonl";

/// Writes the demo session into `dir` (created if missing) and returns the file's path.
///
/// The file is rewritten only when its content differs, so a newer app replaces an older demo
/// and an unchanged one keeps its modification time.
pub fn materialize(dir: &Path) -> io::Result<PathBuf> {
    let path = dir.join(DEMO_FILE_NAME);
    if std::fs::read(&path).is_ok_and(|existing| existing == DEMO_SESSION) {
        return Ok(path);
    }
    std::fs::create_dir_all(dir)?;
    // Whole or not at all, so a concurrent reader never sees half a file.
    contextree_host::atomic::write_whole(&path, DEMO_SESSION, None)?;
    Ok(path)
}
