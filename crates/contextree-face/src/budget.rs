//! The budget bar: how full a leaf's context is against the window and the compaction rules
//! (the read layer's `BudgetReport`, as `contextree budget --json` prints it).

use contextree_core::context::build;
use contextree_host::HostEnv;
use contextree_read::BudgetReport;

use crate::state::OpenSession;
use crate::{leaf, CommandError};

/// The budget of `leaf_id` (the file's leaf when `None`); `window` overrides the model table.
/// Compaction settings are the agent's own (its settings files), with the defaults.
pub fn budget(env: &HostEnv, open: &OpenSession, leaf_id: Option<&str>, window: Option<u64>) -> Result<BudgetReport, CommandError> {
    let (s, src, pack) = (&open.loaded.session, &open.loaded.source, &open.pack);
    let ctx = build(s, leaf(open, leaf_id)?);
    let settings = env.agent_settings(s.dialect()).compaction;
    Ok(BudgetReport::new(s, &ctx, pack, src, &settings, window)?)
}
