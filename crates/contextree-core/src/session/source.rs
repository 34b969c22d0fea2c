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
    /// One past the last byte.
    pub fn end(self) -> u64 {
        self.start + u64::from(self.len)
    }
}

/// Gives the bytes of a span. Implemented for in-memory bytes here; the host
/// crate implements it for files with positioned reads.
pub trait Source: Sync {
    /// The bytes of `span`, or an error text when they cannot be read.
    fn bytes(&self, span: Span) -> Result<Cow<'_, [u8]>, String>;
}

impl Source for [u8] {
    fn bytes(&self, span: Span) -> Result<Cow<'_, [u8]>, String> {
        let start = usize::try_from(span.start).map_err(|e| e.to_string())?;
        self.get(start..start + span.len as usize)
            .map(Cow::Borrowed)
            .ok_or_else(|| format!("span {}..{} is outside the data", span.start, span.end()))
    }
}

impl Source for Vec<u8> {
    fn bytes(&self, span: Span) -> Result<Cow<'_, [u8]>, String> {
        self.as_slice().bytes(span)
    }
}
