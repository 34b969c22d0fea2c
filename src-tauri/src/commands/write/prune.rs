//! `prune_preview` / `prune`: omp's tool-output pruning for a leaf (rewrite with a backup).

use contextree_core::prune::{PruneConfig, StaleConfig};
use contextree_ops::prune;
use serde::Serialize;
use tauri::State;

use super::{apply, Applied, RewriteView, WriteResult, WriteState};
use crate::commands::{blocking, leaf};
use crate::{AppState, CommandError};

/// What pruning `leafId`'s path would do.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrunePreviewView {
    /// The leaf.
    pub leaf_id: Option<String>,
    /// Entries whose tool output would become a notice.
    pub pruned_ids: Vec<String>,
    /// How many.
    pub outputs_pruned: usize,
    /// The leaf's context (the dialect's estimate) before.
    pub tokens_before: u64,
    /// ... and after.
    pub tokens_after: u64,
    /// omp's estimated saving (outputs behind a compaction included).
    pub tokens_saved: u64,
    /// The file's size now.
    pub bytes_before: u64,
    /// ... and after the rewrite.
    pub bytes_after: u64,
    /// Notes (docs/decisions.md D20: pi never prunes).
    pub note: Option<String>,
    /// Nothing would be pruned.
    pub nothing: bool,
    /// Why nothing would be pruned.
    pub reason: Option<String>,
}

/// What the session's agent prunes in a turn, with its own settings: oh-my-pi 18 its stale
/// pass (superseded reads, useless results) and then overflow pruning; oh-my-pi 13 overflow
/// pruning alone. Writes nothing.
fn turn(open: &crate::state::OpenSession, leaf_id: Option<&str>) -> Result<prune::TurnPreview, CommandError> {
    let rules = open.loaded.session.rules();
    let overflow = PruneConfig::agent(rules);
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_millis() as f64);
    let stale = rules.prunes_stale_results().then(|| StaleConfig::agent(false, now));
    Ok(prune::preview_turn(&open.loaded, leaf(open, leaf_id)?, Some(&overflow), stale.as_ref(), &open.pack)?)
}

/// The notes of both passes.
fn notes(pv: &prune::TurnPreview) -> Vec<String> {
    let mut notes: Vec<String> = pv.stale.iter().flat_map(|p| p.notes()).collect();
    notes.extend(pv.overflow.iter().flat_map(|p| p.notes()));
    notes
}

/// The plan for `leaf_id` (the file's leaf when `None`), with the agent's defaults. Writes nothing.
#[tauri::command]
pub async fn prune_preview(state: State<'_, AppState>, leaf_id: Option<String>) -> Result<PrunePreviewView, CommandError> {
    blocking(state.session()?, move |open| {
        let s = &open.loaded.session;
        let pv = turn(open, leaf_id.as_deref())?;
        let pruned_ids: Vec<String> = pv.targets().iter().map(|(n, _)| s.entry(*n).id.to_string()).collect();
        let notes = notes(&pv);
        let reason = pruned_ids.is_empty().then(|| {
            match pv.overflow.as_ref().and_then(|p| p.below_minimum_savings().map(|b| (b, p.config.minimum_savings))) {
                Some(((n, saved), minimum)) if n > 0 => {
                    format!("{n} outputs could be pruned, but they would save only {saved} tokens, below the minimum of {minimum}")
                }
                _ => "Nothing to prune: no tool output is old enough".to_owned(),
            }
        });
        let leaf = pv.overflow.as_ref().and_then(|p| p.leaf).or(pv.stale.as_ref().and_then(|p| p.leaf));
        Ok(PrunePreviewView {
            leaf_id: leaf.map(|n| s.entry(n).id.to_string()),
            outputs_pruned: pruned_ids.len(),
            nothing: pruned_ids.is_empty(),
            pruned_ids,
            tokens_before: pv.message_tokens_before,
            tokens_after: pv.message_tokens_after,
            tokens_saved: pv.totals().1,
            bytes_before: pv.bytes_before,
            bytes_after: pv.bytes_after,
            note: (!notes.is_empty()).then(|| notes.join(" ")),
            reason,
        })
    })
    .await
}

/// Prunes `leaf_id`'s path as the agent would in a turn: the pruned outputs are replaced in
/// the file (both of oh-my-pi 18's passes in one rewrite), a backup is kept.
#[tauri::command]
pub async fn prune(
    state: State<'_, AppState>,
    writes: State<'_, WriteState>,
    leaf_id: Option<String>,
) -> Result<WriteResult, CommandError> {
    apply(&state, &writes, move |open, _| {
        let s = &open.loaded.session;
        let pv = turn(open, leaf_id.as_deref())?;
        let Some(done) = prune::apply_turn(&open.loaded, &pv)? else {
            return Err(contextree_ops::OpsError::Refused("Nothing to prune".to_owned()).into());
        };
        let rewrite = RewriteView {
            backup_path: done.rewritten.backup.display().to_string(),
            pruned_ids: pv.targets().iter().map(|(n, _)| s.entry(*n).id.to_string()).collect(),
            bytes_before: open.loaded.fingerprint.len,
            bytes_after: done.rewritten.fingerprint.len,
        };
        let mut warnings = notes(&pv);
        warnings.extend(prune::warnings(&done));
        Ok(Applied { action: "prune", lines: Vec::new(), summarizer: None, rewrite: Some(rewrite), warnings })
    })
    .await
}
