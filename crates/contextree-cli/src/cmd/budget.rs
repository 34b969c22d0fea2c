//! `contextree budget`: the read layer's [`BudgetReport`], the app's budget bar: how full the
//! leaf's context is against the window, with the agent's own compaction settings.

use clap::Args;
use contextree_read::BudgetReport;

use crate::common::{read_back, write_json, CliError, SessionArgs};

#[derive(Debug, Args)]
pub struct BudgetArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// The context window (default: the path's model in the built-in table, else 128,000).
    #[arg(long, value_name = "N")]
    window: Option<u64>,
}

pub fn run(args: &BudgetArgs) -> Result<(), CliError> {
    let a = &args.session;
    let loaded = a.load()?;
    let s = &loaded.session;
    let ctx = a.context(&loaded)?;
    let pack = a.pack(s.rules())?;
    let settings = a.env.agent_settings(s.dialect()).compaction;
    let r = BudgetReport::new(s, &ctx, &pack, &loaded.source, &settings, args.window).map_err(read_back)?;
    if a.json {
        write_json(&r);
        return Ok(());
    }
    let pct = if r.window > 0 { r.used as f64 * 100.0 / r.window as f64 } else { 0.0 };
    let used = if r.unknown_after_compaction { "unknown until the next reply".to_owned() } else { format!("{} ({pct:.0}%)", r.used) };
    outln!("leaf       {}", r.leaf_id.as_deref().unwrap_or("(none)"));
    outln!("window     {} ({}{})", r.window, r.window_source, r.model.as_deref().map_or(String::new(), |m| format!(", {m}")));
    outln!("used       {used}");
    if let Some(m) = &r.misleading {
        outln!("estimate   {} ({})", m.estimate, m.note);
    }
    let threshold = r.threshold.map_or("never".to_owned(), |t| format!("{t}"));
    outln!("threshold  {threshold} (reserve {}){}", r.reserve, if r.over_threshold { " · over" } else { "" });
    outln!("keep       {} recent tokens, from {}", r.keep_recent, r.keep_recent_from);
    outln!("compact    {}: {} ({})", if r.would_compact { "yes" } else { "no" }, r.decision, r.reason);
    Ok(())
}
