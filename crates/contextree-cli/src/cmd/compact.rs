//! `contextree compact`: a real compaction (spec cli-contract.md): plan, the
//! exact summarizer prompts, the summaries, and one appended `compaction`
//! entry (decisions.md D15: only with `--yes`, only if the file is unchanged).
//!
//! Settings: `keepRecentTokens`, `reserveTokens` (and omp's other
//! `compaction.*` keys) start from the agent's own settings files
//! (contextree-host `settings`, read only); `--keep-recent` / `--reserve` win.
//!
//! Hooks (contextree-host `hooks`, configured in contextree's config file) run
//! as the agents run their extensions (compaction.md §1.3 step 3):
//! `session_before_compact` may cancel (`Compaction cancelled`, nothing
//! written) or supply the compaction; omp's `session.compacting` may change
//! the history prompt, add context lines and preserveData; `session_compact`
//! is told about the written entry. A failing hook is a warning, never a
//! failure. A dry run runs no hook (hooks are programs with effects of their own).
//!
//! Where the summaries come from, in order of precedence:
//! 1. `--summary TEXT`: stored as given, like a `session_before_compact` hook's
//!    result (`fromHook` / `fromExtension` true, no file tags);
//! 2. a `session_before_compact` hook's `compaction`, stored the same way;
//! 3. `--offline`, or no provider given nor configured: contextree-llm's
//!    offline extractive summary, labelled in the entry's `details`;
//! 4. otherwise the candidates (`--provider`/`--model`, else
//!    `~/.config/contextree/config.json`, else omp's `compaction.remoteEndpoint`;
//!    see [`crate::summarizer::candidates`]), through contextree-llm.

use clap::Args;
use contextree_core::compaction::entry::{details_value, strip_file_tags};
use contextree_core::compaction::prompt::pi_reasoning;
use contextree_core::compaction::{
    compaction_result, new_entry, plan, preview, summary_requests, supplied_result, Answers, CompactingHook, CompactionPlan, CompactionResult, CompactionSettings,
    HistoryStep, PromptOptions, SummarizerCall, SummaryRequests, SuppliedCompaction,
};
use contextree_core::js::{js_trim_end, slice_utf16, utf16_len};
use contextree_core::session::{NodeId, Session};
use contextree_core::Dialect;
use contextree_host::hooks::{self, HookEvent, Hooks};
use contextree_host::settings::{agent_settings_from_env, AgentSettings};
use contextree_host::write::{append_to_loaded, now_iso, random_u32, WriteError};
use contextree_llm::offline::{parts, PartKind, OFFLINE_LABEL};
use contextree_llm::{summarize_offline, CancelToken, Candidates, Event, SummaryRequest};
use serde_json::{json, Map, Value};

use crate::common::{print_json, read_back, CliError, SessionArgs};
use crate::summarizer::{self, load_hooks, ProviderFlags};

/// The `details.summarizer` value of an entry whose summary no model wrote.
const OFFLINE_DETAILS: &str = "contextree-offline";

#[derive(Debug, Args)]
pub struct CompactArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// Print the plan and the exact prompts; call nothing, write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Custom instructions (`/compact TEXT`), appended to the history prompt as "Additional focus".
    #[arg(long, value_name = "TEXT")]
    instructions: Option<String>,
    /// `keepRecentTokens` (default: the agent's setting, else 20000; omp scales it by usage/estimate).
    #[arg(long, value_name = "N")]
    keep_recent: Option<u64>,
    /// `reserveTokens` (default: the agent's setting, else 16384): sizes the summaries' maxTokens.
    #[arg(long, value_name = "N")]
    reserve: Option<u64>,
    /// Write contextree's offline extractive summary; no model is asked.
    #[arg(long, conflicts_with_all = ["provider", "model", "base_url"])]
    offline: bool,
    /// Ask this provider (`openai-compatible`, `anthropic`, `remote`) instead of the config file's candidates.
    #[arg(long, value_name = "KIND")]
    provider: Option<String>,
    /// The model for `--provider`.
    #[arg(long, value_name = "ID")]
    model: Option<String>,
    /// Base URL for `--provider` (default: the provider's public API).
    #[arg(long, value_name = "URL", requires = "provider")]
    base_url: Option<String>,
    /// pi: the summarizing model reasons, so pi would pass the session's thinking level.
    #[arg(long)]
    model_reasons: bool,
    /// omp: a `session.compacting` context line (repeatable), as a hook would give.
    #[arg(long = "context", value_name = "LINE")]
    context: Vec<String>,
    /// Store this summary instead of asking a model, as a hook-supplied one (marked fromHook / fromExtension).
    #[arg(long, value_name = "TEXT", conflicts_with_all = ["offline", "provider", "instructions"])]
    summary: Option<String>,
    /// Confirm writing to the file (required unless --dry-run).
    #[arg(long)]
    yes: bool,
}

pub fn run(args: &CompactArgs) -> Result<(), CliError> {
    let a = &args.session;
    if !args.dry_run && !args.yes {
        return Err(CliError::Input(format!(
            "compact appends an entry to {}: pass --yes to confirm, or --dry-run to see the plan and prompts",
            a.file.display()
        )));
    }
    let loaded = a.load()?;
    let s = &loaded.session;
    let ctx = a.context(&loaded)?;
    let agent = agent_settings_from_env(s.dialect());
    let settings = CompactionSettings {
        keep_recent_tokens: args.keep_recent.unwrap_or(agent.compaction.keep_recent_tokens),
        reserve_tokens: args.reserve.unwrap_or(agent.compaction.reserve_tokens),
        ..agent.compaction
    };
    // Read before anything is planned: a broken hooks section must stop the
    // run rather than skip a hook the user relies on (to cancel, say).
    let hooks = load_hooks()?;
    let plan = plan(s, &ctx, &settings, &loaded.source).map_err(read_back)?;
    let mut warnings = agent.warnings.clone();
    warnings.extend(plan.warnings.iter().cloned());
    if s.dialect() == Dialect::Pi && !args.context.is_empty() {
        warnings.push("--context is ignored: pi has no session.compacting hook".to_owned());
    }
    let Ok(_) = &plan.outcome else {
        let reason = plan.outcome.as_ref().err().map(ToString::to_string).unwrap_or_default();
        if args.dry_run {
            let doc = json!({"dialect": plan.dialect.name(), "leafId": leaf_id(s, &plan), "dryRun": true, "nothingToCompact": true, "reason": reason, "settingsFiles": settings_files(&agent), "warnings": warnings});
            print_doc(a.json, &doc, || {
                print_settings_files(&doc);
                println!("nothing to compact: {reason}");
            });
            return Ok(());
        }
        // The agents' own refusal texts ("Already compacted", ...).
        return Err(CliError::Failed(reason));
    };
    let pack = a.pack(s.dialect())?;
    let mut opts = PromptOptions {
        custom_instructions: args.instructions.clone(),
        hook: CompactingHook { context: args.context.clone(), ..Default::default() },
        pi_reasoning: pi_reasoning(args.model_reasons, &ctx.thinking_level),
    };

    if args.dry_run {
        let requests = summary_requests(s, &plan, &loaded.source, &pack, &opts).map_err(|e| CliError::Failed(e.to_string()))?;
        let mut doc = dry_run_document(s, &plan, &requests, &pack.origin().to_string(), &warnings);
        doc["settingsFiles"] = settings_files(&agent);
        doc["hooks"] = configured_hooks(&hooks);
        print_doc(a.json, &doc, || {
            print_settings_files(&doc);
            print_dry_run(&doc);
        });
        return Ok(());
    }
    if s.original_version() < 2 {
        // Version-1 entries have no ids in the file: the ids the entry would
        // name exist only in memory (the agents rewrite such a file on open).
        return Err(CliError::Input(format!("{}: a version-1 file has no entry ids to point at; let an agent upgrade it first", a.file.display())));
    }

    // session_before_compact: may cancel, or supply the whole compaction.
    let mut hook_supplied = None;
    if !hooks.for_event(HookEvent::BeforeCompact).is_empty() {
        let payload = hooks::before_compact_payload(s, &ctx.path, &plan, &loaded.source, args.instructions.as_deref()).map_err(read_back)?;
        let d = hooks::dispatch(HookEvent::BeforeCompact, hooks.for_event(HookEvent::BeforeCompact), &payload);
        warnings.extend(d.warnings.iter().cloned());
        let decided = hooks::before_compact(&d);
        if decided.cancel {
            // The error is all a caller sees: the hooks' warnings go to stderr first.
            for w in &warnings {
                eprintln!("contextree: warning: {w}");
            }
            return Err(CliError::Failed("Compaction cancelled".to_owned()));
        }
        hook_supplied = decided.compaction;
    }
    // session.compacting (omp only, and only when nothing was supplied): its
    // prompt, context lines and preserveData shape the summary; `--context`
    // lines follow the hooks' lines.
    if s.dialect() == Dialect::Omp && args.summary.is_none() && hook_supplied.is_none() && !hooks.for_event(HookEvent::Compacting).is_empty() {
        let payload = hooks::compacting_payload(s, &plan, &loaded.source).map_err(read_back)?;
        let d = hooks::dispatch(HookEvent::Compacting, hooks.for_event(HookEvent::Compacting), &payload);
        warnings.extend(d.warnings.iter().cloned());
        let mut hook = hooks::compacting(&d);
        hook.context.extend(args.context.iter().cloned());
        opts.hook = hook;
    }
    let requests = summary_requests(s, &plan, &loaded.source, &pack, &opts).map_err(|e| CliError::Failed(e.to_string()))?;

    // `--summary` is the user's own answer here and now, so it wins over a hook's.
    let supplied = match (&args.summary, hook_supplied) {
        (Some(text), _) => Some((SuppliedCompaction { summary: text.clone(), ..Default::default() }, json!({"kind": "supplied"}))),
        (None, Some(c)) => Some((c, json!({"kind": "hook", "event": HookEvent::BeforeCompact.name()}))),
        (None, None) => None,
    };
    let from_extension = supplied.is_some();
    let (result, summarizer) = match supplied {
        Some((supplied, summarizer)) => (supplied_result(s, &plan, &supplied).map_err(|e| CliError::Failed(e.to_string()))?, summarizer),
        None => {
            let flags = ProviderFlags { offline: args.offline, provider: args.provider.as_deref(), model: args.model.as_deref(), base_url: args.base_url.as_deref() };
            let candidates = summarizer::candidates(flags, &agent)?;
            let (answers, summarizer) = if args.offline || candidates.is_empty() {
                let why = if args.offline { "--offline" } else { "no provider given or configured" };
                (offline_answers(s, &plan, &requests), json!({"kind": "offline", "why": why}))
            } else {
                ask_models(&requests, &candidates, a.json)?
            };
            let mut result = compaction_result(s, &plan, &requests, &answers, &opts.hook).map_err(|e| CliError::Failed(e.to_string()))?;
            if summarizer["kind"] == "offline" {
                label_offline(&mut result, &plan);
            }
            (result, summarizer)
        }
    };

    let mut draw = random_u32;
    let entry = new_entry(s, &plan, &result, &now_iso(), &mut draw);
    let appended = append_to_loaded(&loaded, std::slice::from_ref(&entry.line)).map_err(|e| match e {
        WriteError::Changed { .. } => CliError::Failed(format!("{e} (nothing was written; the plan was made from the old contents)")),
        other => CliError::Failed(other.to_string()),
    })?;
    if appended.raced {
        warnings.push("another process appended to the file during the write: both lines are whole, but the new entry follows its lines".to_owned());
    }
    let entry_value: Value = serde_json::from_str(&entry.line).map_err(|e| CliError::Failed(e.to_string()))?;
    if !hooks.for_event(HookEvent::Compact).is_empty() {
        // A notification: the entry is written whatever the hooks do.
        let d = hooks::dispatch(HookEvent::Compact, hooks.for_event(HookEvent::Compact), &hooks::compact_payload(&entry_value, from_extension));
        warnings.extend(d.warnings);
    }
    let doc = json!({
        "dialect": plan.dialect.name(),
        "file": a.file.display().to_string(),
        "appended": {
            "id": entry.id,
            "parentId": entry.parent_id,
            "offset": appended.offset,
            "bytes": appended.bytes,
            "addedNewline": appended.added_newline,
        },
        "summarizer": summarizer,
        "entry": entry_value,
        "warnings": warnings,
    });
    print_doc(a.json, &doc, || {
        println!("appended compaction {} (parent {}) at byte {} of {}", entry.id, entry.parent_id.as_deref().unwrap_or("none"), appended.offset, a.file.display());
        println!("summarizer: {}", summarizer_text(&doc["summarizer"]));
        println!("first kept entry {} · tokensBefore {}", result.first_kept_entry_id, doc["entry"]["tokensBefore"]);
        for w in &warnings {
            println!("warning: {w}");
        }
        println!("{}", entry.line);
    });
    Ok(())
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

fn print_settings_files(doc: &Value) {
    let files: Vec<&str> = doc["settingsFiles"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    if files.is_empty() {
        println!("agent settings: none found, defaults used");
    } else {
        println!("agent settings read from: {}", files.join(", "));
    }
    if let Some(hooks) = doc["hooks"].as_object().filter(|h| !h.is_empty()) {
        let list: Vec<String> = hooks.iter().map(|(k, v)| format!("{k} ×{v}")).collect();
        println!("hooks (not run in a dry run): {}", list.join(", "));
    }
}

fn print_doc(json: bool, doc: &Value, text: impl FnOnce()) {
    if json {
        print_json(doc);
    } else {
        text();
    }
}

fn leaf_id(s: &Session, plan: &CompactionPlan) -> Value {
    plan.leaf.map_or(Value::Null, |n| s.entry(n).id.to_string().into())
}

/// A JS number as JSON: integers without a fraction, NaN as null.
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15 {
        Value::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

fn call_json(c: &SummarizerCall) -> Value {
    let mut v = c.to_json();
    v["kind"] = c.kind.name().into();
    v
}

/// The plan, the size estimate and every call, as `--dry-run` prints them.
fn dry_run_document(s: &Session, plan: &CompactionPlan, requests: &SummaryRequests, pack: &str, warnings: &[String]) -> Value {
    let id = |n: NodeId| Value::from(s.entry(n).id.to_string());
    let ids = |nodes: &[NodeId]| Value::Array(nodes.iter().map(|&n| id(n)).collect());
    let mut doc = Map::new();
    doc.insert("dialect".into(), plan.dialect.name().into());
    doc.insert("leafId".into(), leaf_id(s, plan));
    doc.insert("dryRun".into(), true.into());
    doc.insert("nothingToCompact".into(), false.into());
    doc.insert("promptPack".into(), pack.into());
    if let (Ok(p), Ok(pv)) = (&plan.outcome, preview(s, plan, requests)) {
        let lists = p.file_ops.lists();
        doc.insert("firstKeptEntryId".into(), id(p.first_kept));
        doc.insert("isSplitTurn".into(), p.is_split_turn().into());
        doc.insert("tokensBefore".into(), number(plan.tokens_before));
        doc.insert("keepRecentTokensUsed".into(), plan.keep_recent.used.into());
        doc.insert("messagesToSummarizeIds".into(), ids(&p.messages_to_summarize));
        doc.insert("turnPrefixIds".into(), ids(&p.turn_prefix));
        doc.insert("recentMessagesIds".into(), ids(&p.recent));
        doc.insert("droppedIds".into(), ids(&p.dropped));
        doc.insert("fileOps".into(), json!({"readFiles": lists.read_files, "modifiedFiles": lists.modified_files}));
        doc.insert(
            "preview".into(),
            json!({
                "tokensBefore": number(pv.tokens_before),
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
        doc.insert("calls".into(), pv.calls.iter().map(call_json).collect());
        if requests.has_short() {
            doc.insert("shortSummaryNote".into(), format!("the short-summary prompt quotes the summary the calls before it return; shown here as {}", contextree_core::compaction::preview::SHORT_PREVIEW_MARKER).into());
        }
    }
    doc.insert("warnings".into(), warnings.to_vec().into());
    Value::Object(doc)
}

fn print_dry_run(doc: &Value) {
    let list = |v: &Value| v.as_array().map_or(String::new(), |a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "));
    let pv = &doc["preview"];
    println!("dialect {} · leaf {} · prompt pack: {}", doc["dialect"].as_str().unwrap_or(""), doc["leafId"], doc["promptPack"].as_str().unwrap_or(""));
    println!("first kept entry {}{} · tokensBefore {}", doc["firstKeptEntryId"].as_str().unwrap_or(""), if doc["isSplitTurn"] == true { " (split turn)" } else { "" }, doc["tokensBefore"]);
    let count = |v: &Value| v.as_array().map_or(0, Vec::len);
    println!("summarize ({}): {}", count(&doc["messagesToSummarizeIds"]), list(&doc["messagesToSummarizeIds"]));
    println!("turn prefix ({}): {}", pv["turnPrefixMessages"], list(&doc["turnPrefixIds"]));
    println!("keep ({}): {}", pv["messagesKept"], list(&doc["recentMessagesIds"]));
    println!(
        "context after: at most {} tokens (kept {} + summary budget {}), before: {}",
        pv["estimatedTokensAfter"], pv["keptTokens"], pv["summaryBudget"], pv["tokensBefore"]
    );
    if let Some(lit) = doc["historyLiteral"].as_str() {
        println!("history: no call, the literal {lit:?}");
    }
    for w in doc["warnings"].as_array().into_iter().flatten() {
        println!("warning: {}", w.as_str().unwrap_or(""));
    }
    for (i, call) in doc["calls"].as_array().into_iter().flatten().enumerate() {
        let reasoning = call["reasoning"].as_str().map_or(String::new(), |r| format!(" · reasoning {r}"));
        println!("\n=== call {}: {} · maxTokens {}{reasoning}", i + 1, call["kind"].as_str().unwrap_or(""), call["maxTokens"]);
        println!("--- system prompt\n{}", call["systemPrompt"].as_str().unwrap_or(""));
        println!("--- prompt\n{}", call["prompt"].as_str().unwrap_or(""));
    }
    if let Some(note) = doc["shortSummaryNote"].as_str() {
        println!("\n({note})");
    }
}

fn summary_request(call: &SummarizerCall) -> SummaryRequest {
    SummaryRequest {
        system_prompt: call.system_prompt.clone(),
        prompt: call.prompt.clone(),
        max_tokens: u32::try_from(call.max_tokens).unwrap_or(u32::MAX),
        reasoning: call.reasoning.clone(),
    }
}

/// Round 1 (history and turn prefix, concurrently, as the agents do), then
/// omp's short summary quoting round 1's merged result.
fn ask_models(requests: &SummaryRequests, candidates: &Candidates, quiet: bool) -> Result<(Answers, Value), CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| CliError::Failed(e.to_string()))?;
    let cancel = CancelToken::new();
    // pi's wording for a failed manual compaction (hooks-and-settings.md §2).
    let failed = |what: &str, e: contextree_llm::LlmError| CliError::Failed(format!("Compaction failed: {e} (the {what} summary)"));
    let history_call = match &requests.history {
        HistoryStep::Call(c) => Some(c),
        HistoryStep::Literal(_) => None,
    };
    let (history, prefix) = runtime.block_on(async {
        tokio::join!(ask(history_call, candidates, &cancel, quiet), ask(requests.turn_prefix.as_ref(), candidates, &cancel, quiet))
    });
    let history = history.map_err(|e| failed("history", e))?;
    let prefix = prefix.map_err(|e| failed("turn-prefix", e))?;
    let text = |s: &Option<contextree_llm::Summary>| s.as_ref().map(|s| s.text.clone());
    let merged = requests.merge(text(&history).as_deref(), text(&prefix).as_deref());
    let short = match requests.short_call(&merged) {
        Some(call) => runtime.block_on(ask(Some(&call), candidates, &cancel, quiet)).map_err(|e| failed("short", e))?,
        None => None,
    };
    let used: Vec<Value> = [("history", &history), ("turnPrefix", &prefix), ("short", &short)]
        .iter()
        .filter_map(|(kind, s)| s.as_ref().map(|s| json!({"call": kind, "provider": s.provider, "model": s.model, "stopReason": s.stop_reason})))
        .collect();
    let answers = Answers { history: text(&history), turn_prefix: text(&prefix), short: text(&short) };
    Ok((answers, json!({"kind": "model", "calls": used})))
}

/// One call through the candidates (`None` for a call that is not made).
async fn ask(call: Option<&SummarizerCall>, candidates: &Candidates, cancel: &CancelToken, quiet: bool) -> Result<Option<contextree_llm::Summary>, contextree_llm::LlmError> {
    let Some(call) = call else { return Ok(None) };
    let mut on_event = |event: Event<'_>| progress(quiet, call, event);
    contextree_llm::summarize_with_events(&summary_request(call), candidates, &mut on_event, cancel).await.map(Some)
}

/// Attempts, retries and fallbacks on stderr (stdout is the result).
fn progress(quiet: bool, call: &SummarizerCall, event: Event<'_>) {
    if quiet {
        return;
    }
    match event {
        Event::Attempt { provider, model, attempt } => eprintln!("{} summary: asking {provider} {model} (attempt {})", call.kind.name(), attempt + 1),
        Event::Retry { error, delay } => eprintln!("{} summary: {error}; retrying in {:.1}s", call.kind.name(), delay.as_secs_f64()),
        Event::Fallback { provider, error } => eprintln!("{} summary: {provider} failed ({error}); trying the next candidate", call.kind.name()),
        _ => {}
    }
}

/// Answers written without a model (contextree-llm's extractive summary).
/// An update keeps the previous summary below the new extract, since an
/// extract of the new messages alone would lose it.
fn offline_answers(s: &Session, plan: &CompactionPlan, requests: &SummaryRequests) -> Answers {
    let previous = plan.previous.and_then(|p| s.entry(p.node).str_field("summary")).filter(|t| !t.is_empty());
    let history = match &requests.history {
        HistoryStep::Call(c) => {
            let mut text = summarize_offline(c.conversation());
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
    let latest = |kind: PartKind| parts(recent).into_iter().rev().find(|(k, t)| *k == kind && !t.trim().is_empty()).map(|(_, t)| t.trim().lines().next().unwrap_or("").to_owned());
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

fn summarizer_text(v: &Value) -> String {
    match v["kind"].as_str() {
        Some("offline") => format!("offline extractive summary, no model ({})", v["why"].as_str().unwrap_or("")),
        Some("supplied") => "supplied with --summary (stored as a hook's summary)".to_owned(),
        Some("hook") => format!("supplied by a {} hook", v["event"].as_str().unwrap_or("")),
        _ => {
            let calls: Vec<String> = v["calls"].as_array().into_iter().flatten().map(|c| format!("{} by {} {}", c["call"].as_str().unwrap_or(""), c["provider"].as_str().unwrap_or(""), c["model"].as_str().unwrap_or(""))).collect();
            calls.join(", ")
        }
    }
}
