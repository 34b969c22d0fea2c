//! Move the file's leaf to another entry so that both agents reopen the session there
//! (docs/decisions.md D14, branch-summary.md §1). The agents keep the leaf in memory only; the one
//! durable leaf both of them understand is the last entry of the file, so moving it means
//! appending one entry:
//!
//! - with a summary: the `branch_summary` entry the agent's `navigateTree` would write (placed
//!   where the agent places it: under the target, or under its parent for a user or custom
//!   message), the summary written by a model through contextree-llm, or offline;
//! - otherwise: a `custom` entry of contextree's own `customType` under the target, which
//!   neither agent puts in the LLM context.
//!
//! Only if the file is unchanged since it was read (D15).
//!
//! Hooks (contextree-host `hooks`, from contextree's config file) run as the agents run their
//! extensions (hooks-and-settings.md §3): `session_before_tree` may cancel (`Navigation
//! cancelled`, nothing written), supply the summary (used only when a summary is asked for;
//! stored verbatim with `fromHook` / `fromExtension` true and its own `details`) and, for pi,
//! override `customInstructions`, `replaceInstructions` and `label`; `session_tree` is told
//! about the new leaf after the write.
//!
//! The summarizer's budget is `window − branchSummary.reserveTokens`: the reserve from the
//! agent's settings (the option wins), the window from the option, else 128,000, the value
//! both agents fall back to when the model's window is unknown.
//!
//! pi's `label`: with a label (or a hook's label) a `label` entry follows the written entry,
//! pointing at the summary entry, or at the target when no summary is written, as pi's
//! `navigateTree` appends it.

use contextree_core::branch::{
    collect_entries_for_branch_summary, prepare_branch_entries, token_budget, BranchEntries, DEFAULT_CONTEXT_WINDOW,
};
use contextree_core::branch_summary::{
    self, generated, new_leaf, returns_to_editor, summary_call, BranchOptions, BranchSummaryCall, EntryMeta,
};
use contextree_core::compaction::{new_entry_id, pi_reasoning};
use contextree_core::context::{self, agent_message, Item, Leaf};
use contextree_core::js::stringify;
use contextree_core::prompts::PromptPack;
use contextree_core::session::{NodeId, Session};
use contextree_core::{Dialect, RuleSet};
use contextree_host::hooks::{self, HookEvent, TreePreparation};
use contextree_host::settings::AgentSettings;
use contextree_host::write::{append_to_loaded, now_iso, random_u32, Appended};
use contextree_host::{HostEnv, LoadedSession, RawJson};
use contextree_llm::{summarize_offline, CancelToken, Candidates, SummaryRequest};
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::error::{require_entry_ids, write_error};
use crate::progress::{llm_error, Asker};
use crate::report::{CallView, PiUsage, Summarizer};
use crate::summarizer::{self, load_hooks, ProviderFlags};
use crate::{Call, OpsError, Progress, ProgressFn, CONTINUE_TYPE, OFFLINE_DETAILS};

/// Where to move the leaf and how.
pub struct NavigateOptions<'a> {
    /// The entry to continue from.
    pub target: NodeId,
    /// The leaf moved away from (`None`: the file's leaf).
    pub from: Option<NodeId>,
    /// Summarize the abandoned branch into a `branch_summary` entry.
    pub summarize: bool,
    /// Custom instructions (omp: replace the prompt; pi: appended as "Additional focus").
    pub instructions: Option<String>,
    /// pi: the instructions replace the default prompt.
    pub replace_instructions: bool,
    /// The summarizing model's context window (default 128000).
    pub window: Option<u64>,
    /// `branchSummary.reserveTokens` (default: the agent's setting).
    pub reserve: Option<u64>,
    /// pi: label the summary entry (or the target).
    pub label: Option<String>,
    /// Which models to ask.
    pub provider: ProviderFlags,
    /// pi 1.6: the summarizing model reasons, so the session's thinking level
    /// goes with the branch-summary call (pi-1.6.md §5).
    pub model_reasons: bool,
    /// The prompt pack, asked for only when a summary is written.
    pub pack: &'a dyn Fn(Dialect) -> Result<PromptPack, OpsError>,
    /// The machine: the agent's settings, the hooks and the config file are read through it.
    pub env: &'a HostEnv,
}

/// The summarizer's budget of a navigation with a summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchBudget {
    /// The summarizing model's window (the option, else 128000).
    pub window: u64,
    /// `branchSummary.reserveTokens`.
    pub reserve_tokens: u64,
    /// `window − reserveTokens`.
    pub token_budget: u64,
    /// The agent's settings files read.
    pub settings_files: Vec<String>,
}

/// What a navigation did.
#[derive(Debug)]
pub struct NavigateOutcome {
    /// Whose rules applied.
    pub dialect: Dialect,
    /// The leaf moved away from.
    pub old_leaf_id: Option<String>,
    /// The entry continued from.
    pub target_id: String,
    /// The summarizer's budget, when a summary was asked for.
    pub budget: Option<BranchBudget>,
    /// The text the agents put back in the editor (a user or custom message target): `Some`
    /// when the target is one, holding its text (`None` inside: content neither a string nor
    /// blocks, `null` to the agents).
    pub editor_text: Option<Option<String>>,
    /// `None`: the target is the leaf already, nothing was written.
    pub written: Option<Navigated>,
    /// Everything worth telling.
    pub warnings: Vec<String>,
}

/// The appended lines.
#[derive(Debug)]
pub struct Navigated {
    /// The first appended entry's id.
    pub id: String,
    /// Its parent.
    pub parent_id: Option<String>,
    /// The appended lines (the entry, then pi's label if any).
    pub lines: Vec<String>,
    /// Where they went.
    pub appended: Appended,
    /// The label entry's id and text.
    pub label: Option<(String, String)>,
    /// The file's leaf now.
    pub new_leaf_id: String,
    /// How the summary was written (`None`: no summary).
    pub summarizer: Option<Summarizer>,
    /// The first appended entry's type: `branch_summary` or `custom`.
    pub entry_type: &'static str,
    /// The first appended entry.
    pub entry: RawJson,
}

impl NavigateOutcome {
    /// The action the app reports: `navigate` with a branch summary, else `continue`.
    pub fn action(&self) -> &'static str {
        match &self.written {
            Some(w) if w.entry_type == "branch_summary" => "navigate",
            _ => "continue",
        }
    }
}

/// What a navigation would write, read only (no hook runs, no model is asked).
#[derive(Debug, Clone, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct NavigatePreview {
    /// The entry to continue from.
    pub target_id: String,
    /// The leaf moved away from (the file's leaf).
    pub from_leaf_id: Option<String>,
    /// Whether a summary was asked for.
    pub summarize: bool,
    /// The abandoned entries the summary would cover.
    pub abandoned_ids: Vec<String>,
    /// The parent of the entry to be written.
    pub placement_parent_id: Option<String>,
    /// `branch_summary` or `custom`.
    pub entry_type: &'static str,
    /// The summarizer call (`{systemPrompt, prompt, maxTokens?, reasoning?}`), when one is made.
    pub call: Option<CallView>,
    /// The summarizer's budget.
    pub token_budget: u64,
    /// A summary was asked for but nothing is abandoned (the agents skip it too).
    pub nothing_to_summarize: bool,
    /// The target is the leaf already: nothing would be written.
    pub nothing_to_do: bool,
    /// Everything worth telling.
    pub warnings: Vec<String>,
}

/// The navigation's plan: placement, abandoned entries and the summarizer call.
pub fn preview(loaded: &LoadedSession, opts: &NavigateOptions<'_>) -> Result<NavigatePreview, OpsError> {
    let s = &loaded.session;
    let target = opts.target;
    let old_leaf = opts.from.or_else(|| s.leaf());
    let agent = opts.env.agent_settings(s.dialect());
    let mut warnings = agent.warnings.clone();
    let window = opts.window.filter(|&w| w != 0).unwrap_or(DEFAULT_CONTEXT_WINDOW);
    let budget = token_budget(Some(window), opts.reserve.unwrap_or(agent.branch_summary_reserve_tokens));
    let collected = collect_entries_for_branch_summary(s, old_leaf, target);
    let nothing_to_do = Some(target) == old_leaf && old_leaf == s.leaf();
    if nothing_to_do {
        warnings.push("the target is the leaf already; nothing would be written".to_owned());
    }
    let mut call = None;
    let nothing_to_summarize = opts.summarize && collected.entries.is_empty();
    if opts.summarize && !collected.entries.is_empty() {
        let prep = prepare_branch_entries(s, &collected.entries, budget, &loaded.source)?;
        let pack = (opts.pack)(s.dialect())?;
        let mut candidates = if s.rules().summarizes_with_model_transcript() {
            summarizer::candidates(&opts.provider, &agent, opts.env).unwrap_or_default()
        } else {
            Candidates::default()
        };
        let summary_model = summarizer::omp18_summary_model(s, path_model(s, old_leaf), &mut candidates, &mut warnings).map(|m| m.id);
        let bopts = BranchOptions {
            custom_instructions: opts.instructions.clone(),
            replace_instructions: opts.replace_instructions,
            reasoning: branch_reasoning(s, opts),
            summary_model,
        };
        call = summary_call(s, &prep, &loaded.source, &pack, &bopts)?.map(|c| CallView::of_branch(&c));
    }
    if nothing_to_summarize {
        warnings.push("nothing is abandoned by this move, so there is nothing to summarize (the agents skip the summary too)".to_owned());
    }
    let with_summary = opts.summarize && !collected.entries.is_empty();
    if with_summary && returns_to_editor(s.entry(target)) {
        warnings.push(
            "the target is a user or custom message: the agents attach the summary under its parent and put its text back in the editor"
                .to_owned(),
        );
    }
    let placement = if with_summary { new_leaf(s, target) } else { Some(target) };
    let id = |n: NodeId| id_of(s, n);
    Ok(NavigatePreview {
        target_id: id(target),
        from_leaf_id: old_leaf.map(id),
        summarize: opts.summarize,
        abandoned_ids: collected.entries.iter().map(|&n| id(n)).collect(),
        placement_parent_id: placement.map(id),
        entry_type: if with_summary { "branch_summary" } else { "custom" },
        call,
        token_budget: budget,
        nothing_to_summarize,
        nothing_to_do,
        warnings,
    })
}

/// Moves the leaf: appends the branch summary or the continue marker (and pi's label).
///
/// Long on purpose: the agents' order (hooks, the summary call or the marker, the entry, pi's
/// label, the append) over one state; each step is short and named by its comment.
pub fn run(
    loaded: &LoadedSession,
    opts: &NavigateOptions<'_>,
    progress: ProgressFn<'_>,
    cancel: &CancelToken,
) -> Result<NavigateOutcome, OpsError> {
    let s = &loaded.session;
    let target = opts.target;
    let old_leaf = opts.from.or_else(|| s.leaf());
    let mut out = NavigateOutcome {
        dialect: s.dialect(),
        old_leaf_id: old_leaf.map(|n| id_of(s, n)),
        target_id: id_of(s, target),
        budget: None,
        editor_text: None,
        written: None,
        warnings: Vec::new(),
    };
    // `navigateTree` does nothing when the target is the leaf already.
    if Some(target) == old_leaf && old_leaf == s.leaf() {
        return Ok(out);
    }
    require_entry_ids(loaded)?;

    let agent = opts.env.agent_settings(s.dialect());
    let mut warnings = agent.warnings.clone();
    // Read before anything is done: a broken hooks section must stop the run.
    let hooks = load_hooks(opts.env)?;
    let collected = collect_entries_for_branch_summary(s, old_leaf, target);
    let mut nav = NavOptions {
        custom_instructions: opts.instructions.clone(),
        replace_instructions: opts.replace_instructions.then_some(true),
        label: opts.label.clone().filter(|l| !l.is_empty()),
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
            user_wants_summary: opts.summarize,
            custom_instructions: nav.custom_instructions.as_deref(),
            replace_instructions: nav.replace_instructions,
            label: nav.label.as_deref(),
        };
        // A cancel kills the running hook (its whole process group) and starts no other.
        let d = hooks::dispatch_until(HookEvent::BeforeTree, before_tree, &hooks::before_tree_payload(s, &prep, &loaded.source), &|| {
            cancel.is_cancelled()
        });
        if cancel.is_cancelled() {
            return Err(OpsError::Cancelled);
        }
        warnings.extend(d.warnings.iter().cloned());
        let decided = hooks::before_tree(&d);
        if decided.cancel {
            return Err(OpsError::HookCancelled { message: "Navigation cancelled".to_owned(), warnings });
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
            Some(sup) if opts.summarize => hook_summary = Some(sup),
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
        let parent_id = summary_parent(loaded, target, &mut out, &mut warnings)?;
        summary_written = Some(true);
        let meta = EntryMeta { rules: s.rules(), old_leaf: out.old_leaf_id.as_deref(), usage: None };
        (
            parent_id.clone(),
            branch_summary::supplied_entry_line(meta, &id, parent_id.as_deref(), &now, &sup)
                .map_err(|source| OpsError::Json { what: "the hook's summary details cannot be stored", source })?,
            Some(Summarizer::Hook { event: HookEvent::BeforeTree.name() }),
        )
    } else {
        let summary = if opts.summarize {
            summarize(opts, loaded, &agent, &collected, &nav, &mut out, &mut warnings, progress, cancel)?
        } else {
            None
        };
        match summary {
            Some((text, details, summarizer, usage)) => {
                let parent_id = summary_parent(loaded, target, &mut out, &mut warnings)?;
                summary_written = Some(false);
                let usage = usage.and_then(|u| serde_json::to_value(u).ok());
                let meta = EntryMeta { rules: s.rules(), old_leaf: out.old_leaf_id.as_deref(), usage: usage.as_ref() };
                let line = branch_summary::entry_line(meta, &id, parent_id.as_deref(), &now, &text, Some(&details), Some(false));
                (parent_id, line, Some(summarizer))
            }
            None => {
                let parent_id = id_of(s, target);
                (Some(parent_id.clone()), continue_line(&id, &parent_id, old_leaf.map(|n| id_of(s, n)), &now), None)
            }
        }
    };
    if cancel.is_cancelled() {
        return Err(OpsError::Cancelled);
    }
    let mut lines = vec![line];
    // pi's label: on the summary entry, else on the target.
    let label = nav.label.as_ref().map(|text| {
        let mut label_id = new_entry_id(s, &mut draw);
        while label_id == id {
            label_id = new_entry_id(s, &mut draw);
        }
        let labelled = if summary_written.is_some() { id.clone() } else { id_of(s, target) };
        lines.push(label_line(&label_id, &id, &now, &labelled, text));
        (label_id, text.clone())
    });
    progress(Progress::Writing);
    let appended = append_to_loaded(loaded, &lines).map_err(|e| write_error(e, "nothing was written; reload and navigate again"))?;
    if appended.raced {
        warnings.push("another process appended to the file during the write: both lines are whole, but the new entry follows its lines, so the agent that wrote them may continue from its own leaf".to_owned());
    }
    warnings.extend(appended.sync_warning());
    let entry = RawJson::from_text(&lines[0]).map_err(|source| OpsError::Json { what: "the entry written", source })?;
    let entry_type = if summary_written.is_some() { "branch_summary" } else { "custom" };
    let new_leaf_id = label.as_ref().map_or_else(|| id.clone(), |(l, _)| l.clone());
    if !hooks.for_event(HookEvent::Tree).is_empty() {
        // A notification: the entry is written whatever the hooks do.
        let payload =
            hooks::tree_payload(Some(&new_leaf_id), out.old_leaf_id.as_deref(), summary_written.map(|from_ext| (&entry, from_ext)));
        let d = hooks::dispatch(HookEvent::Tree, hooks.for_event(HookEvent::Tree), &payload);
        warnings.extend(d.warnings);
    }
    out.written = Some(Navigated { id, parent_id: parent, lines, appended, label, new_leaf_id, summarizer, entry_type, entry });
    out.warnings = warnings;
    Ok(out)
}

/// The navigation options after the hooks (pi's overrides).
struct NavOptions {
    custom_instructions: Option<String>,
    replace_instructions: Option<bool>,
    label: Option<String>,
}

/// Where `navigateTree` attaches a summary: the target, or the parent of a
/// user / custom message (whose text goes back to the editor).
fn summary_parent(
    loaded: &LoadedSession,
    target: NodeId,
    out: &mut NavigateOutcome,
    warnings: &mut Vec<String>,
) -> Result<Option<String>, OpsError> {
    let s = &loaded.session;
    if returns_to_editor(s.entry(target)) {
        out.editor_text = Some(editor_text(loaded, target)?);
        warnings.push(
            "the target is a user or custom message: the agents attach the summary under its parent and put its text back in the editor"
                .to_owned(),
        );
    }
    Ok(new_leaf(s, target).map(|n| id_of(s, n)))
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

/// contextree's leaf-moving entry, keys in `appendCustomEntry`'s order.
pub(crate) fn continue_line(id: &str, parent_id: &str, from: Option<String>, timestamp: &str) -> String {
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
fn editor_text(loaded: &LoadedSession, target: NodeId) -> Result<Option<String>, OpsError> {
    let msg = agent_message(&loaded.session, Item::Entry(target), &loaded.source)?;
    Ok(match &msg["content"] {
        Value::String(t) => Some(t.clone()),
        Value::Array(blocks) => Some(blocks.iter().filter(|b| b["type"] == "text").filter_map(|b| b["text"].as_str()).collect::<String>()),
        _ => None,
    })
}

/// pi 1.6's `reasoning` of the branch-summary call: the session's thinking
/// level (of the old leaf's path) when the model reasons.
fn branch_reasoning(s: &Session, opts: &NavigateOptions<'_>) -> Option<String> {
    let leaf = opts.from.or_else(|| s.leaf());
    let level = leaf.map_or(Value::Null, |n| context::build(s, Leaf::At(n)).thinking_level);
    pi_reasoning(opts.model_reasons, &level)
}

/// A generated branch summary: its text, the entry's details (JSON the agents store), how it
/// was written and the call's usage.
type SummaryParts = (String, Value, Summarizer, Option<PiUsage>);

/// The summary text, its details, how it was written and (pi 1.6) the
/// call's usage; `None` when there is nothing abandoned (the agents then
/// navigate without a summary). The budget used goes into `out.budget`.
#[allow(clippy::too_many_arguments)]
fn summarize(
    opts: &NavigateOptions<'_>,
    loaded: &LoadedSession,
    agent: &AgentSettings,
    collected: &BranchEntries,
    nav: &NavOptions,
    out: &mut NavigateOutcome,
    warnings: &mut Vec<String>,
    progress: ProgressFn<'_>,
    cancel: &CancelToken,
) -> Result<Option<SummaryParts>, OpsError> {
    let s = &loaded.session;
    let window = opts.window.filter(|&w| w != 0).unwrap_or(DEFAULT_CONTEXT_WINDOW);
    let reserve = opts.reserve.unwrap_or(agent.branch_summary_reserve_tokens);
    let budget = token_budget(Some(window), reserve);
    let files: Vec<String> = agent.sources.iter().map(|p| p.display().to_string()).collect();
    out.budget = Some(BranchBudget { window, reserve_tokens: reserve, token_budget: budget, settings_files: files });
    if collected.entries.is_empty() {
        warnings.push("nothing is abandoned by this move, so there is nothing to summarize (the agents skip the summary too)".to_owned());
        return Ok(None);
    }
    let prep = prepare_branch_entries(s, &collected.entries, budget, &loaded.source)?;
    let pack = (opts.pack)(s.dialect())?;
    // Read only when a call is made (a broken configuration does not stop a move that needs none).
    let mut candidates = summarizer::candidates(&opts.provider, agent, opts.env);
    let summary_model = match &mut candidates {
        Ok(c) => summarizer::omp18_summary_model(s, path_model(s, old_leaf_of(opts, s)), c, warnings).map(|m| m.id),
        Err(_) => None,
    };
    let bopts = BranchOptions {
        custom_instructions: nav.custom_instructions.clone(),
        replace_instructions: nav.replace_instructions.unwrap_or(false),
        reasoning: branch_reasoning(s, opts),
        summary_model,
    };
    let call = summary_call(s, &prep, &loaded.source, &pack, &bopts)?;
    let (answer, summarizer, usage) = match &call {
        // No message selected: the agents store their literal without asking.
        None => (String::new(), Summarizer::None { why: "no messages selected".to_owned() }, None),
        Some(call) => {
            let candidates = candidates?;
            if candidates.is_empty() {
                let why = summarizer::offline_why(&opts.provider, agent);
                progress(Progress::Offline { call: Call::Branch });
                (summarize_offline(call.conversation()), Summarizer::Offline { why }, None)
            } else {
                ask_model(s, call, &candidates, opts.env, progress, cancel)?
            }
        }
    };
    let (text, mut details) = generated(s.dialect(), &pack, &prep, &answer)?;
    if summarizer.is_offline() {
        // The agents read only the two lists; the label says no model wrote it.
        details["summarizer"] = OFFLINE_DETAILS.into();
    }
    Ok(Some((text, details, summarizer, usage)))
}

/// The branch-summary call through the candidates (reasoning and no output cap
/// under pi 1.6, which also refuses a length-capped answer; pi 0.73 and omp
/// send `maxTokens` 2048 and no reasoning). Also returns pi 1.6's usage.
fn ask_model(
    s: &Session,
    call: &BranchSummaryCall,
    candidates: &Candidates,
    env: &HostEnv,
    progress: ProgressFn<'_>,
    cancel: &CancelToken,
) -> Result<(String, Summarizer, Option<PiUsage>), OpsError> {
    let request = SummaryRequest {
        system_prompt: call.system_prompt.clone(),
        prompt: call.prompt.clone(),
        max_tokens: call.sent_max_tokens().map(|m| u32::try_from(m).unwrap_or(u32::MAX)),
        reasoning: call.reasoning.clone(),
    };
    let asker = Asker::new(candidates, cancel, progress, env)?;
    let summary = asker.block_on(asker.ask(Call::Branch, &request)).map_err(|e| llm_error(e, |e| format!("branch summary failed: {e}")))?;
    let pi16 = s.rules().at_least(RuleSet::Pi16);
    if pi16 && matches!(summary.stop_reason.as_deref(), Some("length" | "max_tokens")) {
        return Err(OpsError::Provider { message: crate::compact::token_cap_failure("Branch summarization"), source: None });
    }
    let used =
        Summarizer::Model { provider: summary.provider.clone(), model: summary.model.clone(), stop_reason: summary.stop_reason.clone() };
    let usage = if pi16 { crate::compact::pi_usage(summary.usage.as_ref()) } else { None };
    Ok((summary.text, used, usage))
}

/// The entry id of `n`.
fn id_of(s: &Session, n: NodeId) -> String {
    s.entry(n).id.to_string()
}

/// The model at the end of the path to `leaf` (`provider/id`), which omp summarizes with.
fn path_model(s: &Session, leaf: Option<NodeId>) -> Option<String> {
    let ctx = contextree_core::context::build(s, leaf.map_or(contextree_core::context::Leaf::Last, contextree_core::context::Leaf::At));
    contextree_core::models::current_model(&ctx.model, s.dialect())
}

/// The leaf the move starts from.
fn old_leaf_of(opts: &NavigateOptions<'_>, s: &Session) -> Option<NodeId> {
    opts.from.or_else(|| s.leaf())
}
