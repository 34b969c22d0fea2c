//! contextree's full-text index of every session on the machine (issue 21).
//!
//! One Tantivy document per entry: its text (user, assistant, thinking, tool calls with their
//! arguments, tool results, summaries, custom messages, labels) and its filters (file,
//! session, project, agent, format version, model, role, tool, time, entry id), and the
//! offset of its line. The text is indexed, not stored: a hit's snippet is cut from the
//! session file itself. Per-file records ([`record`]) live in the same index and are
//! committed with their entries, so an update is incremental (a grown file is read from the
//! offset it had reached) and a killed indexer leaves the last commit, whole and consistent.
//!
//! - `extract.rs`: one line → text and fields.
//! - `record.rs`: the per-file record, and telling an append from a rewrite.
//! - `index.rs`: the update.
//! - `known.rs`: the records' stamps, copied beside the index for a quick up-to-date check.
//! - `live.rs`: the library's listing kept current by file events, for a long-running face.
//! - `query.rs`: what people type → a Tantivy query.
//! - this file: opening the index, its folder, the library's files, searching.

mod extract;
mod index;
mod known;
mod live;
mod query;
mod record;
mod schema;

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use contextree_host::library::{self, RootOverrides};
use contextree_host::HostEnv;
use tantivy::collector::TopDocs;
use tantivy::directory::MmapDirectory;
use tantivy::query::Query;
use tantivy::schema::Value;
use tantivy::snippet::SnippetGenerator;
use tantivy::{Index, IndexReader, ReloadPolicy, Searcher, TantivyDocument, Term};

pub use extract::{entry as extract_entry, Extracted};
pub use index::{Progress, SessionFile, UpdateStats};
pub use known::Stamp;
pub use live::LiveLibrary;
pub use query::{parse as parse_query, Filter, Parsed};
pub use record::FileRecord;

use schema::Fields;

/// The index format; a folder of another version is left alone and a new one made.
const FORMAT: &str = "v1";
/// Characters of a snippet.
const SNIPPET_CHARS: usize = 200;
/// Indexed words per segment a prefix's snippet marks at most.
const PREFIX_WORDS: usize = 200;

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The query cannot be read (the message says why).
    #[error("bad query: {0}")]
    Query(String),
    /// The index's folder or a session file could not be read or written.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The engine failed.
    #[error("index: {0}")]
    Index(#[from] tantivy::TantivyError),
}

impl From<tantivy::directory::error::OpenDirectoryError> for SearchError {
    fn from(e: tantivy::directory::error::OpenDirectoryError) -> Self {
        SearchError::Index(e.into())
    }
}

/// The index's folder: `$XDG_CACHE_HOME/contextree/search`, else
/// `~/.cache/contextree/search`; `None` without either.
pub fn default_dir(env: &HostEnv) -> Option<PathBuf> {
    let cache =
        env.var("XDG_CACHE_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| env.home.as_ref().map(|h| h.join(".cache")))?;
    Some(cache.join("contextree").join("search"))
}

/// The session files of the library's folders (`overrides` as `contextree sessions` takes
/// them): `*.jsonl` directly in a root or in its project folders, as the library lists them.
/// Only the names and each file's stamp are read here (an unchanged library is checked in
/// milliseconds); the header of a file is read when the file is indexed. The stamps are the
/// listing's, which an update trusts: list again before each update.
pub fn library_files(env: &HostEnv, overrides: &RootOverrides) -> Vec<SessionFile> {
    let mut out = Vec::new();
    for root in roots(env, overrides) {
        for (dir, name) in root_folders(&root.path) {
            out.extend(folder_files(&root, &dir, &name));
        }
    }
    out
}

/// The library's folders (`overrides` as [`library_files`] takes them), each once.
pub(crate) fn roots(env: &HostEnv, overrides: &RootOverrides) -> Vec<library::SessionRoot> {
    let mut seen = HashSet::new();
    library::default_roots_in(env, overrides).into_iter().filter(|r| seen.insert(r.path.clone())).collect()
}

/// The folders of `root` that hold sessions, in listing order: the root itself (name `""`),
/// then its project folders by name.
pub(crate) fn root_folders(root: &Path) -> Vec<(PathBuf, String)> {
    let Ok(rd) = std::fs::read_dir(root) else { return Vec::new() };
    let mut dirs: Vec<(PathBuf, String)> = rd
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| (e.path(), e.file_name().to_string_lossy().into_owned()))
        .collect();
    // Folder by folder, each by name: as stable as sorting the whole paths, and cheaper at
    // 10,000 files (names are compared, not their long shared folder prefix).
    dirs.sort_unstable_by(|a, b| a.1.cmp(&b.1));
    dirs.insert(0, (root.to_path_buf(), String::new()));
    dirs
}

/// The session files directly in `dir` (a folder of `root` named `name`), by name.
pub(crate) fn folder_files(root: &library::SessionRoot, dir: &Path, name: &str) -> Vec<SessionFile> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut found = Vec::new();
    for e in rd.filter_map(Result::ok) {
        let file = e.file_name();
        let b = file.as_encoded_bytes();
        if !b.ends_with(b".jsonl") || b.starts_with(b".") || !e.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        // The entry's own `stat` (by the folder's handle and the name: no walk of the whole
        // path, most of the check's time at 10,000 files). A file gone meanwhile is left out.
        let Ok(meta) = e.metadata() else { continue };
        found.push((file, Stamp::of(&meta)));
    }
    found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    // The root's agent, else the folder naming; the header's id decides when read.
    let agent = library::file_dialect(None, root.dialect, name).map(|d| d.name().to_owned());
    found
        .into_iter()
        .map(|(file, stamp)| SessionFile {
            path: dir.join(file),
            session_id: None,
            project: None,
            agent: agent.clone(),
            listed: Some(stamp),
        })
        .collect()
}

/// The index, open for searching and updating.
pub struct SearchIndex {
    index: Index,
    reader: IndexReader,
    f: Fields,
    dir: PathBuf,
}

/// One matching entry, as the index knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The session file.
    pub file: PathBuf,
    /// The offset of the entry's line in it.
    pub offset: u64,
    /// The line's length (without its newline).
    pub line_len: u64,
    /// The entry id as written (`None` for lines without one).
    pub entry_id: Option<String>,
    /// The header's session id.
    pub session_id: Option<String>,
    /// The project folder.
    pub project: Option<String>,
    /// A message's role, else the entry type.
    pub role: String,
    /// Tool names (calls made, or the tool a result is from).
    pub tools: Vec<String>,
    /// The entry's time, ms since the epoch.
    pub time_ms: Option<i64>,
    /// BM25 score.
    pub score: f32,
    /// The best passage of the entry's text.
    pub snippet: String,
    /// Byte ranges of `snippet` that match the query.
    pub highlights: Vec<Range<usize>>,
}

impl SearchIndex {
    /// Opens the index under `dir` (made if missing). An index that does not open (a schema
    /// from another version, damaged files) is deleted and made again: it is a cache.
    pub fn open(dir: &Path) -> Result<SearchIndex, SearchError> {
        let dir = dir.join(FORMAT);
        std::fs::create_dir_all(&dir)?;
        let index = match Self::open_in(&dir) {
            Ok(i) => i,
            Err(_) => {
                std::fs::remove_dir_all(&dir)?;
                std::fs::create_dir_all(&dir)?;
                Self::open_in(&dir)?
            }
        };
        schema::register_tokenizers(&index);
        // `open_or_create` refuses an index of another schema, so the fields of ours are its.
        let (_, f) = schema::schema();
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        Ok(SearchIndex { index, reader, f, dir })
    }

    fn open_in(dir: &Path) -> Result<Index, SearchError> {
        let (schema, _) = schema::schema();
        let index = Index::open_or_create(MmapDirectory::open(dir)?, schema)?;
        Ok(index)
    }

    /// The entries matching `query`, best first, at most `limit`, only from `files` when
    /// given (the library's current folders).
    pub fn search(&self, query: &str, limit: usize, files: Option<&HashSet<PathBuf>>) -> Result<Vec<Hit>, SearchError> {
        let parsed = query::parse(query)?;
        if limit == 0 {
            return Ok(Vec::new());
        }
        let (q, text_q) = query::build(&self.index, &self.f, &parsed)?;
        let searcher = self.reader.searcher();
        // Hits from files outside `files` are skipped after ranking: ask for more.
        let want = if files.is_some() { limit.saturating_mul(4).max(limit + 50) } else { limit };
        let top = searcher.search(&*q, &TopDocs::with_limit(want.max(1)).order_by_score())?;
        let snippets = match &text_q {
            Some(tq) => Some(self.snippet_generator(&searcher, &**tq, &parsed.prefixes)?),
            None => None,
        };
        let mut hits = Vec::new();
        let mut open: Option<(PathBuf, File)> = None;
        for (score, addr) in top {
            let doc: TantivyDocument = searcher.doc(addr)?;
            let s = |field| doc.get_first(field).and_then(|v| v.as_str()).map(str::to_owned);
            let Some(file) = s(self.f.file).map(PathBuf::from) else { continue };
            if files.is_some_and(|set| !set.contains(&file)) {
                continue;
            }
            let u = |field| doc.get_first(field).and_then(|v| v.as_u64()).unwrap_or(0);
            let (offset, line_len) = (u(self.f.offset), u(self.f.line_len));
            let text = read_text(&mut open, &file, offset, line_len);
            let (snippet, highlights) = match (&snippets, &text) {
                (Some(g), Some(t)) => {
                    let sn = g.snippet(t);
                    let frag = sn.fragment().to_owned();
                    if frag.is_empty() {
                        (lead(t), Vec::new())
                    } else {
                        (frag, sn.highlighted().to_vec())
                    }
                }
                (None, Some(t)) => (lead(t), Vec::new()),
                _ => (String::new(), Vec::new()),
            };
            hits.push(Hit {
                file,
                offset,
                line_len,
                entry_id: s(self.f.entry),
                session_id: s(self.f.session),
                project: s(self.f.project),
                role: s(self.f.role).unwrap_or_default(),
                tools: doc.get_all(self.f.tool).filter_map(|v| v.as_str().map(str::to_owned)).collect(),
                time_ms: doc.get_first(self.f.time).and_then(|v| v.as_i64()),
                score,
                snippet,
                highlights,
            });
            if hits.len() >= limit {
                break;
            }
        }
        Ok(hits)
    }

    /// Snippets marking the query's words and, for each `prefix*`, the indexed words it
    /// matched (Tantivy's own generator marks only the prefix itself).
    fn snippet_generator(&self, searcher: &Searcher, text_q: &dyn Query, prefixes: &[String]) -> Result<SnippetGenerator, SearchError> {
        let mut terms: BTreeMap<String, f32> = BTreeMap::new();
        let mut add = |word: &str, term: &Term| -> Result<(), SearchError> {
            let df = searcher.doc_freq(term)?;
            if df > 0 {
                terms.insert(word.to_owned(), 1.0 / (1.0 + df as f32));
            }
            Ok(())
        };
        let mut exact: Vec<Term> = Vec::new();
        text_q.query_terms(&mut |t, _| {
            if t.field() == self.f.text {
                exact.push(t.clone());
            }
        });
        for t in &exact {
            if let Some(w) = t.value().as_str() {
                add(w, t)?;
            }
        }
        for p in prefixes {
            let mut end = p.clone().into_bytes();
            if let Some(last) = end.last_mut() {
                *last = last.saturating_add(1);
            }
            for seg in searcher.segment_readers() {
                let inv = seg.inverted_index(self.f.text)?;
                let mut stream = inv.terms().range().ge(p.as_bytes()).lt(&end).into_stream()?;
                let mut n = 0;
                while stream.advance() && n < PREFIX_WORDS {
                    if let Ok(w) = std::str::from_utf8(stream.key()) {
                        add(w, &Term::from_field_text(self.f.text, w))?;
                    }
                    n += 1;
                }
            }
        }
        let tokenizer = self.index.tokenizer_for_field(self.f.text)?;
        Ok(SnippetGenerator::new(terms, tokenizer, self.f.text, SNIPPET_CHARS))
    }

    /// Bytes the index takes on disk.
    pub fn disk_size(&self) -> u64 {
        std::fs::read_dir(&self.dir).map_or(0, |rd| rd.filter_map(Result::ok).filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum())
    }

    /// The folder the index lives in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// The entry text on the line at `offset`, read again from the file.
fn read_text(open: &mut Option<(PathBuf, File)>, path: &Path, offset: u64, len: u64) -> Option<String> {
    if open.as_ref().is_none_or(|(p, _)| p != path) {
        *open = Some((path.to_owned(), File::open(path).ok()?));
    }
    let (_, file) = open.as_ref()?;
    let mut buf = vec![0; len as usize];
    file.read_exact_at(&mut buf, offset).ok()?;
    extract::entry(&buf).map(|e| e.text)
}

/// The start of `text` when nothing in it is highlighted (filters only).
fn lead(text: &str) -> String {
    let t = text.trim_start();
    match t.char_indices().nth(SNIPPET_CHARS) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listing_stamps_each_file_and_orders_folders_then_names() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sessions");
        for (folder, name) in
            [("--b--", "2.jsonl"), ("--a--", "9.jsonl"), ("--b--", "1.jsonl"), ("", "top.jsonl"), ("--a--", ".hidden.jsonl")]
        {
            std::fs::create_dir_all(root.join(folder)).unwrap();
            std::fs::write(root.join(folder).join(name), "{}\n").unwrap();
        }
        std::fs::write(root.join("--a--").join("notes.txt"), "x").unwrap();
        let env = HostEnv::isolated(dir.path());
        let only = RootOverrides { only: vec![root.clone()], ..RootOverrides::default() };
        let files = library_files(&env, &only);
        let names: Vec<_> = files.iter().map(|f| f.path.strip_prefix(&root).unwrap().to_owned()).collect();
        let want: Vec<PathBuf> = ["top.jsonl", "--a--/9.jsonl", "--b--/1.jsonl", "--b--/2.jsonl"].iter().map(PathBuf::from).collect();
        assert_eq!(names, want);
        for f in &files {
            assert_eq!(f.listed, Some(Stamp::of_path(&f.path).unwrap()), "{}", f.path.display());
        }
        // An append after the listing is the next listing's news: the stamps are the listing's.
        std::fs::write(&files[1].path, "{}\n{}\n").unwrap();
        assert_ne!(library_files(&env, &only)[1].listed, files[1].listed);
    }
}
