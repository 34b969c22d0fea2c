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
use contextree_host::write::Appended;
use contextree_host::RawJson;
use contextree_ops::compact::{self, CompactOptions, DryRun};
use contextree_ops::{CallView, CancelToken, IdList, Summarizer};
use serde::Serialize;
use serde_json::Value;

use crate::common::{
    print_progress, print_session_json, read_back, write_json, write_stdout_with, write_words, CliError, ProviderArgs, SessionArgs,
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
    /// With --dry-run: also print what compacting now costs once (the summarizer, the cache
    /// rewrite) and saves per later turn, at the prices of the agent's models file or the
    /// built-in table. The --json document always has them (`cost`); there the flag changes
    /// nothing.
    #[arg(long, requires = "dry_run")]
    cost: bool,
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
    let env = &a.env;
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
        env,
    };
    if args.dry_run {
        let mut dry = compact::dry_run(&loaded, &opts)?;
        let s = &loaded.session;
        let session_model = contextree_core::models::current_model(&a.context(&loaded)?.model, s.dialect());
        let prices = |m: &str| contextree_host::prices::model_prices(env, s.dialect(), m);
        if a.json {
            // The read layer's plan report, serialized as it is written: the prompts and id
            // lists are not copied, the requests are checked one at a time.
            // The cost lines are always there (the app's plan shows them too); reading a
            // document ignores a field it does not know, so `--cost` need not ask for them.
            let report = contextree_read::PlanReport::new(s, &loaded.source, dry).with_cost(session_model.as_deref(), &prices);
            write_json(&report);
            return report.finish().map_err(read_back);
        }
        let cost = args.cost.then(|| contextree_read::cost::plan_cost(&dry, session_model.as_deref(), &prices)).flatten();
        // The text reads the small parts as a value; the id lists and the calls (which may
        // quote a whole session) are printed from the document itself.
        let big = match &mut dry {
            DryRun::Plan(p) => Some((
                [
                    std::mem::take(&mut p.planned.messages_to_summarize_ids),
                    std::mem::take(&mut p.planned.turn_prefix_ids),
                    std::mem::take(&mut p.planned.recent_messages_ids),
                ],
                std::mem::take(&mut p.planned.calls),
                std::mem::take(&mut p.fold_calls),
            )),
            DryRun::Nothing(_) => None,
        };
        let doc = to_value(&dry)?;
        print_settings_files(&doc);
        match &big {
            None => outln!("nothing to compact: {}", doc["reason"].as_str().unwrap_or("")),
            Some((ids, calls, fold_calls)) => print_dry_run(loaded.session.dialect().name(), &doc, ids, calls, fold_calls),
        }
        print_auto_check(&doc["autoCheck"]);
        if let Some(cost) = &cost {
            print_cost(cost);
        }
        return Ok(());
    }
    let done = compact::run(&loaded, &opts, &mut print_progress(a.json), &CancelToken::new())?;
    let doc = to_value(&Written {
        dialect: done.dialect.name(),
        file: a.file.display().to_string(),
        edited: None,
        appended: AppendedDoc::of(&done.id, done.parent_id.as_deref(), &done.appended),
        summarizer: &done.summarizer,
        entry: &done.entry,
        warnings: &done.warnings,
    })?;
    print_doc(&loaded.session, a.json, &doc, || {
        outln!(
            "appended compaction {} (parent {}) at byte {} of {}",
            done.id,
            done.parent_id.as_deref().unwrap_or("none"),
            done.appended.offset,
            a.file.display()
        );
        outln!("summarizer: {}", summarizer_text(&done.summarizer));
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
        let doc = to_value(&pv)?;
        print_doc(&loaded.session, a.json, &doc, || outln!("{}", pv.note));
        return Ok(());
    }
    let summary = args.summary.as_deref().unwrap_or_default();
    let done = contextree_ops::edit_summary::run(loaded, node, summary)?;
    let entry = RawJson::from_text(&done.line)?;
    let doc = to_value(&Written {
        dialect: loaded.session.dialect().name(),
        file: a.file.display().to_string(),
        edited: Some(id),
        appended: AppendedDoc::of(&done.id, Some(&done.parent_id), &done.appended),
        summarizer: &Summarizer::Supplied,
        entry: &entry,
        warnings: &done.warnings,
    })?;
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

fn print_dry_run(dialect: &str, doc: &Value, [summarize, prefix, keep]: &[IdList; 3], calls: &[CallView], fold_calls: &[CallView]) {
    let pv = &doc["preview"];
    outln!("dialect {} · leaf {} · prompt pack: {}", dialect, doc["leafId"], doc["promptPack"].as_str().unwrap_or(""));
    outln!(
        "first kept entry {}{} · tokensBefore {}",
        doc["firstKeptEntryId"].as_str().unwrap_or(""),
        if doc["isSplitTurn"] == true { " (split turn)" } else { "" },
        doc["tokensBefore"]
    );
    write_stdout_with(|out| {
        for (what, count, list) in [
            ("summarize", Value::from(summarize.len()), summarize),
            ("turn prefix", pv["turnPrefixMessages"].clone(), prefix),
            ("keep", pv["messagesKept"].clone(), keep),
        ] {
            write!(out, "{what} ({count}): ")?;
            write_words(out, list.iter())?;
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
    // `maxTokens` as JSON shows it: `null` when the call sends none.
    let max_tokens = |c: &CallView| c.max_tokens.map_or_else(|| "null".to_owned(), |n| n.to_string());
    for (i, call) in calls.iter().enumerate() {
        let reasoning = call.reasoning.as_deref().map_or(String::new(), |r| format!(" · reasoning {r}"));
        outln!("\n=== call {}: {} · maxTokens {}{reasoning}", i + 1, call.kind.unwrap_or(""), max_tokens(call));
        outln!("--- system prompt\n{}", call.system_prompt);
        outln!("--- prompt\n{}", call.prompt);
    }
    for (i, call) in fold_calls.iter().enumerate() {
        outln!("\n=== history window {} (after the first): maxTokens {}", i + 2, max_tokens(call));
        outln!("--- prompt\n{}", call.prompt);
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

fn summarizer_text(v: &Summarizer) -> String {
    match v {
        Summarizer::Offline { why } => format!("offline extractive summary, no model ({why})"),
        Summarizer::Supplied => "supplied with --summary (stored as a hook's summary)".to_owned(),
        Summarizer::Hook { event } => format!("supplied by a {event} hook"),
        Summarizer::Models { calls } => {
            let calls: Vec<String> = calls.iter().map(|c| format!("{} by {} {}", c.call.name(), c.provider, c.model)).collect();
            calls.join(", ")
        }
        Summarizer::Model { .. } | Summarizer::None { .. } => String::new(),
    }
}

/// What `compact` (and `compact --edit`) wrote, as `--json` prints it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Written<'a> {
    dialect: &'static str,
    file: String,
    /// `--edit`: the compaction corrected.
    #[serde(skip_serializing_if = "Option::is_none")]
    edited: Option<&'a str>,
    appended: AppendedDoc<'a>,
    summarizer: &'a Summarizer,
    entry: &'a RawJson,
    warnings: &'a [String],
}

/// Where an appended entry went.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AppendedDoc<'a> {
    id: &'a str,
    /// `navigate`: the entry's type.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    entry_type: Option<&'a str>,
    parent_id: Option<&'a str>,
    offset: u64,
    bytes: u64,
    added_newline: bool,
}

impl<'a> AppendedDoc<'a> {
    pub(crate) fn of(id: &'a str, parent_id: Option<&'a str>, a: &Appended) -> Self {
        AppendedDoc { id, entry_type: None, parent_id, offset: a.offset, bytes: a.bytes, added_newline: a.added_newline }
    }

    pub(crate) fn typed(mut self, entry_type: &'a str) -> Self {
        self.entry_type = Some(entry_type);
        self
    }
}

/// A typed document as the JSON the printers read.
pub(crate) fn to_value(doc: &impl Serialize) -> Result<Value, CliError> {
    Ok(serde_json::to_value(doc)?)
}

/// The plan's cost lines (`--cost`).
fn print_cost(c: &contextree_read::cost::CostReport) {
    let usd = |v: Option<f64>| v.map_or("unknown".to_owned(), |v| format!("${v:.4}"));
    let prices = |p: &Option<contextree_read::cost::PriceReport>| {
        p.as_ref().map_or("no price known".to_owned(), |p| {
            format!(
                "${}/M in, ${}/M out, ${}/M cache read, ${}/M cache write ({})",
                p.input, p.output, p.cache_read, p.cache_write, p.detail
            )
        })
    };
    let turns = |n: Option<u64>| n.map_or("never".to_owned(), |n| format!("after {n} turns"));
    outln!();
    outln!("cost (US dollars)");
    outln!("  session model  {} · {}", c.session_model.as_deref().unwrap_or("unknown"), prices(&c.session_prices));
    outln!("  summary model  {} · {}", c.summary_model.as_deref().unwrap_or("unknown"), prices(&c.summary_prices));
    outln!(
        "  summarizer     {} input tokens {}, at most {} output tokens {}",
        c.summarizer_input_tokens,
        usd(c.summarizer_input_cost),
        c.summarizer_output_tokens,
        usd(c.summarizer_output_cost)
    );
    outln!("  cache rewrite  {} tokens {}", c.tokens_after, usd(c.cache_rewrite_cost));
    outln!("  one-off        {}", usd(c.one_off_cost));
    outln!(
        "  saving a turn  {} from the cache, {} without ({} → {} tokens)",
        usd(c.saving_per_cached_turn),
        usd(c.saving_per_uncached_turn),
        c.tokens_before,
        c.tokens_after
    );
    outln!("  pays off       {} from the cache, {} without", turns(c.pays_off_after_cached_turns), turns(c.pays_off_after_uncached_turns));
}
