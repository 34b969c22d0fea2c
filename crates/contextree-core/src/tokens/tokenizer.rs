//! Real tokenizer counts (docs/decisions.md D5): the second number shown next to
//! each dialect's own estimate. Never used for the agents' decisions.
//!
//! Building an encoder parses a large rank table (tens of milliseconds), so
//! each one is built at most once per process and shared by all threads.
//! Counting long messages is the expensive part; [`TokenCache`] makes
//! repeated counts of the same text free.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{Mutex, OnceLock};

use tiktoken_rs::CoreBPE;

/// A tokenizer encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TokenizerKind {
    /// GPT-4o / GPT-4.1 / o-series encoding; the default.
    #[default]
    O200kBase,
    /// GPT-4 / GPT-3.5 encoding (what omp ≥ 14 estimates with).
    Cl100kBase,
}

impl TokenizerKind {
    /// Every kind, in a stable order.
    pub const ALL: [TokenizerKind; 2] = [TokenizerKind::O200kBase, TokenizerKind::Cl100kBase];

    /// tiktoken's name for the encoding.
    pub fn name(self) -> &'static str {
        match self {
            TokenizerKind::O200kBase => "o200k_base",
            TokenizerKind::Cl100kBase => "cl100k_base",
        }
    }

    fn encoder(self) -> &'static CoreBPE {
        static O200K: OnceLock<CoreBPE> = OnceLock::new();
        static CL100K: OnceLock<CoreBPE> = OnceLock::new();
        // The rank tables are compiled into tiktoken-rs; building from them
        // only fails if that embedded data is corrupt.
        match self {
            TokenizerKind::O200kBase => O200K.get_or_init(|| tiktoken_rs::o200k_base().expect("embedded o200k_base table")),
            TokenizerKind::Cl100kBase => CL100K.get_or_init(|| tiktoken_rs::cl100k_base().expect("embedded cl100k_base table")),
        }
    }
}

impl fmt::Display for TokenizerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for an unknown tokenizer name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tokenizer `{0}` (expected `o200k_base` or `cl100k_base`)")]
pub struct UnknownTokenizer(pub String);

impl FromStr for TokenizerKind {
    type Err = UnknownTokenizer;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TokenizerKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| UnknownTokenizer(s.to_owned()))
    }
}

/// Number of tokens of `text`.
///
/// Uses the ordinary encoding: text that looks like a special token
/// (`<|endoftext|>`) is counted as the plain text it is, which is what a
/// provider does with message content.
pub fn count(kind: TokenizerKind, text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    kind.encoder().encode_ordinary(text).len()
}

/// Remembers counts by (tokenizer, content digest).
///
/// Keyed by a sha256 of the text rather than the text itself so that the
/// cache holds 32 bytes per entry however large the message. Safe to share
/// between threads. When it reaches its capacity it starts over empty:
/// counts are cheap to redo and a session rarely has more distinct messages.
#[derive(Debug)]
pub struct TokenCache {
    counts: Mutex<HashMap<(TokenizerKind, [u8; 32]), usize>>,
    capacity: usize,
}

impl Default for TokenCache {
    fn default() -> Self {
        TokenCache::new()
    }
}

impl TokenCache {
    /// A cache of up to 65,536 counts.
    pub fn new() -> TokenCache {
        TokenCache::with_capacity(1 << 16)
    }

    /// A cache of up to `capacity` counts (at least 1).
    pub fn with_capacity(capacity: usize) -> TokenCache {
        TokenCache { counts: Mutex::new(HashMap::new()), capacity: capacity.max(1) }
    }

    /// [`count`], remembered.
    pub fn count(&self, kind: TokenizerKind, text: &str) -> usize {
        use sha2::{Digest, Sha256};
        let key = (kind, Sha256::digest(text.as_bytes()).into());
        if let Some(&n) = self.lock().get(&key) {
            return n;
        }
        // Counted without holding the lock, so that threads counting
        // different texts do not wait on each other; a race only counts twice.
        let n = count(kind, text);
        let mut counts = self.lock();
        if counts.len() >= self.capacity {
            counts.clear();
        }
        counts.insert(key, n);
        n
    }

    /// Number of remembered counts.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(TokenizerKind, [u8; 32]), usize>> {
        // A panic while holding the lock cannot leave the map inconsistent
        // (single insert/clear calls), so a poisoned lock is still usable.
        self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for kind in TokenizerKind::ALL {
            assert_eq!(kind.name().parse::<TokenizerKind>(), Ok(kind));
        }
        assert_eq!(TokenizerKind::default(), TokenizerKind::O200kBase);
        assert!("gpt2".parse::<TokenizerKind>().is_err());
    }

    #[test]
    fn known_counts() {
        for kind in TokenizerKind::ALL {
            assert_eq!(count(kind, ""), 0);
            assert_eq!(count(kind, "hello world"), 2, "{kind}");
        }
        // Special-token text is ordinary text here: several tokens, not one.
        assert!(count(TokenizerKind::Cl100kBase, "<|endoftext|>") > 1);
        assert!(count(TokenizerKind::O200kBase, "<|endoftext|>") > 1);
    }

    #[test]
    fn encodings_differ() {
        let text = "    fn main() {\n        println!(\"¿Qué tal?\");\n    }\n";
        let o200k = count(TokenizerKind::O200kBase, text);
        let cl100k = count(TokenizerKind::Cl100kBase, text);
        assert!(o200k > 0 && cl100k > 0);
        assert_eq!(o200k, count(TokenizerKind::O200kBase, text));
    }

    #[test]
    fn cache_remembers_per_kind() {
        let cache = TokenCache::with_capacity(2);
        assert!(cache.is_empty());
        assert_eq!(cache.count(TokenizerKind::O200kBase, "hello world"), 2);
        assert_eq!(cache.count(TokenizerKind::O200kBase, "hello world"), 2);
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.count(TokenizerKind::Cl100kBase, "hello world"), 2);
        assert_eq!(cache.len(), 2);
        cache.count(TokenizerKind::O200kBase, "other");
        assert_eq!(cache.len(), 1, "a full cache starts over");
    }
}
