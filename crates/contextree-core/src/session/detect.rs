//! The dialect signals of docs/decisions.md D1, read chunk by chunk.
//!
//! Each indexing worker reads its chunk's signals right after indexing it,
//! while the scan still runs, so the main thread only merges a few small
//! lists after it. What detection keeps merges in file order: the signal
//! lists in order of first appearance (a later chunk appends what is new),
//! the newer-release evidence (the first evidence of the newest set: a later
//! chunk's wins only with a strictly newer set) and the header's signals,
//! which come from the file's first object record (chunk 0's, unless that
//! chunk holds none).

use std::borrow::Cow;

use serde_json::Value;

use super::entry::{EntryKind, Role};
use super::name::Name;
use super::record::{ChunkIndex, LineRecord, Reading};
use crate::dialect::RuleSet;
use crate::Dialect;

/// Why a dialect was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    /// The dialect the file's signals point to (pi when there are none).
    pub detected: Dialect,
    /// The signals seen, for display ("`fromExtension` on summaries", ...).
    pub signals: Vec<String>,
    /// What only a newer release of each agent writes (docs/decisions.md D22):
    /// for pi, entries of pi ≥ 0.86; for omp, those of omp 18.
    pub newer: NewerEvidence,
}

/// Entries only the newer rule set's releases write, per agent: the first
/// kind seen, as a phrase ("system messages in the transcript").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewerEvidence {
    /// Evidence of pi ≥ 0.86 (pi-1.6.md §1.6): the newest rule set it shows, and what.
    pub pi: Option<(RuleSet, String)>,
    /// Evidence of oh-my-pi ≥ 18 (omp-18.md §1, omp-18.3.md §4): the newest rule set it
    /// shows, and what.
    pub omp: Option<(RuleSet, String)>,
}

impl NewerEvidence {
    /// The evidence for `dialect`'s newer rule sets: what the file shows of the newest one.
    pub fn of(&self, dialect: Dialect) -> Option<&str> {
        self.slot(dialect).as_ref().map(|(_, what)| what.as_str())
    }

    /// The newest rule set of `dialect` the file shows (entries no older release writes).
    pub fn shows(&self, dialect: Dialect) -> Option<RuleSet> {
        self.slot(dialect).as_ref().map(|(rules, _)| *rules)
    }

    fn slot(&self, dialect: Dialect) -> &Option<(RuleSet, String)> {
        match dialect {
            Dialect::Pi => &self.pi,
            Dialect::Omp => &self.omp,
        }
    }

    /// Notes that the file shows `rules` by `what`; the first evidence of the newest set wins.
    fn note(&mut self, rules: RuleSet, what: impl FnOnce() -> String) {
        let slot = match rules.dialect() {
            Dialect::Pi => &mut self.pi,
            Dialect::Omp => &mut self.omp,
        };
        if slot.as_ref().is_none_or(|(seen, _)| rules > *seen) {
            *slot = Some((rules, what()));
        }
    }
}

/// The signals of a run of records: what [`Detection`] is made of, before
/// the lists are named and the dialect chosen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Signals {
    omp: Vec<&'static str>,
    pi: Vec<&'static str>,
    newer: NewerEvidence,
    /// Read as the file's start: the first object record taken as the header
    /// (or omp 18's title slot on line 1, then the next one).
    lead: bool,
    /// Read as the file's start and no header record was met: the next
    /// chunk's first object record is the header.
    header_pending: bool,
}

fn note(list: &mut Vec<&'static str>, s: &'static str) {
    if !list.contains(&s) {
        list.push(s);
    }
}

impl Signals {
    /// The signals of `records` (in file order, lines numbered from the
    /// file's start when `lead`), read as the file's first records when
    /// `lead`, else as records after the header.
    pub fn of(records: &[LineRecord], lead: bool) -> Signals {
        let mut out = Signals { lead, header_pending: lead, ..Signals::default() };
        for rec in records {
            let Reading::Object(probe) = &rec.reading else { continue };
            if out.header_pending && rec.line == 1 && probe.entry_type.as_deref() == Some("title") {
                // omp 18's fixed-width title slot sits before the header (omp-18.md §1.1).
                note(&mut out.omp, "title line before the header");
                out.newer.note(RuleSet::Omp18, || "a title line before the session header".into());
                continue;
            }
            if std::mem::take(&mut out.header_pending) {
                out.header(&probe.kind);
                continue;
            }
            out.entry(probe.entry_type.as_ref(), &probe.kind);
        }
        out
    }

    fn header(&mut self, kind: &EntryKind) {
        if let EntryKind::Other(h) = kind {
            if h.contains_key("title") {
                note(&mut self.omp, "header `title`");
            }
            match h.get("id").and_then(Value::as_str) {
                Some(id) if id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()) => note(&mut self.omp, "snowflake session id"),
                Some(id) if id.len() == 36 && id.matches('-').count() == 4 => note(&mut self.pi, "UUID session id"),
                _ => {}
            }
        }
    }

    /// `entry_type` as a name: read as `&str` (a UTF-8 check, ~100 instructions) only for the
    /// few entries that are no messages.
    fn entry(&mut self, entry_type: Option<&Name>, kind: &EntryKind) {
        let (omp, pi, newer) = (&mut self.omp, &mut self.pi, &mut self.newer);
        match kind {
            EntryKind::Message(m) => match &m.role {
                Role::Developer | Role::FileMention | Role::PythonExecution => note(omp, "omp-only message roles"),
                Role::System => {
                    // Only pi ≥ 0.86 persists system messages (pi-1.6.md §1.6).
                    note(pi, "system messages");
                    newer.note(RuleSet::Pi16, || "system messages in the transcript (pi ≥ 0.86)".into());
                }
                Role::Assistant if m.turn.omp183_fields => {
                    newer
                        .note(RuleSet::Omp183, || "an assistant message with `requestControls` or `credentialId` (oh-my-pi ≥ 18.3)".into());
                }
                _ if m.pruned => note(omp, "pruned tool results (`prunedAt`)"),
                _ => {}
            },
            EntryKind::Other(map) => {
                let t = entry_type.map_or("", |t| t.as_str());
                match t {
                    "context_edit" => {
                        note(pi, "`context_edit` entries");
                        newer.note(RuleSet::Pi16, || "`context_edit` entries (pi ≥ 0.87)".into());
                    }
                    "usage" => {
                        note(pi, "`usage` entries");
                        newer.note(RuleSet::Pi16, || "`usage` entries (pi ≥ 0.86)".into());
                    }
                    "compaction" if map.contains_key("systemMessage") => {
                        newer.note(RuleSet::Pi16, || "a compaction with a `systemMessage` checkpoint (pi ≥ 0.86)".into());
                    }
                    "reset_boundary" | "credential_pin" | "model_usage" | "title_change" => {
                        note(omp, "omp 18 entry types");
                        newer.note(RuleSet::Omp18, || format!("`{t}` entries (oh-my-pi 18)"));
                    }
                    "service_tier_change" | "ttsr_injection" | "mcp_tool_selection" | "session_init" | "mode_change" => {
                        note(omp, "omp-only entry types");
                        if t == "session_init" && map.contains_key("compactionThreshold") {
                            newer.note(RuleSet::Omp183, || "a `session_init` entry with `compactionThreshold` (oh-my-pi ≥ 18.3.1)".into());
                        }
                    }
                    "session_info" => note(pi, "`session_info` entries"),
                    "model_change" if map.contains_key("model") => note(omp, "`model_change` with `model`"),
                    "model_change" if map.contains_key("modelId") => note(pi, "`model_change` with `provider`/`modelId`"),
                    _ => {}
                }
                if t == "compaction"
                    && map.get("preserveData").and_then(|p| p.get("anthropicCompaction")).is_some_and(|a| a.get("signature").is_some())
                {
                    newer.note(RuleSet::Omp183, || "a compaction with an Anthropic `signature` (oh-my-pi ≥ 18.3)".into());
                }
                if map.contains_key("fromExtension") || map.contains_key("shortSummary") || map.contains_key("preserveData") {
                    note(omp, "omp summary fields (`fromExtension`, `shortSummary`, `preserveData`)");
                }
                if map.contains_key("fromHook") {
                    note(pi, "pi summary field `fromHook`");
                }
            }
        }
    }

    /// Adds the signals of the records that follow these (`next` read as
    /// the file's start exactly when these left the header pending).
    fn then(&mut self, next: &Signals) {
        for s in &next.omp {
            note(&mut self.omp, s);
        }
        for s in &next.pi {
            note(&mut self.pi, s);
        }
        for (rules, what) in [&next.newer.pi, &next.newer.omp].into_iter().flatten() {
            self.newer.note(*rules, || what.clone());
        }
        self.header_pending = next.header_pending;
    }
}

/// The file's signals from its chunks' (file order, lines numbered from the
/// file's start). A chunk read the other way than its place needs (read as
/// the start while the header was already met, or after it while the header
/// is still pending: a first chunk without object records) is read again.
pub(super) fn detect(chunks: &[ChunkIndex], hint: Option<Dialect>) -> Detection {
    let all = merged(chunks);
    let detected = match all.omp.len().cmp(&all.pi.len()) {
        std::cmp::Ordering::Greater => Dialect::Omp,
        std::cmp::Ordering::Less => Dialect::Pi,
        std::cmp::Ordering::Equal => hint.unwrap_or(Dialect::Pi),
    };
    let mut signals: Vec<String> = all.omp.iter().map(|s| format!("omp: {s}")).collect();
    signals.extend(all.pi.iter().map(|s| format!("pi: {s}")));
    if let Some(h) = hint {
        signals.push(format!("location: {h} sessions folder"));
    }
    Detection { detected, signals, newer: all.newer }
}

/// The chunks' signals merged in file order, as [`Signals::of`] all their records read as the file's start.
fn merged(chunks: &[ChunkIndex]) -> Signals {
    let mut all = Signals { lead: true, header_pending: true, ..Signals::default() };
    for c in chunks {
        let signals = match c.signals.lead == all.header_pending {
            true => Cow::Borrowed(&c.signals),
            false => Cow::Owned(Signals::of(&c.records, all.header_pending)),
        };
        all.then(&signals);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::session::index_chunk;

    /// The records of `whole` cut into chunks of `n` records, each with its signals read as a
    /// worker reads them (the first as the file's start).
    fn cut(whole: &ChunkIndex, n: usize) -> Vec<ChunkIndex> {
        let pieces = whole.records.chunks(n).enumerate();
        pieces.map(|(i, recs)| ChunkIndex { records: recs.to_vec(), signals: Signals::of(recs, i == 0), ..ChunkIndex::default() }).collect()
    }

    #[test]
    fn chunk_signals_merged_in_order_are_the_whole_files() {
        let mut seen = (0, 0, 0, 0);
        for f in contextree_testkit::fixture_sessions() {
            let whole = index_chunk(&std::fs::read(&f).unwrap(), 0, 1);
            let one_pass = Signals::of(&whole.records, true);
            seen.0 += usize::from(one_pass.newer != NewerEvidence::default());
            seen.1 += usize::from(!one_pass.omp.is_empty() && !one_pass.pi.is_empty());
            seen.2 += usize::from(whole.records.first().is_some_and(|r| !matches!(r.reading, Reading::Object(_))));
            seen.3 += usize::from(one_pass.omp.contains(&"title line before the header"));
            for n in [1, 2, 3, 7, 50] {
                assert_eq!(merged(&cut(&whole, n)), one_pass, "{} in chunks of {n} records", f.display());
            }
        }
        // The fixtures hold what the merge has to get right: newer-release evidence, both
        // agents' signals in one file, a file whose first record is no object, title lines.
        assert!(seen.0 > 5 && seen.1 > 0 && seen.2 > 0 && seen.3 > 0, "{seen:?}");
    }
}
