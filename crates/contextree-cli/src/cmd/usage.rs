//! `contextree usage`: what the session cost, from the usage the agents recorded.

use std::collections::BTreeMap;

use contextree_core::spend::{spend_report, BranchTotals, CompactionMark, ModelTotals, Totals};
use serde::Serialize;

use crate::common::{print_session_doc, read_back, CliError, SessionArgs, Streamed};

/// `usage --json` (after `dialect` and `ruleSet`): core's `Spend`, field for field, with the
/// records [`Streamed`] (a million replies are not held as values).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UsageDoc<'a, R> {
    totals: &'a Totals,
    by_kind: &'a BTreeMap<&'static str, Totals>,
    by_model: &'a [ModelTotals],
    branches: &'a [BranchTotals],
    records: R,
    compactions: &'a [CompactionMark],
}

pub fn run(args: &SessionArgs) -> Result<(), CliError> {
    let loaded = args.load()?;
    let s = &loaded.session;
    let report = spend_report(s, &loaded.source).map_err(read_back)?;
    if args.json {
        let doc = UsageDoc {
            totals: &report.totals,
            by_kind: &report.by_kind,
            by_model: &report.by_model,
            branches: &report.branches,
            records: Streamed::new(report.records(s)),
            compactions: &report.compactions,
        };
        print_session_doc(s, &doc);
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
