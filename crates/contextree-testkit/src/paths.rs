//! Where the repository's test data is: fixtures, golden files and the pinned agents.
//!
//! Every crate's tests found these with their own `CARGO_MANIFEST_DIR` arithmetic; the
//! testkit's own manifest folder is two levels below the root like every crate's.

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// `tests/fixtures/REL`, which must exist.
pub fn fixture(rel: &str) -> PathBuf {
    let path = repo().join("tests/fixtures").join(rel);
    assert!(path.is_file(), "no fixture {}", path.display());
    path
}

/// The fixture named `STEM.jsonl` in any of the fixture folders (a golden file names only its
/// stem).
pub fn fixture_stem(stem: &str) -> PathBuf {
    let root = repo().join("tests/fixtures");
    ["synthetic", "real", "generated", "edge", "pi16", "omp18", "omp183"]
        .iter()
        .map(|d| root.join(d).join(format!("{stem}.jsonl")))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no fixture named {stem}.jsonl"))
}

/// Every session file (`.jsonl`) under `tests/fixtures`, in every folder, sorted: for tests
/// that check a property over all of them.
pub fn fixture_sessions() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&repo().join("tests/fixtures"), &mut out);
    out.sort();
    out
}

/// The pinned agents and their oracle harness: `ORACLE` when set, else `tests/agents`
/// (installed there by `scripts/install-agents.sh`). Not checked: see [`agents`].
pub fn agents_root() -> PathBuf {
    std::env::var_os("ORACLE").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(|| repo().join("tests/agents"))
}

/// [`agents_root`], which must hold the installed agents. A test that needs them fails without
/// them: it cannot show that the agents agree, so it must not skip.
pub fn agents() -> PathBuf {
    let dir = agents_root();
    assert!(
        dir.join("oracle.mjs").is_file() && dir.join("node_modules").is_dir() && dir.join("omp13/node_modules").is_dir(),
        "the agents are not installed in {} — run scripts/install-agents.sh (or set ORACLE)",
        dir.display()
    );
    dir
}
