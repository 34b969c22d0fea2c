//! Session folder names (pure): how each agent encodes a project's path, and reading a
//! name back into a project path (against the disk when it is ambiguous); a file's dialect.

use std::path::{Path, PathBuf};

use contextree_core::Dialect;

use super::HostPaths;

pub(super) fn replace_separators(s: &str) -> String {
    s.chars().map(|c| if matches!(c, '/' | '\\' | ':') { '-' } else { c }).collect()
}

/// pi's folder name for `cwd`: `--<cwd without one leading separator, / \ : → ->--`.
pub fn encode_pi(cwd: &str) -> String {
    let rest = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
    format!("--{}--", replace_separators(rest))
}

/// omp's folder name for a (canonical) `cwd`: `-<home-relative>` inside home, `-tmp-<rel>`
/// inside the temp folder, else pi's form.
pub fn encode_omp(cwd: &str, host: &HostPaths) -> String {
    let cwd_path = Path::new(cwd);
    let rel =
        |base: &Option<PathBuf>| base.as_deref().and_then(|b| cwd_path.strip_prefix(b).ok()).map(|r| r.to_string_lossy().into_owned());
    if let Some(r) = rel(&host.home) {
        return if r.is_empty() { "-".to_owned() } else { format!("-{}", replace_separators(&r)) };
    }
    if let Some(r) = rel(&host.tmp) {
        return if r.is_empty() { "-tmp".to_owned() } else { format!("-tmp-{}", replace_separators(&r)) };
    }
    encode_pi(cwd)
}

/// Whether `folder` is what `dialect` (either, when `None`) writes for `cwd`.
pub fn folder_matches(folder: &str, cwd: &str, dialect: Option<Dialect>, host: &HostPaths) -> bool {
    let pi = || folder == encode_pi(cwd);
    let omp = || folder == encode_omp(cwd, host);
    match dialect {
        Some(Dialect::Pi) => pi(),
        Some(Dialect::Omp) => omp() || pi(), // omp's older `--…--` folders are pi-style
        None => pi() || omp(),
    }
}

/// The base folder and the `-`-separated rest of a folder name, for each reading of it.
pub(super) fn decode_candidates(folder: &str, host: &HostPaths) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    if let Some(inner) = folder.strip_prefix("--").and_then(|s| s.strip_suffix("--")).filter(|s| !s.is_empty()) {
        out.push((PathBuf::from("/"), inner.to_owned()));
        return out;
    }
    if let Some(rest) = folder.strip_prefix('-') {
        if let Some(h) = &host.home {
            out.push((h.clone(), rest.to_owned()));
        }
        if let (Some(t), Some(r)) = (&host.tmp, rest.strip_prefix("tmp")) {
            if r.is_empty() || r.starts_with('-') {
                out.push((t.clone(), r.strip_prefix('-').unwrap_or(r).to_owned()));
            }
        }
    }
    out
}

/// Splits `rest` (`a-b-c`) into existing folders under `base`, trying every way the `-`s
/// could have been `/` or `-`; `None` when no reading exists (bounded work).
pub(super) fn resolve_on_disk(base: &Path, rest: &str, is_dir: &dyn Fn(&Path) -> bool) -> Option<PathBuf> {
    if rest.is_empty() {
        return is_dir(base).then(|| base.to_path_buf());
    }
    let tokens: Vec<&str> = rest.split('-').collect();
    let mut budget = 2000usize;
    fn go(base: &Path, tokens: &[&str], is_dir: &dyn Fn(&Path) -> bool, budget: &mut usize) -> Option<PathBuf> {
        if tokens.is_empty() {
            return Some(base.to_path_buf());
        }
        // Longest segment first: names with dashes are likelier than many one-word folders.
        for take in (1..=tokens.len()).rev() {
            let seg = tokens[..take].join("-");
            if seg.is_empty() {
                continue;
            }
            if *budget == 0 {
                return None;
            }
            *budget -= 1;
            let next = base.join(&seg);
            if is_dir(&next) {
                if let Some(found) = go(&next, &tokens[take..], is_dir, budget) {
                    return Some(found);
                }
            }
        }
        None
    }
    go(base, &tokens, is_dir, &mut budget)
}

/// Every `-` read as `/`: the best guess when nothing on disk matches.
pub(super) fn naive_decode(folder: &str, host: &HostPaths) -> Option<PathBuf> {
    let (base, rest) = decode_candidates(folder, host).into_iter().next()?;
    Some(rest.split('-').filter(|s| !s.is_empty()).fold(base, |p, s| p.join(s)))
}

/// How a project's path was found (`header`, `folder`, `header-mismatch`, `guess`,
/// `folder-name` in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum ProjectSource {
    /// A session header's `cwd` that encodes to the folder's name (exact).
    Header,
    /// The folder name decoded to a folder that exists.
    Folder,
    /// A session header's `cwd` that does not encode to the folder name (moved session).
    HeaderMismatch,
    /// The folder name with every `-` read as `/` (may be wrong where names have dashes).
    Guess,
    /// Nothing better than the folder's own name.
    FolderName,
}

impl ProjectSource {
    /// The path is read from a header or the disk, not guessed from the folder name.
    pub fn certain(self) -> bool {
        matches!(self, ProjectSource::Header | ProjectSource::Folder | ProjectSource::HeaderMismatch)
    }
}

/// The project path of a session folder: a header `cwd` that encodes to the name, else the
/// name decoded against the disk, else any header `cwd`, else a guess, else the name itself.
pub fn project_path(
    folder: &str,
    dialect: Option<Dialect>,
    header_cwds: &[&str],
    host: &HostPaths,
    is_dir: &dyn Fn(&Path) -> bool,
) -> (String, ProjectSource) {
    if let Some(c) = header_cwds.iter().find(|c| folder_matches(folder, c, dialect, host)) {
        return ((*c).to_owned(), ProjectSource::Header);
    }
    for (base, rest) in decode_candidates(folder, host) {
        if let Some(p) = resolve_on_disk(&base, &rest, is_dir) {
            return (p.to_string_lossy().into_owned(), ProjectSource::Folder);
        }
    }
    if let Some(c) = header_cwds.first() {
        return ((*c).to_owned(), ProjectSource::HeaderMismatch);
    }
    match naive_decode(folder, host) {
        Some(p) => (p.to_string_lossy().into_owned(), ProjectSource::Guess),
        None => (folder.to_owned(), ProjectSource::FolderName),
    }
}

/// The dialect a header id's shape points to: UUID → pi, 16 hex digits (snowflake) → omp.
pub fn dialect_of_id(id: &str) -> Option<Dialect> {
    if id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
        Some(Dialect::Omp)
    } else if id.len() == 36 && id.matches('-').count() == 4 {
        Some(Dialect::Pi)
    } else {
        None
    }
}

/// A file's dialect: the header id's shape, else the root's agent, else the folder naming
/// (only omp writes `-…` names).
pub fn file_dialect(id: Option<&str>, root: Option<Dialect>, folder: &str) -> Option<Dialect> {
    id.and_then(dialect_of_id).or(root).or_else(|| (folder.starts_with('-') && !folder.starts_with("--")).then_some(Dialect::Omp))
}
