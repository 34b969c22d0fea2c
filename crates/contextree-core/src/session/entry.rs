//! The entry model: what the index keeps of every line.

use serde_json::{Map, Value};

use super::name::Name;
use super::source::Span;
use crate::{Dialect, RuleSet};

/// The role of a `message` entry's message (session-format.md §5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// A user prompt.
    User,
    /// A model response.
    Assistant,
    /// Output of a tool call.
    ToolResult,
    /// A user-run shell command (`!cmd`).
    BashExecution,
    /// An extension message (v3 name).
    Custom,
    /// An extension message (v2 name; renamed to `custom` by migration).
    HookMessage,
    /// In-memory branch summary role, accepted when stored.
    BranchSummary,
    /// In-memory compaction summary role, accepted when stored.
    CompactionSummary,
    /// omp: agent-authored instructions.
    Developer,
    /// omp: auto-read `@file` mentions.
    FileMention,
    /// omp: a user-run Python cell.
    PythonExecution,
    /// pi ≥ 0.86: the system prompt and tool declarations, or a patch of them.
    System,
    /// Any other role, kept verbatim (inline up to 15 bytes: `Role` is 16 bytes).
    Other(Name),
}

impl Role {
    /// Parses a role name as stored in the file.
    pub fn parse(s: &str) -> Role {
        match s {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "toolResult" => Role::ToolResult,
            "bashExecution" => Role::BashExecution,
            "custom" => Role::Custom,
            "hookMessage" => Role::HookMessage,
            "branchSummary" => Role::BranchSummary,
            "compactionSummary" => Role::CompactionSummary,
            "developer" => Role::Developer,
            "fileMention" => Role::FileMention,
            "pythonExecution" => Role::PythonExecution,
            "system" => Role::System,
            other => Role::Other(other.into()),
        }
    }

    /// The role name as the agents write it.
    pub fn as_str(&self) -> &str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::ToolResult => "toolResult",
            Role::BashExecution => "bashExecution",
            Role::Custom => "custom",
            Role::HookMessage => "hookMessage",
            Role::BranchSummary => "branchSummary",
            Role::CompactionSummary => "compactionSummary",
            Role::Developer => "developer",
            Role::FileMention => "fileMention",
            Role::PythonExecution => "pythonExecution",
            Role::System => "system",
            Role::Other(s) => s,
        }
    }
}

/// Token usage reported with an assistant message (session-format.md §5.8).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Usage {
    /// Prompt tokens not served from cache.
    pub input: f64,
    /// Completion tokens.
    pub output: f64,
    /// Prompt tokens read from cache.
    pub cache_read: f64,
    /// Prompt tokens written to cache.
    pub cache_write: f64,
    /// The provider's total, 0 when absent.
    pub total_tokens: f64,
}

impl Usage {
    /// `calculateContextTokens`: `totalTokens`, or the sum of the parts when it is 0.
    pub fn context_tokens(&self) -> f64 {
        if self.total_tokens != 0.0 && !self.total_tokens.is_nan() {
            self.total_tokens
        } else {
            self.input + self.output + self.cache_read + self.cache_write
        }
    }

    /// omp's `calculatePromptTokens`: input + cache, or the context tokens when that is 0.
    pub fn prompt_tokens(&self) -> f64 {
        let prompt = self.input + self.cache_read + self.cache_write;
        if prompt > 0.0 {
            prompt
        } else {
            self.context_tokens()
        }
    }
}

/// What the index keeps of a `message` entry: enough for token numbers, cut
/// points and state, never the text.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageMeta {
    /// The message role.
    pub role: Role,
    /// UTF-16 units the chars/4 estimate counts for this role, as pi 0.73 and
    /// omp 13 count them (for `custom`/`hookMessage`: counted like a tool
    /// result; the dialect decides whether they count at all); for `system`,
    /// as pi ≥ 0.86 counts it.
    pub chars: u64,
    /// omp 18's model-less `Tokenizer` count of the message (omp-18.md §4.2):
    /// Σ `(UTF-8 bytes + 3) >> 2` over its fragments, images 1200.
    pub omp18_tokens: u64,
    /// Image blocks of a user message (pi ≥ 0.76 counts them).
    pub images: u32,
    /// `usage`, `stopReason`, `provider` and `model`: out of line, and no allocation at all
    /// for a message that has none of them (`m.reply.usage` reads through).
    pub reply: Facts<ReplyFacts>,
    /// `excludeFromContext` of bash/python executions.
    pub exclude_from_context: bool,
    /// omp: the tool result's output was pruned (`prunedAt` is set).
    pub pruned: bool,
    /// `toolName` of a tool result.
    pub tool_name: Option<Name>,
    /// What omp ≥ 18's context needs of a turn (omp-18.md §2.3, §2.4); out of line, and
    /// nothing allocated when they are all empty (all but omp 18's assistant turns and tool
    /// results).
    pub turn: Facts<TurnFacts>,
}

/// What an assistant message reports beyond its text: kept out of the entry record, which a
/// million-entry file holds a million of (docs/benchmarks.md "Memory with many small entries").
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReplyFacts {
    /// Usage of an assistant message.
    pub usage: Option<Usage>,
    /// `stopReason` of the message.
    pub stop_reason: Option<Name>,
    /// `provider` and `model` of an assistant message: one pointer, the pair shared by the
    /// replies of one model ([`Name::shared_pair`]).
    pub model: Option<std::sync::Arc<(Name, Name)>>,
}

impl ReplyFacts {
    const EMPTY: ReplyFacts = ReplyFacts { usage: None, stop_reason: None, model: None };
}

/// Facts of an entry kept out of line: one pointer in the record, nothing allocated when they
/// equal their default (which reading them through `Deref` then returns).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Facts<T: Empty>(Option<Box<T>>);

/// A facts type with a shared empty value.
pub trait Empty: Default + PartialEq + 'static {
    /// The empty (default) value.
    fn empty() -> &'static Self;
}

impl Empty for ReplyFacts {
    fn empty() -> &'static Self {
        &ReplyFacts::EMPTY
    }
}

impl Empty for TurnFacts {
    fn empty() -> &'static Self {
        static EMPTY: std::sync::OnceLock<TurnFacts> = std::sync::OnceLock::new();
        EMPTY.get_or_init(TurnFacts::default)
    }
}

impl<T: Empty> Facts<T> {
    /// Keeps `facts`, allocating only when they are not empty.
    pub fn new(facts: T) -> Facts<T> {
        Facts((facts != T::default()).then(|| Box::new(facts)))
    }
}

impl<T: Empty> From<T> for Facts<T> {
    fn from(facts: T) -> Facts<T> {
        Facts::new(facts)
    }
}

impl<T: Empty> std::ops::Deref for Facts<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0.as_deref().unwrap_or_else(|| T::empty())
    }
}

/// What omp 18's `buildSessionContext` reads of a message beyond the index:
/// tool-call ids (as [`call_key`](super::call_key)s), retry-recovery and
/// empty error turns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TurnFacts {
    /// Assistant: the keys of its `toolCall` blocks' ids, in order
    /// ([`call_block_key`](super::call_block_key)).
    pub call_ids: Box<[u64]>,
    /// Tool result: the key of its `toolCallId` ([`call_key`](super::call_key);
    /// a missing one is `undefined`'s key); None when it pairs with no call
    /// (an object or array), and for other roles.
    pub tool_call_id: Option<u64>,
    /// Assistant: blocks that are neither `toolCall` nor `redactedThinking`
    /// (what is left when every call is stripped); 0 for a turn without calls,
    /// whose facts then stay empty (nothing allocated).
    pub other_blocks: u32,
    /// Assistant: `retryRecovery` is set (truthy).
    pub retry_recovery: bool,
    /// Assistant: `isEmptyErrorTurn` (stopReason `error`, nothing but blank
    /// text, thinking and data, no call).
    pub empty_error: bool,
    /// Assistant: bit k set when its k-th tool call is a `read` of a
    /// `skill://` path (omp 18 never prunes those results).
    pub skill_reads: u64,
    /// Tool result: flagged `useless: true` by its tool and not an error
    /// (omp ≥ 15 leaves it and its call out of summaries, prunes it first).
    pub useless: bool,
    /// Assistant: carries `requestControls` or `credentialId`, fields only oh-my-pi ≥ 18.3
    /// writes (omp-18.3.md §3): evidence of its rules (D22).
    pub omp183_fields: bool,
}

impl MessageMeta {
    /// The rule set's own `estimateTokens` for this message (context.md §3.1,
    /// pi-1.6.md §3.1).
    pub fn estimate(&self, rules: RuleSet) -> u64 {
        if rules.counts_utf8_fragments() {
            return self.omp18_tokens;
        }
        let counted = match (&self.role, rules.dialect()) {
            (Role::Custom, Dialect::Omp) | (Role::HookMessage, Dialect::Pi) => 0,
            (Role::System, _) if !rules.projects_context_edits() => 0,
            (Role::User, _) if rules.counts_user_images() => self.chars + 4800 * u64::from(self.images),
            _ => self.chars,
        };
        counted.div_ceil(4)
    }

    /// Whether the assistant usage counts as "usable" (not aborted, not an
    /// error; under pi ≥ 0.80 also not all zero).
    pub fn usable_usage_under(&self, rules: RuleSet) -> Option<Usage> {
        self.usable_usage().filter(|u| !rules.ignores_zero_usage() || u.context_tokens() > 0.0)
    }

    /// Whether the assistant usage counts as "usable" (not aborted, not an error).
    pub fn usable_usage(&self) -> Option<Usage> {
        // Bytes, not `as_deref`: read for every assistant of a path, and `&str` costs a UTF-8 check.
        match self.reply.stop_reason.as_ref().map(Name::as_bytes) {
            Some(b"aborted" | b"error") => None,
            _ => self.reply.usage,
        }
    }
}

/// An optional time in ms since the epoch in 8 bytes (`Option<f64>` takes 16): "none" is a
/// NaN with a payload no date parser or arithmetic produces.
#[derive(Clone, Copy)]
pub struct Timestamp(f64);

impl Timestamp {
    const NONE_BITS: u64 = 0x7ff8_dead_beef_0001;
    /// No timestamp.
    pub const NONE: Timestamp = Timestamp(f64::from_bits(Timestamp::NONE_BITS));

    /// Keeps `ms`.
    pub fn new(ms: Option<f64>) -> Timestamp {
        match ms {
            Some(v) if v.to_bits() != Timestamp::NONE_BITS => Timestamp(v),
            Some(_) => Timestamp(f64::NAN),
            None => Timestamp::NONE,
        }
    }

    /// The time, when there is one.
    pub fn get(self) -> Option<f64> {
        (self.0.to_bits() != Timestamp::NONE_BITS).then_some(self.0)
    }
}

impl From<Option<f64>> for Timestamp {
    fn from(ms: Option<f64>) -> Timestamp {
        Timestamp::new(ms)
    }
}

impl PartialEq for Timestamp {
    fn eq(&self, other: &Timestamp) -> bool {
        self.get() == other.get()
    }
}

impl std::fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// The payload of an entry.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryKind {
    /// A `message` entry.
    Message(MessageMeta),
    /// Any other entry type; the whole JSON object is kept (they are small
    /// and the algorithms read many of their fields).
    Other(Box<Map<String, Value>>),
}

/// One entry of the session (header excluded), after the dialect's parser and
/// migration.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The entry id (for migrated v1 files: the deterministic `0000000n` id).
    pub id: Name,
    /// The parent id as written (or assigned by migration).
    pub parent_id: Option<Name>,
    /// The `type` field.
    pub entry_type: Name,
    /// 1-based physical line.
    pub line: u32,
    /// Byte span of the entry's JSON value in the file.
    pub span: Span,
    /// The entry `timestamp` as ms since the epoch, when it parses as a date.
    pub timestamp_ms: Timestamp,
    /// Payload.
    pub kind: EntryKind,
    /// Migration changed this entry (ids assigned, `hookMessage` renamed,
    /// `firstKeptEntryIndex` resolved): its bytes in the file differ from the
    /// entry the agents see.
    pub migrated: bool,
}

impl Entry {
    /// The id, or None for an entry that has none (a non-object line, a
    /// missing `id` field).
    pub fn id(&self) -> Option<&str> {
        (!self.id.is_empty()).then_some(&*self.id)
    }

    /// The `type`, or None when the entry has none.
    pub fn kind_name(&self) -> Option<&str> {
        (!self.entry_type.is_empty()).then_some(&*self.entry_type)
    }

    /// The message facts of a `message` entry.
    pub fn message(&self) -> Option<&MessageMeta> {
        match &self.kind {
            EntryKind::Message(m) => Some(m),
            EntryKind::Other(_) => None,
        }
    }

    /// The JSON object of a non-message entry.
    pub fn object(&self) -> Option<&Map<String, Value>> {
        match &self.kind {
            EntryKind::Message(_) => None,
            EntryKind::Other(map) => Some(map),
        }
    }

    /// A string field of a non-message entry.
    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.object()?.get(key)?.as_str()
    }
}

#[cfg(test)]
mod layout {
    use super::*;
    use crate::session::Session;
    use std::mem::size_of;

    /// A million-entry file keeps a million of these (docs/benchmarks.md "Memory with many
    /// small entries"): the records must not grow unnoticed.
    #[test]
    fn entry_records_stay_small() {
        assert_eq!(size_of::<Name>(), 16);
        assert_eq!(size_of::<Option<Name>>(), 16);
        assert_eq!(size_of::<Role>(), 16);
        assert!(size_of::<MessageMeta>() <= 72, "MessageMeta is {} bytes", size_of::<MessageMeta>());
        assert!(size_of::<ReplyFacts>() <= 72, "ReplyFacts is {} bytes", size_of::<ReplyFacts>());
        assert!(size_of::<Entry>() <= 152, "Entry is {} bytes", size_of::<Entry>());
        let tokens = size_of::<(crate::context::Item, Name, u64)>();
        assert!(tokens <= 40, "a context message's token row is {tokens} bytes");
    }

    /// The strings of an ordinary entry live in its record, not in allocations of their own.
    #[test]
    fn ids_types_and_short_names_are_inline() {
        let file = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-11-03T09:12:05.000Z","cwd":"/w"}"#,
            "\n",
            r#"{"type":"message","id":"2265b1f5","parentId":null,"timestamp":"2025-11-03T09:12:19.797Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
            "\n",
            r#"{"type":"message","id":"c2ce6f44","parentId":"2265b1f5","timestamp":"2025-11-03T09:12:20.797Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":"x","timestamp":2}}"#,
            "\n",
        );
        let s = Session::parse(file.as_bytes(), None);
        assert_eq!(s.entries().len(), 2);
        for e in s.entries() {
            assert!(e.id.is_inline() && e.entry_type.is_inline() && e.parent_id.as_ref().is_none_or(Name::is_inline));
        }
        assert_eq!(s.entries()[1].parent_id.as_deref(), Some("2265b1f5"));
        assert!(s.entries()[1].message().and_then(|m| m.tool_name.as_ref()).is_some_and(|t| t.is_inline() && t == "read"));
    }
}
