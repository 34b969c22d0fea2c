//! Session files: lines → records → entries (per dialect) → tree.
//!
//! A session is indexed once: every line is parsed into a small [`LineRecord`]
//! that keeps the facts the algorithms need (ids, parent, role, the chars the
//! token estimate counts, usage) and the byte span of the line, never the
//! message text. Text is re-read from the file through a [`Source`] when a
//! view needs it, so a 500 MB file costs tens of MB of memory, not gigabytes.
//! Non-message entries (compactions, labels, model changes, unknown types) are
//! few and small, so their parsed JSON is kept.

mod block;
mod call_id;
mod detect;
mod diagnostic;
mod entry;
mod fast;
mod idmap;
mod load;
mod name;
pub(crate) mod probe;
mod record;
mod source;
mod tree;
mod window;

pub use call_id::{call_block_key, call_id_hash, call_key};
pub use detect::{Detection, NewerEvidence, Signals};
pub use diagnostic::{Diagnostic, Severity};
pub use entry::{Empty, Entry, EntryKind, Facts, MessageMeta, ReplyFacts, Role, Timestamp, TurnFacts, Usage};
pub use load::{Row, RulePolicy, Session, TitleSlot};
pub use name::Name;
pub use probe::{parse_iso_ms, parse_value_lenient, probe_line, probe_object, Parent, Probe, ProbeError};
pub use record::{index_chunk, ChunkIndex, LineRecord, OmpReading, Reading};
pub use source::{Source, SourceError, Span};
pub use tree::{Link, NodeId, SessionTree};
