//! The PLAN panel (what a compaction of a leaf would do, read only: nothing is called or
//! written), the requests an existing compaction summarized, and the usage dialog's reports.

use contextree_host::HostEnv;
use contextree_ops::compact::{dry_run, CompactOptions};
use contextree_read::PlanReport;
use serde_json::value::RawValue;

use crate::state::OpenSession;
use crate::write::pack_of;
use crate::{leaf, CommandError};

/// The compaction plan of `leaf_id` (the file's leaf when `None`): the read layer's
/// `PlanReport`, the document `contextree compact --dry-run --json` prints — the cut, the entries
/// summarized and kept, tokens before → after, warnings and the exact summarizer calls (or why
/// the agent would not compact), the hooks that would run (none is run), the agent's own
/// automatic check, the user requests it would summarize and what compacting costs and saves
/// (`cost`). `keep_recent` overrides `keepRecentTokens`; `instructions` are `/compact TEXT`'s
/// custom instructions. The agent's own settings (its settings files), the open session's pack.
pub fn preview(
    env: &HostEnv,
    open: &OpenSession,
    leaf_id: Option<&str>,
    keep_recent: Option<u64>,
    instructions: Option<String>,
) -> Result<Box<RawValue>, CommandError> {
    let pack = pack_of(open);
    let opts = CompactOptions {
        leaf: leaf(open, leaf_id)?,
        pack: &pack,
        instructions: instructions.filter(|t| !t.trim().is_empty()),
        keep_recent,
        reserve: None,
        model_reasons: false,
        context: Vec::new(),
        summary: None,
        // omp@18 writes the conversation in the transcript format of the model a
        // compaction would ask first (contextree's candidates), else the path's.
        provider: Default::default(),
        env,
    };
    let dry = dry_run(&open.loaded, &opts)?;
    let s = &open.loaded.session;
    let ctx = contextree_core::context::build(s, opts.leaf);
    let session_model = contextree_core::models::current_model(&ctx.model, s.dialect());
    // The plan panel's cost lines, at the agent's prices (else the dated built-in table).
    let prices = |m: &str| contextree_host::prices::model_prices(env, s.dialect(), m);
    let report = PlanReport::new(s, &open.loaded.source, dry).with_cost(session_model.as_deref(), &prices);
    let json = crate::raw(&report)?;
    report.finish()?;
    Ok(json)
}

/// The user requests compaction `compaction_id` summarized, each checked against its summary
/// for the paths, identifiers and quoted text it names (`mayBeLost` when none is there): the
/// read layer's `DropsReport`, as `contextree drops --compaction ID --json` prints it.
pub fn requests(open: &OpenSession, compaction_id: &str) -> Result<Box<RawValue>, CommandError> {
    let (s, src) = (&open.loaded.session, &open.loaded.source);
    let c = s
        .node(compaction_id)
        .filter(|&n| &*s.entry(n).entry_type == "compaction")
        .ok_or_else(|| CommandError::Compaction(format!("no compaction with id `{compaction_id}`")))?;
    let of = contextree_read::Summarized::compaction(s, c);
    let report = contextree_read::DropsReport::new(s, &of, src)?;
    let json = crate::raw(&report)?;
    report.finish()?;
    Ok(json)
}

/// What the open session cost: the usage records summed per session, kind, model and branch,
/// each reply's context size and the compactions (the read layer's `UsageReport`, as
/// `contextree usage --json` prints it; written to JSON here, its records made as they go), with
/// omp's subagent and advisor transcripts found beside the file.
pub fn usage(env: &HostEnv, open: &OpenSession) -> Result<Box<RawValue>, CommandError> {
    let s = &open.loaded.session;
    let sums = contextree_read::usage_sums(s, &open.loaded.source)?;
    let children = contextree_host::subagents::child_files(env, &open.loaded.path, s.dialect());
    let json = crate::raw(&contextree_read::UsageReport::new(s, &sums, &children));
    json
}

/// What made the context of `leaf_id` (the file's leaf when `None`) grow: the context after each
/// turn of its path, compactions and prunes marked, its `top` largest messages (10 when `None`)
/// and the files it holds several reads of (the read layer's `WeightReport`, as `contextree
/// weight --json` prints it). The usage dialog draws it under the recorded usage.
pub fn weight(open: &OpenSession, leaf_id: Option<&str>, top: Option<usize>) -> Result<Box<RawValue>, CommandError> {
    let (s, src) = (&open.loaded.session, &open.loaded.source);
    let report = contextree_read::WeightReport::new(s, leaf(open, leaf_id)?, top.unwrap_or(10), src)?;
    crate::raw(&report)
}
