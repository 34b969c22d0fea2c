//! omp's tool-output pruning for a leaf (spec pruning.md): the plan, the context before and
//! after, and the checked, backed-up rewrite of docs/decisions.md D15 (`contextree_host::rewrite`).

use contextree_core::context::{self, context_token_sums, Leaf};
use contextree_core::prompts::PromptPack;
use contextree_core::prune::{plan_prune, plan_prune_after, plan_stale, pruned_line, PruneConfig, PrunePlan, StaleConfig, StalePlan};
use contextree_core::session::NodeId;
use contextree_host::rewrite::{prune_entries, prune_loaded, Pruned};
use contextree_host::LoadedSession;

use crate::error::rewrite_error;
use crate::OpsError;

/// The plan and what it does to the leaf's context and the file.
#[derive(Debug)]
pub struct PrunePreview {
    /// omp's decision for the leaf.
    pub plan: PrunePlan,
    /// The context's message tokens (the dialect's estimate) before.
    pub message_tokens_before: u64,
    /// ... and after: every pruned result in the context shrinks to its notice.
    pub message_tokens_after: u64,
    /// The LLM tokens before.
    pub llm_tokens_before: u64,
    /// ... and after.
    pub llm_tokens_after: u64,
    /// The file's size now.
    pub bytes_before: u64,
    /// The file's size after the rewrite (the pruned lines' new lengths).
    pub bytes_after: u64,
}

/// omp's decision for `leaf`'s path with `config`, without sizing its effect (what applying needs).
pub fn plan(loaded: &LoadedSession, leaf: Leaf, config: &PruneConfig) -> PrunePlan {
    plan_prune(&loaded.session, leaf, config)
}

/// Plans the pruning of `leaf`'s path with `config`; reads the lines it would rewrite to size
/// the result. Writes nothing.
pub fn preview(loaded: &LoadedSession, leaf: Leaf, config: &PruneConfig, pack: &PromptPack) -> Result<PrunePreview, OpsError> {
    let s = &loaded.session;
    let plan = plan(loaded, leaf, config);
    let ctx = context::build(s, leaf);
    let (messages, llm) = context_token_sums(s, &ctx, pack, &loaded.source)?;
    let saved: u64 = plan.pruned().iter().filter(|r| r.in_context).map(|r| r.saving()).sum();
    let bytes_before = loaded.fingerprint.len;
    let bytes_after = bytes_after(loaded, &plan).unwrap_or(bytes_before);
    Ok(PrunePreview {
        plan,
        message_tokens_before: messages,
        message_tokens_after: messages - saved,
        llm_tokens_before: llm,
        llm_tokens_after: llm - saved,
        bytes_before,
        bytes_after,
    })
}

/// The file's length after the pruned lines are rewritten (`prunedAt` is 13 digits either way);
/// `None` when a line cannot be read or rewritten (the apply step will say why).
fn bytes_after(loaded: &LoadedSession, plan: &PrunePlan) -> Option<u64> {
    let targets: Vec<(NodeId, String)> = plan.pruned().iter().map(|r| (r.node, r.notice())).collect();
    bytes_after_targets(loaded, &targets)
}

fn bytes_after_targets(loaded: &LoadedSession, targets: &[(NodeId, String)]) -> Option<u64> {
    use contextree_core::session::Source as _;
    let s = &loaded.session;
    let now = now_ms();
    let mut len = loaded.fingerprint.len;
    for (node, notice) in targets {
        let e = s.entry(*node);
        let bytes = loaded.source.bytes(e.span).ok()?;
        let original = std::str::from_utf8(bytes.as_ref().trim_ascii()).ok()?;
        let text = pruned_line(original, notice, now).ok()?;
        len = len - original.len() as u64 + text.len() as u64;
    }
    Some(len)
}

/// What oh-my-pi 18 prunes in one turn (omp-18.md §5.1, §6): its stale pass
/// (`pruneSupersededToolResults`, every turn) and then its overflow pass
/// (`pruneToolOutputs`, on the threshold path) over the result — either may
/// be left out.
#[derive(Debug)]
pub struct TurnPreview {
    /// The stale pass, when it ran.
    pub stale: Option<StalePlan>,
    /// The overflow pass, when it ran (after the stale pass: what that pruned counts as pruned).
    pub overflow: Option<PrunePlan>,
    /// The context's message tokens (the rule set's estimate) before.
    pub message_tokens_before: u64,
    /// ... and after both passes.
    pub message_tokens_after: u64,
    /// The LLM tokens before.
    pub llm_tokens_before: u64,
    /// ... and after.
    pub llm_tokens_after: u64,
    /// The file's size now.
    pub bytes_before: u64,
    /// The file's size after the rewrite.
    pub bytes_after: u64,
}

impl TurnPreview {
    /// Every result either pass prunes, with its notice, in path order of each pass.
    pub fn targets(&self) -> Vec<(NodeId, String)> {
        let stale = self.stale.iter().flat_map(|p| p.pruned()).map(|c| (c.node, c.notice().to_owned()));
        let overflow = self.overflow.iter().flat_map(|p| p.pruned()).map(|r| (r.node, r.notice()));
        stale.chain(overflow).collect()
    }

    /// Results pruned and tokens saved by both passes (the agents' `prunedCount`, `tokensSaved`).
    pub fn totals(&self) -> (usize, u64) {
        let s = self.stale.as_ref().map_or((0, 0), |p| (p.pruned_count(), p.tokens_saved()));
        let o = self.overflow.as_ref().map_or((0, 0), |p| (p.pruned_count(), p.tokens_saved()));
        (s.0 + o.0, s.1 + o.1)
    }
}

/// Plans omp 18's per-turn pruning of `leaf`'s path: the stale pass with
/// `stale` (None: skipped), then the overflow pass with `overflow` (None:
/// skipped) on the stale pass's result. Writes nothing.
pub fn preview_turn(
    loaded: &LoadedSession,
    leaf: Leaf,
    overflow: Option<&PruneConfig>,
    stale: Option<&StaleConfig>,
    pack: &PromptPack,
) -> Result<TurnPreview, OpsError> {
    let s = &loaded.session;
    let ctx = context::build(s, leaf);
    let stale = stale.map(|c| plan_stale(s, &ctx, c, &loaded.source)).transpose()?;
    let before = stale.as_ref().map(StalePlan::after).unwrap_or_default();
    let overflow = overflow.map(|c| plan_prune_after(s, &ctx, c, &before));
    let (messages, llm) = context_token_sums(s, &ctx, pack, &loaded.source)?;
    let saved: u64 = stale.iter().flat_map(|p| p.pruned()).filter(|c| c.in_context).map(|c| c.saving()).sum::<u64>()
        + overflow.iter().flat_map(|p| p.pruned()).filter(|r| r.in_context).map(|r| r.saving()).sum::<u64>();
    let mut pv = TurnPreview {
        stale,
        overflow,
        message_tokens_before: messages,
        message_tokens_after: messages.saturating_sub(saved),
        llm_tokens_before: llm,
        llm_tokens_after: llm.saturating_sub(saved),
        bytes_before: loaded.fingerprint.len,
        bytes_after: loaded.fingerprint.len,
    };
    pv.bytes_after = bytes_after_targets(loaded, &pv.targets()).unwrap_or(pv.bytes_before);
    Ok(pv)
}

/// Applies a [`TurnPreview`] (made from `loaded`) as one rewrite with one
/// `prunedAt` (the agent rewrites after each pass, a few milliseconds apart):
/// `None` when it prunes nothing (the file is untouched).
pub fn apply_turn(loaded: &LoadedSession, pv: &TurnPreview) -> Result<Option<Pruned>, OpsError> {
    prune_entries(loaded, &pv.targets(), now_ms()).map_err(rewrite_error)
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// What a done pruning should tell besides its result: bytes another process appended during
/// the rewrite (kept), leftovers of an interrupted rewrite (removed), and writers that opened the old file in the last instant (their later
/// entries go to the backup).
pub fn warnings(done: &Pruned) -> Vec<String> {
    let r = &done.rewritten;
    let mut out = Vec::new();
    if r.recovered_bytes > 0 {
        out.push(format!("{} bytes another process appended during the rewrite were kept", r.recovered_bytes));
    }
    out.extend(r.warnings.iter().cloned());
    if !r.removed_temporaries.is_empty() {
        let names: Vec<String> = r.removed_temporaries.iter().map(|p| p.display().to_string()).collect();
        out.push(format!("removed the temporary file(s) an interrupted rewrite of this session left behind: {}", names.join(", ")));
    }
    if !r.late_writers.is_empty() {
        out.push(format!(
            "{} opened the file for writing during the rewrite and still holds the old file, now the backup {}: what it writes from now on goes there, not to the session",
            contextree_host::writers::describe(&r.late_writers),
            r.backup.display()
        ));
    }
    out
}

/// For a prune that found nothing to prune: removes what interrupted rewrites of this session
/// left behind, and says so (the same words as [`warnings`]).
pub fn sweep_leftovers(loaded: &LoadedSession) -> Vec<String> {
    let removed = contextree_host::rewrite::remove_leftovers(&loaded.path);
    if removed.is_empty() {
        return Vec::new();
    }
    let names: Vec<String> = removed.iter().map(|p| p.display().to_string()).collect();
    vec![format!("removed the temporary file(s) an interrupted rewrite of this session left behind: {}", names.join(", "))]
}

/// Applies `plan` (made from `loaded`): `None` when it prunes nothing (the file is untouched).
pub fn apply(loaded: &LoadedSession, plan: &PrunePlan) -> Result<Option<Pruned>, OpsError> {
    // One `prunedAt` for the whole batch, as omp stamps it.
    prune_loaded(loaded, plan, now_ms()).map_err(rewrite_error)
}
