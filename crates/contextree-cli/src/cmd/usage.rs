//! `contextree usage`: what the session cost, from the usage the agents recorded (the read
//! layer's [`UsageReport`]; the text renders its sums), with omp's subagents and advisors.

use contextree_core::spend::Totals;
use contextree_read::subagents::{ChildKind, ChildStatus, Counted};
use contextree_read::{usage_sums, UsageReport};

use crate::common::{read_back, write_json, CliError, SessionArgs};

pub fn run(args: &SessionArgs) -> Result<(), CliError> {
    let loaded = args.load()?;
    let s = &loaded.session;
    let report = usage_sums(s, &loaded.source).map_err(read_back)?;
    let children = contextree_host::subagents::child_files(&args.env, &loaded.path, s.dialect());
    let full = UsageReport::new(s, &report, &children);
    if args.json {
        write_json(&full);
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
    if !full.subagents.is_empty() {
        line("subagents and advisors", &full.subagent_totals);
        for r in &full.subagents {
            let fallback = if r.kind == ChildKind::Advisor { "advisor" } else { "agent" };
            let what = r.agent.as_deref().or(r.role.as_deref()).unwrap_or(fallback);
            let name = format!("  {}{} ({what})", "  ".repeat(r.depth as usize), r.file);
            match (r.status, r.counted, r.recorded) {
                (ChildStatus::Read, _, _) => line(&name, &r.totals),
                (status, Counted::Recorded, Some(a)) => {
                    let mut t = Totals::default();
                    t.add(&a);
                    line(&format!("{name} {}, as recorded", status_word(status)), &t);
                }
                (status, _, _) => outln!("{name} {}, spend unknown", status_word(status)),
            }
            if let Some(e) = &r.error {
                outln!("      {e}");
            }
        }
        line("session with subagents", &full.with_subagents);
        for b in &full.branch_subagents {
            if b.subagents.records > 0 {
                line(&format!("branch to {} with subagents", b.leaf_id), &b.with_subagents);
            }
        }
    }
    outln!("{} compactions; context size reported by {} replies", report.compactions.len(), report.reply_count());
    Ok(())
}

fn status_word(s: ChildStatus) -> &'static str {
    match s {
        ChildStatus::Read => "read",
        ChildStatus::Missing => "missing",
        ChildStatus::Unreadable => "unreadable",
    }
}
