//! [`Name`]: a short string kept inline. Entry ids (pi and omp write 8 hex
//! digits), entry types, roles' stop reasons and tool names are nearly always
//! at most 15 bytes; keeping them in the entry record instead of in a heap
//! allocation of their own saves three to six allocations an entry (a
//! million-entry file: hundreds of MB, docs/benchmarks.md "Memory with many
//! small entries").

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

/// Bytes kept inline.
const INLINE: usize = 15;

/// The length of an inline name: 0..=15. Its other byte values are the niche
/// that makes `Name` and `Option<Name>` 16 bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
#[rustfmt::skip]
enum Len { L0, L1, L2, L3, L4, L5, L6, L7, L8, L9, L10, L11, L12, L13, L14, L15 }

impl Len {
    const ALL: [Len; INLINE + 1] = [
        Len::L0,
        Len::L1,
        Len::L2,
        Len::L3,
        Len::L4,
        Len::L5,
        Len::L6,
        Len::L7,
        Len::L8,
        Len::L9,
        Len::L10,
        Len::L11,
        Len::L12,
        Len::L13,
        Len::L14,
        Len::L15,
    ];
}

#[derive(Clone)]
enum Repr {
    Inline {
        len: Len,
        bytes: [u8; INLINE],
    },
    /// Longer names (rare): one pointer, so the inline variant's length byte
    /// stays free for the tag.
    Heap(Box<Box<str>>),
}

/// A string of any length, inline up to 15 bytes (16 bytes in all; `Option<Name>` too).
#[derive(Clone)]
pub struct Name(Repr);

impl Name {
    /// The empty name.
    pub const EMPTY: Name = Name(Repr::Inline { len: Len::L0, bytes: [0; INLINE] });

    /// Whether the text is held in the name itself (no allocation of its own).
    pub fn is_inline(&self) -> bool {
        matches!(self.0, Repr::Inline { .. })
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // Built from a `&str` cut at its full length: always UTF-8.
            Repr::Inline { len, bytes } => std::str::from_utf8(&bytes[..*len as usize]).unwrap_or_default(),
            Repr::Heap(s) => s,
        }
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        match Len::ALL.get(s.len()) {
            Some(&len) => {
                let mut bytes = [0; INLINE];
                bytes[..s.len()].copy_from_slice(s.as_bytes());
                Name(Repr::Inline { len, bytes })
            }
            None => Name(Repr::Heap(Box::new(s.into()))),
        }
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        if s.len() <= INLINE {
            Name::from(s.as_str())
        } else {
            Name(Repr::Heap(Box::new(s.into_boxed_str())))
        }
    }
}

impl From<Box<str>> for Name {
    fn from(s: Box<str>) -> Name {
        if s.len() <= INLINE {
            Name::from(&*s)
        } else {
            Name(Repr::Heap(Box::new(s)))
        }
    }
}

impl From<&String> for Name {
    fn from(s: &String) -> Name {
        Name::from(s.as_str())
    }
}

impl From<Name> for String {
    fn from(n: Name) -> String {
        n.as_str().to_owned()
    }
}

impl From<Name> for Box<str> {
    fn from(n: Name) -> Box<str> {
        n.as_str().into()
    }
}

impl From<Name> for serde_json::Value {
    fn from(n: Name) -> serde_json::Value {
        serde_json::Value::String(n.into())
    }
}

impl Default for Name {
    fn default() -> Name {
        Name::EMPTY
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Name {}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl serde::Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_and_an_optional_name_take_16_bytes() {
        assert_eq!(std::mem::size_of::<Name>(), 16);
        assert_eq!(std::mem::size_of::<Option<Name>>(), 16);
    }

    #[test]
    fn names_of_every_length_read_back() {
        for s in ["", "a", "8f3a2b1c", "thinking_level", "fifteen_bytes_x", "sixteen_bytes_xy", "ünïcödé-idéntifïer-🦀", &"x".repeat(300)]
        {
            let n = Name::from(s);
            assert_eq!(&*n, s);
            assert_eq!(Name::from(s.to_owned()), n);
            assert_eq!(Name::from(Box::<str>::from(s)), n);
            assert_eq!(n.clone(), n);
            assert_eq!(format!("{n:?}"), format!("{s:?}"));
        }
        assert!(Name::default().is_empty());
    }
}
