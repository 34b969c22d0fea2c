//! `contextree prune`: which tool outputs oh-my-pi's pruning would replace by
//! a notice for the leaf (spec pruning.md, cli-contract.md). Without
//! `--dry-run` (and with `--yes`) the plan is applied by the checked,
//! backed-up rewrite of docs/decisions.md D15 (`contextree_host::rewrite`), through
//! `contextree_ops::prune`; this module parses flags and prints.

use clap::Args;
use contextree_core::prune::{PruneConfig, PrunePlan, StaleConfig, StalePlan};
use contextree_core::session::Session;
use contextree_read::prune::Applied;
use contextree_read::PruneReport;

use crate::common::{write_json, CliError, SessionArgs};

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
    /// omp 18: do not prune useless results (`compaction.dropUseless: false`; both passes).
    #[arg(long)]
    no_useless: bool,
    /// omp 18: which passes run — `stale` (the per-turn `pruneSupersededToolResults`),
    /// `overflow` (`pruneToolOutputs` on the threshold path) or `both`, the stale pass first
    /// (default under omp@18; other rule sets have only `overflow`).
    #[arg(long, value_enum)]
    pass: Option<Pass>,
    /// omp 18: the current time in ms since the epoch for the stale pass's cold-cache rule
    /// (the last message ≥ 90 minutes old drops its suffix limit); default: the clock.
    #[arg(long, value_name = "MS")]
    now: Option<u64>,
    /// omp 18: the model's thinking is prefix-bound (suffix limit 0 in the stale pass and, unless
    /// --cache-warm is given, cache-warm guard 0 in the overflow pass).
    #[arg(long)]
    prefix_bound: bool,
    /// omp 18: do not prune superseded reads (`compaction.supersedeReads: false`).
    #[arg(long)]
    no_supersede: bool,
    /// Confirm rewriting the file (required unless --dry-run): pruned outputs are gone from the file, a backup is kept.
    #[arg(long)]
    yes: bool,
}

/// Which of oh-my-pi 18's passes run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Pass {
    /// The per-turn stale pass only (`pruneSupersededToolResults`).
    Stale,
    /// The threshold path's overflow pruning only (`pruneToolOutputs`).
    Overflow,
    /// The stale pass, then overflow pruning on its result (what omp 18 does in a turn
    /// that reaches the compaction threshold check).
    Both,
}

impl Pass {
    fn stale(self) -> bool {
        matches!(self, Pass::Stale | Pass::Both)
    }
    fn overflow(self) -> bool {
        matches!(self, Pass::Overflow | Pass::Both)
    }
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
    let rules = s.rules();
    let pass = args.pass.unwrap_or(if rules.prunes_stale_results() { Pass::Both } else { Pass::Overflow });
    if (pass.stale() || args.now.is_some() || args.prefix_bound || args.no_supersede) && !rules.prunes_stale_results() {
        return Err(CliError::Input(format!(
            "--pass stale|both, --now, --prefix-bound and --no-supersede are oh-my-pi 18's per-turn stale pass; the rules here are {rules}"
        )));
    }
    let overflow_config = pass.overflow().then(|| config(args, rules)).transpose()?;
    let stale_config = pass.stale().then(|| stale_config(args));
    let pv =
        contextree_ops::prune::preview_turn(&loaded, a.leaf(&loaded)?, overflow_config.as_ref(), stale_config.as_ref(), &a.pack(rules)?)?;
    let passes: Vec<&'static str> =
        [(pass.stale(), "stale"), (pass.overflow(), "overflow")].into_iter().filter(|(on, _)| *on).map(|(_, n)| n).collect();
    let count = pv.totals().0;
    let mut doc = PruneReport::new(s, &pv, passes, args.dry_run);
    if !args.dry_run {
        let done = contextree_ops::prune::apply_turn(&loaded, &pv)?;
        let warnings = match &done {
            Some(done) => contextree_ops::prune::warnings(done),
            None => contextree_ops::prune::sweep_leftovers(&loaded),
        };
        for w in &warnings {
            eprintln!("contextree: warning: {w}");
        }
        doc.applied = Some(Applied {
            backup: done.as_ref().map(|d| d.rewritten.backup.display().to_string()),
            pruned_at: done.as_ref().map(|d| d.pruned_at_ms),
            recovered_bytes: done.as_ref().map_or(0, |d| d.rewritten.recovered_bytes),
            warnings,
        });
    }
    if a.json {
        write_json(&doc);
    } else {
        if let Some(p) = &pv.stale {
            print_stale_text(s, p);
        }
        if let Some(plan) = &pv.overflow {
            if pv.stale.is_some() {
                outln!("overflow pass (pruneToolOutputs, on the threshold path, after the stale pass):");
            }
            print_text(s, plan);
        }
        let c = &doc.context;
        outln!("context of the leaf: {} → {} tokens (dialect estimate)", c.before.message_tokens, c.after.message_tokens);
        match doc.applied.as_ref().and_then(|d| d.backup.as_deref()) {
            Some(b) => outln!("pruned {count} results in {} (backup: {b})", a.file.display()),
            None if !args.dry_run => outln!("nothing to prune; the file was not touched"),
            None => {}
        }
    }
    Ok(())
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

fn stale_config(args: &PruneArgs) -> StaleConfig {
    let now = args.now.unwrap_or_else(now_ms);
    StaleConfig { supersede_reads: !args.no_supersede, drop_useless: !args.no_useless, ..StaleConfig::agent(args.prefix_bound, now as f64) }
}

fn print_stale_text(s: &Session, p: &StalePlan) {
    let c = &p.config;
    let last = p.last_message_ms.map_or_else(|| "none".to_owned(), |t| format!("{:.0} min before --now", (c.now_ms - t) / 60_000.0));
    outln!(
        "stale pass (pruneSupersededToolResults, every turn) · supersede reads {} · drop useless {} · suffix limit {} · last message {last}{}",
        c.supersede_reads,
        c.drop_useless,
        c.suffix_token_limit,
        if p.idle { " (cold cache: no suffix limit)" } else { "" }
    );
    for x in &p.candidates {
        let what = x.read_path.as_deref().map_or_else(|| x.reason.name().to_owned(), |path| format!("{} {path}", x.reason.name()));
        outln!(
            "  {:<14} {:<12} {:<10} {:>8} tokens · {:>8} after it · {what}",
            x.decision.name(),
            s.entry(x.node).id,
            x.tool_name.as_deref().unwrap_or("?"),
            x.tokens,
            x.suffix_tokens
        );
    }
    outln!("stale pass prunes {} · estimated saving {}", p.pruned_count(), p.tokens_saved());
}

fn config(args: &PruneArgs, rules: contextree_core::RuleSet) -> Result<PruneConfig, CliError> {
    let omp = PruneConfig::agent(rules);
    let cache_warm = match args.cache_warm.as_deref() {
        None if args.prefix_bound => Some(0),
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

fn print_text(s: &Session, plan: &PrunePlan) {
    let c = &plan.config;
    outln!(
        "dialect {} · protect {} · minimum saving {} · protected tools {}",
        plan.dialect,
        c.protect_tokens,
        c.minimum_savings,
        c.protected_tools.join(",")
    );
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
