//! Bringing the index up to date with a set of session files, file by file: new and rewritten
//! files whole, grown files from the offset they were indexed through, deleted files dropped.

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::time::Instant;

use tantivy::collector::DocSetCollector;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{IndexWriter, TantivyDocument, Term};

use crate::extract::{self, Extracted};
use crate::record::{self, Change, FileRecord};
use crate::schema::{Fields, KIND_ENTRY, KIND_FILE};
use crate::{SearchError, SearchIndex};

/// Commit after this many bytes read, or this long after the last commit (between files):
/// a killed indexer loses at most this much work, and the first index of a large library
/// becomes searchable part by part.
const COMMIT_EVERY: u64 = 256 << 20;
const COMMIT_AFTER: std::time::Duration = std::time::Duration::from_secs(2);
/// Bytes read from a file at a time.
const READ_CHUNK: usize = 8 << 20;
/// Updates reading at least this much wait for the segment merges they start.
const MERGE_AFTER: u64 = 16 << 20;
/// The writer's memory per indexing thread.
const WRITER_BUDGET: usize = 64 << 20;

/// One session file to index, as the library found it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFile {
    /// The file.
    pub path: PathBuf,
    /// The header's session id.
    pub session_id: Option<String>,
    /// The project folder.
    pub project: Option<String>,
    /// `pi` or `omp`.
    pub agent: Option<String>,
}

/// How far an update is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Files checked so far (unchanged, or read).
    pub checked: usize,
    /// Files to check.
    pub total: usize,
    /// Bytes read so far.
    pub bytes: u64,
}

/// What an update did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpdateStats {
    /// Files (re)indexed, whole or from an offset.
    pub files: usize,
    /// Bytes read from them.
    pub bytes: u64,
    /// Files indexed whole (new or rewritten).
    pub whole: usize,
    /// Files indexed from an offset (grown).
    pub grown: usize,
    /// Files dropped (deleted).
    pub dropped: usize,
    /// Entries added.
    pub entries: u64,
    /// Milliseconds taken.
    pub ms: u64,
    /// Files the index holds afterwards.
    pub total_files: usize,
    /// Another process (the app, another `contextree index`) was updating the index: this
    /// update did nothing, and answers come from the index as that one last committed it.
    pub busy: bool,
}

impl SearchIndex {
    /// Every file record the index holds (its last commit).
    pub(crate) fn records(&self) -> Result<HashMap<String, FileRecord>, SearchError> {
        self.reader.reload()?;
        let searcher = self.reader.searcher();
        let q = TermQuery::new(Term::from_field_text(self.f.kind, KIND_FILE), IndexRecordOption::Basic);
        let mut out = HashMap::new();
        for addr in searcher.search(&q, &DocSetCollector)? {
            let doc: TantivyDocument = searcher.doc(addr)?;
            if let Some(rec) =
                doc.get_first(self.f.rec_json).and_then(|v| v.as_str()).and_then(|j| serde_json::from_str::<FileRecord>(j).ok())
            {
                out.insert(rec.path.clone(), rec);
            }
        }
        Ok(out)
    }

    /// Brings the index up to date with `files`; `rebuild` drops everything first. Records of
    /// files that no longer exist are dropped; files outside `files` that still exist are
    /// kept (another `--root` may list them) and left out of answers by the caller.
    pub fn update(&self, files: &[SessionFile], rebuild: bool) -> Result<UpdateStats, SearchError> {
        self.update_with_progress(files, rebuild, &|_| {})
    }

    /// [`SearchIndex::update`], calling `progress` after each file it checked (the app's
    /// progress bar while the first index is built; what is committed is searchable meanwhile).
    pub fn update_with_progress(
        &self,
        files: &[SessionFile],
        rebuild: bool,
        progress: &dyn Fn(&Progress),
    ) -> Result<UpdateStats, SearchError> {
        match self.update_locked(files, rebuild, progress) {
            Err(SearchError::Index(tantivy::TantivyError::LockFailure(tantivy::directory::error::LockError::LockBusy, _))) => {
                let total_files = self.records()?.len();
                Ok(UpdateStats { busy: true, total_files, ..UpdateStats::default() })
            }
            other => other,
        }
    }

    fn update_locked(&self, files: &[SessionFile], rebuild: bool, progress: &dyn Fn(&Progress)) -> Result<UpdateStats, SearchError> {
        let started = Instant::now();
        let mut stats = UpdateStats::default();
        let mut records = if rebuild { HashMap::new() } else { self.records()? };
        let mut writer: Option<IndexWriter<TantivyDocument>> = None;
        let open_writer = |w: &mut Option<IndexWriter<TantivyDocument>>| -> Result<(), SearchError> {
            if w.is_none() {
                let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 2);
                *w = Some(self.index.writer_with_num_threads(threads, threads * WRITER_BUDGET)?);
            }
            Ok(())
        };
        if rebuild {
            open_writer(&mut writer)?;
            if let Some(w) = writer.as_mut() {
                w.delete_all_documents()?;
            }
        }
        let gone: Vec<String> = records.keys().filter(|p| !std::path::Path::new(p).exists()).cloned().collect();
        for path in gone {
            open_writer(&mut writer)?;
            let w = writer.as_mut().expect("opened");
            self.drop_file(w, &path);
            records.remove(&path);
            stats.dropped += 1;
        }
        let mut since_commit = 0u64;
        let mut last_commit = Instant::now();
        for (done, sf) in files.iter().enumerate() {
            progress(&Progress { checked: done, total: files.len(), bytes: stats.bytes });
            let key = sf.path.to_string_lossy().into_owned();
            let Ok(file) = File::open(&sf.path) else { continue };
            let Ok((len, mtime_ns, inode)) = record::stat(&sf.path) else { continue };
            let change = match records.get(&key) {
                Some(rec) => rec.change(&file, len, mtime_ns, inode)?,
                None => Change::Whole,
            };
            let (start, mut rec) = match change {
                Change::Same => continue,
                Change::Grown(at) => (at, records[&key].clone()),
                Change::Whole => {
                    let rec = FileRecord {
                        path: key.clone(),
                        session_id: sf.session_id.clone(),
                        project: sf.project.clone(),
                        agent: sf.agent.clone(),
                        ..FileRecord::default()
                    };
                    (0, rec)
                }
            };
            open_writer(&mut writer)?;
            let w = writer.as_mut().expect("opened");
            match change {
                Change::Whole => {
                    self.drop_file(w, &key);
                    stats.whole += 1;
                }
                _ => {
                    w.delete_term(Term::from_field_text(self.f.rec, &key));
                    stats.grown += 1;
                }
            }
            rec.len = len;
            rec.mtime_ns = mtime_ns;
            rec.inode = inode;
            let read = self.index_lines(w, &file, len, start, &mut rec, &mut stats)?;
            stats.files += 1;
            stats.bytes += read;
            since_commit += read;
            let mut doc = TantivyDocument::default();
            doc.add_text(self.f.kind, KIND_FILE);
            doc.add_text(self.f.rec, &key);
            doc.add_text(self.f.rec_json, serde_json::to_string(&rec).expect("a record serializes"));
            w.add_document(doc)?;
            records.insert(key, rec);
            if since_commit >= COMMIT_EVERY || last_commit.elapsed() >= COMMIT_AFTER {
                w.commit()?;
                since_commit = 0;
                last_commit = Instant::now();
            }
        }
        progress(&Progress { checked: files.len(), total: files.len(), bytes: stats.bytes });
        if let Some(mut w) = writer {
            w.commit()?;
            // Merging the segments a large update made keeps queries fast; after a small
            // one (an append) the merge is left for a later update, so the append is quick.
            if stats.bytes >= MERGE_AFTER {
                w.wait_merging_threads()?;
            }
        }
        self.reader.reload()?;
        stats.total_files = records.len();
        stats.ms = started.elapsed().as_millis() as u64;
        Ok(stats)
    }

    fn drop_file(&self, w: &IndexWriter<TantivyDocument>, path: &str) {
        w.delete_term(Term::from_field_text(self.f.file, path));
        w.delete_term(Term::from_field_text(self.f.rec, path));
    }

    /// Indexes the complete lines of `file` from `start` (and a last line without its newline
    /// when it parses whole), updating `rec`; returns the bytes read.
    fn index_lines(
        &self,
        w: &IndexWriter<TantivyDocument>,
        file: &File,
        len: u64,
        start: u64,
        rec: &mut FileRecord,
        stats: &mut UpdateStats,
    ) -> Result<u64, SearchError> {
        let mut buf: Vec<u8> = Vec::with_capacity(READ_CHUNK.min((len - start) as usize));
        let mut pos = start; // file offset of buf[0]
        let mut last_line: Option<(u64, u64)> = None;
        let mut read_to = start;
        loop {
            let want = READ_CHUNK.min((len - read_to) as usize);
            if want > 0 {
                let old = buf.len();
                buf.resize(old + want, 0);
                file.read_exact_at(&mut buf[old..], read_to)?;
                read_to += want as u64;
            }
            let at_end = read_to >= len;
            let mut consumed = 0;
            while let Some(nl) = memchr_nl(&buf[consumed..]) {
                let line = &buf[consumed..consumed + nl];
                let off = pos + consumed as u64;
                self.add_line(w, line, off, rec, stats)?;
                if !line.iter().all(u8::is_ascii_whitespace) {
                    last_line = Some((off, off + nl as u64 + 1));
                }
                consumed += nl + 1;
            }
            if at_end {
                // An unterminated last line counts when it is a whole JSON value: a file
                // written without a final newline. A torn write does not parse and waits.
                let rest = &buf[consumed..];
                if !rest.is_empty() && serde_json::from_slice::<serde_json::Value>(rest).is_ok() {
                    let off = pos + consumed as u64;
                    self.add_line(w, rest, off, rec, stats)?;
                    last_line = Some((off, len));
                }
                break;
            }
            buf.drain(..consumed);
            pos += consumed as u64;
        }
        let (last_start, through) = last_line.unwrap_or((rec.last_line_start, rec.through));
        if last_line.is_some() {
            rec.seal(file, last_start, through)?;
        }
        Ok(len - start)
    }

    fn add_line(
        &self,
        w: &IndexWriter<TantivyDocument>,
        line: &[u8],
        off: u64,
        rec: &mut FileRecord,
        stats: &mut UpdateStats,
    ) -> Result<(), SearchError> {
        if off == 0 {
            if let Some(h) = serde_json::from_slice(line).ok().as_ref().and_then(extract::header) {
                // The header's id tells the agent better than the folder it was found in.
                if let Some(d) = h.id.as_deref().and_then(contextree_host::library::dialect_of_id) {
                    rec.agent = Some(d.name().to_owned());
                }
                rec.session_id = rec.session_id.take().or(h.id);
                rec.project = rec.project.take().or(h.cwd);
                rec.version = h.version;
                return Ok(());
            }
        }
        let Some(e) = extract::entry(line) else { return Ok(()) };
        // Entries after a model change or a reply carry its model (assistant messages name
        // theirs; the others are asked and answered under it).
        if e.role == "model_change" || (e.role == "assistant" && e.model.is_some()) {
            rec.model.clone_from(&e.model);
        }
        if e.text.is_empty() {
            return Ok(());
        }
        w.add_document(self.entry_doc(&e, line.len() as u64, off, rec))?;
        stats.entries += 1;
        Ok(())
    }

    fn entry_doc(&self, e: &Extracted, line_len: u64, off: u64, rec: &FileRecord) -> TantivyDocument {
        let f: &Fields = &self.f;
        let mut doc = TantivyDocument::default();
        doc.add_text(f.kind, KIND_ENTRY);
        doc.add_text(f.file, &rec.path);
        doc.add_u64(f.offset, off);
        doc.add_u64(f.line_len, line_len);
        if let Some(id) = &e.entry_id {
            doc.add_text(f.entry, id);
        }
        let opt = |doc: &mut TantivyDocument, field, v: &Option<String>| {
            if let Some(v) = v {
                doc.add_text(field, v);
            }
        };
        opt(&mut doc, f.session, &rec.session_id);
        opt(&mut doc, f.project, &rec.project);
        opt(&mut doc, f.agent, &rec.agent);
        opt(&mut doc, f.rules, &rec.version);
        opt(&mut doc, f.model, if e.model.is_some() { &e.model } else { &rec.model });
        doc.add_text(f.role, &e.role);
        for t in &e.tools {
            doc.add_text(f.tool, t);
        }
        if let Some(t) = e.time_ms {
            doc.add_i64(f.time, t);
        }
        doc.add_text(f.text, &e.text);
        doc
    }
}

fn memchr_nl(b: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_index_answers_from_its_last_commit() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s.jsonl");
        std::fs::write(&session, "{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"u\",\"message\":{\"role\":\"user\",\"content\":\"hello\"}}\n").unwrap();
        let files = [SessionFile { path: session, ..SessionFile::default() }];
        let first = SearchIndex::open(&dir.path().join("idx")).unwrap();
        let seen = std::cell::RefCell::new(Vec::new());
        assert_eq!(first.update_with_progress(&files, false, &|p| seen.borrow_mut().push(p.checked)).unwrap().files, 1);
        assert_eq!(*seen.borrow(), [0, 1], "before the file, and at the end");
        // Another process's writer holds the lock (here: another writer of this one).
        let _writer: IndexWriter<TantivyDocument> = first.index.writer(15_000_000).unwrap();
        let second = SearchIndex::open(&dir.path().join("idx")).unwrap();
        let stats = second.update(&files, true).unwrap();
        assert!(stats.busy);
        assert_eq!(stats.total_files, 1);
        assert_eq!(second.search("hello", 10, None).unwrap().len(), 1);
    }
}
