//! `contextree compare`: the read layer's [`CompareReport`], the app's side-by-side dialog:
//! two leaves' contexts aligned, printed as it is (`--json`) or as a summary and the rows in
//! two columns.

use std::io::Write;

use clap::Args;
use contextree_core::context::{build, Leaf};
use contextree_read::compare::{CompareCell, CompareRow, CompareSide};
use contextree_read::{CompareOptions, CompareReport};

use crate::common::{read_back, write_json, write_stdout_with, CliError, SessionArgs};

#[derive(Debug, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// Leaf A: the entry whose context goes on the left.
    leaf_a: String,
    /// Leaf B: the entry whose context goes on the right.
    leaf_b: String,
}

/// Shared rows kept on each side of a folded run of them, as the app's dialog shows them.
const KEEP: usize = 2;
/// Characters of a cell in the text output.
const CELL: usize = 48;

pub fn run(args: &CompareArgs) -> Result<(), CliError> {
    let a = &args.session;
    if a.leaf.is_some() {
        return Err(CliError::Input("`--leaf` does not apply to compare: give the two leaves as LEAF_A LEAF_B".to_owned()));
    }
    let loaded = a.load()?;
    let s = &loaded.session;
    let node = |id: &str| s.node(id).ok_or_else(|| CliError::Input(format!("{}: no entry with id `{id}`", a.file.display())));
    let (ctx_a, ctx_b) = (build(s, Leaf::At(node(&args.leaf_a)?)), build(s, Leaf::At(node(&args.leaf_b)?)));
    let pack = a.pack(s.rules())?;
    let report = CompareReport::new(s, &ctx_a, &ctx_b, &pack, &loaded.source, CompareOptions::default()).map_err(read_back)?;
    if a.json {
        write_json(&report);
        return report.finish().map_err(read_back);
    }
    let r = &report;
    outln!("A  {}", side_line(&r.a));
    outln!("B  {}", side_line(&r.b));
    let ancestor = match (&r.common_ancestor_id, r.common_ancestor_index) {
        (Some(id), Some(at)) => format!("{id} (entry {at})"),
        _ => "none (different roots)".to_owned(),
    };
    outln!("common ancestor {ancestor}");
    let d = r.difference;
    let estimate = d.estimate.map_or("unknown".to_owned(), signed);
    outln!("B minus A {} llm tokens (messages {}, agent's estimate {estimate})", signed(d.llm_tokens), signed(d.message_tokens));
    let diverge = r.diverge_at.map_or("the same context".to_owned(), |at| format!("they diverge at message {}", at + 1));
    outln!("shared prefix {} ({} tokens) · {diverge}", messages(r.shared_count), r.shared_tokens);
    outln!("only in A: {} · only in B: {}", only(&r.a), only(&r.b));
    outln!(
        "rows: {} same · {} changed (on both paths, sent differently) · {} diverged (past the ancestor)",
        r.same_count,
        r.changed_count,
        r.diverged_count
    );
    outln!();
    let rows = report.rows.into_inner();
    write_stdout_with(|out| {
        writeln!(out, "   {:<CELL$} │ B", "A")?;
        write_rows(out, rows)
    });
    // Without text asked the rows read nothing back, so nothing can fail while they are made.
    Ok(())
}

/// `a2 · 4 messages (72 tokens; llm 3, 72) · agent's estimate 72 · 5 entries on the path`.
fn side_line(side: &CompareSide) -> String {
    let est = &side.estimate_projected_context_tokens;
    let est = if est.unknown_after_compaction { "unknown after the compaction".to_owned() } else { est.tokens.to_string() };
    format!(
        "{} · {} ({} tokens) · llm messages {} ({} tokens) · agent's estimate {est} · path {}",
        side.leaf_id.as_deref().unwrap_or("(none)"),
        messages(side.message_count),
        side.message_tokens,
        side.llm_count,
        side.llm_tokens,
        side.path_length,
    )
}

fn only(side: &CompareSide) -> String {
    format!(
        "{} ({} tokens; past the ancestor {}, {} tokens)",
        messages(side.only_count),
        side.only_tokens,
        side.branch_count,
        side.branch_tokens
    )
}

fn messages(n: usize) -> String {
    format!("{n} {}", if n == 1 { "message" } else { "messages" })
}

fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

/// The rows in two columns, a run of more than `2 * KEEP + 1` same rows folded to the `KEEP`
/// next to each change (none at the ends), as the app does; only `KEEP` rows are held.
fn write_rows<'a>(out: &mut impl Write, rows: impl Iterator<Item = CompareRow<'a>>) -> std::io::Result<()> {
    let mut run = Run::default();
    let mut first = true;
    for row in rows {
        if row.op == "same" {
            run.push(out, row, first)?;
            continue;
        }
        run.end(out, false)?;
        first = false;
        write_row(out, &row)?;
    }
    run.end(out, true)
}

/// A run of same rows being written: its first rows at once, its last `KEEP + 1` held until
/// the run ends, the ones before those counted.
#[derive(Default)]
struct Run<'a> {
    at_start: bool,
    len: usize,
    folded: usize,
    folded_tokens: u64,
    last: std::collections::VecDeque<CompareRow<'a>>,
}

impl<'a> Run<'a> {
    fn push(&mut self, out: &mut impl Write, row: CompareRow<'a>, at_start: bool) -> std::io::Result<()> {
        if self.len == 0 {
            self.at_start = at_start;
        }
        self.len += 1;
        let head = if self.at_start { 0 } else { KEEP };
        if self.len <= head {
            return write_row(out, &row);
        }
        self.last.push_back(row);
        if self.last.len() > KEEP + 1 {
            let gone = self.last.pop_front().expect("held rows");
            self.folded += 1;
            self.folded_tokens += tokens(&gone);
        }
        Ok(())
    }

    /// The run ends (`at_end`: with the rows, so no row is kept after the fold): the folded
    /// count, then the rows kept. A fold of one row would hide nothing: it is shown.
    fn end(&mut self, out: &mut impl Write, at_end: bool) -> std::io::Result<()> {
        let tail = if at_end { 0 } else { KEEP };
        let mut last = std::mem::take(&mut self.last);
        let (mut folded, mut folded_tokens) = (self.folded, self.folded_tokens);
        if folded + last.len() > tail + 1 {
            while last.len() > tail {
                let gone = last.pop_front().expect("held rows");
                folded += 1;
                folded_tokens += tokens(&gone);
            }
            writeln!(out, "   … {} shared ({folded_tokens} tokens)", messages(folded))?;
        }
        for row in &last {
            write_row(out, row)?;
        }
        *self = Run::default();
        Ok(())
    }
}

/// A same row's tokens (A's, which are B's).
fn tokens(row: &CompareRow) -> u64 {
    row.a.as_ref().and_then(|c| c.message.as_ref()).map_or(0, |m| m.llm_tokens)
}

fn write_row(out: &mut impl Write, row: &CompareRow) -> std::io::Result<()> {
    let mark = match row.op {
        "same" => '=',
        "changed" => '~',
        _ => '>',
    };
    let a = row.a.as_ref().map_or_else(String::new, cell);
    let pad = CELL.saturating_sub(a.chars().count());
    let b = row.b.as_ref().map_or_else(String::new, |c| format!(" {}", cell(c)));
    writeln!(out, "{mark}  {a}{:pad$} │{b}", "")
}

/// `u2 user 10`: id, role, LLM tokens; the entry's state when its role does not say it
/// (`pruned`, `replaced`), or alone when the side does not send it: `u1 (summarized)`.
fn cell(c: &CompareCell) -> String {
    let id = c.entry_id.unwrap_or("(no id)");
    match &c.message {
        None => format!("{id} ({})", c.state),
        Some(m) => {
            let plain = matches!(c.state, "kept" | "compaction" | "branch-summary");
            let state = if plain { String::new() } else { format!(" ({})", c.state) };
            format!("{id:<10} {:<17} {:>7}{state}", m.role, m.llm_tokens)
        }
    }
}
