//! `contextree weight`: the read layer's [`WeightReport`]: the context after each turn of the
//! leaf's path, the largest messages still in it, the files read more than once.

use clap::Args;
use contextree_read::WeightReport;
use std::io::Write;

use crate::common::{read_back, write_json, write_stdout_with, CliError, SessionArgs};

#[derive(Debug, Args)]
pub struct WeightArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// How many of the context's largest messages to list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    top: usize,
}

pub fn run(args: &WeightArgs) -> Result<(), CliError> {
    let a = &args.session;
    let loaded = std::mem::ManuallyDrop::new(a.load()?);
    let s = &loaded.session;
    let r = WeightReport::new(s, a.leaf(&loaded)?, args.top, &loaded.source).map_err(read_back)?;
    if a.json {
        write_json(&r);
        return Ok(());
    }
    outln!("leaf {} · context {} tokens · {} turns", r.leaf_id.as_deref().unwrap_or("(none)"), r.context_tokens, r.turns.len());
    write_stdout_with(|out| {
        writeln!(out, "{:>5}  {:<12} {:>8} {:>8} {:>8}  marks", "turn", "last entry", "context", "delta", "added")?;
        for t in &r.turns {
            let mut marks = Vec::new();
            if let Some(c) = &t.compaction_id {
                marks.push(format!("compaction {c}"));
            }
            if t.pruned > 0 {
                marks.push(format!("{} pruned", t.pruned));
            }
            if t.context_edits > 0 {
                marks.push(format!("{} context edits", t.context_edits));
            }
            let last = t.last_entry_id.as_deref().unwrap_or("-");
            writeln!(out, "{:>5}  {last:<12} {:>8} {:>+8} {:>8}  {}", t.turn, t.tokens, t.delta, t.added, marks.join(", "))?;
        }
        Ok(())
    });
    outln!();
    outln!("largest messages in the context");
    for e in &r.top {
        let what = e.tool.as_deref().map_or(e.role.clone(), |t| format!("{} {t}", e.role));
        let turn = e.turn.map_or("-".to_owned(), |t| t.to_string());
        outln!("{:>8}  {:<12} turn {turn:<5} {what}", e.tokens, e.entry_id.as_deref().unwrap_or("-"));
    }
    if !r.repeated_reads.is_empty() {
        outln!();
        outln!("files read more than once");
        for f in &r.repeated_reads {
            outln!("{:>8} tokens in repeats  {}× {}  ({} tokens in all)", f.repeat_tokens, f.reads, f.path, f.tokens);
        }
    }
    Ok(())
}
