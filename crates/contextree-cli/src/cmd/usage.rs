//! `contextree usage`: what the session cost, from the usage the agents recorded (the read
//! layer's [`UsageReport`]; the text renders its sums).

use contextree_core::spend::Totals;
use contextree_read::{usage_sums, UsageReport};

use crate::common::{read_back, write_json, CliError, SessionArgs};

pub fn run(args: &SessionArgs) -> Result<(), CliError> {
    let loaded = args.load()?;
    let s = &loaded.session;
    let report = usage_sums(s, &loaded.source).map_err(read_back)?;
    if args.json {
        write_json(&UsageReport::new(s, &report));
        return Ok(());
    }
    let line = |name: &str, t: &Totals| {
        outln!(
            "{name:<40} {:>6} records  in {:>12}  out {:>10}  cache read {:>12}  cache write {:>11}  ${:.4}",
            t.records,
            t.sum.input,
            t.sum.output,
            t.sum.cache_read,
            t.sum.cache_write,
            t.sum.cost
        );
    };
    line("session", &report.totals);
    for (kind, t) in &report.by_kind {
        line(&format!("  {kind}"), t);
    }
    for m in &report.by_model {
        line(&format!("model {}", m.model), &m.totals);
    }
    for b in &report.branches {
        line(&format!("branch to {} ({} entries)", b.leaf_id, b.path_length), &b.totals);
    }
    outln!("{} compactions; context size reported by {} replies", report.compactions.len(), report.reply_count());
    Ok(())
}
