//! Compact now: plan, the exact summarizer prompts, the summaries, and one appended
//! `compaction` entry (docs/decisions.md D15: only if the file is unchanged).
//!
//! Settings: `keepRecentTokens`, `reserveTokens` (and omp's other `compaction.*` keys) start
//! from the agent's own settings files (contextree-host `settings`, read only); the options win.
//!
//! Hooks (contextree-host `hooks`, configured in contextree's config file) run as the agents run
//! their extensions (compaction.md §1.3 step 3): `session_before_compact` may cancel
//! (`Compaction cancelled`, nothing written) or supply the compaction; omp's
//! `session.compacting` may change the history prompt, add context lines and preserveData;
//! `session_compact` is told about the written entry. A failing hook is a warning, never a
//! failure. A dry run runs no hook (hooks are programs with effects of their own).
//!
//! Where the summaries come from, in order of precedence:
//! 1. [`CompactOptions::summary`]: stored as given, like a `session_before_compact` hook's
//!    result (`fromHook` / `fromExtension` true, no file tags);
//! 2. a `session_before_compact` hook's `compaction`, stored the same way;
//! 3. offline, or no provider given nor configured: contextree-llm's offline extractive
//!    summary, labelled in the entry's `details`;
//! 4. otherwise the candidates ([`crate::summarizer::candidates`]), through contextree-llm.

use contextree_core::compaction::entry::{details_value, strip_file_tags, system_checkpoint};
use contextree_core::compaction::prompt::{pi_reasoning, PromptBuildError};
use contextree_core::compaction::{auto_check_with, CheckInputs};
use contextree_core::compaction::{
    compaction_result, new_entry, plan, preview_numbers, summary_requests, supplied_result, Answers, CallKind, CompactingHook,
    CompactionPlan, CompactionResult, CompactionSettings, HistoryStep, NothingToCompact, PromptOptions, SummarizerCall, SummaryRequests,
    SuppliedCompaction,
};
use contextree_core::context::{self, Leaf};
use contextree_core::js::{js_trim_end, slice_utf16, utf16_len};
use contextree_core::models::{current_model, resolve_window};
use contextree_core::prompts::PromptPack;
use contextree_core::session::{NodeId, Session};
use contextree_core::Dialect;
use contextree_host::hooks::{self, HookEvent, Hooks};
use contextree_host::settings::AgentSettings;
use contextree_host::write::{append_to_loaded, now_iso, random_u32, Appended};
use contextree_host::{HostEnv, LoadedSession, RawJson};
use contextree_llm::offline::{parts, PartKind, OFFLINE_LABEL};
use contextree_llm::{summarize_offline, CancelToken, Candidates, Summary, SummaryRequest, Usage};
use serde::{Serialize, Serializer};

use crate::auto_check::AutoCheckReport;
use crate::error::{require_entry_ids, write_error};
use crate::progress::{llm_error, Asker};
use crate::report::{CallView, IdList, JsNumber, ModelAnswer, PiCost, PiUsage, Summarizer};
use crate::summarizer::{self, load_hooks, ProviderFlags};
use crate::{Call, OpsError, Progress, ProgressFn, OFFLINE_DETAILS};

/// What to compact and how.
pub struct CompactOptions<'a> {
    /// The leaf whose context is compacted; the new entry's parent.
    pub leaf: Leaf,
    /// The prompt pack, asked for only when there is something to compact.
    pub pack: &'a dyn Fn(Dialect) -> Result<PromptPack, OpsError>,
    /// Custom instructions (`/compact TEXT`).
    pub instructions: Option<String>,
    /// `keepRecentTokens` (default: the agent's setting).
    pub keep_recent: Option<u64>,
    /// `reserveTokens` (default: the agent's setting).
    pub reserve: Option<u64>,
    /// pi: the summarizing model reasons.
    pub model_reasons: bool,
    /// omp: `session.compacting` context lines, after the hooks' lines.
    pub context: Vec<String>,
    /// The user's own summary (stored as a hook's).
    pub summary: Option<String>,
    /// Which models to ask.
    pub provider: ProviderFlags,
    /// The machine: the agent's settings, the hooks and the config file are read through it.
    pub env: &'a HostEnv,
}

/// What was written.
#[derive(Debug)]
pub struct CompactOutcome {
    /// Whose rules applied.
    pub dialect: Dialect,
    /// The new entry's id.
    pub id: String,
    /// Its parent (the leaf).
    pub parent_id: Option<String>,
    /// The appended line.
    pub line: String,
    /// The appended entry.
    pub entry: RawJson,
    /// Where it went.
    pub appended: Appended,
    /// How the summary was written (`{kind: model|offline|supplied|hook, ...}`).
    pub summarizer: Summarizer,
    /// The entry's `firstKeptEntryId`.
    pub first_kept_entry_id: String,
    /// Everything worth telling (settings, hooks, a raced append).
    pub warnings: Vec<String>,
}

/// The settings and the plan every path starts from.
struct Start {
    agent: AgentSettings,
    ctx: context::Context,
    plan: CompactionPlan,
    warnings: Vec<String>,
}

fn start(loaded: &LoadedSession, opts: &CompactOptions<'_>) -> Result<Start, OpsError> {
    let s = &loaded.session;
    let ctx = context::build(s, opts.leaf);
    let agent = opts.env.agent_settings(s.dialect());
    let settings = CompactionSettings {
        keep_recent_tokens: opts.keep_recent.unwrap_or(agent.compaction.keep_recent_tokens),
        reserve_tokens: opts.reserve.unwrap_or(agent.compaction.reserve_tokens),
        reserve_tokens_set: opts.reserve.is_some() || agent.compaction.reserve_tokens_set,
        ..agent.compaction
    };
    let plan = plan(s, &ctx, &settings, &loaded.source)?;
    let mut warnings = agent.warnings.clone();
    warnings.extend(plan.warnings.iter().cloned());
    if s.dialect() == Dialect::Pi && !opts.context.is_empty() {
        warnings.push("--context is ignored: pi has no session.compacting hook".to_owned());
    }
    Ok(Start { agent, ctx, plan, warnings })
}

fn prompt_options(opts: &CompactOptions<'_>, ctx: &context::Context) -> PromptOptions {
    PromptOptions {
        custom_instructions: opts.instructions.clone(),
        hook: CompactingHook { context: opts.context.clone(), ..Default::default() },
        pi_reasoning: pi_reasoning(opts.model_reasons, &ctx.thinking_level),
        summary_model: None,
    }
}

/// A request that cannot be built: omp 18's fold (an input over the summarizer's budget) is a
/// refusal, the rest a failure.
fn request_error(e: PromptBuildError) -> OpsError {
    match e {
        PromptBuildError::TooLarge(why) => OpsError::Refused(format!("Compaction not attempted: {why}")),
        e => OpsError::Requests(e),
    }
}

/// What a fold call of the dry run shows for the summary of the call before it.
pub const FOLD_MARKER: &str = "<<summary returned by the history call before>>";

/// What a compaction of a leaf would do, read only: the plan, the size estimate and the exact
/// summarizer calls, or why the agent would not compact. `contextree compact --dry-run`
/// ([`dry_run`]) and the app's plan panel both show it.
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
#[serde(rename_all = "camelCase")]
pub struct Planned {
    /// The prompt pack the calls are written with.
    pub prompt_pack: String,
    pub first_kept_entry_id: String,
    pub is_split_turn: bool,
    pub tokens_before: JsNumber,
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
#[serde(rename_all = "camelCase")]
pub struct FileListsView {
    pub read_files: Vec<String>,
    pub modified_files: Vec<String>,
}

/// The size estimate of a compaction (core `CompactionPreview`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreviewNumbers {
    pub tokens_before: JsNumber,
    pub kept_tokens: u64,
    pub summary_budget: u64,
    pub estimated_tokens_after: u64,
    pub messages_summarized: usize,
    pub turn_prefix_messages: usize,
    pub messages_kept: usize,
    pub messages_dropped: usize,
}

/// omp@18's summary input format: `{format, model, budgetTokens, fit: {by, size}, windows}`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptView {
    pub format: &'static str,
    pub model: Option<String>,
    pub budget_tokens: u64,
    pub fit: FitView,
    /// The history's windows: more than one when the agent folds it (`foldCalls`).
    pub windows: usize,
}

/// How the history was found to fit the input budget.
#[derive(Debug, Clone, Serialize)]
pub struct FitView {
    pub by: &'static str,
    pub size: u64,
}

/// Event → number of hooks configured, in the events' order (a dry run runs none of them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfiguredHooks(pub Vec<(&'static str, usize)>);

impl Serialize for ConfiguredHooks {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// `contextree compact --dry-run`'s document: the plan and the exact prompts, the settings
/// files, the hooks that would run and the agent's own automatic check (without the dialect and
/// rule set, which the face writes first).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum DryRun {
    /// The agent would not compact.
    Nothing(Box<NothingDoc>),
    /// The plan.
    Plan(Box<PlanDoc>),
}

/// [`DryRun`] when the agent would not compact.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NothingDoc {
    pub leaf_id: Option<String>,
    pub dry_run: bool,
    /// Always true.
    pub nothing_to_compact: bool,
    /// The agent's own text.
    pub reason: String,
    pub settings_files: Vec<String>,
    pub warnings: Vec<String>,
    pub auto_check: AutoCheckReport,
}

/// [`DryRun`] with a plan.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanDoc {
    pub leaf_id: Option<String>,
    pub dry_run: bool,
    /// Always false.
    pub nothing_to_compact: bool,
    #[serde(flatten)]
    pub planned: Planned,
    pub warnings: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript: Option<TranscriptView>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fold_calls: Vec<CallView>,
    pub settings_files: Vec<String>,
    pub hooks: ConfiguredHooks,
    pub auto_check: AutoCheckReport,
}

impl DryRun {
    /// The settings files, the warnings and the automatic check, whichever the document is.
    pub fn settings_files(&self) -> &[String] {
        match self {
            DryRun::Nothing(d) => &d.settings_files,
            DryRun::Plan(d) => &d.settings_files,
        }
    }

    /// The automatic check.
    pub fn auto_check(&self) -> &AutoCheckReport {
        match self {
            DryRun::Nothing(d) => &d.auto_check,
            DryRun::Plan(d) => &d.auto_check,
        }
    }
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
fn plan_preview<T>(
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
    let short = requests.short_call(contextree_core::compaction::preview::SHORT_PREVIEW_MARKER);
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
                contextree_core::compaction::preview::SHORT_PREVIEW_MARKER
            )
        }),
        transcript,
        fold_calls,
        summarized: p.messages_to_summarize.iter().chain(&p.turn_prefix).copied().collect(),
    }))
}

fn fit_parts(fit: contextree_core::compaction::prompt::Fit) -> (&'static str, u64) {
    use contextree_core::compaction::prompt::Fit;
    match fit {
        Fit::Bytes(n) => ("bytes", n),
        Fit::Tokens(n) => ("tokens", n),
        Fit::Approximate(n) => ("approximate", n),
        Fit::Folded(n) => ("folded", n),
    }
}

/// The plan and the exact prompts as one document (`contextree compact --dry-run`): the
/// [`preview_plan`], the hooks that would run and the agent's own automatic check; calls
/// nothing, writes nothing, runs no hook.
pub fn dry_run(loaded: &LoadedSession, opts: &CompactOptions<'_>) -> Result<DryRun, OpsError> {
    // Read before anything is planned: a broken hooks section must stop the run rather than
    // skip a hook the user relies on (to cancel, say).
    let hooks = load_hooks(opts.env)?;
    let (pv, auto) = plan_preview(loaded, opts, |ctx, plan| auto_check_report(loaded, ctx, plan))?;
    Ok(match pv.planned {
        Err(reason) => DryRun::Nothing(Box::new(NothingDoc {
            leaf_id: pv.leaf_id,
            dry_run: true,
            nothing_to_compact: true,
            reason: reason.to_string(),
            settings_files: pv.settings_files,
            warnings: pv.warnings,
            auto_check: auto,
        })),
        Ok(mut planned) => DryRun::Plan(Box::new(PlanDoc {
            leaf_id: pv.leaf_id,
            dry_run: true,
            nothing_to_compact: false,
            transcript: planned.transcript.take(),
            fold_calls: std::mem::take(&mut planned.fold_calls),
            planned,
            warnings: pv.warnings,
            settings_files: pv.settings_files,
            hooks: configured_hooks(&hooks),
            auto_check: auto,
        })),
    })
}

/// Whether and how the agent itself would compact after its last run, with the agent's settings
/// and the model table's window (`autoCheck` of the dry run): under omp 18 also its stale pass
/// and the method it would pick; contextree writes an LLM summary (`soft`) either way.
fn auto_check_report(loaded: &LoadedSession, ctx: &context::Context, plan: &CompactionPlan) -> Result<AutoCheckReport, OpsError> {
    let s = &loaded.session;
    let model = current_model(&ctx.model, s.dialect());
    let (window, _) = resolve_window(None, model.as_deref());
    let check = auto_check_with(s, ctx, &plan.settings, window, None, &CheckInputs::default(), &loaded.source)?;
    Ok(crate::auto_check::auto_check_report(s, &check))
}

/// Compacts `opts.leaf` and appends the entry. `cancel` stops a model call (nothing is
/// written, [`OpsError::Cancelled`]).
pub fn run(
    loaded: &LoadedSession,
    opts: &CompactOptions<'_>,
    progress: ProgressFn<'_>,
    cancel: &CancelToken,
) -> Result<CompactOutcome, OpsError> {
    let s = &loaded.session;
    // Read before anything is planned: a broken hooks section must stop the
    // run rather than skip a hook the user relies on (to cancel, say).
    let hooks = load_hooks(opts.env)?;
    let Start { agent, ctx, plan, mut warnings } = start(loaded, opts)?;
    if let Err(reason) = &plan.outcome {
        // The agents' own refusal texts ("Already compacted", ...).
        return Err(OpsError::Refused(reason.to_string()));
    }
    let pack = (opts.pack)(s.dialect())?;
    let mut prompt_opts = prompt_options(opts, &ctx);
    require_entry_ids(loaded)?;

    // session_before_compact: may cancel, or supply the whole compaction.
    let mut hook_supplied = None;
    if !hooks.for_event(HookEvent::BeforeCompact).is_empty() {
        let payload = hooks::before_compact_payload(s, &ctx.path, &plan, &loaded.source, opts.instructions.as_deref())?;
        // A cancel kills the running hook (its whole process group) and starts no other.
        let d =
            hooks::dispatch_until(HookEvent::BeforeCompact, hooks.for_event(HookEvent::BeforeCompact), &payload, &|| cancel.is_cancelled());
        if cancel.is_cancelled() {
            return Err(OpsError::Cancelled);
        }
        warnings.extend(d.warnings.iter().cloned());
        let decided = hooks::before_compact(&d);
        if decided.cancel {
            return Err(OpsError::HookCancelled { message: "Compaction cancelled".to_owned(), warnings });
        }
        hook_supplied = decided.compaction;
    }
    // session.compacting (omp only, and only when nothing was supplied): its
    // prompt, context lines and preserveData shape the summary; the option's
    // context lines follow the hooks' lines.
    if s.dialect() == Dialect::Omp
        && opts.summary.is_none()
        && hook_supplied.is_none()
        && !hooks.for_event(HookEvent::Compacting).is_empty()
    {
        let payload = hooks::compacting_payload(s, &plan, &loaded.source)?;
        let d = hooks::dispatch_until(HookEvent::Compacting, hooks.for_event(HookEvent::Compacting), &payload, &|| cancel.is_cancelled());
        if cancel.is_cancelled() {
            return Err(OpsError::Cancelled);
        }
        warnings.extend(d.warnings.iter().cloned());
        let mut hook = hooks::compacting(&d);
        hook.context.extend(opts.context.iter().cloned());
        prompt_opts.hook = hook;
    }

    // The user's summary is their answer here and now, so it wins over a hook's.
    let supplied = match (&opts.summary, hook_supplied) {
        (Some(text), _) => Some((SuppliedCompaction { summary: text.clone(), ..Default::default() }, Summarizer::Supplied)),
        (None, Some(c)) => Some((c, Summarizer::Hook { event: HookEvent::BeforeCompact.name() })),
        (None, None) => None,
    };
    let from_extension = supplied.is_some();
    let (mut result, summarizer) = match supplied {
        Some((supplied, summarizer)) => (supplied_result(s, &plan, &supplied)?, summarizer),
        None => {
            let mut candidates = summarizer::candidates(&opts.provider, &agent, opts.env)?;
            prompt_opts.summary_model =
                summarizer::omp18_summary_model(s, current_model(&ctx.model, s.dialect()), &mut candidates, &mut warnings);
            let requests = summary_requests(s, &plan, &loaded.source, &pack, &prompt_opts).map_err(request_error)?;
            let (answers, summarizer, usage) = if opts.provider.offline || candidates.is_empty() {
                let why = summarizer::offline_why(&opts.provider, &agent);
                for call in calls(&requests) {
                    progress(Progress::Offline { call });
                }
                (offline_answers(s, &plan, &requests), Summarizer::Offline { why }, None)
            } else {
                ask_models(&requests, &candidates, opts.env, progress, cancel)?
            };
            let mut result = compaction_result(s, &plan, &requests, &answers, &prompt_opts.hook)?;
            if summarizer.is_offline() {
                label_offline(&mut result, &plan);
            }
            // pi ≥ 0.81 stores the calls' usage with the entry.
            result.usage = usage.filter(|_| s.rules().projects_context_edits()).and_then(|u| serde_json::to_value(u).ok());
            (result, summarizer)
        }
    };
    // pi ≥ 0.86: the system prompt and tools in effect, as the entry's checkpoint.
    result.system_message = system_checkpoint(s, &ctx, &loaded.source)?;
    if cancel.is_cancelled() {
        return Err(OpsError::Cancelled);
    }

    progress(Progress::Writing);
    let mut draw = random_u32;
    let entry = new_entry(s, &plan, &result, &now_iso(), &mut draw);
    let appended = append_to_loaded(loaded, std::slice::from_ref(&entry.line))
        .map_err(|e| write_error(e, "nothing was written; the plan was made from the old contents"))?;
    if appended.raced {
        warnings.push(
            "another process appended to the file during the write: both lines are whole, but the new entry follows its lines".to_owned(),
        );
    }
    warnings.extend(appended.sync_warning());
    let entry_value = RawJson::from_text(&entry.line).map_err(|source| OpsError::Json { what: "the entry written", source })?;
    if !hooks.for_event(HookEvent::Compact).is_empty() {
        // A notification: the entry is written whatever the hooks do, so a cancel
        // (meant for the summary) no longer stops them; their time limit still does.
        let d =
            hooks::dispatch(HookEvent::Compact, hooks.for_event(HookEvent::Compact), &hooks::compact_payload(&entry_value, from_extension));
        warnings.extend(d.warnings);
    }
    Ok(CompactOutcome {
        dialect: plan.dialect,
        id: entry.id,
        parent_id: entry.parent_id,
        line: entry.line,
        entry: entry_value,
        appended,
        summarizer,
        first_kept_entry_id: result.first_kept_entry_id,
        warnings,
    })
}

/// The calls a set of requests makes, in order (the short call only when there is one).
fn calls(requests: &SummaryRequests) -> Vec<Call> {
    let mut v: Vec<Call> = requests.first_calls().iter().map(|c| call_of(c.kind)).collect();
    if requests.has_short() {
        v.push(Call::Short);
    }
    v
}

fn settings_files(agent: &AgentSettings) -> Vec<String> {
    agent.sources.iter().map(|p| p.display().to_string()).collect()
}

/// Event → number of hooks, for the dry run (which runs none of them).
fn configured_hooks(hooks: &Hooks) -> ConfiguredHooks {
    ConfiguredHooks(HookEvent::ALL.into_iter().map(|e| (e.name(), hooks.for_event(e).len())).filter(|(_, n)| *n > 0).collect())
}

fn leaf_id(s: &Session, plan: &CompactionPlan) -> Option<String> {
    plan.leaf.map(|n| s.entry(n).id.to_string())
}

fn summary_request(call: &SummarizerCall) -> SummaryRequest {
    SummaryRequest {
        system_prompt: call.system_prompt.clone(),
        prompt: call.prompt.clone(),
        max_tokens: call.sent_max_tokens().map(|m| u32::try_from(m).unwrap_or(u32::MAX)),
        reasoning: call.reasoning.clone(),
    }
}

/// `stopReason` values that mean the answer stopped at the output cap.
fn hit_token_cap(summary: &Summary) -> bool {
    matches!(summary.stop_reason.as_deref(), Some("length" | "max_tokens"))
}

/// pi ≥ 0.84.3's refusal of a length-capped summary (pi-1.6.md §4.4), as
/// `<label> failed: …`.
pub(crate) fn token_cap_failure(label: &str) -> String {
    format!("{label} failed: generation hit the token cap and the summary is incomplete")
}

/// The usage pi stores with a summary entry (its `Usage` shape), from what the
/// providers reported: input and output tokens, no cache or cost figures
/// (contextree does not know them); summed over the calls as pi's
/// `combineUsage` does. `None` when no call reported usage.
pub(crate) fn pi_usage<'a>(reports: impl IntoIterator<Item = &'a Usage>) -> Option<PiUsage> {
    let mut any = false;
    let (mut input, mut output) = (0u64, 0u64);
    for u in reports {
        any = true;
        input += u.input_tokens.unwrap_or(0);
        output += u.output_tokens.unwrap_or(0);
    }
    any.then(|| PiUsage {
        input,
        output,
        cache_read: 0,
        cache_write: 0,
        total_tokens: input + output,
        cost: PiCost { input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0 },
    })
}

fn call_of(kind: CallKind) -> Call {
    match kind {
        CallKind::History => Call::History,
        CallKind::TurnPrefix => Call::TurnPrefix,
        CallKind::Short => Call::Short,
    }
}

/// Round 1 (history and turn prefix: concurrently as pi 0.73 and omp do, one
/// after the other as pi 1.6 does), then omp's short summary quoting round 1's
/// merged result. Also returns pi's usage of the calls.
fn ask_models(
    requests: &SummaryRequests,
    candidates: &Candidates,
    env: &HostEnv,
    progress: ProgressFn<'_>,
    cancel: &CancelToken,
) -> Result<(Answers, Summarizer, Option<PiUsage>), OpsError> {
    let asker = Asker::new(candidates, cancel, progress, env)?;
    // pi's wording for a failed manual compaction (hooks-and-settings.md §2).
    fn failed(what: &'static str) -> impl Fn(contextree_llm::LlmError) -> OpsError {
        move |e| llm_error(e, |e| format!("Compaction failed: {e} (the {what} summary)"))
    }
    let ask = |call: Option<&SummarizerCall>| {
        let asker = &asker;
        let request = call.map(|c| (call_of(c.kind), summary_request(c)));
        async move {
            match request {
                Some((kind, request)) => asker.ask(kind, &request).await.map(Some),
                None => Ok(None),
            }
        }
    };
    let history_call = match &requests.history {
        HistoryStep::Call(c) => Some(c),
        HistoryStep::Literal(_) => None,
    };
    // pi 1.6 refuses a summary cut at the output cap.
    let capped = |s: &Option<Summary>, kind: CallKind| match s {
        Some(s) if requests.rejects_length_stop() && hit_token_cap(s) => Err(OpsError::Provider {
            message: format!("Compaction failed: {}", token_cap_failure(SummaryRequests::label(kind))),
            source: None,
        }),
        _ => Ok(()),
    };
    // omp 18 folds an oversized history over several windows, one call after the other, each
    // quoting the summary the one before returned.
    let history_chain = || async {
        let mut carried = ask(history_call).await?;
        for i in 0..requests.fold_len() {
            let text = carried.as_ref().map(|s| s.text.clone()).unwrap_or_default();
            let Some(call) = requests.fold_call(i, &text) else { break };
            carried = ask(Some(&call)).await?;
        }
        Ok::<_, contextree_llm::LlmError>(carried)
    };
    let (history, prefix) = if requests.sequential() {
        let history = asker.block_on(history_chain()).map_err(failed("history"))?;
        capped(&history, CallKind::History)?;
        let prefix = asker.block_on(ask(requests.turn_prefix.as_ref())).map_err(failed("turn-prefix"))?;
        (history, prefix)
    } else {
        let (history, prefix) = asker.block_on(async { tokio::join!(history_chain(), ask(requests.turn_prefix.as_ref())) });
        (history.map_err(failed("history"))?, prefix.map_err(failed("turn-prefix"))?)
    };
    capped(&history, CallKind::History)?;
    capped(&prefix, CallKind::TurnPrefix)?;
    let text = |s: &Option<contextree_llm::Summary>| s.as_ref().map(|s| s.text.clone());
    let merged = requests.merge(text(&history).as_deref(), text(&prefix).as_deref());
    let short = match requests.short_call(&merged) {
        Some(call) => asker.block_on(ask(Some(&call))).map_err(failed("short"))?,
        None => None,
    };
    let used: Vec<ModelAnswer> = [(Call::History, &history), (Call::TurnPrefix, &prefix), (Call::Short, &short)]
        .iter()
        .filter_map(|&(call, s)| {
            s.as_ref().map(|s| ModelAnswer {
                call,
                provider: s.provider.clone(),
                model: s.model.clone(),
                stop_reason: s.stop_reason.clone(),
            })
        })
        .collect();
    let answers = Answers { history: text(&history), turn_prefix: text(&prefix), short: text(&short) };
    let usage = pi_usage([&history, &prefix].into_iter().flatten().filter_map(|s| s.usage.as_ref()));
    Ok((answers, Summarizer::Models { calls: used }, usage))
}

/// Answers written without a model (contextree-llm's extractive summary).
/// An update keeps the previous summary below the new extract, since an
/// extract of the new messages alone would lose it.
fn offline_answers(s: &Session, plan: &CompactionPlan, requests: &SummaryRequests) -> Answers {
    let previous = plan.previous.and_then(|p| s.entry(p.node).str_field("summary")).filter(|t| !t.is_empty());
    let history = match &requests.history {
        HistoryStep::Call(c) => {
            // A folded history (omp 18): every window's conversation.
            let mut conversation = c.conversation().to_owned();
            for w in requests.transcript.iter().flat_map(|t| &t.fold) {
                conversation.push_str("\n\n");
                conversation.push_str(w);
            }
            let mut text = summarize_offline(&conversation);
            if let Some(prev) = previous {
                text.push_str("\n\n## Earlier Summary\n\n");
                text.push_str(js_trim_end(&strip_file_tags(prev)));
            }
            Some(text)
        }
        HistoryStep::Literal(_) => None,
    };
    let turn_prefix = requests.turn_prefix.as_ref().map(|c| summarize_offline(c.conversation()));
    let merged = requests.merge(history.as_deref(), turn_prefix.as_deref());
    let short = requests.short_call(&merged).map(|c| offline_short(c.conversation()));
    Answers { history, turn_prefix, short }
}

/// omp's short summary, offline: one sentence quoting the latest request
/// in the kept part, else the latest reply.
fn offline_short(recent: &str) -> String {
    let latest = |kind: PartKind| {
        parts(recent)
            .into_iter()
            .rev()
            .find(|(k, t)| *k == kind && !t.trim().is_empty())
            .map(|(_, t)| t.trim().lines().next().unwrap_or("").to_owned())
    };
    let clip = |t: String| if utf16_len(&t) > 200 { format!("{}\u{2026}", slice_utf16(&t, 200)) } else { t };
    match (latest(PartKind::User), latest(PartKind::Assistant)) {
        (Some(req), _) => format!("{OFFLINE_LABEL} Latest request kept verbatim: {}", clip(req)),
        (None, Some(reply)) => format!("{OFFLINE_LABEL} Latest reply kept verbatim: {}", clip(reply)),
        (None, None) => OFFLINE_LABEL.to_owned(),
    }
}

/// Marks an offline summary in `details` (the agents read only its two lists).
fn label_offline(result: &mut CompactionResult, plan: &CompactionPlan) {
    let details = result.details.get_or_insert_with(|| details_value(&plan.prepared().map(|p| p.file_ops.lists()).unwrap_or_default()));
    if let Some(map) = details.as_object_mut() {
        map.insert("summarizer".into(), OFFLINE_DETAILS.into());
    }
}
