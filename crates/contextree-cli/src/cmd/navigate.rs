//! `contextree navigate`: move the file's leaf to another entry so that both
//! agents reopen the session there (decisions.md D14, branch-summary.md §1,
//! cli-contract.md). The agents keep the leaf in memory only; the one durable
//! leaf both of them understand is the last entry of the file, so moving it
//! means appending one entry:
//!
//! - `--summarize`: the `branch_summary` entry the agent's `navigateTree`
//!   would write (placed where the agent places it: under the target, or
//!   under its parent for a user or custom message), the summary written by
//!   a model through contextree-llm, or offline;
//! - otherwise: a `custom` entry of contextree's own `customType` under the
//!   target, which neither agent puts in the LLM context.
//!
//! Only with `--yes`, and only if the file is unchanged since it was read (D15).
//!
//! Hooks (contextree-host `hooks`, from contextree's config file) run as the
//! agents run their extensions (hooks-and-settings.md §3):
//! `session_before_tree` may cancel (`Navigation cancelled`, exit 1, nothing
//! written), supply the summary (used only with `--summarize`; stored verbatim
//! with `fromHook` / `fromExtension` true and its own `details`) and, for pi,
//! override `customInstructions`, `replaceInstructions` and `label`;
//! `session_tree` is told about the new leaf after the write.
//!
//! The summarizer's budget is `window − branchSummary.reserveTokens`: the
//! reserve from the agent's settings (`--reserve` wins), the window from
//! `--window`, else 128,000, the value both agents fall back to when the
//! model's window is unknown (contextree does not know which model the agent
//! would summarize with).
//!
//! pi's `label`: with `--label TEXT` (or a hook's label) a `label` entry follows
//! the written entry, pointing at the summary entry, or at the target when no
//! summary is written, as pi's `navigateTree` appends it.

use clap::Args;
use contextree_core::branch::{collect_entries_for_branch_summary, prepare_branch_entries, token_budget, BranchEntries, DEFAULT_CONTEXT_WINDOW};
use contextree_core::branch_summary::{self, generated, new_leaf, returns_to_editor, summary_call, BranchOptions, BranchSummaryCall};
use contextree_core::compaction::entry::new_entry_id;
use contextree_core::context::materialize::agent_message;
use contextree_core::context::Item;
use contextree_core::js::stringify;
use contextree_core::session::{NodeId, Session};
use contextree_core::Dialect;
use contextree_host::hooks::{self, HookEvent, TreePreparation};
use contextree_host::settings::{agent_settings_from_env, AgentSettings};
use contextree_host::write::{append_to_loaded, now_iso, random_u32, WriteError};
use contextree_host::LoadedSession;
use contextree_llm::{summarize_offline, CancelToken, Candidates, Event, SummaryRequest};
use serde_json::{json, Map, Value};

use crate::common::{print_json, read_back, CliError, SessionArgs};
use crate::summarizer::{self, load_hooks, ProviderFlags};

/// contextree's own `customType` for a persisted leaf move (D14).
pub const CONTINUE_TYPE: &str = "contextree-continue";
/// The `details.summarizer` value of a summary no model wrote (as `compact`).
const OFFLINE_DETAILS: &str = "contextree-offline";

#[derive(Debug, Args)]
pub struct NavigateArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// The entry to continue from.
    #[arg(long, value_name = "ID")]
    to: String,
    /// Summarize the abandoned branch into a branch_summary entry, as the agents' /tree does.
    #[arg(long)]
    summarize: bool,
    /// Custom instructions (omp: replace the prompt; pi: appended as "Additional focus").
    #[arg(long, value_name = "TEXT", requires = "summarize")]
    instructions: Option<String>,
    /// pi: the instructions replace the default prompt instead of extending it.
    #[arg(long, requires = "instructions")]
    replace_instructions: bool,
    /// The summarizing model's context window (default 128000, the agents' fallback); the budget is this − the reserve.
    #[arg(long, value_name = "N")]
    window: Option<u64>,
    /// `branchSummary.reserveTokens` (default: the agent's setting, else 16384).
    #[arg(long, value_name = "N")]
    reserve: Option<u64>,
    /// pi: label the summary entry (or, without a summary, the target) with a `label` entry, as /tree's label does.
    #[arg(long, value_name = "TEXT")]
    label: Option<String>,
    /// Write contextree's offline extractive summary; no model is asked.
    #[arg(long, requires = "summarize", conflicts_with_all = ["provider", "model", "base_url"])]
    offline: bool,
    /// Ask this provider (`openai-compatible`, `anthropic`, `remote`) instead of the config file's candidates.
    #[arg(long, value_name = "KIND", requires = "summarize")]
    provider: Option<String>,
    /// The model for `--provider`.
    #[arg(long, value_name = "ID")]
    model: Option<String>,
    /// Base URL for `--provider` (default: the provider's public API).
    #[arg(long, value_name = "URL", requires = "provider")]
    base_url: Option<String>,
    /// Confirm appending to the file.
    #[arg(long)]
    yes: bool,
}

pub fn run(args: &NavigateArgs) -> Result<(), CliError> {
    let a = &args.session;
    if !args.yes {
        return Err(CliError::Input(format!(
            "navigate appends an entry to {} so the agents reopen it on the new leaf: pass --yes to confirm (`contextree branch` shows the preparation without writing)",
            a.file.display()
        )));
    }
    let loaded = a.load()?;
    let s = &loaded.session;
    let target = node(&loaded, a, &args.to)?;
    let old_leaf = match &a.leaf {
        Some(id) => Some(node(&loaded, a, id)?),
        None => s.leaf(),
    };
    let mut warnings = Vec::new();
    let mut doc = Map::new();
    doc.insert("dialect".into(), s.dialect().name().into());
    doc.insert("file".into(), a.file.display().to_string().into());
    doc.insert("oldLeafId".into(), id_or_null(s, old_leaf));
    doc.insert("targetId".into(), args.to.clone().into());
    // `navigateTree` does nothing when the target is the leaf already.
    if Some(target) == old_leaf && old_leaf == s.leaf() {
        doc.insert("appended".into(), Value::Null);
        doc.insert("note".into(), "the target is the leaf already; nothing was written".into());
        return finish(a.json, &Value::Object(doc));
    }
    if s.original_version() < 2 {
        // Version-1 entries have no ids in the file to hang an entry under.
        return Err(CliError::Input(format!("{}: a version-1 file has no entry ids to point at; let an agent upgrade it first", a.file.display())));
    }

    let agent = agent_settings_from_env(s.dialect());
    warnings.extend(agent.warnings.iter().cloned());
    // Read before anything is done: a broken hooks section must stop the run.
    let hooks = load_hooks()?;
    let collected = collect_entries_for_branch_summary(s, old_leaf, target);
    let mut nav = NavOptions {
        custom_instructions: args.instructions.clone(),
        replace_instructions: args.replace_instructions.then_some(true),
        label: args.label.clone().filter(|l| !l.is_empty()),
    };
    if s.dialect() == Dialect::Omp && nav.label.is_some() {
        warnings.push("--label is ignored: omp's navigation has no label".to_owned());
        nav.label = None;
    }

    // session_before_tree: may cancel, supply the summary, (pi) change the options.
    let mut hook_summary = None;
    let before_tree = hooks.for_event(HookEvent::BeforeTree);
    if !before_tree.is_empty() {
        let prep = TreePreparation {
            target,
            old_leaf,
            common_ancestor: collected.common_ancestor,
            entries_to_summarize: &collected.entries,
            user_wants_summary: args.summarize,
            custom_instructions: nav.custom_instructions.as_deref(),
            replace_instructions: nav.replace_instructions,
            label: nav.label.as_deref(),
        };
        let d = hooks::dispatch(HookEvent::BeforeTree, before_tree, &hooks::before_tree_payload(s, &prep, &loaded.source));
        warnings.extend(d.warnings.iter().cloned());
        let decided = hooks::before_tree(&d);
        if decided.cancel {
            for w in &warnings {
                eprintln!("contextree: warning: {w}");
            }
            return Err(CliError::Failed("Navigation cancelled".to_owned()));
        }
        let overrides = decided.custom_instructions.is_some() || decided.replace_instructions.is_some() || decided.label.is_some();
        match s.dialect() {
            Dialect::Pi => {
                nav.custom_instructions = decided.custom_instructions.or(nav.custom_instructions);
                nav.replace_instructions = decided.replace_instructions.or(nav.replace_instructions);
                if let Some(label) = decided.label {
                    nav.label = Some(label).filter(|l| !l.is_empty());
                }
            }
            Dialect::Omp if overrides => warnings.push("a session_before_tree hook gave customInstructions / replaceInstructions / label: omp has no such overrides, so they are ignored".to_owned()),
            Dialect::Omp => {}
        }
        match decided.summary {
            Some(sup) if args.summarize => hook_summary = Some(sup),
            Some(_) => warnings.push("a session_before_tree hook supplied a summary, but no summary was asked for (--summarize): it is ignored, as the agents ignore it".to_owned()),
            None => {}
        }
    }

    let mut draw = random_u32;
    let id = new_entry_id(s, &mut draw);
    let now = now_iso();
    let mut summary_written = None;
    let (parent, line, summarizer) = if let Some(sup) = hook_summary {
        // The agents use a hook's summary even when nothing is abandoned.
        let parent_id = summary_parent(&loaded, target, &mut doc, &mut warnings)?;
        summary_written = Some(true);
        (parent_id.clone(), branch_summary::supplied_entry_line(s.dialect(), &id, parent_id.as_deref(), &now, &sup), json!({"kind": "hook", "event": HookEvent::BeforeTree.name()}))
    } else {
        let summary = if args.summarize { summarize(args, &loaded, &agent, &collected, &nav, &mut doc, &mut warnings)? } else { None };
        match summary {
            Some((text, details, summarizer)) => {
                let parent_id = summary_parent(&loaded, target, &mut doc, &mut warnings)?;
                summary_written = Some(false);
                let line = branch_summary::entry_line(s.dialect(), &id, parent_id.as_deref(), &now, &text, Some(&details), Some(false));
                (parent_id, line, summarizer)
            }
            None => {
                let parent_id = s.entry(target).id.to_string();
                (Some(parent_id.clone()), continue_line(&id, &parent_id, old_leaf.map(|n| s.entry(n).id.to_string()), &now), Value::Null)
            }
        }
    };
    let mut lines = vec![line];
    // pi's label: on the summary entry, else on the target.
    let label = nav.label.as_ref().map(|text| {
        let mut label_id = new_entry_id(s, &mut draw);
        while label_id == id {
            label_id = new_entry_id(s, &mut draw);
        }
        let labelled = if summary_written.is_some() { id.clone() } else { s.entry(target).id.to_string() };
        lines.push(label_line(&label_id, &id, &now, &labelled, text));
        label_id
    });
    let appended = append_to_loaded(&loaded, &lines).map_err(|e| match e {
        WriteError::Changed { .. } => CliError::Failed(format!("{e} (nothing was written; reload and navigate again)")),
        other => CliError::Failed(other.to_string()),
    })?;
    if appended.raced {
        warnings.push("another process appended to the file during the write: both lines are whole, but the new entry follows its lines, so the agent that wrote them may continue from its own leaf".to_owned());
    }
    let entry: Value = serde_json::from_str(&lines[0]).map_err(|e| CliError::Failed(e.to_string()))?;
    let new_leaf_id = label.clone().unwrap_or_else(|| id.clone());
    if !hooks.for_event(HookEvent::Tree).is_empty() {
        // A notification: the entry is written whatever the hooks do.
        let old = old_leaf.map(|n| s.entry(n).id.to_string());
        let payload = hooks::tree_payload(Some(&new_leaf_id), old.as_deref(), summary_written.map(|from_ext| (&entry, from_ext)));
        let d = hooks::dispatch(HookEvent::Tree, hooks.for_event(HookEvent::Tree), &payload);
        warnings.extend(d.warnings);
    }
    doc.insert("newLeafId".into(), new_leaf_id.into());
    doc.insert(
        "appended".into(),
        json!({"id": id, "type": entry["type"], "parentId": parent, "offset": appended.offset, "bytes": appended.bytes, "addedNewline": appended.added_newline}),
    );
    if let Some(label_id) = &label {
        doc.insert("label".into(), json!({"id": label_id, "label": nav.label}));
    }
    doc.insert("summarizer".into(), summarizer);
    doc.insert("entry".into(), entry);
    doc.insert("warnings".into(), warnings.into());
    finish(a.json, &Value::Object(doc))
}

/// The navigation options after the hooks (pi's overrides).
struct NavOptions {
    custom_instructions: Option<String>,
    replace_instructions: Option<bool>,
    label: Option<String>,
}

/// Where `navigateTree` attaches a summary: the target, or the parent of a
/// user / custom message (whose text goes back to the editor).
fn summary_parent(loaded: &LoadedSession, target: NodeId, doc: &mut Map<String, Value>, warnings: &mut Vec<String>) -> Result<Option<String>, CliError> {
    let s = &loaded.session;
    if returns_to_editor(s.entry(target)) {
        doc.insert("editorText".into(), editor_text(loaded, target)?);
        warnings.push("the target is a user or custom message: the agents attach the summary under its parent and put its text back in the editor".to_owned());
    }
    Ok(new_leaf(s, target).map(|n| s.entry(n).id.to_string()))
}

/// pi's `label` entry (`appendLabelChange`), keys in its order.
fn label_line(id: &str, parent_id: &str, timestamp: &str, target_id: &str, label: &str) -> String {
    let mut m = Map::new();
    m.insert("type".into(), "label".into());
    m.insert("id".into(), id.into());
    m.insert("parentId".into(), parent_id.into());
    m.insert("timestamp".into(), timestamp.into());
    m.insert("targetId".into(), target_id.into());
    m.insert("label".into(), label.into());
    stringify(&Value::Object(m))
}

fn finish(json: bool, doc: &Value) -> Result<(), CliError> {
    if json {
        print_json(doc);
        return Ok(());
    }
    match doc["appended"].as_object() {
        None => println!("{}", doc["note"].as_str().unwrap_or("nothing was written")),
        Some(ap) => {
            println!("appended {} {} (parent {}) at byte {} of {}", ap["type"].as_str().unwrap_or(""), ap["id"].as_str().unwrap_or(""), ap["parentId"], ap["offset"], doc["file"].as_str().unwrap_or(""));
            if let Some(t) = doc["editorText"].as_str() {
                println!("editor text: {t}");
            }
            for w in doc["warnings"].as_array().into_iter().flatten() {
                println!("warning: {}", w.as_str().unwrap_or(""));
            }
            println!("{}", stringify(&doc["entry"]));
        }
    }
    Ok(())
}

fn node(loaded: &LoadedSession, a: &SessionArgs, id: &str) -> Result<NodeId, CliError> {
    // The agents' own message: `Entry <id> not found`.
    loaded.session.node(id).ok_or_else(|| CliError::Input(format!("{}: Entry {id} not found", a.file.display())))
}

fn id_or_null(s: &Session, n: Option<NodeId>) -> Value {
    n.map_or(Value::Null, |n| s.entry(n).id.to_string().into())
}

/// contextree's leaf-moving entry, keys in `appendCustomEntry`'s order.
fn continue_line(id: &str, parent_id: &str, from: Option<String>, timestamp: &str) -> String {
    let mut m = Map::new();
    m.insert("type".into(), "custom".into());
    m.insert("customType".into(), CONTINUE_TYPE.into());
    m.insert("data".into(), json!({"fromLeafId": from}));
    m.insert("id".into(), id.into());
    m.insert("parentId".into(), parent_id.into());
    m.insert("timestamp".into(), timestamp.into());
    stringify(&Value::Object(m))
}

/// The user text `navigateTree` returns as `editorText`: string content, or
/// the text blocks joined with no separator.
fn editor_text(loaded: &LoadedSession, target: NodeId) -> Result<Value, CliError> {
    let msg = agent_message(&loaded.session, Item::Entry(target), &loaded.source).map_err(read_back)?;
    Ok(match &msg["content"] {
        Value::String(t) => t.clone().into(),
        Value::Array(blocks) => blocks.iter().filter(|b| b["type"] == "text").filter_map(|b| b["text"].as_str()).collect::<String>().into(),
        _ => Value::Null,
    })
}

/// The summary text, its details and how it was written; `None` when there
/// is nothing abandoned (the agents then navigate without a summary). The
/// budget used goes into `doc["budget"]`.
fn summarize(
    args: &NavigateArgs,
    loaded: &LoadedSession,
    agent: &AgentSettings,
    collected: &BranchEntries,
    nav: &NavOptions,
    doc: &mut Map<String, Value>,
    warnings: &mut Vec<String>,
) -> Result<Option<(String, Value, Value)>, CliError> {
    let s = &loaded.session;
    let window = args.window.filter(|&w| w != 0).unwrap_or(DEFAULT_CONTEXT_WINDOW);
    let reserve = args.reserve.unwrap_or(agent.branch_summary_reserve_tokens);
    let budget = token_budget(Some(window), reserve);
    let files: Vec<String> = agent.sources.iter().map(|p| p.display().to_string()).collect();
    doc.insert("budget".into(), json!({"window": window, "reserveTokens": reserve, "tokenBudget": budget, "settingsFiles": files}));
    if collected.entries.is_empty() {
        warnings.push("nothing is abandoned by this move, so there is nothing to summarize (the agents skip the summary too)".to_owned());
        return Ok(None);
    }
    let prep = prepare_branch_entries(s, &collected.entries, budget, &loaded.source).map_err(read_back)?;
    let pack = args.session.pack(s.dialect())?;
    let opts = BranchOptions { custom_instructions: nav.custom_instructions.clone(), replace_instructions: nav.replace_instructions.unwrap_or(false) };
    let call = summary_call(s, &prep, &loaded.source, &pack, &opts).map_err(|e| CliError::Failed(e.to_string()))?;
    let (answer, summarizer) = match &call {
        // No message selected: the agents store their literal without asking.
        None => (String::new(), json!({"kind": "none", "why": "no messages selected"})),
        Some(call) => {
            let flags = ProviderFlags { offline: args.offline, provider: args.provider.as_deref(), model: args.model.as_deref(), base_url: args.base_url.as_deref() };
            let candidates = summarizer::candidates(flags, agent)?;
            if candidates.is_empty() {
                let why = if args.offline { "--offline" } else { "no provider given or configured" };
                (summarize_offline(call.conversation()), json!({"kind": "offline", "why": why}))
            } else {
                ask_model(call, &candidates, args.session.json)?
            }
        }
    };
    let (text, mut details) = generated(s.dialect(), &pack, &prep, &answer).map_err(|e| CliError::Failed(e.to_string()))?;
    if summarizer["kind"] == "offline" {
        // The agents read only the two lists; the label says no model wrote it.
        details["summarizer"] = OFFLINE_DETAILS.into();
    }
    Ok(Some((text, details, summarizer)))
}

/// The branch-summary call through the candidates (no reasoning option, as the agents send it).
fn ask_model(call: &BranchSummaryCall, candidates: &Candidates, quiet: bool) -> Result<(String, Value), CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| CliError::Failed(e.to_string()))?;
    let request = SummaryRequest {
        system_prompt: call.system_prompt.clone(),
        prompt: call.prompt.clone(),
        max_tokens: u32::try_from(call.max_tokens).unwrap_or(u32::MAX),
        reasoning: None,
    };
    let cancel = CancelToken::new();
    let mut on_event = |event: Event<'_>| {
        if quiet {
            return;
        }
        match event {
            Event::Attempt { provider, model, attempt } => eprintln!("branch summary: asking {provider} {model} (attempt {})", attempt + 1),
            Event::Retry { error, delay } => eprintln!("branch summary: {error}; retrying in {:.1}s", delay.as_secs_f64()),
            Event::Fallback { provider, error } => eprintln!("branch summary: {provider} failed ({error}); trying the next candidate"),
            _ => {}
        }
    };
    let summary = runtime
        .block_on(contextree_llm::summarize_with_events(&request, candidates, &mut on_event, &cancel))
        .map_err(|e| CliError::Failed(format!("branch summary failed: {e}")))?;
    let used = json!({"kind": "model", "provider": summary.provider, "model": summary.model, "stopReason": summary.stop_reason});
    Ok((summary.text, used))
}
