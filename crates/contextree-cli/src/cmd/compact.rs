//! `contextree compact`: a real compaction (spec cli-contract.md): plan, the
//! exact summarizer prompts, the summaries, and one appended `compaction`
//! entry (docs/decisions.md D15: only with `--yes`, only if the file is unchanged).
//! The flow is `contextree_ops::compact`; this module parses flags and prints.
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
//!    see `contextree_ops::summarizer::candidates`), through contextree-llm.

use std::io::Write;

use clap::Args;
use contextree_core::session::Session;
use contextree_ops::compact::{self, CompactOptions, DryRun};
use contextree_ops::CancelToken;
use serde_json::{json, Value};

use crate::common::{
    id_stream, print_progress, print_session_json, print_session_json_streamed, write_ids, write_stdout_with, CliError, ProviderArgs,
    SessionArgs,
};

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
    #[command(flatten)]
    provider: ProviderArgs,
    /// pi: the summarizing model reasons, so pi would pass the session's thinking level.
    #[arg(long)]
    model_reasons: bool,
    /// omp: a `session.compacting` context line (repeatable), as a hook would give.
    #[arg(long = "context", value_name = "LINE")]
    context: Vec<String>,
    /// Store this summary instead of asking a model, as a hook-supplied one (marked fromHook / fromExtension).
    #[arg(long, value_name = "TEXT", conflicts_with_all = ["offline", "provider", "instructions"])]
    summary: Option<String>,
    /// Correct the summary of compaction ID (the one in effect for the file's leaf): appends a copy with --summary, as a hook's.
    #[arg(long, value_name = "ID", requires = "summary", conflicts_with_all = ["instructions", "keep_recent", "reserve", "model_reasons", "context"])]
    edit: Option<String>,
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
    if let Some(id) = &args.edit {
        return edit(args, &loaded, id);
    }
    let pack = a.pack_fn(loaded.session.rules());
    let opts = CompactOptions {
        leaf: a.leaf(&loaded)?,
        pack: &pack,
        instructions: args.instructions.clone(),
        keep_recent: args.keep_recent,
        reserve: args.reserve,
        model_reasons: args.model_reasons,
        context: args.context.clone(),
        summary: args.summary.clone(),
        provider: args.provider.flags(),
    };
    if args.dry_run {
        let mut dry = compact::dry_run(&loaded, &opts)?;
        let s = &loaded.session;
        let doc = std::mem::take(&mut dry.doc);
        if a.json {
            let Value::Object(head) = doc else { return Err(CliError::Failed("the dry run's document is not an object".into())) };
            // The id lists are written one id at a time.
            let streams = DryRun::ID_LISTS.into_iter().filter(|k| head.contains_key(*k)).map(|k| (k, id_stream(s, dry.ids(k)))).collect();
            print_session_json_streamed(s, head, streams);
            return Ok(());
        }
        print_settings_files(&doc);
        if doc["nothingToCompact"] == true {
            outln!("nothing to compact: {}", doc["reason"].as_str().unwrap_or(""));
        } else {
            print_dry_run(s, &doc, &dry);
        }
        print_auto_check(&doc["autoCheck"]);
        return Ok(());
    }
    let done = compact::run(&loaded, &opts, &mut print_progress(a.json), &CancelToken::new())?;
    let doc = json!({
        "dialect": done.dialect.name(),
        "file": a.file.display().to_string(),
        "appended": {
            "id": done.id,
            "parentId": done.parent_id,
            "offset": done.appended.offset,
            "bytes": done.appended.bytes,
            "addedNewline": done.appended.added_newline,
        },
        "summarizer": done.summarizer,
        "entry": done.entry,
        "warnings": done.warnings,
    });
    print_doc(&loaded.session, a.json, &doc, || {
        outln!(
            "appended compaction {} (parent {}) at byte {} of {}",
            done.id,
            done.parent_id.as_deref().unwrap_or("none"),
            done.appended.offset,
            a.file.display()
        );
        outln!("summarizer: {}", summarizer_text(&doc["summarizer"]));
        outln!("first kept entry {} · tokensBefore {}", done.first_kept_entry_id, doc["entry"]["tokensBefore"]);
        for w in &done.warnings {
            outln!("warning: {w}");
        }
        outln!("{}", done.line);
    });
    Ok(())
}

/// `--edit ID --summary TEXT`: contextree_ops::edit_summary (`--dry-run` prints what it would write).
fn edit(args: &CompactArgs, loaded: &contextree_host::LoadedSession, id: &str) -> Result<(), CliError> {
    let a = &args.session;
    let node = loaded.session.node(id).ok_or_else(|| CliError::Input(format!("{}: Entry {id} not found", a.file.display())))?;
    if args.dry_run {
        let pv = contextree_ops::edit_summary::preview(loaded, node)?;
        let doc = serde_json::to_value(&pv).map_err(|e| CliError::Failed(e.to_string()))?;
        print_doc(&loaded.session, a.json, &doc, || outln!("{}", pv.note));
        return Ok(());
    }
    let summary = args.summary.as_deref().unwrap_or_default();
    let done = contextree_ops::edit_summary::run(loaded, node, summary)?;
    let entry: Value = serde_json::from_str(&done.line).map_err(|e| CliError::Failed(e.to_string()))?;
    let doc = json!({
        "dialect": loaded.session.dialect().name(),
        "file": a.file.display().to_string(),
        "edited": id,
        "appended": {"id": done.id, "parentId": done.parent_id, "offset": done.appended.offset, "bytes": done.appended.bytes, "addedNewline": done.appended.added_newline},
        "summarizer": {"kind": "supplied"},
        "entry": entry,
        "warnings": done.warnings,
    });
    print_doc(&loaded.session, a.json, &doc, || {
        outln!(
            "appended compaction {} (parent {}), a corrected copy of {id}, at byte {} of {}",
            done.id,
            done.parent_id,
            done.appended.offset,
            a.file.display()
        );
        for w in &done.warnings {
            outln!("warning: {w}");
        }
        outln!("{}", done.line);
    });
    Ok(())
}

fn print_settings_files(doc: &Value) {
    let files: Vec<&str> = doc["settingsFiles"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    if files.is_empty() {
        outln!("agent settings: none found, defaults used");
    } else {
        outln!("agent settings read from: {}", files.join(", "));
    }
    if let Some(hooks) = doc["hooks"].as_object().filter(|h| !h.is_empty()) {
        let list: Vec<String> = hooks.iter().map(|(k, v)| format!("{k} ×{v}")).collect();
        outln!("hooks (not run in a dry run): {}", list.join(", "));
    }
}

fn print_doc(s: &contextree_core::session::Session, json: bool, doc: &Value, text: impl FnOnce()) {
    if json {
        print_session_json(s, doc);
    } else {
        text();
    }
}

fn print_dry_run(s: &Session, doc: &Value, dry: &DryRun) {
    let pv = &doc["preview"];
    outln!(
        "dialect {} · leaf {} · prompt pack: {}",
        doc["dialect"].as_str().unwrap_or(""),
        doc["leafId"],
        doc["promptPack"].as_str().unwrap_or("")
    );
    outln!(
        "first kept entry {}{} · tokensBefore {}",
        doc["firstKeptEntryId"].as_str().unwrap_or(""),
        if doc["isSplitTurn"] == true { " (split turn)" } else { "" },
        doc["tokensBefore"]
    );
    let summarize = dry.ids("messagesToSummarizeIds");
    write_stdout_with(|out| {
        for (what, count, list) in [
            ("summarize", Value::from(summarize.len()), summarize),
            ("turn prefix", pv["turnPrefixMessages"].clone(), dry.ids("turnPrefixIds")),
            ("keep", pv["messagesKept"].clone(), dry.ids("recentMessagesIds")),
        ] {
            write!(out, "{what} ({count}): ")?;
            write_ids(out, s, list)?;
            writeln!(out)?;
        }
        Ok(())
    });
    outln!(
        "context after: at most {} tokens (kept {} + summary budget {}), before: {}",
        pv["estimatedTokensAfter"],
        pv["keptTokens"],
        pv["summaryBudget"],
        pv["tokensBefore"]
    );
    if let Some(lit) = doc["historyLiteral"].as_str() {
        outln!("history: no call, the literal {lit:?}");
    }
    let t = &doc["transcript"];
    if let Some(format) = t["format"].as_str() {
        outln!(
            "summary input (omp 18): {format} transcript for {} · input budget {} tokens · history {} {} · {} window(s)",
            t["model"].as_str().unwrap_or("no known model"),
            t["budgetTokens"],
            t["fit"]["size"],
            t["fit"]["by"].as_str().unwrap_or(""),
            t["windows"]
        );
    }
    for w in doc["warnings"].as_array().into_iter().flatten() {
        outln!("warning: {}", w.as_str().unwrap_or(""));
    }
    for (i, call) in doc["calls"].as_array().into_iter().flatten().enumerate() {
        let reasoning = call["reasoning"].as_str().map_or(String::new(), |r| format!(" · reasoning {r}"));
        outln!("\n=== call {}: {} · maxTokens {}{reasoning}", i + 1, call["kind"].as_str().unwrap_or(""), call["maxTokens"]);
        outln!("--- system prompt\n{}", call["systemPrompt"].as_str().unwrap_or(""));
        outln!("--- prompt\n{}", call["prompt"].as_str().unwrap_or(""));
    }
    for (i, call) in doc["foldCalls"].as_array().into_iter().flatten().enumerate() {
        outln!("\n=== history window {} (after the first): maxTokens {}", i + 2, call["maxTokens"]);
        outln!("--- prompt\n{}", call["prompt"].as_str().unwrap_or(""));
    }
    if let Some(note) = doc["shortSummaryNote"].as_str() {
        outln!("\n({note})");
    }
}

/// The agent's own automatic check after its last run, under the session's rule set.
fn print_auto_check(c: &Value) {
    if c.is_null() {
        return;
    }
    outln!(
        "\nthe agent ({}) after its last run: {} — {}",
        c["ruleSet"].as_str().unwrap_or(""),
        c["decision"].as_str().unwrap_or("?"),
        c["reason"].as_str().unwrap_or("")
    );
    if let Some(text) = c["method"]["text"].as_str() {
        outln!("  method: {text}");
    }
    if !c["storedEstimate"].is_null() && c.get("storedEstimate").is_some() {
        outln!(
            "  stale pass prunes {} (saving {}) · overflow pruning {} (saving {}) · stored estimate {}",
            c["stalePrunedCount"],
            c["staleSavings"],
            c["prunedCount"],
            c["pruningSavings"],
            c["storedEstimate"]
        );
    }
    for note in c["notes"].as_array().into_iter().flatten() {
        outln!("  note: {}", note.as_str().unwrap_or(""));
    }
}

fn summarizer_text(v: &Value) -> String {
    match v["kind"].as_str() {
        Some("offline") => format!("offline extractive summary, no model ({})", v["why"].as_str().unwrap_or("")),
        Some("supplied") => "supplied with --summary (stored as a hook's summary)".to_owned(),
        Some("hook") => format!("supplied by a {} hook", v["event"].as_str().unwrap_or("")),
        _ => {
            let calls: Vec<String> = v["calls"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    format!(
                        "{} by {} {}",
                        c["call"].as_str().unwrap_or(""),
                        c["provider"].as_str().unwrap_or(""),
                        c["model"].as_str().unwrap_or("")
                    )
                })
                .collect();
            calls.join(", ")
        }
    }
}
