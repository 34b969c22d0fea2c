//! Opening a session file: parallel, chunked indexing with bounded memory.
//!
//! The file is cut at line boundaries into chunks of [`CHUNK`] bytes; each
//! worker thread reads one chunk at a time with a positioned read and indexes
//! it with the core's pure `index_chunk`. Only the small per-line records stay
//! in memory, so opening a 500 MB file needs a few chunk buffers, not the file.

use std::borrow::Cow;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use contextree_core::session::{index_chunk, ChunkIndex, RulePolicy, Session, Source, SourceError, Span};
use contextree_core::{Dialect, RuleRequest};

use crate::HostEnv;

/// Bytes per indexing job: large enough that per-job overhead vanishes, small
/// enough that the workers finish together (when one takes the last job the
/// other waits for it: with 4 MiB, up to ~8 ms of one core on a 100 MB file,
/// and a 10 MB file was 3 jobs for 2 workers) and hold little memory.
/// Measured on 2 cores (docs/benchmarks.md): 1 MiB beat 512 KiB, 2 and 4 MiB.
const CHUNK: u64 = 1 << 20;

/// A session file could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The IO error.
        source: std::io::Error,
    },
    /// The file is larger than the line offsets the index can hold.
    #[error("{path}: a line is longer than 4 GiB")]
    LineTooLong {
        /// The file.
        path: PathBuf,
    },
}

/// The identity of the file's contents when it was read, to notice appends
/// and rewrites before writing (docs/decisions.md D15).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// File length in bytes.
    pub len: u64,
    /// The last bytes of the file (up to [`TAIL`]).
    pub tail: Vec<u8>,
}

/// How many trailing bytes a fingerprint keeps.
pub const TAIL: u64 = 4096;

impl Fingerprint {
    /// Length and last bytes of an open file, as they are now.
    pub fn of(file: &File) -> std::io::Result<Self> {
        Self::at_len(file, file.metadata()?.len())
    }

    /// The fingerprint of `file` taken as `len` bytes long: loading passes the
    /// length it indexed, so an append landing meanwhile still shows as growth.
    fn at_len(file: &File, len: u64) -> std::io::Result<Self> {
        let n = len.min(TAIL);
        let mut tail = vec![0; n as usize];
        file.read_exact_at(&mut tail, len - n)?;
        Ok(Self { len, tail })
    }
}

/// A parsed session and the file it came from.
#[derive(Debug)]
pub struct LoadedSession {
    /// The file.
    pub path: PathBuf,
    /// The parsed session.
    pub session: Session,
    /// Gives entry bytes back to views.
    pub source: FileSource,
    /// What the file looked like when read.
    pub fingerprint: Fingerprint,
}

/// Positioned reads of the session file.
#[derive(Debug)]
pub struct FileSource {
    file: File,
}

impl Source for FileSource {
    fn bytes(&self, span: Span) -> Result<Cow<'_, [u8]>, SourceError> {
        let mut buf = vec![0; span.len as usize];
        self.file.read_exact_at(&mut buf, span.start).map_err(|source| match source.kind() {
            std::io::ErrorKind::UnexpectedEof => SourceError::OutOfRange(span),
            _ => SourceError::Io { span, source },
        })?;
        Ok(Cow::Owned(buf))
    }
}

/// What a file's location says about its dialect (`~/.omp/...`, `~/.pi/...`).
pub fn location_hint(path: &Path) -> Option<Dialect> {
    let text = path.to_string_lossy();
    if text.contains("/.omp/") || text.contains("/omp/sessions/") {
        Some(Dialect::Omp)
    } else if text.contains("/.pi/") {
        Some(Dialect::Pi)
    } else {
        None
    }
}

/// Opens and indexes a session file. `request` (`--dialect`, the app's
/// switch) overrides detection; otherwise the agent comes from the file and
/// its rule set from the installed agent, the file or the newest (D22).
/// The installed agents are looked for in `env` ([`installed_version`]).
pub fn load_session(env: &HostEnv, path: &Path, request: Option<RuleRequest>) -> Result<LoadedSession, LoadError> {
    load_in_chunks(env, path, request, CHUNK)
}

/// The version of `dialect`'s agent installed on the machine `env` describes, if any.
pub fn installed_version(env: &HostEnv, dialect: Dialect) -> Option<String> {
    crate::agent::find_agent_package(env, dialect).and_then(|p| p.version)
}

/// [`load_session`] with a chosen chunk size (tests use tiny chunks to cross
/// many boundaries).
pub fn load_in_chunks(env: &HostEnv, path: &Path, request: Option<RuleRequest>, chunk: u64) -> Result<LoadedSession, LoadError> {
    let io = |source| LoadError::Io { path: path.to_owned(), source };
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let bounds = chunk_bounds(&file, len, chunk.max(1)).map_err(io)?;
    if bounds.windows(2).any(|w| w[1] - w[0] > u64::from(u32::MAX)) {
        return Err(LoadError::LineTooLong { path: path.to_owned() });
    }
    // The main thread only waits for the workers: it looks for the installed agents meanwhile.
    let (chunks, found) = index_parallel(&file, &bounds, || Installed::find(env, request));
    let chunks = chunks.map_err(io)?;
    let installed = |dialect| found.version(dialect);
    let policy = RulePolicy { request, installed: Some(&installed) };
    let session = Session::assemble(chunks, &policy, location_hint(path));
    let fingerprint = Fingerprint::at_len(&file, len).map_err(io)?;
    Ok(LoadedSession { path: path.to_owned(), session, source: FileSource { file }, fingerprint })
}

/// The installed version of each agent the rule choice may ask about.
struct Installed {
    pi: Option<String>,
    omp: Option<String>,
}

impl Installed {
    /// Looks up the agents `request` leaves open: none for one exact rule
    /// set, the named agent, or both when the file's signals will choose.
    fn find(env: &HostEnv, request: Option<RuleRequest>) -> Installed {
        let wanted = |d: Dialect| match request {
            Some(RuleRequest::Exact(_)) => false,
            Some(RuleRequest::Agent(a)) => a == d,
            None => true,
        };
        let look = |d| wanted(d).then(|| installed_version(env, d)).flatten();
        Installed { pi: look(Dialect::Pi), omp: look(Dialect::Omp) }
    }

    fn version(&self, dialect: Dialect) -> Option<String> {
        match dialect {
            Dialect::Pi => self.pi.clone(),
            Dialect::Omp => self.omp.clone(),
        }
    }
}

/// Chunk boundaries: `0`, then the offset after the first `\n` at or past each
/// multiple of `chunk`, then `len`.
fn chunk_bounds(file: &File, len: u64, chunk: u64) -> std::io::Result<Vec<u64>> {
    let mut bounds = vec![0];
    // Most lines end within a few KiB; a longer one is read on in steps.
    let mut probe = vec![0u8; 8 << 10];
    let mut target = chunk;
    while target < len {
        let mut at = target;
        let next = loop {
            let n = file.read_at(&mut probe, at)?;
            if n == 0 {
                break len;
            }
            if let Some(i) = memchr::memchr(b'\n', &probe[..n]) {
                break at + i as u64 + 1;
            }
            at += n as u64;
        };
        if next >= len {
            break;
        }
        bounds.push(next);
        target = next + chunk;
    }
    bounds.push(len);
    Ok(bounds)
}

/// A worker's reader of chunks into one buffer kept across its jobs.
///
/// `read_exact_at` needs an initialised buffer; zeroing it before each chunk
/// cost 7 % of g10's instructions, so the buffer keeps its length and is
/// zeroed only where it grows (the worker's first chunk, a longer one later).
/// One positioned read a chunk: `read_to_end` into the spare capacity, used
/// before, took eight reads of doubling size and a seek for a 1 MiB chunk.
struct ChunkReader<'a> {
    file: &'a File,
    buf: Vec<u8>,
}

impl<'a> ChunkReader<'a> {
    fn new(file: &'a File) -> Self {
        Self { file, buf: Vec::new() }
    }

    /// The bytes `start..end` of the file.
    fn read(&mut self, start: u64, end: u64) -> std::io::Result<&[u8]> {
        let len = (end - start) as usize;
        if self.buf.len() < len {
            self.buf.resize(len, 0);
        }
        let buf = &mut self.buf[..len];
        self.file.read_exact_at(buf, start)?;
        Ok(buf)
    }
}

/// The chunks between `bounds`, indexed by worker threads, and what `meanwhile`
/// gives, run on the calling thread while they work.
fn index_parallel<T>(file: &File, bounds: &[u64], meanwhile: impl FnOnce() -> T) -> (std::io::Result<Vec<ChunkIndex>>, T) {
    let n_jobs = bounds.len() - 1;
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(n_jobs).max(1);
    let next = AtomicUsize::new(0);
    let (per_worker, other) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    let mut reader = ChunkReader::new(file);
                    loop {
                        let job = next.fetch_add(1, Ordering::Relaxed);
                        if job >= n_jobs {
                            break done;
                        }
                        let (start, end) = (bounds[job], bounds[job + 1]);
                        let res = reader.read(start, end).map(|bytes| index_chunk(bytes, start, 1));
                        done.push((job, res));
                    }
                })
            })
            .collect();
        let other = meanwhile();
        let done: Vec<_> = handles.into_iter().map(|h| h.join().expect("indexing worker panicked")).collect();
        (done, other)
    });
    (in_file_order(file, bounds, per_worker), other)
}

/// The workers' chunks in file order, lines numbered from the file's start.
fn in_file_order(
    file: &File,
    bounds: &[u64],
    per_worker: Vec<Vec<(usize, std::io::Result<ChunkIndex>)>>,
) -> std::io::Result<Vec<ChunkIndex>> {
    let n_jobs = bounds.len() - 1;
    let mut results: Vec<Option<std::io::Result<ChunkIndex>>> = (0..n_jobs).map(|_| None).collect();
    for (job, res) in per_worker.into_iter().flatten() {
        results[job] = Some(res);
    }
    let mut indexed: Vec<ChunkIndex> = results.into_iter().map(|r| r.expect("every job ran")).collect::<Result<_, _>>()?;
    let mut starts: Vec<u64> = bounds[..n_jobs].to_vec();
    // A malformed value that runs past a chunk's end may read differently
    // with the bytes after it (omp reads values across lines): index the two
    // chunks again as one. Rare, and the result is the one-pass reading.
    let mut i = 0;
    while i + 1 < indexed.len() {
        if !indexed[i].omp_open_at_end {
            i += 1;
            continue;
        }
        let end = starts.get(i + 2).copied().unwrap_or(bounds[n_jobs]);
        let mut buf = vec![0; (end - starts[i]) as usize];
        file.read_exact_at(&mut buf, starts[i])?;
        indexed[i] = index_chunk(&buf, starts[i], 1);
        indexed.remove(i + 1);
        starts.remove(i + 1);
    }
    let mut chunks = Vec::with_capacity(indexed.len());
    let mut first_line = 0;
    for mut chunk in indexed {
        // Each chunk was numbered from line 1; shift to file lines.
        for rec in &mut chunk.records {
            rec.line += first_line;
        }
        first_line += chunk.n_lines;
        chunks.push(chunk);
    }
    Ok(chunks)
}

#[cfg(test)]
mod tests {
    use super::*;

    use contextree_core::session::SourceError;
    use contextree_testkit::Scratch;

    #[test]
    fn chunks_read_into_the_kept_buffer_are_the_files_bytes() {
        let tmp = Scratch::new("host-load-reader");
        let text: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let path = tmp.write("bytes", &text);
        let file = File::open(&path).unwrap();
        let mut reader = ChunkReader::new(&file);
        // A large read, then smaller ones into the kept buffer, out of order, then a longer one.
        for (start, end) in [(0, 6_000), (7_000, 9_999), (3, 4), (5_000, 5_000), (100, 6_100), (0, 10_000)] {
            assert_eq!(reader.read(start, end).unwrap(), &text[start as usize..end as usize]);
        }
        assert_eq!(reader.read(9_000, 10_001).unwrap_err().kind(), std::io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn a_file_replaced_since_it_was_opened_is_read_through_the_open_handle() {
        let tmp = Scratch::new("host-load-replaced");
        let path = tmp.write("s.jsonl", "old\n");
        let file = File::open(&path).unwrap();
        std::fs::rename(tmp.write("new.jsonl", "new\n"), &path).unwrap();
        let mut reader = ChunkReader::new(&file);
        assert_eq!(reader.read(0, 4).unwrap(), b"old\n");
    }

    #[test]
    fn an_entry_cut_off_since_the_load_is_out_of_range() {
        let tmp = Scratch::new("host-load-cut");
        let text = "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00Z\",\"cwd\":\"/\"}\n\
                    {\"type\":\"message\",\"id\":\"u1\",\"parentId\":null,\"timestamp\":\"2025-01-01T00:00:01Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
        let path = tmp.write("s.jsonl", text);
        let loaded = load_session(&HostEnv::default(), &path, None).unwrap();
        let span = loaded.session.entry(loaded.session.node("u1").unwrap()).span;
        assert!(loaded.source.bytes(span).unwrap().starts_with(b"{\"type\":\"message\""));
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(span.start + 3).unwrap();
        let err = loaded.source.bytes(span).unwrap_err();
        assert!(matches!(err, SourceError::OutOfRange(s) if s == span), "{err:?}");
    }
}
