//! `contextree prune`: which tool outputs oh-my-pi's pruning would replace by
//! a notice for the leaf (spec pruning.md, cli-contract.md). Without
//! `--dry-run` (and with `--yes`) the plan is applied by the checked,
//! backed-up rewrite of docs/decisions.md D15 (`contextree_host::rewrite`), through
//! `contextree_ops::prune`; this module parses flags and prints.

use clap::Args;
use contextree_core::prune::{PruneConfig, PrunePlan, ToolResult};
use contextree_core::session::Session;
use serde_json::{json, Map, Value};

use crate::common::{print_session_json, CliError, SessionArgs};

#[derive(Debug, Args)]
pub struct PruneArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// Only show what would be pruned; do not touch the file.
    #[arg(long)]
    dry_run: bool,
    /// Newest tool-output tokens never pruned (omp: 40000; other values are not what omp does).
    #[arg(long, value_name = "N")]
    protect: Option<u64>,
    /// Minimum estimated saving (omp: 20000).
    #[arg(long, value_name = "N")]
    min_savings: Option<u64>,
    /// Tools whose results are never pruned, comma-separated (omp 13: skill,read; omp 18:
    /// skill,isSkillReadToolResult — the latter is the matcher for reads of `skill://` paths).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    protected_tools: Option<Vec<String>>,
    /// omp 18: the cache-warm guard, `N` tokens of later messages or `none` (the agent: 8000;
    /// `none` is omp's bare `DEFAULT_PRUNE_CONFIG`, what the oracle runs).
    #[arg(long, value_name = "N|none")]
    cache_warm: Option<String>,
    /// omp 18: do not prune useless results first (`compaction.dropUseless: false`).
    #[arg(long)]
    no_useless: bool,
    /// Confirm rewriting the file (required unless --dry-run): pruned outputs are gone from the file, a backup is kept.
    #[arg(long)]
    yes: bool,
}

pub fn run(args: &PruneArgs) -> Result<(), CliError> {
    let a = &args.session;
    if !args.dry_run && !args.yes {
        return Err(CliError::Input(format!(
            "prune rewrites {} and replaces stored tool output by notices: pass --yes to confirm, or --dry-run to see the plan",
            a.file.display()
        )));
    }
    let loaded = a.load()?;
    let s = &loaded.session;
    let pv = contextree_ops::prune::preview(&loaded, a.leaf(&loaded)?, &config(args, s.rules())?, &a.pack(s.rules())?)?;
    let plan = &pv.plan;
    let mut doc = document(s, plan);
    doc["context"] = json!({
        "before": {"messageTokens": pv.message_tokens_before, "llmTokens": pv.llm_tokens_before},
        "after": {"messageTokens": pv.message_tokens_after, "llmTokens": pv.llm_tokens_after},
    });
    doc["dryRun"] = args.dry_run.into();
    if !args.dry_run {
        let done = contextree_ops::prune::apply(&loaded, plan)?;
        doc["backup"] = done.as_ref().map_or(Value::Null, |d| d.rewritten.backup.display().to_string().into());
        doc["prunedAt"] = done.as_ref().map_or(Value::Null, |d| d.pruned_at_ms.into());
        doc["recoveredBytes"] = done.as_ref().map_or(0, |d| d.rewritten.recovered_bytes).into();
        let warnings = done.as_ref().map(contextree_ops::prune::warnings).unwrap_or_default();
        for w in &warnings {
            eprintln!("contextree: warning: {w}");
        }
        doc["warnings"] = warnings.into();
    }
    if a.json {
        print_session_json(s, &doc);
    } else {
        print_text(s, plan);
        let c = &doc["context"];
        outln!("context of the leaf: {} → {} tokens (dialect estimate)", c["before"]["messageTokens"], c["after"]["messageTokens"]);
        match doc["backup"].as_str() {
            Some(b) => outln!("pruned {} results in {} (backup: {b})", plan.pruned_count(), a.file.display()),
            None if !args.dry_run => outln!("nothing to prune; the file was not touched"),
            None => {}
        }
    }
    Ok(())
}

fn config(args: &PruneArgs, rules: contextree_core::RuleSet) -> Result<PruneConfig, CliError> {
    let omp = PruneConfig::agent(rules);
    let cache_warm = match args.cache_warm.as_deref() {
        None => omp.cache_warm_suffix_tokens,
        Some("none") => None,
        Some(n) => Some(n.parse().map_err(|_| CliError::Input(format!("--cache-warm {n:?}: expected a number or `none`")))?),
    };
    if (args.cache_warm.is_some() || args.no_useless) && !rules.prunes_with_cache_guard() {
        return Err(CliError::Input(format!("--cache-warm and --no-useless are oh-my-pi 18's; the rules here are {rules}")));
    }
    Ok(PruneConfig {
        protect_tokens: args.protect.unwrap_or(omp.protect_tokens),
        minimum_savings: args.min_savings.unwrap_or(omp.minimum_savings),
        protected_tools: args.protected_tools.clone().unwrap_or(omp.protected_tools),
        prune_useless: omp.prune_useless && !args.no_useless,
        cache_warm_suffix_tokens: cache_warm,
        omp18_guards: omp.omp18_guards,
    })
}

/// The contract's fields, the oracle's `belowMinimumSavings`, and what the
/// explorer shows besides (already-pruned results, hidden results).
fn document(s: &Session, plan: &PrunePlan) -> Value {
    let rows = |rs: Vec<&ToolResult>| Value::Array(rs.into_iter().map(|r| row(s, r)).collect());
    let c = &plan.config;
    let mut doc = Map::new();
    doc.insert("dialect".into(), plan.dialect.name().into());
    doc.insert("leafId".into(), plan.leaf.map_or(Value::Null, |n| s.entry(n).id.to_string().into()));
    let mut config = json!({"protectTokens": c.protect_tokens, "minimumSavings": c.minimum_savings, "protectedTools": c.protected_tools});
    if c.omp18_guards {
        // omp 18's additions, named as in its PruneConfig (the threshold path never sets a supersede key).
        config["pruneUseless"] = c.prune_useless.into();
        config["supersede"] = false.into();
        config["keepBoundaryId"] = plan.keep_boundary_id.clone().map_or(Value::Null, Value::from);
        config["cacheWarmSuffixTokens"] = c.cache_warm_suffix_tokens.map_or(Value::Null, Value::from);
    }
    doc.insert("config".into(), config);
    doc.insert("agentDefaultConfig".into(), c.is_agent_default().into());
    doc.insert("agentPrunes".into(), plan.agent_prunes().into());
    doc.insert("pathLength".into(), plan.path_len.into());
    doc.insert("toolResultCount".into(), plan.tool_results.len().into());
    doc.insert("toolResultTokens".into(), plan.tool_results.iter().map(|r| r.tokens).sum::<u64>().into());
    doc.insert("prunedCount".into(), plan.pruned_count().into());
    doc.insert("tokensSaved".into(), plan.tokens_saved().into());
    doc.insert("pruned".into(), rows(plan.pruned()));
    doc.insert("alreadyPruned".into(), rows(plan.already_pruned().collect()));
    let below = plan.below_minimum_savings().map(|(count, saved)| {
        json!({"result": {"prunedCount": count, "tokensSaved": saved}, "candidates": rows(plan.candidates().collect())})
    });
    doc.insert("belowMinimumSavings".into(), below.unwrap_or(Value::Null));
    let notes = plan.notes();
    doc.insert("note".into(), if notes.is_empty() { Value::Null } else { notes.join(" ").into() });
    Value::Object(doc)
}

fn row(s: &Session, r: &ToolResult) -> Value {
    json!({
        "entryId": s.entry(r.node).id.to_string(),
        "toolName": r.tool_name,
        "tokens": r.tokens,
        "notice": r.notice(),
        "newerTokens": r.newer_tokens,
        "inContext": r.in_context,
    })
}

fn print_text(s: &Session, plan: &PrunePlan) {
    let c = &plan.config;
    outln!("dialect {} · protect {} · minimum saving {} · protected tools {}", plan.dialect, c.protect_tokens, c.minimum_savings, c.protected_tools.join(","));
    outln!("{} tool results on the path ({} entries)", plan.tool_results.len(), plan.path_len);
    for r in plan.pruned() {
        let hidden = if r.in_context { "" } else { " (behind a compaction)" };
        outln!("  prune {:<12} {:<10} {:>8} tokens{hidden}", s.entry(r.node).id, r.tool_name.as_deref().unwrap_or("?"), r.tokens);
    }
    outln!("would prune {} · estimated saving {}", plan.pruned_count(), plan.tokens_saved());
    if let Some((count, saved)) = plan.below_minimum_savings().filter(|(n, _)| *n > 0) {
        outln!("below the minimum saving: {count} candidates would save only {saved}");
    }
    outln!("already pruned: {}", plan.already_pruned().count());
    for note in plan.notes() {
        outln!("note: {note}");
    }
}
