//! Bringing the index up to date with a set of session files, file by file: new and rewritten
//! files whole, grown files from the offset they were indexed through, deleted files dropped.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use tantivy::collector::DocSetCollector;
use tantivy::merge_policy::LogMergePolicy;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, IndexWriter, Searcher, TantivyDocument, Term};

use crate::extract::{self, Extracted};
use crate::known::{self, Stamp};
use crate::record::{Change, FileRecord};
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
/// Updates reading less than this are indexed by one thread.
const SMALL_UPDATE: u64 = 8 << 20;
/// The writer's memory per indexing thread.
const WRITER_BUDGET: usize = 64 << 20;
/// An update leaving more segments than this waits for the merges its commit starts. A
/// small update's merges are otherwise dropped with its writer (the process exits, or the
/// app's next query opens a new one), so every append left a segment behind: 58 of them
/// after a few dozen appends at 10,000 sessions, each searched by every query. 16, not fewer:
/// the count barely moved a query's time (58 vs 5 segments, docs/benchmarks.md) while each
/// waited merge costs its append 100–200 ms, so appends should pay it rarely.
const MAX_SEGMENTS: usize = 16;

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
    /// Its stamp when listed ([`crate::library_files`] takes it from the folder's entry);
    /// `None`: an update `stat`s it.
    pub listed: Option<Stamp>,
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
            if let Some(rec) = self.record_at(&searcher, addr)? {
                out.insert(rec.path.clone(), rec);
            }
        }
        Ok(out)
    }

    fn record_at(&self, searcher: &Searcher, addr: DocAddress) -> Result<Option<FileRecord>, SearchError> {
        let doc: TantivyDocument = searcher.doc(addr)?;
        Ok(doc.get_first(self.f.rec_json).and_then(|v| v.as_str()).and_then(|j| serde_json::from_str::<FileRecord>(j).ok()))
    }

    /// The record of one file in the reader's commit.
    fn record(&self, path: &str) -> Result<Option<FileRecord>, SearchError> {
        let searcher = self.reader.searcher();
        let q = TermQuery::new(Term::from_field_text(self.f.rec, path), IndexRecordOption::Basic);
        match searcher.search(&q, &DocSetCollector)?.into_iter().next() {
            Some(addr) => self.record_at(&searcher, addr),
            None => Ok(None),
        }
    }

    /// The opstamp of the index's last commit.
    fn opstamp(&self) -> Result<u64, SearchError> {
        Ok(self.index.load_metas()?.opstamp)
    }

    /// The stamp of every file the index holds and the opstamp of the commit they are of, the
    /// reader reloaded at that commit: from the copy beside the index when it is that
    /// commit's, else read from the records (and the copy written again for the next time).
    fn known(&self) -> Result<(HashMap<String, Stamp>, u64), SearchError> {
        loop {
            let before = self.opstamp()?;
            self.reader.reload()?;
            if let Some(stamps) = known::read(&self.dir, before) {
                if self.opstamp()? == before {
                    return Ok((stamps, before));
                }
                continue;
            }
            let records = self.records()?;
            // Another process committing meanwhile: the records may be of either commit.
            if self.opstamp()? != before {
                continue;
            }
            let stamps: HashMap<String, Stamp> = records.into_iter().map(|(p, r)| (p, r.stamp())).collect();
            // A copy that cannot be written only costs the next check this read again.
            let _ = known::write(&self.dir, before, &stamps);
            return Ok((stamps, before));
        }
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
                let total_files = self.known()?.0.len();
                Ok(UpdateStats { busy: true, total_files, ..UpdateStats::default() })
            }
            other => other,
        }
    }

    fn update_locked(&self, files: &[SessionFile], rebuild: bool, progress: &dyn Fn(&Progress)) -> Result<UpdateStats, SearchError> {
        let started = Instant::now();
        let mut stats = UpdateStats::default();
        let (mut known, read_at) = self.known()?;
        if rebuild {
            known.clear();
        }
        // The files whose stamp changed (a `stat` each), and about how much there is to read.
        let mut changed = Vec::new();
        let mut pending = 0u64;
        for (i, sf) in files.iter().enumerate() {
            let now = match sf.listed {
                Some(s) => s,
                None => match Stamp::of_path(&sf.path) {
                    Ok(s) => s,
                    Err(_) => continue,
                },
            };
            match known.get(&*sf.path.to_string_lossy()) {
                Some(was) if *was == now => continue,
                Some(was) => pending += now.len.saturating_sub(was.len),
                None => pending += now.len,
            }
            changed.push((i, now));
        }
        // A small update is written by one thread: two would each make a tiny segment, and
        // every file of a segment costs a write, an fsync and a rewrite of Tantivy's list of
        // files (most of an append's time at 10,000 sessions).
        let threads = if pending < SMALL_UPDATE { 1 } else { std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 2) };
        let mut writer: Option<IndexWriter<TantivyDocument>> = None;
        // The records are read before the writer's lock is taken (an unchanged library takes
        // no lock); a commit by another process in between would make them stale, so they are
        // read again once the lock is held.
        let open_writer = |w: &mut Option<IndexWriter<TantivyDocument>>, known: &mut HashMap<String, Stamp>| -> Result<bool, SearchError> {
            if w.is_some() {
                return Ok(false);
            }
            let writer = self.index.writer_with_num_threads(threads, threads * WRITER_BUDGET)?;
            writer.set_merge_policy(Box::new(merge_policy()));
            *w = Some(writer);
            if rebuild || self.opstamp()? == read_at {
                return Ok(false);
            }
            *known = self.known()?.0;
            Ok(true)
        };
        if rebuild {
            open_writer(&mut writer, &mut known)?;
            if let Some(w) = writer.as_mut() {
                w.delete_all_documents()?;
            }
        }
        // Listed files exist (a `stat` below tells); only the others need looking for.
        // Hashed as bytes: hashing a `Path` walks its components, a tenth of the check's time.
        let listed: HashSet<&[u8]> = files.iter().map(|f| f.path.as_os_str().as_bytes()).collect();
        let gone: Vec<String> = known.keys().filter(|p| !listed.contains(str::as_bytes(p)) && !Path::new(p).exists()).cloned().collect();
        for path in gone {
            open_writer(&mut writer, &mut known)?;
            let w = writer.as_mut().expect("opened");
            self.drop_file(w, &path);
            known.remove(&path);
            stats.dropped += 1;
        }
        let mut since_commit = 0u64;
        let mut last_commit = Instant::now();
        for (done, now) in changed {
            let sf = &files[done];
            progress(&Progress { checked: done, total: files.len(), bytes: stats.bytes });
            let key = sf.path.to_string_lossy().into_owned();
            let Stamp { len, mtime_ns, inode } = now;
            let Ok(file) = File::open(&sf.path) else { continue };
            let mut change = self.change(&known, &key, &file, now)?;
            if change.0 != Change::Same && open_writer(&mut writer, &mut known)? {
                // Another process committed before the lock was ours: judge by its records.
                change = self.change(&known, &key, &file, now)?;
            }
            let (start, mut rec) = match change {
                (Change::Same, _) => continue,
                (Change::Grown(at), Some(rec)) => (at, rec),
                _ => {
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
            let w = writer.as_mut().expect("opened");
            if start == 0 {
                self.drop_file(w, &key);
                stats.whole += 1;
            } else {
                w.delete_term(Term::from_field_text(self.f.rec, &key));
                stats.grown += 1;
            }
            rec.len = len;
            rec.mtime_ns = mtime_ns;
            rec.inode = inode;
            let read = self.index_lines(w, &file, len, start, &mut rec, &mut stats)?;
            stats.files += 1;
            stats.bytes += read;
            since_commit += read;
            self.add_record(w, &rec)?;
            known.insert(key, now);
            if since_commit >= COMMIT_EVERY || last_commit.elapsed() >= COMMIT_AFTER {
                w.commit()?;
                since_commit = 0;
                last_commit = Instant::now();
            }
        }
        progress(&Progress { checked: files.len(), total: files.len(), bytes: stats.bytes });
        if let Some(mut w) = writer {
            let opstamp = w.commit()?;
            // Written after the commit, never before: see `known.rs`.
            let _ = known::write(&self.dir, opstamp, &known);
            // Merging the segments a large update made keeps queries fast; after a small
            // one (an append) the merge is left for a later update, so the append is quick,
            // until the segments left behind pass the bound.
            if stats.bytes >= MERGE_AFTER || self.index.searchable_segment_ids()?.len() > MAX_SEGMENTS {
                w.wait_merging_threads()?;
            }
        }
        self.reader.reload()?;
        stats.total_files = known.len();
        stats.ms = started.elapsed().as_millis() as u64;
        Ok(stats)
    }

    /// How the file `key` (open as `file`, stamped `now`) differs from its record in the
    /// reader's commit, and that record.
    fn change(
        &self,
        known: &HashMap<String, Stamp>,
        key: &str,
        file: &File,
        now: Stamp,
    ) -> Result<(Change, Option<FileRecord>), SearchError> {
        let old = if known.contains_key(key) { self.record(key)? } else { None };
        Ok(match old {
            Some(rec) => (rec.change(file, now.len, now.mtime_ns, now.inode)?, Some(rec)),
            None => (Change::Whole, None),
        })
    }

    fn add_record(&self, w: &IndexWriter<TantivyDocument>, rec: &FileRecord) -> Result<(), SearchError> {
        let mut doc = TantivyDocument::default();
        doc.add_text(self.f.kind, KIND_FILE);
        doc.add_text(self.f.rec, &rec.path);
        doc.add_text(self.f.rec_json, serde_json::to_string(rec).expect("a record serializes"));
        w.add_document(doc)?;
        Ok(())
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

/// Tantivy's default policy, but merging a layer of segments once it has 4 (not 8): the
/// segments an append leaves (a document or two, all in the lowest layer) are merged after a
/// few appends, and a large library's index stays at a handful of segments.
fn merge_policy() -> LogMergePolicy {
    let mut p = LogMergePolicy::default();
    p.set_min_num_segments(4);
    p
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

    fn one_file(dir: &std::path::Path) -> (std::path::PathBuf, [SessionFile; 1]) {
        let session = dir.join("s.jsonl");
        std::fs::write(&session, "{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"u\",\"message\":{\"role\":\"user\",\"content\":\"hello\"}}\n").unwrap();
        (session.clone(), [SessionFile { path: session, ..SessionFile::default() }])
    }

    fn append(path: &std::path::Path, line: &str) {
        let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        std::io::Write::write_all(&mut f, line.as_bytes()).unwrap();
    }

    #[test]
    fn a_copy_of_the_stamps_from_another_commit_is_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let (session, files) = one_file(dir.path());
        let index = SearchIndex::open(&dir.path().join("idx")).unwrap();
        index.update(&files, false).unwrap();
        let at = index.opstamp().unwrap();
        assert_eq!(known::read(&index.dir, at).map(|k| k.len()), Some(1), "the update left its copy");
        append(&session, "{\"type\":\"message\",\"id\":\"v\",\"parentId\":\"u\",\"message\":{\"role\":\"user\",\"content\":\"world\"}}\n");
        // A copy claiming the grown file is unchanged, but of an older commit (a process
        // killed after another one committed, say): the records are read instead.
        let now = Stamp::of_path(&session).unwrap();
        let key = session.to_string_lossy().into_owned();
        known::write(&index.dir, at - 1, &HashMap::from([(key.clone(), now)])).unwrap();
        let stats = index.update(&files, false).unwrap();
        assert_eq!((stats.grown, stats.total_files), (1, 1));
        assert_eq!(index.search("world", 10, None).unwrap().len(), 1);
        // The copy of the current commit is the check's only read: nothing to do.
        assert_eq!(known::read(&index.dir, index.opstamp().unwrap()).map(|k| k[&key]), Some(now));
        assert_eq!(index.update(&files, false).unwrap().files, 0);
    }

    #[test]
    fn a_touched_file_is_not_read_again_and_a_rewritten_one_is() {
        let dir = tempfile::tempdir().unwrap();
        let (session, files) = one_file(dir.path());
        let index = SearchIndex::open(&dir.path().join("idx")).unwrap();
        index.update(&files, false).unwrap();
        let text = std::fs::read(&session).unwrap();
        let touch = |bytes: &[u8]| {
            std::thread::sleep(std::time::Duration::from_millis(10));
            std::fs::write(&session, bytes).unwrap();
        };
        touch(&text);
        assert_eq!(index.update(&files, false).unwrap().files, 0, "same bytes, new mtime");
        assert_eq!(index.search("hello", 10, None).unwrap().len(), 1);
        touch(&String::from_utf8(text).unwrap().replace("hello", "jello").into_bytes());
        assert_eq!(index.update(&files, false).unwrap().whole, 1, "same length, other bytes");
        assert!(index.search("hello", 10, None).unwrap().is_empty());
        assert_eq!(index.search("jello", 10, None).unwrap().len(), 1);
    }

    #[test]
    fn appends_do_not_pile_up_segments() {
        let dir = tempfile::tempdir().unwrap();
        let (session, files) = one_file(dir.path());
        let index = SearchIndex::open(&dir.path().join("idx")).unwrap();
        index.update(&files, false).unwrap();
        for i in 0..3 * MAX_SEGMENTS {
            append(
                &session,
                &format!("{{\"type\":\"message\",\"id\":\"a{i}\",\"message\":{{\"role\":\"assistant\",\"content\":\"word{i}\"}}}}\n"),
            );
            assert_eq!(index.update(&files, false).unwrap().grown, 1);
            let segments = index.index.searchable_segment_ids().unwrap().len();
            assert!(segments <= MAX_SEGMENTS, "{segments} segments after {} appends", i + 1);
        }
        assert_eq!(index.search("word0", 10, None).unwrap().len(), 1);
        let last = format!("word{}", 3 * MAX_SEGMENTS - 1);
        assert_eq!(index.search(&last, 10, None).unwrap().len(), 1);
        // Only negations: every entry but the excluded ones, and no file record.
        let not_user = index.search("-role:user", 100, None).unwrap();
        assert_eq!(not_user.len(), 3 * MAX_SEGMENTS);
        assert!(not_user.iter().all(|h| h.role == "assistant"));
    }
}
