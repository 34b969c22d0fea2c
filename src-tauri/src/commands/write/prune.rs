//! `prune_preview` / `prune`: omp's tool-output pruning for a leaf (rewrite with a backup).

use contextree_core::prune::PruneConfig;
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

/// The plan for `leaf_id` (the file's leaf when `None`), with omp's defaults. Writes nothing.
#[tauri::command]
pub async fn prune_preview(
    state: State<'_, AppState>,
    leaf_id: Option<String>,
) -> Result<PrunePreviewView, CommandError> {
    blocking(state.session()?, move |open| {
        let s = &open.loaded.session;
        let pv = prune::preview(&open.loaded, leaf(open, leaf_id.as_deref())?, &PruneConfig::default(), &open.pack)?;
        let plan = &pv.plan;
        let pruned_ids: Vec<String> = plan.pruned().iter().map(|r| s.entry(r.node).id.to_string()).collect();
        let notes = plan.notes();
        let reason = pruned_ids.is_empty().then(|| match plan.below_minimum_savings() {
            Some((n, saved)) if n > 0 => format!("{n} outputs could be pruned, but they would save only {saved} tokens, below the minimum of {}", plan.config.minimum_savings),
            _ => "Nothing to prune: no tool output is old enough".to_owned(),
        });
        Ok(PrunePreviewView {
            leaf_id: plan.leaf.map(|n| s.entry(n).id.to_string()),
            outputs_pruned: pruned_ids.len(),
            nothing: pruned_ids.is_empty(),
            pruned_ids,
            tokens_before: pv.message_tokens_before,
            tokens_after: pv.message_tokens_after,
            tokens_saved: plan.tokens_saved(),
            bytes_before: pv.bytes_before,
            bytes_after: pv.bytes_after,
            note: (!notes.is_empty()).then(|| notes.join(" ")),
            reason,
        })
    })
    .await
}

/// Prunes `leaf_id`'s path: the pruned outputs are replaced in the file, a backup is kept.
#[tauri::command]
pub async fn prune(
    state: State<'_, AppState>,
    writes: State<'_, WriteState>,
    leaf_id: Option<String>,
) -> Result<WriteResult, CommandError> {
    apply(&state, &writes, move |open, _| {
        let s = &open.loaded.session;
        // Only the plan: applying needs neither the context's tokens nor the estimated size.
        let plan = prune::plan(
            &open.loaded,
            leaf(open, leaf_id.as_deref())?,
            &PruneConfig::default(),
        );
        let Some(done) = prune::apply(&open.loaded, &plan)? else {
            return Err(contextree_ops::OpsError::Refused("Nothing to prune".to_owned()).into());
        };
        let rewrite = RewriteView {
            backup_path: done.rewritten.backup.display().to_string(),
            pruned_ids: plan
                .pruned()
                .iter()
                .map(|r| s.entry(r.node).id.to_string())
                .collect(),
            bytes_before: open.loaded.fingerprint.len,
            bytes_after: done.rewritten.fingerprint.len,
        };
        let mut warnings: Vec<String> = plan.notes();
        warnings.extend(prune::warnings(&done));
        Ok(Applied {
            action: "prune",
            lines: Vec::new(),
            summarizer: None,
            rewrite: Some(rewrite),
            warnings,
        })
    })
    .await
}
