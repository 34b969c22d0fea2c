//! `contextree usage`: what the session cost, from the usage the agents recorded.

use contextree_core::spend::{spend_report, Totals};
use serde_json::{Map, Value};

use crate::common::{print_session_json_streamed, read_back, CliError, SessionArgs};

pub fn run(args: &SessionArgs) -> Result<(), CliError> {
    let loaded = args.load()?;
    let s = &loaded.session;
    let report = spend_report(s, &loaded.source).map_err(read_back)?;
    if args.json {
        // `Spend`'s fields, the records written one at a time (a million replies are not
        // held as JSON values).
        let mut doc = Map::new();
        doc.insert("totals".into(), value(&report.totals));
        doc.insert("byKind".into(), value(&report.by_kind));
        doc.insert("byModel".into(), value(&report.by_model));
        doc.insert("branches".into(), value(&report.branches));
        doc.insert("records".into(), Value::Null);
        doc.insert("compactions".into(), value(&report.compactions));
        let records = report.records(s).map(|r| value(&r));
        print_session_json_streamed(s, doc, vec![("records", Box::new(records))]);
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

/// A report's part as JSON (plain data: it always converts).
fn value(v: &impl serde::Serialize) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}
