//! Correct a compaction's summary, append-only: a new `compaction` entry under the file's leaf
//! with the same `firstKeptEntryId`, `tokensBefore`, `details` (and omp's `shortSummary` and
//! `preserveData`), the user's summary, and marked as supplied like a hook's (pi
//! `fromHook: true`, omp `fromExtension: true`).
//!
//! Why under the file's leaf: both agents open the context with the *latest* compaction on the
//! path, then emit the path from its `firstKeptEntryId` up to that compaction, skipping
//! compaction entries, then everything after it. With the new entry last, that is the old
//! context with only the summary replaced (checked against the agents by the oracle tests).
//! Only the compaction in effect for the file's leaf can be edited: a corrected copy of an
//! older one would bring back a summary the later compaction replaced. An omp remote
//! compaction (docs/decisions.md D17) with messages after it is refused: omp replays its
//! provider history instead of the kept messages and then only what follows the compaction, so
//! no appended copy keeps those messages.

use contextree_core::compaction::{entry_line, new_entry_id, system_checkpoint, CompactionResult};
use contextree_core::context::{self, Leaf, ReadBackCause, ReadBackError};
use contextree_core::session::{NodeId, Source as _};
use contextree_host::write::{now_iso, random_u32};
use contextree_host::{LoadedSession, RawJson};
use serde_json::Value;

use crate::one_line::{self, OneLine};
use crate::OpsError;

/// What an edit would write.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditPreview {
    /// The compaction edited.
    pub compaction_id: String,
    /// Its current summary.
    pub summary: String,
    /// The boundary the new entry keeps.
    pub first_kept_entry_id: String,
    /// The size the new entry keeps: the old entry's `tokensBefore` as stored.
    pub tokens_before: RawJson,
    /// The new entry's parent: the file's leaf.
    pub parent_id: String,
    /// What the write does, in words.
    pub note: String,
}

/// What an edit wrote.
pub type EditOutcome = OneLine;

/// Checks that `compaction` is the compaction in effect for the file's leaf; returns the
/// leaf and the stored entry.
fn in_effect(loaded: &LoadedSession, compaction: NodeId) -> Result<(NodeId, Value), OpsError> {
    let s = &loaded.session;
    let e = one_line::compaction(loaded, compaction)?;
    let ctx = context::build(s, Leaf::Last);
    let leaf = ctx.leaf.ok_or_else(|| OpsError::Refused("the session has no leaf".to_owned()))?;
    if ctx.compaction != Some(compaction) {
        return Err(OpsError::Refused(format!(
            "compaction {} is not the one in effect for the file's leaf {}: only the latest compaction on the leaf's path can be edited",
            e.id,
            s.entry(leaf).id
        )));
    }
    if ctx.provider_replay && leaf != compaction {
        // omp replays an OpenAI-native history in place of the kept messages (D17) and then
        // only what follows the compaction: a copy appended at the leaf would drop the
        // messages between the two, and one beside the old entry would drop them too.
        return Err(OpsError::Refused(format!(
            "compaction {} carries an OpenAI-native replacement history (omp's remote compaction): a corrected copy cannot keep the messages after it, so it cannot be edited",
            e.id
        )));
    }
    let old_entry = |cause: ReadBackCause| OpsError::OldEntry { path: loaded.path.clone(), source: ReadBackError::at(e.line, cause) };
    let bytes = loaded.source.bytes(e.span).map_err(|why| old_entry(why.into()))?;
    let value = serde_json::from_slice(bytes.as_ref().trim_ascii()).map_err(|why| old_entry(ReadBackCause::NoLongerParses(why)))?;
    Ok((leaf, value))
}

/// What [`run`] would write.
pub fn preview(loaded: &LoadedSession, compaction: NodeId) -> Result<EditPreview, OpsError> {
    let s = &loaded.session;
    let (leaf, old) = in_effect(loaded, compaction)?;
    let flag = if s.dialect() == contextree_core::Dialect::Pi { "fromHook" } else { "fromExtension" };
    Ok(EditPreview {
        compaction_id: s.entry(compaction).id.to_string(),
        summary: old["summary"].as_str().unwrap_or_default().to_owned(),
        first_kept_entry_id: old["firstKeptEntryId"].as_str().unwrap_or_default().to_owned(),
        tokens_before: RawJson::from_serialize(&old["tokensBefore"])
            .map_err(|source| OpsError::Json { what: "the old entry's tokensBefore", source })?,
        parent_id: s.entry(leaf).id.to_string(),
        note: format!(
            "appends a new compaction entry under the file's leaf {} with the same boundary, size and details and your summary, marked {flag}: true as a hook's; the old entry stays in the file",
            s.entry(leaf).id
        ),
    })
}

/// Appends the corrected compaction entry.
pub fn run(loaded: &LoadedSession, compaction: NodeId, summary: &str) -> Result<EditOutcome, OpsError> {
    let s = &loaded.session;
    let (leaf, old) = in_effect(loaded, compaction)?;
    let dialect = s.dialect();
    let omp = dialect == contextree_core::Dialect::Omp;
    let result = CompactionResult {
        dialect,
        summary: summary.to_owned(),
        short_summary: old["shortSummary"].as_str().map(str::to_owned).filter(|_| omp),
        first_kept_entry_id: old["firstKeptEntryId"].as_str().unwrap_or_default().to_owned(),
        tokens_before: old["tokensBefore"].as_f64().unwrap_or(f64::NAN),
        details: old.get("details").cloned(),
        from_extension: true,
        preserve_data: old.get("preserveData").cloned().filter(|_| omp),
        // pi 1.6's appendCompaction stores the system state at the new entry's parent.
        usage: None,
        system_message: system_checkpoint(s, &context::build(s, Leaf::At(leaf)), &loaded.source)?,
        method: None,
    };
    let mut draw = random_u32;
    let id = new_entry_id(s, &mut draw);
    let parent_id = s.entry(leaf).id.to_string();
    let line = entry_line(&result, &id, Some(&parent_id), &now_iso());
    one_line::append(loaded, id, parent_id, line, "nothing was written; reload and edit again", "the new entry")
}
