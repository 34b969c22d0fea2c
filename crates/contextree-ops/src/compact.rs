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
    CompactionPlan, CompactionResult, CompactionSettings, HistoryStep, PromptOptions, SummarizerCall, SummaryRequests, SuppliedCompaction,
};
use contextree_core::context::{self, Leaf};
use contextree_core::js::{js_trim_end, json_number, slice_utf16, utf16_len};
use contextree_core::models::{current_model, resolve_window};
use contextree_core::prompts::PromptPack;
use contextree_core::session::{NodeId, Session};
use contextree_core::Dialect;
use contextree_host::hooks::{self, HookEvent, Hooks};
use contextree_host::settings::{agent_settings_from_env, AgentSettings};
use contextree_host::write::{append_to_loaded, now_iso, random_u32, Appended};
use contextree_host::LoadedSession;
use contextree_llm::offline::{parts, PartKind, OFFLINE_LABEL};
use contextree_llm::{summarize_offline, CancelToken, Candidates, Summary, SummaryRequest, Usage};
use serde_json::{json, Map, Value};

use crate::error::{require_entry_ids, write_error};
use crate::progress::{llm_error, Asker};
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
    pub entry: Value,
    /// Where it went.
    pub appended: Appended,
    /// How the summary was written (`{kind: model|offline|supplied|hook, ...}`).
    pub summarizer: Value,
    /// The entry's `firstKeptEntryId`.
    pub first_kept_entry_id: String,
    /// Everything worth telling (settings, hooks, a raced append).
    pub warnings: Vec<String>,
}

/// The settings, the hooks and the plan every path starts from.
struct Start {
    agent: AgentSettings,
    hooks: Hooks,
    ctx: context::Context,
    plan: CompactionPlan,
    warnings: Vec<String>,
}

fn start(loaded: &LoadedSession, opts: &CompactOptions<'_>) -> Result<Start, OpsError> {
    let s = &loaded.session;
    let ctx = context::build(s, opts.leaf);
    let agent = agent_settings_from_env(s.dialect());
    let settings = CompactionSettings {
        keep_recent_tokens: opts.keep_recent.unwrap_or(agent.compaction.keep_recent_tokens),
        reserve_tokens: opts.reserve.unwrap_or(agent.compaction.reserve_tokens),
        reserve_tokens_set: opts.reserve.is_some() || agent.compaction.reserve_tokens_set,
        ..agent.compaction
    };
    // Read before anything is planned: a broken hooks section must stop the
    // run rather than skip a hook the user relies on (to cancel, say).
    let hooks = load_hooks()?;
    let plan = plan(s, &ctx, &settings, &loaded.source)?;
    let mut warnings = agent.warnings.clone();
    warnings.extend(plan.warnings.iter().cloned());
    if s.dialect() == Dialect::Pi && !opts.context.is_empty() {
        warnings.push("--context is ignored: pi has no session.compacting hook".to_owned());
    }
    Ok(Start { agent, hooks, ctx, plan, warnings })
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
        e => OpsError::Failed(e.to_string()),
    }
}

/// What a fold call of the dry run shows for the summary of the call before it.
pub const FOLD_MARKER: &str = "<<summary returned by the history call before>>";

/// Appends `note` to the document's `warnings`.
fn warnings_note(doc: &mut Value, note: String) {
    if let Some(w) = doc.get_mut("warnings").and_then(Value::as_array_mut) {
        w.push(note.into());
    } else {
        doc["warnings"] = json!([note]);
    }
}

/// omp@18's summary input format for the dry run's document.
fn transcript_json(requests: &SummaryRequests) -> Value {
    requests.transcript.as_ref().map_or(Value::Null, |t| {
        let mut v = json!({"format": t.dialect.name(), "model": t.model, "budgetTokens": t.budget_tokens, "fit": t.fit.to_json()});
        // The history's windows: more than one when the agent folds it (`foldCalls`).
        v["windows"] = (1 + t.fold.len()).into();
        v
    })
}

/// The plan and the exact prompts as one JSON document (`contextree compact --dry-run`);
/// calls nothing, writes nothing, runs no hook.
pub fn dry_run(loaded: &LoadedSession, opts: &CompactOptions<'_>) -> Result<DryRun, OpsError> {
    let s = &loaded.session;
    let Start { agent, hooks, ctx, plan, warnings } = start(loaded, opts)?;
    let auto = auto_check_document(loaded, &ctx, &plan)?;
    if let Err(reason) = &plan.outcome {
        let doc = json!({"dialect": plan.dialect.name(), "leafId": leaf_id(s, &plan), "dryRun": true, "nothingToCompact": true, "reason": reason.to_string(), "settingsFiles": settings_files(&agent), "warnings": warnings, "autoCheck": auto});
        return Ok(DryRun { doc, plan });
    }
    let pack = (opts.pack)(s.dialect())?;
    let mut warnings = warnings;
    let mut prompt_opts = prompt_options(opts, &ctx);
    // The model the run would ask first (a broken configuration shows the path's model).
    let mut candidates = if s.rules().summarizes_with_model_transcript() {
        summarizer::candidates(&opts.provider, &agent).unwrap_or_default()
    } else {
        Candidates::default()
    };
    prompt_opts.summary_model = summarizer::omp18_summary_model(s, current_model(&ctx.model, s.dialect()), &mut candidates, &mut warnings);
    // The context (its path, messages and pi 1.6's projection: 16 to 40 bytes an entry) is not
    // needed past here: gone before the prompts, which may quote a whole session, are made.
    drop(ctx);
    let requests = summary_requests(s, &plan, &loaded.source, &pack, &prompt_opts).map_err(request_error)?;
    let transcript = requests.transcript.is_some().then(|| transcript_json(&requests));
    let fold_len = requests.fold_len();
    // omp 18's fold: the history calls after the first, each quoting the answer of the one
    // before it (shown as FOLD_MARKER).
    let fold_calls: Vec<Value> = (0..fold_len).filter_map(|i| requests.fold_call(i, FOLD_MARKER)).map(call_json).collect();
    // The requests' prompts move into the document (a prompt quoting a million-message history
    // is held once).
    let mut doc = dry_run_document(s, &plan, requests, &pack.origin().to_string(), &warnings);
    if let Some(t) = transcript {
        doc["transcript"] = t;
    }
    if fold_len > 0 {
        doc["foldCalls"] = fold_calls.into();
        warnings_note(&mut doc, format!("oh-my-pi 18 summarizes this history in {} windows, one call after the other, each updating the summary of the one before (`foldCalls`)", fold_len + 1));
    }
    doc["settingsFiles"] = settings_files(&agent);
    doc["hooks"] = configured_hooks(&hooks);
    doc["autoCheck"] = auto;
    Ok(DryRun { doc, plan })
}

/// What a dry run shows: its document, whose id lists ([`DryRun::ID_LISTS`], present when
/// there is something to compact) are `null` placeholders for the plan's lists, written one
/// at a time by the caller (a million-entry path is not held as JSON values).
#[derive(Debug)]
pub struct DryRun {
    /// The document.
    pub doc: Value,
    /// The plan, whose preparation holds the id lists.
    pub plan: CompactionPlan,
}

impl DryRun {
    /// The document's id lists, in order, with the preparation's lists they hold.
    pub const ID_LISTS: [&'static str; 4] = ["messagesToSummarizeIds", "turnPrefixIds", "recentMessagesIds", "droppedIds"];

    /// The entries of the id list `name` (one of [`DryRun::ID_LISTS`]).
    pub fn ids(&self, name: &str) -> &[NodeId] {
        let Some(p) = self.plan.prepared() else { return &[] };
        match name {
            "messagesToSummarizeIds" => &p.messages_to_summarize,
            "turnPrefixIds" => &p.turn_prefix,
            "recentMessagesIds" => &p.recent,
            "droppedIds" => &p.dropped,
            _ => &[],
        }
    }
}

/// Whether and how the agent itself would compact after its last run, with the agent's settings
/// and the model table's window (`autoCheck` of the dry run): under omp 18 also its stale pass
/// and the method it would pick; contextree writes an LLM summary (`soft`) either way.
fn auto_check_document(loaded: &LoadedSession, ctx: &context::Context, plan: &CompactionPlan) -> Result<Value, OpsError> {
    let s = &loaded.session;
    let model = current_model(&ctx.model, s.dialect());
    let (window, _) = resolve_window(None, model.as_deref());
    let check = auto_check_with(s, ctx, &plan.settings, window, None, &CheckInputs::default(), &loaded.source)?;
    Ok(crate::auto_check::auto_check_json(s, &check))
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
    let Start { agent, hooks, ctx, plan, mut warnings } = start(loaded, opts)?;
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
        (Some(text), _) => Some((SuppliedCompaction { summary: text.clone(), ..Default::default() }, json!({"kind": "supplied"}))),
        (None, Some(c)) => Some((c, json!({"kind": "hook", "event": HookEvent::BeforeCompact.name()}))),
        (None, None) => None,
    };
    let from_extension = supplied.is_some();
    let (mut result, summarizer) = match supplied {
        Some((supplied, summarizer)) => (supplied_result(s, &plan, &supplied).map_err(|e| OpsError::Failed(e.to_string()))?, summarizer),
        None => {
            let mut candidates = summarizer::candidates(&opts.provider, &agent)?;
            prompt_opts.summary_model =
                summarizer::omp18_summary_model(s, current_model(&ctx.model, s.dialect()), &mut candidates, &mut warnings);
            let requests = summary_requests(s, &plan, &loaded.source, &pack, &prompt_opts).map_err(request_error)?;
            let (answers, summarizer, usage) = if opts.provider.offline || candidates.is_empty() {
                let why = summarizer::offline_why(&opts.provider, &agent);
                for call in calls(&requests) {
                    progress(Progress::Offline { call });
                }
                (offline_answers(s, &plan, &requests), json!({"kind": "offline", "why": why}), None)
            } else {
                ask_models(&requests, &candidates, progress, cancel)?
            };
            let mut result =
                compaction_result(s, &plan, &requests, &answers, &prompt_opts.hook).map_err(|e| OpsError::Failed(e.to_string()))?;
            if summarizer["kind"] == "offline" {
                label_offline(&mut result, &plan);
            }
            // pi ≥ 0.81 stores the calls' usage with the entry.
            result.usage = usage.filter(|_| s.rules().projects_context_edits());
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
    let entry_value: Value = serde_json::from_str(&entry.line).map_err(|e| OpsError::Failed(e.to_string()))?;
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

fn settings_files(agent: &AgentSettings) -> Value {
    agent.sources.iter().map(|p| Value::from(p.display().to_string())).collect()
}

/// Event → number of hooks, for the dry run (which runs none of them).
fn configured_hooks(hooks: &Hooks) -> Value {
    let mut map = Map::new();
    for event in HookEvent::ALL {
        let n = hooks.for_event(event).len();
        if n > 0 {
            map.insert(event.name().into(), n.into());
        }
    }
    Value::Object(map)
}

fn leaf_id(s: &Session, plan: &CompactionPlan) -> Value {
    plan.leaf.map_or(Value::Null, |n| s.entry(n).id.to_string().into())
}

fn call_json(c: SummarizerCall) -> Value {
    let kind = c.kind.name();
    let mut v = c.into_json();
    v["kind"] = kind.into();
    v
}

/// The plan, the size estimate and every call, as the dry run shows them.
fn dry_run_document(s: &Session, plan: &CompactionPlan, requests: SummaryRequests, pack: &str, warnings: &[String]) -> Value {
    let id = |n: NodeId| Value::from(s.entry(n).id.to_string());
    let mut doc = Map::new();
    doc.insert("dialect".into(), plan.dialect.name().into());
    doc.insert("leafId".into(), leaf_id(s, plan));
    doc.insert("dryRun".into(), true.into());
    doc.insert("nothingToCompact".into(), false.into());
    doc.insert("promptPack".into(), pack.into());
    if let (Ok(p), Ok(pv)) = (&plan.outcome, preview_numbers(s, plan, &requests)) {
        let lists = p.file_ops.lists();
        doc.insert("firstKeptEntryId".into(), id(p.first_kept));
        doc.insert("isSplitTurn".into(), p.is_split_turn().into());
        doc.insert("tokensBefore".into(), json_number(plan.tokens_before));
        doc.insert("keepRecentTokensUsed".into(), plan.keep_recent.used.into());
        for list in DryRun::ID_LISTS {
            doc.insert(list.into(), Value::Null);
        }
        doc.insert("fileOps".into(), json!({"readFiles": lists.read_files, "modifiedFiles": lists.modified_files}));
        doc.insert(
            "preview".into(),
            json!({
                "tokensBefore": json_number(pv.tokens_before),
                "keptTokens": pv.kept_tokens,
                "summaryBudget": pv.summary_budget,
                "estimatedTokensAfter": pv.estimated_tokens_after,
                "messagesSummarized": pv.messages_summarized,
                "turnPrefixMessages": pv.turn_prefix_messages,
                "messagesKept": pv.messages_kept,
                "messagesDropped": pv.messages_dropped,
            }),
        );
        let literal = match &requests.history {
            HistoryStep::Literal(t) => Value::from(t.clone()),
            HistoryStep::Call(_) => Value::Null,
        };
        doc.insert("historyLiteral".into(), literal);
        let has_short = requests.has_short();
        let short = requests.short_call(contextree_core::compaction::preview::SHORT_PREVIEW_MARKER);
        doc.insert("calls".into(), requests.into_first_calls().into_iter().chain(short).map(call_json).collect());
        if has_short {
            doc.insert(
                "shortSummaryNote".into(),
                format!(
                    "the short-summary prompt quotes the summary the calls before it return; shown here as {}",
                    contextree_core::compaction::preview::SHORT_PREVIEW_MARKER
                )
                .into(),
            );
        }
    }
    doc.insert("warnings".into(), warnings.to_vec().into());
    Value::Object(doc)
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
pub(crate) fn pi_usage<'a>(reports: impl IntoIterator<Item = &'a Usage>) -> Option<Value> {
    let mut any = false;
    let (mut input, mut output) = (0u64, 0u64);
    for u in reports {
        any = true;
        input += u.input_tokens.unwrap_or(0);
        output += u.output_tokens.unwrap_or(0);
    }
    any.then(|| {
        json!({
            "input": input, "output": output, "cacheRead": 0, "cacheWrite": 0, "totalTokens": input + output,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
        })
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
    progress: ProgressFn<'_>,
    cancel: &CancelToken,
) -> Result<(Answers, Value, Option<Value>), OpsError> {
    let asker = Asker::new(candidates, cancel, progress)?;
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
        Some(s) if requests.rejects_length_stop() && hit_token_cap(s) => {
            Err(OpsError::Provider(format!("Compaction failed: {}", token_cap_failure(SummaryRequests::label(kind)))))
        }
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
    let used: Vec<Value> = [(Call::History.name(), &history), (Call::TurnPrefix.name(), &prefix), (Call::Short.name(), &short)]
        .iter()
        .filter_map(|(kind, s)| {
            s.as_ref().map(|s| json!({"call": kind, "provider": s.provider, "model": s.model, "stopReason": s.stop_reason}))
        })
        .collect();
    let answers = Answers { history: text(&history), turn_prefix: text(&prefix), short: text(&short) };
    let usage = pi_usage([&history, &prefix].into_iter().flatten().filter_map(|s| s.usage.as_ref()));
    Ok((answers, json!({"kind": "model", "calls": used}), usage))
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
