//! `contextree navigate`: move the file's leaf to another entry so that both
//! agents reopen the session there (docs/decisions.md D14, branch-summary.md §1,
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
//! The flow is `contextree_ops::navigate`; this module parses flags and prints.
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
use contextree_core::js::stringify;
use contextree_core::session::NodeId;
use contextree_host::{LoadedSession, RawJson};
use contextree_ops::navigate::{self, BranchBudget, NavigateOptions};
use contextree_ops::{CancelToken, Summarizer};
use serde::Serialize;
use serde_json::Value;

use super::compact::{to_value, AppendedDoc};
use crate::common::{print_progress, print_session_json, write_json, CliError, ProviderArgs, SessionArgs};
use contextree_read::NavigateReport;

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("summarizer").args(["offline", "provider"]).multiple(true).requires("summarize")))]
pub struct NavigateArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// The entry to continue from.
    #[arg(long, value_name = "ID", required_unless_present = "undo_compaction")]
    to: Option<String>,
    /// Undo compaction ID: continue from the entry before it (a contextree-continue marker; D14).
    #[arg(long, value_name = "ID", conflicts_with_all = ["to", "summarize", "label"])]
    undo_compaction: Option<String>,
    /// Summarize the abandoned branch into a branch_summary entry, as the agents' /tree does.
    #[arg(long)]
    summarize: bool,
    /// Custom instructions (omp: replace the prompt; pi: appended as "Additional focus").
    #[arg(long, value_name = "TEXT", requires = "summarize")]
    instructions: Option<String>,
    /// pi: the instructions replace the default prompt instead of extending it.
    #[arg(long, requires = "instructions")]
    replace_instructions: bool,
    /// pi@1.6: the summarizing model reasons, so pi would pass the session's thinking level.
    #[arg(long, requires = "summarize")]
    model_reasons: bool,
    /// The summarizing model's context window (default 128000, the agents' fallback); the budget is this − the reserve.
    #[arg(long, value_name = "N")]
    window: Option<u64>,
    /// `branchSummary.reserveTokens` (default: the agent's setting, else 16384).
    #[arg(long, value_name = "N")]
    reserve: Option<u64>,
    /// pi: label the summary entry (or, without a summary, the target) with a `label` entry, as /tree's label does.
    #[arg(long, value_name = "TEXT")]
    label: Option<String>,
    #[command(flatten)]
    provider: ProviderArgs,
    /// Confirm appending to the file.
    #[arg(long, conflicts_with = "dry_run")]
    yes: bool,
    /// Show what would be written (the entries left behind, where the summary or the marker
    /// goes, the exact summary call) and write nothing: the app's preview.
    #[arg(long, conflicts_with = "undo_compaction")]
    dry_run: bool,
}

pub fn run(args: &NavigateArgs) -> Result<(), CliError> {
    let a = &args.session;
    if !args.yes && !args.dry_run {
        return Err(CliError::Input(format!(
            "navigate appends an entry to {} so the agents reopen it on the new leaf: pass --yes to confirm (--dry-run shows what it would write)",
            a.file.display()
        )));
    }
    let loaded = a.load()?;
    if let Some(id) = &args.undo_compaction {
        return undo(a, &loaded, id);
    }
    let to = args.to.clone().unwrap_or_default();
    let target = node(&loaded, a, &to)?;
    let from = match &a.leaf {
        Some(id) => Some(node(&loaded, a, id)?),
        None => None,
    };
    let pack = a.pack_fn(loaded.session.rules());
    let env = &a.env;
    let opts = NavigateOptions {
        target,
        from,
        summarize: args.summarize,
        instructions: args.instructions.clone(),
        replace_instructions: args.replace_instructions,
        model_reasons: args.model_reasons,
        window: args.window,
        reserve: args.reserve,
        label: args.label.clone(),
        provider: args.provider.flags(),
        pack: &pack,
        env,
    };
    if args.dry_run {
        return print_preview(&loaded, navigate::preview(&loaded, &opts)?, a.json);
    }
    let done = navigate::run(&loaded, &opts, &mut print_progress(a.json), &CancelToken::new())?;
    let head =
        Head { dialect: done.dialect.name(), file: a.file.display().to_string(), old_leaf_id: done.old_leaf_id.as_deref(), target_id: &to };
    let Some(w) = &done.written else {
        let doc = Unmoved { head, appended: None, note: "the target is the leaf already; nothing was written" };
        return finish(&loaded.session, a.json, &to_value(&doc)?);
    };
    let doc = Moved {
        head,
        budget: done.budget.as_ref(),
        editor_text: done.editor_text.as_ref(),
        new_leaf_id: &w.new_leaf_id,
        appended: AppendedDoc::of(&w.id, w.parent_id.as_deref(), &w.appended).typed(w.entry_type),
        label: w.label.as_ref().map(|(id, label)| LabelDoc { id, label }),
        summarizer: w.summarizer.as_ref(),
        entry: &w.entry,
        warnings: &done.warnings,
    };
    finish(&loaded.session, a.json, &to_value(&doc)?)
}

/// What every navigate document starts with.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Head<'a> {
    dialect: &'static str,
    file: String,
    old_leaf_id: Option<&'a str>,
    target_id: &'a str,
}

/// The target is the leaf already.
#[derive(Serialize)]
struct Unmoved<'a> {
    #[serde(flatten)]
    head: Head<'a>,
    /// `null`.
    appended: Option<()>,
    note: &'static str,
}

/// The leaf moved.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Moved<'a> {
    #[serde(flatten)]
    head: Head<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    budget: Option<&'a BranchBudget>,
    #[serde(skip_serializing_if = "Option::is_none")]
    editor_text: Option<&'a Option<String>>,
    new_leaf_id: &'a str,
    appended: AppendedDoc<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<LabelDoc<'a>>,
    summarizer: Option<&'a Summarizer>,
    entry: &'a RawJson,
    warnings: &'a [String],
}

/// pi's label entry.
#[derive(Serialize)]
struct LabelDoc<'a> {
    id: &'a str,
    label: &'a str,
}

/// `--undo-compaction`'s document.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Undone<'a> {
    #[serde(flatten)]
    head: Head<'a>,
    undone_compaction_id: &'a str,
    new_leaf_id: &'a str,
    appended: AppendedDoc<'a>,
    /// `null`: no summary.
    summarizer: Option<&'a Summarizer>,
    entry: &'a RawJson,
    warnings: &'a [String],
}

/// `--undo-compaction ID`: contextree_ops::undo_compaction.
fn undo(a: &SessionArgs, loaded: &LoadedSession, id: &str) -> Result<(), CliError> {
    let s = &loaded.session;
    let compaction = node(loaded, a, id)?;
    let done = contextree_ops::undo_compaction::run(loaded, compaction)?;
    let entry = RawJson::from_text(&done.line)?;
    let old_leaf = s.leaf().map(|n| s.entry(n).id.to_string());
    let doc = Undone {
        head: Head {
            dialect: s.dialect().name(),
            file: a.file.display().to_string(),
            old_leaf_id: old_leaf.as_deref(),
            target_id: &done.parent_id,
        },
        undone_compaction_id: id,
        new_leaf_id: &done.id,
        appended: AppendedDoc::of(&done.id, Some(&done.parent_id), &done.appended).typed("custom"),
        summarizer: None,
        entry: &entry,
        warnings: &done.warnings,
    };
    finish(&loaded.session, a.json, &to_value(&doc)?)
}

fn finish(s: &contextree_core::session::Session, json: bool, doc: &Value) -> Result<(), CliError> {
    if json {
        print_session_json(s, doc);
        return Ok(());
    }
    match doc["appended"].as_object() {
        None => outln!("{}", doc["note"].as_str().unwrap_or("nothing was written")),
        Some(ap) => {
            outln!(
                "appended {} {} (parent {}) at byte {} of {}",
                ap["type"].as_str().unwrap_or(""),
                ap["id"].as_str().unwrap_or(""),
                ap["parentId"],
                ap["offset"],
                doc["file"].as_str().unwrap_or("")
            );
            if let Some(t) = doc["editorText"].as_str() {
                outln!("editor text: {t}");
            }
            for w in doc["warnings"].as_array().into_iter().flatten() {
                outln!("warning: {}", w.as_str().unwrap_or(""));
            }
            outln!("{}", stringify(&doc["entry"]));
        }
    }
    Ok(())
}

fn node(loaded: &LoadedSession, a: &SessionArgs, id: &str) -> Result<NodeId, CliError> {
    // The agents' own message: `Entry <id> not found`.
    loaded.session.node(id).ok_or_else(|| CliError::Input(format!("{}: Entry {id} not found", a.file.display())))
}

/// `--dry-run`: the read layer's [`NavigateReport`] (the app's preview), or its lines.
fn print_preview(loaded: &LoadedSession, preview: navigate::NavigatePreview, json: bool) -> Result<(), CliError> {
    let report = NavigateReport::new(&loaded.session, preview);
    if json {
        write_json(&report);
        return Ok(());
    }
    let p = &report.preview;
    if p.nothing_to_do {
        outln!("{} is the leaf already: nothing would be written", p.target_id);
        return Ok(());
    }
    outln!("continue from {} (the leaf is {})", p.target_id, p.from_leaf_id.as_deref().unwrap_or("none"));
    outln!("left behind: {} entries", p.abandoned_ids.len());
    let under = p.placement_parent_id.as_deref().unwrap_or("the root");
    outln!("would append a {} entry under {under}", p.entry_type);
    if let Some(call) = &p.call {
        let cap = call.max_tokens.map_or("no maxTokens sent".to_owned(), |n| format!("maxTokens {n}"));
        outln!("summary call: {cap}, budget {} tokens", p.token_budget);
    } else if p.summarize && p.nothing_to_summarize {
        outln!("nothing to summarize: no call");
    }
    for w in &p.warnings {
        outln!("warning: {w}");
    }
    Ok(())
}
