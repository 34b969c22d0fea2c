//! The plan and its exact prompts, read only: what `compact --dry-run` and the app's plan
//! panel show before anything is asked or written.

use contextree_core::compaction::{preview_numbers, summary_requests, CompactionPlan, HistoryStep, NothingToCompact};
use contextree_core::context;
use contextree_core::models::current_model;
use contextree_core::session::{NodeId, Session};
use contextree_core::Dialect;
use contextree_host::settings::AgentSettings;
use contextree_host::LoadedSession;
use contextree_llm::Candidates;
use serde::Serialize;

use super::start::{prompt_options, request_error, start, CompactOptions, Start};
use crate::report::{CallView, IdList, JsNumber};
use crate::summarizer;
use crate::OpsError;

/// What a fold call of the dry run shows for the summary of the call before it.
pub const FOLD_MARKER: &str = "<<summary returned by the history call before>>";

/// What a compaction of a leaf would do, read only: the plan, the size estimate and the exact
/// summarizer calls, or why the agent would not compact. `contextree compact --dry-run`
/// ([`dry_run`](super::dry_run)) and the app's plan panel both show it.
#[derive(Debug, Clone)]
pub struct PlanPreview {
    /// Whose rules applied.
    pub dialect: Dialect,
    /// The leaf whose path would be compacted.
    pub leaf_id: Option<String>,
    /// `tokensBefore` as the dialect computes it.
    pub tokens_before: f64,
    /// `keepRecentTokens` as used (omp scales it).
    pub keep_recent_tokens_used: u64,
    /// The agent's settings files read, in merge order.
    pub settings_files: Vec<String>,
    /// Everything worth telling (settings, the plan, the summary model, omp 18's fold).
    pub warnings: Vec<String>,
    /// The plan, or why the agent would not compact (`Display`: its own text).
    pub planned: Result<Planned, NothingToCompact>,
}

/// A compaction the agent would make.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Planned {
    /// The prompt pack the calls are written with.
    pub prompt_pack: String,
    /// `firstKeptEntryId`: the first entry kept verbatim after the summary.
    pub first_kept_entry_id: String,
    /// The cut falls inside a turn: its start is summarized separately (`turnPrefixIds`).
    pub is_split_turn: bool,
    /// `tokensBefore` as the dialect computes it (omp: the last usable usage, pi: the
    /// estimate).
    pub tokens_before: JsNumber,
    /// `keepRecentTokens` as the cut used it (omp divides it by the usage/estimate ratio).
    pub keep_recent_tokens_used: u64,
    /// Entries whose messages the history summary covers.
    pub messages_to_summarize_ids: IdList,
    /// The split turn's entries before the cut (summarized separately).
    pub turn_prefix_ids: IdList,
    /// Entries kept verbatim after the summary.
    pub recent_messages_ids: IdList,
    /// omp: entries the previous compaction kept that this one drops.
    pub dropped_ids: IdList,
    /// The agents' `readFiles` / `modifiedFiles`.
    pub file_ops: FileListsView,
    /// Tokens before and after, message counts.
    pub preview: PreviewNumbers,
    /// omp's history step without a call (`No prior history.`, a reused summary).
    pub history_literal: Option<String>,
    /// Every call in order; omp's short call quotes the preview's marker.
    pub calls: Vec<CallView>,
    /// Says what the short call's marker stands for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub short_summary_note: Option<String>,
    /// omp@18's summary input format.
    #[serde(skip)]
    pub transcript: Option<TranscriptView>,
    /// omp 18's fold: the history calls after the first, each quoting the answer of the one
    /// before it (shown as [`FOLD_MARKER`]).
    #[serde(skip)]
    pub fold_calls: Vec<CallView>,
    /// The entries summarized (history, then the turn prefix).
    #[serde(skip)]
    pub summarized: Vec<NodeId>,
}

/// The agents' file lists of a cut.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FileListsView {
    /// `readFiles`: read and never modified, in JS sort order.
    pub read_files: Vec<String>,
    /// `modifiedFiles`: edited or written, in JS sort order.
    pub modified_files: Vec<String>,
}

/// The size estimate of a compaction (core `CompactionPreview`).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PreviewNumbers {
    /// `tokensBefore` as the dialect computes it.
    pub tokens_before: JsNumber,
    /// The dialect's estimate (chars/4) of the messages kept verbatim.
    pub kept_tokens: u64,
    /// Upper bound of the summary message's estimate: the summary calls' `maxTokens` (or a
    /// literal history's own estimate) plus the split-turn separator and file tags.
    pub summary_budget: u64,
    /// `keptTokens + summaryBudget`: an upper bound of the context right after compacting.
    pub estimated_tokens_after: u64,
    /// Messages summarized: the history plus the turn prefix.
    pub messages_summarized: usize,
    /// Of those, the messages in the split turn's prefix.
    pub turn_prefix_messages: usize,
    /// Messages kept verbatim after the summary.
    pub messages_kept: usize,
    /// omp: messages the previous compaction kept that this one neither summarizes nor keeps.
    pub messages_dropped: usize,
}

/// omp@18's summary input format: `{format, model, budgetTokens, fit: {by, size}, windows}`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TranscriptView {
    /// The transcript format's name (`anthropic`, `harmony`, `xml`, …).
    pub format: &'static str,
    /// The summary model the format was chosen for; `null` when none is known (then `xml`).
    pub model: Option<String>,
    /// The history call's input budget in tokens; a larger conversation is folded into
    /// windows.
    pub budget_tokens: u64,
    /// How the history was found to fit that budget.
    pub fit: FitView,
    /// The history's windows: more than one when the agent folds it (`foldCalls`).
    pub windows: usize,
}

/// How the history was found to fit the input budget.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FitView {
    /// The test that decided: `bytes` (UTF-8 bytes within the budget), `tokens` (the agent's
    /// exact count), `approximate` (an o200k_base count for a model with another tokenizer) or
    /// `folded` (over the budget).
    pub by: &'static str,
    /// The size that test measured, in its unit (bytes, or o200k_base tokens).
    pub size: u64,
}

/// The plan and the exact prompts of compacting `opts.leaf`, with the agent's settings; calls
/// nothing, writes nothing, runs and reads no hook. Under omp@18 the conversation is written in
/// the transcript format of the model the run would ask first (a broken configuration shows the
/// path's model).
pub fn preview_plan(loaded: &LoadedSession, opts: &CompactOptions<'_>) -> Result<PlanPreview, OpsError> {
    plan_preview(loaded, opts, |_, _| Ok(())).map(|(pv, ())| pv)
}

/// [`preview_plan`], and what `also` makes of the same context and plan (the dry run's
/// automatic check), before the context is dropped.
pub(super) fn plan_preview<T>(
    loaded: &LoadedSession,
    opts: &CompactOptions<'_>,
    also: impl FnOnce(&context::Context, &CompactionPlan) -> Result<T, OpsError>,
) -> Result<(PlanPreview, T), OpsError> {
    let s = &loaded.session;
    let Start { agent, ctx, plan, mut warnings } = start(loaded, opts)?;
    let also = also(&ctx, &plan)?;
    let planned = preview_of(loaded, opts, &agent, ctx, &plan, &mut warnings)?;
    let pv = PlanPreview {
        dialect: plan.dialect,
        leaf_id: leaf_id(s, &plan),
        tokens_before: plan.tokens_before,
        keep_recent_tokens_used: plan.keep_recent.used,
        settings_files: settings_files(&agent),
        warnings,
        planned,
    };
    Ok((pv, also))
}

/// The plan's prompts and numbers; `ctx` is dropped before the prompts, which may quote a
/// whole session, are made (its path, messages and pi 1.6's projection: 16 to 40 bytes an
/// entry).
fn preview_of(
    loaded: &LoadedSession,
    opts: &CompactOptions<'_>,
    agent: &AgentSettings,
    ctx: context::Context,
    plan: &CompactionPlan,
    warnings: &mut Vec<String>,
) -> Result<Result<Planned, NothingToCompact>, OpsError> {
    let s = &loaded.session;
    let p = match &plan.outcome {
        Err(reason) => return Ok(Err(*reason)),
        Ok(p) => p,
    };
    let pack = (opts.pack)(s.dialect())?;
    let mut prompt_opts = prompt_options(opts, &ctx);
    // The model the run would ask first (a broken configuration shows the path's model).
    let mut candidates = if s.rules().summarizes_with_model_transcript() {
        summarizer::candidates(&opts.provider, agent, opts.env).unwrap_or_default()
    } else {
        Candidates::default()
    };
    prompt_opts.summary_model = summarizer::omp18_summary_model(s, current_model(&ctx.model, s.dialect()), &mut candidates, warnings);
    drop(ctx);
    let requests = summary_requests(s, plan, &loaded.source, &pack, &prompt_opts).map_err(request_error)?;
    let pv = preview_numbers(s, plan, &requests).map_err(|r| OpsError::Refused(r.to_string()))?;
    let id = |n: NodeId| s.entry(n).id.to_string();
    let ids = |nodes: &[NodeId]| IdList::of(s, nodes);
    let lists = p.file_ops.lists();
    let fold_calls: Vec<CallView> =
        (0..requests.fold_len()).filter_map(|i| requests.fold_call(i, FOLD_MARKER)).map(|c| CallView::of(&c)).collect();
    if !fold_calls.is_empty() {
        warnings.push(format!("oh-my-pi 18 summarizes this history in {} windows, one call after the other, each updating the summary of the one before (`foldCalls`)", requests.fold_len() + 1));
    }
    let history_literal = match &requests.history {
        HistoryStep::Literal(t) => Some(t.clone()),
        HistoryStep::Call(_) => None,
    };
    let has_short = requests.has_short();
    let transcript = requests.transcript.as_ref().map(|t| {
        let (by, size) = fit_parts(t.fit);
        TranscriptView {
            format: t.dialect.name(),
            model: t.model.clone(),
            budget_tokens: t.budget_tokens,
            fit: FitView { by, size },
            windows: 1 + t.fold.len(),
        }
    });
    // The calls in order (the short one quotes the preview's marker), their prompts moved out of
    // the requests: a prompt quoting a million-message history is held once.
    let short = requests.short_call(contextree_core::compaction::SHORT_PREVIEW_MARKER);
    let calls: Vec<CallView> = requests.into_first_calls().into_iter().chain(short).map(CallView::from_call).collect();
    Ok(Ok(Planned {
        prompt_pack: pack.origin().to_string(),
        first_kept_entry_id: id(p.first_kept),
        is_split_turn: p.is_split_turn(),
        tokens_before: JsNumber(plan.tokens_before),
        keep_recent_tokens_used: plan.keep_recent.used,
        messages_to_summarize_ids: ids(&p.messages_to_summarize),
        turn_prefix_ids: ids(&p.turn_prefix),
        recent_messages_ids: ids(&p.recent),
        dropped_ids: ids(&p.dropped),
        file_ops: FileListsView { read_files: lists.read_files, modified_files: lists.modified_files },
        preview: PreviewNumbers {
            tokens_before: JsNumber(pv.tokens_before),
            kept_tokens: pv.kept_tokens,
            summary_budget: pv.summary_budget,
            estimated_tokens_after: pv.estimated_tokens_after,
            messages_summarized: pv.messages_summarized,
            turn_prefix_messages: pv.turn_prefix_messages,
            messages_kept: pv.messages_kept,
            messages_dropped: pv.messages_dropped,
        },
        history_literal,
        calls,
        short_summary_note: has_short.then(|| {
            format!(
                "the short-summary prompt quotes the summary the calls before it return; shown here as {}",
                contextree_core::compaction::SHORT_PREVIEW_MARKER
            )
        }),
        transcript,
        fold_calls,
        summarized: p.messages_to_summarize.iter().chain(&p.turn_prefix).copied().collect(),
    }))
}

fn fit_parts(fit: contextree_core::compaction::Fit) -> (&'static str, u64) {
    use contextree_core::compaction::Fit;
    match fit {
        Fit::Bytes(n) => ("bytes", n),
        Fit::Tokens(n) => ("tokens", n),
        Fit::Approximate(n) => ("approximate", n),
        Fit::Folded(n) => ("folded", n),
    }
}

fn settings_files(agent: &AgentSettings) -> Vec<String> {
    agent.sources.iter().map(|p| p.display().to_string()).collect()
}

fn leaf_id(s: &Session, plan: &CompactionPlan) -> Option<String> {
    plan.leaf.and_then(|n| s.entry(n).id().map(str::to_owned))
}
