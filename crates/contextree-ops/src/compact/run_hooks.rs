//! The hooks a run calls, as the agents run their extensions (compaction.md §1.3 step 3): each
//! event's payload, its dispatch and what its answers change, kept out of the run so its steps
//! read in order. A failing hook is a warning, never a failure.

use contextree_core::compaction::{CompactingHook, CompactionPlan, SuppliedCompaction};
use contextree_core::context;
use contextree_host::hooks::{self, HookEvent, Hooks};
use contextree_host::{LoadedSession, RawJson};
use contextree_llm::CancelToken;

use super::start::CompactOptions;
use crate::OpsError;

/// `session_before_compact`: may cancel the run (nothing is written), or supply the whole
/// compaction (`Some`).
pub(super) fn before_compact_hooks(
    loaded: &LoadedSession,
    ctx: &context::Context,
    plan: &CompactionPlan,
    opts: &CompactOptions<'_>,
    hooks: &Hooks,
    cancel: &CancelToken,
    warnings: &mut Vec<String>,
) -> Result<Option<SuppliedCompaction>, OpsError> {
    if hooks.for_event(HookEvent::BeforeCompact).is_empty() {
        return Ok(None);
    }
    let payload = hooks::before_compact_payload(&loaded.session, &ctx.path, plan, &loaded.source, opts.instructions.as_deref())?;
    // A cancel kills the running hook (its whole process group) and starts no other.
    let d = hooks::dispatch_until(HookEvent::BeforeCompact, hooks.for_event(HookEvent::BeforeCompact), &payload, &|| cancel.is_cancelled());
    if cancel.is_cancelled() {
        return Err(OpsError::Cancelled);
    }
    warnings.extend(d.warnings.iter().cloned());
    let decided = hooks::before_compact(&d);
    if decided.cancel {
        return Err(OpsError::HookCancelled { message: "Compaction cancelled".to_owned(), warnings: std::mem::take(warnings) });
    }
    Ok(decided.compaction)
}

/// omp's `session.compacting`: its prompt, context lines and preserveData shape the summary; the
/// option's context lines follow the hooks' lines.
pub(super) fn compacting_hooks(
    loaded: &LoadedSession,
    plan: &CompactionPlan,
    opts: &CompactOptions<'_>,
    hooks: &Hooks,
    cancel: &CancelToken,
    warnings: &mut Vec<String>,
) -> Result<CompactingHook, OpsError> {
    let payload = hooks::compacting_payload(&loaded.session, plan, &loaded.source)?;
    let d = hooks::dispatch_until(HookEvent::Compacting, hooks.for_event(HookEvent::Compacting), &payload, &|| cancel.is_cancelled());
    if cancel.is_cancelled() {
        return Err(OpsError::Cancelled);
    }
    warnings.extend(d.warnings.iter().cloned());
    let mut hook = hooks::compacting(&d);
    hook.context.extend(opts.context.iter().cloned());
    Ok(hook)
}

/// `session_compact`, told about the written entry. A notification: the entry is written
/// whatever the hooks do, so a cancel (meant for the summary) no longer stops them; their time
/// limit still does.
pub(super) fn compact_hooks(hooks: &Hooks, entry: &RawJson, from_extension: bool, warnings: &mut Vec<String>) {
    if hooks.for_event(HookEvent::Compact).is_empty() {
        return;
    }
    let d = hooks::dispatch(HookEvent::Compact, hooks.for_event(HookEvent::Compact), &hooks::compact_payload(entry, from_extension));
    warnings.extend(d.warnings);
}
