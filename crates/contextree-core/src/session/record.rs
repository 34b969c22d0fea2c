//! Lines → records. Pure and chunkable: a caller may split a file at line
//! boundaries, index the chunks in parallel and concatenate the results.
//!
//! The two dialects read malformed lines differently (docs/decisions.md D12): pi
//! drops a line that is not exactly one JSON value; omp's lenient reader keeps
//! the first JSON value of the line and, after a syntax error, resumes at the
//! next newline after the error, which can swallow the lines that follow an
//! unterminated value. A record keeps both readings so the dialect can be
//! chosen (or switched) after indexing.

use serde_json::Value;

use super::detect::Signals;
use super::probe::{json_kind, probe_line_reference, probe_object, Probe, ProbeError};
use super::source::Span;

/// One non-blank physical line.
#[derive(Debug, Clone, PartialEq)]
pub struct LineRecord {
    /// 1-based physical line number.
    pub line: u32,
    /// The line's bytes, without its `\n`.
    pub span: Span,
    /// How the line reads.
    pub reading: Reading,
    /// omp's lenient reader consumed this line while recovering from an
    /// earlier malformed line; omp does not see it, pi does.
    pub omp_swallowed: bool,
}

/// How a line reads.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // inline on purpose: see `Object`
pub enum Reading {
    /// Exactly one JSON object: both dialects agree. Inline, not boxed: a chunk's records
    /// are then one allocation that goes back to the system when the chunk is read, where
    /// a million small boxes would keep the process's memory at its peak.
    Object(Probe),
    /// Not exactly one JSON object. pi drops the line; omp reads `omp`.
    Malformed {
        /// What is wrong with the line as a whole.
        problem: ProbeError,
        /// What omp makes of it.
        omp: OmpReading,
    },
}

/// omp's reading of a malformed line.
#[derive(Debug, Clone, PartialEq)]
pub enum OmpReading {
    /// The first JSON value of the line, an object, and where it ends.
    Object(Box<Probe>, Span),
    /// The first value is not an object.
    NotObject(&'static str),
    /// No value could be read before a syntax error.
    Nothing,
}

/// The records of one chunk of lines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChunkIndex {
    /// Non-blank lines in order.
    pub records: Vec<LineRecord>,
    /// Physical lines in the chunk (blank ones included).
    pub n_lines: u32,
    /// omp's lenient reader ran out of bytes at the end of the chunk while
    /// reading a value that started on a malformed line: with the bytes after
    /// the chunk it may read differently. A caller that cut the file into
    /// chunks re-indexes this chunk together with the next one.
    pub omp_open_at_end: bool,
    /// The chunk starts the file with a UTF-8 byte order mark, skipped here
    /// as pi ≤ 0.79 and omp skip it (pi ≥ 0.80.3 does not: see
    /// `RuleSet::loads_streamed`).
    pub bom: bool,
    /// The dialect signals of the records, read while the scan still runs
    /// (as the file's start for the chunk at offset 0, else as records after
    /// the header).
    pub signals: Signals,
}

/// Indexes `chunk`, which starts at file offset `base` and file line
/// `first_line` (1-based) and holds whole lines (the last may lack its `\n`).
pub fn index_chunk(chunk: &[u8], base: u64, first_line: u32) -> ChunkIndex {
    let mut res = ChunkIndex::default();
    let mut line_no = first_line;
    let mut pos = 0;
    // Where omp's reader continues: lines that start before it were consumed
    // while it recovered from an earlier malformed line.
    let mut omp_resume = 0;
    // Both agents read a file that starts with a UTF-8 byte order mark (JS
    // `trim` and Bun's decoder drop it).
    if base == 0 && chunk.starts_with(&[0xEF, 0xBB, 0xBF]) {
        pos = 3;
        res.bom = true;
    }
    while pos < chunk.len() {
        // Most lines are messages the scanner reads whole, finding their end as it goes.
        let (end, fast) = match super::fast::probe_message_prefix(&chunk[pos..]) {
            Some((probe, len)) => (pos + len, Some(probe)),
            None => (memchr::memchr(b'\n', &chunk[pos..]).map_or(chunk.len(), |i| pos + i), None),
        };
        let line = &chunk[pos..end];
        res.n_lines += 1;
        if fast.is_some() || !line.iter().all(u8::is_ascii_whitespace) {
            let span = Span { start: base + pos as u64, len: line.len() as u32 };
            let omp_swallowed = pos < omp_resume;
            let read = match fast {
                Some(probe) => Ok(probe),
                None => probe_line_reference(line),
            };
            let reading = match read {
                Ok(probe) => Reading::Object(probe),
                Err(problem) if omp_swallowed => Reading::Malformed { problem, omp: OmpReading::Nothing },
                Err(problem) => {
                    let (omp, resume, hit_end) = omp_read(chunk, pos, base);
                    omp_resume = resume;
                    res.omp_open_at_end |= hit_end;
                    Reading::Malformed { problem, omp }
                }
            };
            res.records.push(LineRecord { line: line_no, span, reading, omp_swallowed });
        }
        line_no += 1;
        pos = end + 1;
    }
    // Grown by doubling, not reserved or collected in a list kept across chunks: the lists
    // freed while it grows leave room in the worker's arena for the chunk's small boxes.
    // Without them each box extends the arena a page at a time (g100: 780 → 2,100
    // `mprotect` calls with a kept list; docs/benchmarks.md).
    res.records.shrink_to_fit();
    res.signals = Signals::of(&res.records, base == 0);
    res
}

/// omp's lenient reading starting at the line at `pos`: the first JSON value,
/// the offset where omp's reader resumes (the line after the value, or the
/// next line after a syntax error), and whether the read ran into the end of
/// the chunk.
fn omp_read(chunk: &[u8], pos: usize, base: u64) -> (OmpReading, usize, bool) {
    let rest = &chunk[pos..];
    let mut stream = serde_json::Deserializer::from_slice(rest).into_iter::<Value>();
    let (reading, stop) = match stream.next() {
        Some(Ok(value)) => {
            let end = stream.byte_offset();
            let start = rest.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(0);
            let reading = match value {
                Value::Object(map) => {
                    let span = Span { start: base + (pos + start) as u64, len: (end - start) as u32 };
                    OmpReading::Object(Box::new(probe_object(map)), span)
                }
                other => OmpReading::NotObject(json_kind(&other)),
            };
            (reading, end)
        }
        // omp's reader resumes after the newline that follows the end of its
        // last good value, i.e. it drops just this line (a value may span
        // lines only when it completes).
        Some(Err(e)) if e.is_eof() => return (OmpReading::Nothing, line_end(chunk, pos), true),
        Some(Err(_)) => (OmpReading::Nothing, 0),
        None => (OmpReading::Nothing, rest.len()),
    };
    let stop = (pos + stop).min(chunk.len());
    (reading, line_end(chunk, stop), false)
}

/// The offset after the newline that ends the line holding `at`.
fn line_end(chunk: &[u8], at: usize) -> usize {
    memchr::memchr(b'\n', &chunk[at..]).map_or(chunk.len(), |i| at + i + 1)
}
