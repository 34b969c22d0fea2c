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
use std::sync::Arc;

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
    /// Longer names (rare, but for model names): one pointer, so the inline variant's
    /// length byte stays free for the tag; shared, so a name made by [`Name::shared`] is held
    /// once however many entries name it.
    Heap(Arc<Box<str>>),
}

/// How many long names [`Name::shared`] remembers per thread (the oldest is replaced).
pub(crate) const SHARED_NAMES: usize = 32;

/// The long names [`Name::shared`] made last on this thread.
#[derive(Default)]
struct Shared {
    names: Vec<Name>,
    next: usize,
}

/// The pairs [`Name::shared_pair`] made last on this thread.
#[derive(Default)]
struct SharedPairs {
    pairs: Vec<Arc<(Name, Name)>>,
    next: usize,
}

thread_local! {
    static SHARED: std::cell::RefCell<Shared> = std::cell::RefCell::new(Shared::default());
    static SHARED_PAIRS: std::cell::RefCell<SharedPairs> = std::cell::RefCell::new(SharedPairs::default());
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

    /// A name for a value many entries repeat (a model, a provider): longer than 15 bytes, it
    /// is shared with an equal name made earlier on this thread (one of the last
    /// 32, `SHARED_NAMES`), so a million replies of one model hold its name once
    /// (docs/benchmarks.md "Memory with many small entries").
    pub fn shared(s: &str) -> Name {
        if s.len() <= INLINE {
            return Name::from(s);
        }
        SHARED.with(|cell| {
            let mut shared = cell.borrow_mut();
            if let Some(n) = shared.names.iter().find(|n| n.as_str() == s) {
                return n.clone();
            }
            let n = Name::from(s);
            if shared.names.len() < SHARED_NAMES {
                shared.names.push(n.clone());
            } else {
                let at = shared.next;
                shared.names[at] = n.clone();
                shared.next = (at + 1) % SHARED_NAMES;
            }
            n
        })
    }

    /// A `(provider, model)` pair shared like [`Name::shared`]: equal pairs made on this thread
    /// (one of the last 32, `SHARED_NAMES`) are one allocation.
    pub fn shared_pair(first: &str, second: &str) -> Arc<(Name, Name)> {
        SHARED_PAIRS.with(|cell| {
            let mut shared = cell.borrow_mut();
            if let Some(p) = shared.pairs.iter().find(|p| p.0 == first && p.1 == second) {
                return p.clone();
            }
            let p = Arc::new((Name::shared(first), Name::shared(second)));
            if shared.pairs.len() < SHARED_NAMES {
                shared.pairs.push(p.clone());
            } else {
                let at = shared.next;
                shared.pairs[at] = p.clone();
                shared.next = (at + 1) % SHARED_NAMES;
            }
            p
        })
    }

    /// Length in bytes, as `str::len`, without the UTF-8 check a `Deref` to `str` makes of an
    /// inline name (about 100 instructions a call, on the serial part of a load).
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Whether the name is empty, without the UTF-8 check (see [`Name::len`]).
    pub fn is_empty(&self) -> bool {
        self.as_bytes().is_empty()
    }

    /// The text's bytes: comparisons and hashing use them, skipping the UTF-8 check `as_str`
    /// makes of an inline name (a few million comparisons when a large session is linked).
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, bytes } => &bytes[..*len as usize],
            Repr::Heap(s) => s.as_bytes(),
        }
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
            None => Name(Repr::Heap(Arc::new(s.into()))),
        }
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        if s.len() <= INLINE {
            Name::from(s.as_str())
        } else {
            Name(Repr::Heap(Arc::new(s.into_boxed_str())))
        }
    }
}

impl From<Box<str>> for Name {
    fn from(s: Box<str>) -> Name {
        if s.len() <= INLINE {
            Name::from(&*s)
        } else {
            Name(Repr::Heap(Arc::new(s)))
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
        match (&self.0, &other.0) {
            // An inline name's bytes past its length are zero (every constructor starts from
            // zeros), so two of them compare as whole arrays: a few loads, not a call to
            // `memcmp` (ids are compared this way a few times an entry when a file is linked).
            (Repr::Inline { len: a, bytes: x }, Repr::Inline { len: b, bytes: y }) => a == b && x == y,
            _ => self.as_bytes() == other.as_bytes(),
        }
    }
}

impl Eq for Name {}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        // UTF-8 orders as its code points do.
        self.as_bytes().cmp(other.as_bytes())
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
    fn names_are_equal_exactly_when_their_texts_are() {
        // Inline names compare as whole arrays: a trailing NUL, a prefix or the 15/16-byte
        // boundary between inline and heap must not make two different texts equal.
        let texts =
            ["", "\0", "a", "a\0", "ab", "ba", "8f3a2b1c", "8f3a2b1d", "fifteen_bytes_x", "fifteen_bytes_y", "sixteen_bytes_xy", "ü", "u"];
        for a in texts {
            for b in texts {
                let (x, y) = (Name::from(a), Name::from(b));
                assert_eq!(x == y, a == b, "{a:?} {b:?}");
                assert_eq!(x == b, a == b, "{a:?} {b:?}");
            }
        }
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

    /// A long name repeated by many entries is held once.
    #[test]
    fn shared_long_names_are_one_allocation() {
        let same = |a: &Name, b: &Name| match (&a.0, &b.0) {
            (Repr::Heap(x), Repr::Heap(y)) => Arc::ptr_eq(x, y),
            _ => false,
        };
        let a = Name::shared("claude-sonnet-4-5");
        let b = Name::shared(&String::from("claude-sonnet-4-5"));
        assert!(same(&a, &b) && a == "claude-sonnet-4-5");
        assert!(!same(&a, &Name::from("claude-sonnet-4-5")));
        assert!(Name::shared("stop").is_inline());
        // More distinct names than are remembered: each still reads back.
        let many: Vec<Name> = (0..2 * SHARED_NAMES).map(|i| Name::shared(&format!("a-long-model-name-{i}"))).collect();
        for (i, n) in many.iter().enumerate() {
            assert_eq!(n.as_str(), format!("a-long-model-name-{i}"));
        }
        assert_eq!(Name::shared("claude-sonnet-4-5"), a);
        let pair = Name::shared_pair("anthropic", "claude-sonnet-4-5");
        assert!(Arc::ptr_eq(&pair, &Name::shared_pair("anthropic", "claude-sonnet-4-5")));
        assert_eq!((pair.0.as_str(), pair.1.as_str()), ("anthropic", "claude-sonnet-4-5"));
        assert!(!Arc::ptr_eq(&pair, &Name::shared_pair("", "claude-sonnet-4-5")));
    }
}
