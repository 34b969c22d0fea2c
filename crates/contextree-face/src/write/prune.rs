//! `prune_preview` / `prune`: omp's tool-output pruning for a leaf (rewrite with a backup).

use contextree_core::prune::{PruneConfig, StaleConfig};
use contextree_ops::prune;
use contextree_read::PruneReport;
use serde_json::value::RawValue;

use super::{apply, Applied, RewriteView, WriteResult, WriteState};
use crate::state::OpenSession;
use crate::{leaf, AppState, CommandError};

/// What the session's agent prunes in a turn, with its own settings: oh-my-pi 18 its stale
/// pass (superseded reads, useless results) and then overflow pruning; oh-my-pi 13 overflow
/// pruning alone. Writes nothing.
fn turn(open: &OpenSession, leaf_id: Option<&str>) -> Result<prune::TurnPreview, CommandError> {
    let rules = open.loaded.session.rules();
    let overflow = PruneConfig::agent(rules);
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_millis() as f64);
    let stale = rules.prunes_stale_results().then(|| StaleConfig::agent(false, now));
    Ok(prune::preview_turn(&open.loaded, leaf(open, leaf_id)?, Some(&overflow), stale.as_ref(), &open.pack)?)
}

/// The plan for `leaf_id` (the file's leaf when `None`), with the agent's defaults: the read
/// layer's `PruneReport`, as `contextree prune --dry-run --json` prints it. Writes nothing.
pub fn prune_preview(open: &OpenSession, leaf_id: Option<&str>) -> Result<Box<RawValue>, CommandError> {
    let s = &open.loaded.session;
    let pv = turn(open, leaf_id)?;
    let passes = [(pv.stale.is_some(), "stale"), (pv.overflow.is_some(), "overflow")];
    let passes = passes.into_iter().filter(|(ran, _)| *ran).map(|(_, name)| name).collect();
    crate::raw(&PruneReport::new(s, &pv, passes, true))
}

/// Prunes `leaf_id`'s path as the agent would in a turn: the pruned outputs are replaced in
/// the file (both of oh-my-pi 18's passes in one rewrite), a backup is kept.
pub fn prune(state: &AppState, writes: &WriteState, leaf_id: Option<&str>) -> Result<WriteResult, CommandError> {
    apply(state, writes, move |open, _| {
        let s = &open.loaded.session;
        let pv = turn(open, leaf_id)?;
        let Some(done) = prune::apply_turn(&open.loaded, &pv)? else {
            // Nothing to prune, but what an interrupted prune left behind goes.
            prune::sweep_leftovers(&open.loaded);
            return Err(contextree_ops::OpsError::Refused("Nothing to prune".to_owned()).into());
        };
        let rewrite = RewriteView {
            backup_path: done.rewritten.backup.display().to_string(),
            pruned_ids: pv.targets().iter().map(|(n, _)| s.entry(*n).id.to_string()).collect(),
            bytes_before: open.loaded.fingerprint.len,
            bytes_after: done.rewritten.fingerprint.len,
        };
        // The notes of both passes come first, as the preview showed them.
        let mut warnings: Vec<String> = pv.stale.iter().flat_map(|p| p.notes()).collect();
        warnings.extend(pv.overflow.iter().flat_map(|p| p.notes()));
        warnings.extend(prune::warnings(&done));
        Ok(Applied { action: "prune", lines: Vec::new(), summarizer: None, rewrite: Some(rewrite), warnings })
    })
}
