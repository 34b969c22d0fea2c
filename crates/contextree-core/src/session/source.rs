//! Where entry bytes come from when a view needs the full text of an entry.

use std::borrow::Cow;

/// A byte range of the session file (one JSON value, without the newline).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    /// Offset of the first byte in the file.
    pub start: u64,
    /// Length in bytes.
    pub len: u32,
}

impl Span {
    /// One past the last byte (saturating: a span read from a damaged index cannot overflow).
    pub fn end(self) -> u64 {
        self.start.saturating_add(u64::from(self.len))
    }
}

/// Gives the bytes of a span. Implemented for in-memory bytes here; the host
/// crate implements it for files with positioned reads.
pub trait Source: Sync {
    /// The bytes of `span`, or why they cannot be read.
    fn bytes(&self, span: Span) -> Result<Cow<'_, [u8]>, SourceError>;
}

/// Why the bytes of a span cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The span is not inside the data (the file is shorter than when it was indexed).
    #[error("bytes {}..{} are outside the data", .0.start, .0.end())]
    OutOfRange(Span),
    /// Reading failed.
    #[error("cannot read bytes {}..{}: {source}", span.start, span.end())]
    Io {
        /// What was read.
        span: Span,
        /// The reader's error.
        #[source]
        source: std::io::Error,
    },
}

impl Source for [u8] {
    fn bytes(&self, span: Span) -> Result<Cow<'_, [u8]>, SourceError> {
        let range = usize::try_from(span.start).ok().and_then(|start| Some(start..start.checked_add(span.len as usize)?));
        range.and_then(|r| self.get(r)).map(Cow::Borrowed).ok_or(SourceError::OutOfRange(span))
    }
}

impl Source for Vec<u8> {
    fn bytes(&self, span: Span) -> Result<Cow<'_, [u8]>, SourceError> {
        self.as_slice().bytes(span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_past_the_data_is_out_of_range_not_a_panic() {
        let data: &[u8] = b"{\"a\":1}\n";
        assert_eq!(data.bytes(Span { start: 0, len: 7 }).unwrap().as_ref(), b"{\"a\":1}");
        for span in [Span { start: 5, len: 7 }, Span { start: u64::MAX, len: 1 }, Span { start: u64::MAX - 1, len: u32::MAX }] {
            let err = data.bytes(span).unwrap_err();
            assert!(matches!(err, SourceError::OutOfRange(s) if s == span), "{err:?}");
            assert!(err.to_string().ends_with("are outside the data"));
        }
        assert_eq!(data.bytes(Span { start: 5, len: 7 }).unwrap_err().to_string(), "bytes 5..12 are outside the data");
    }
}
