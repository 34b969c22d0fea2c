//! `contextree context`: the read layer's [`ContextReport`], printed as it is (`--json`) or as
//! a table of its messages; `--full` adds the LLM messages themselves.

use clap::Args;
use contextree_core::context::llm_messages;
use contextree_core::tokens::TokenizerKind;
use contextree_read::{BreakdownRow, ContextOptions, ContextReport};
use serde::Serialize;
use serde_json::Value;
use std::io::Write;

use crate::common::{read_back, write_json, write_stdout_with, CliError, SessionArgs};

#[derive(Debug, Args)]
pub struct ContextArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// Also count the LLM messages with a tokenizer: `o200k_base` or `cl100k_base`.
    #[arg(long)]
    tokenizer: Option<TokenizerKind>,
    /// With --json: also the LLM messages themselves, as `convertToLlm` makes them (`fullLlm`,
    /// the oracle's name), summaries wrapped in the prompt pack's words.
    #[arg(long, requires = "json")]
    full: bool,
    /// Also split the messages' estimate by category (user, thinking, tool results by tool, …):
    /// `breakdown` in --json, a table after the messages otherwise. The rows sum to the
    /// messages' estimate.
    #[arg(long)]
    breakdown: bool,
}

/// `context --json --full`: the report, then the LLM messages.
#[derive(Serialize)]
struct FullDoc<'r, 'a> {
    #[serde(flatten)]
    report: &'r ContextReport<'a>,
    #[serde(rename = "fullLlm")]
    full_llm: Vec<Value>,
}

pub fn run(args: &ContextArgs) -> Result<(), CliError> {
    let a = &args.session;
    // The process ends after printing: the session's memory goes back to the system with it,
    // without a few milliseconds of freeing a large session entry by entry.
    let loaded = std::mem::ManuallyDrop::new(a.load()?);
    let s = &loaded.session;
    let ctx = a.context(&loaded)?;
    let pack = a.pack(s.rules())?;
    let options = ContextOptions { tokenizer: args.tokenizer, text_chars: None, breakdown: args.breakdown };
    let mut report = ContextReport::new(s, &ctx, &pack, &loaded.source, options).map_err(read_back)?;
    if a.json {
        if args.full {
            let full_llm = llm_messages(s, &ctx, &pack, &loaded.source).map_err(read_back)?;
            write_json(&FullDoc { report: &report, full_llm });
        } else {
            write_json(&report);
        }
        return report.finish().map_err(read_back);
    }
    let (count, tokens, llm_count, llm_tokens) = (report.message_count, report.message_tokens, report.llm_count, report.llm_tokens);
    let est = report.estimate_context_tokens;
    let breakdown = report.breakdown.take();
    let rows = report.messages.into_inner();
    write_stdout_with(|out| {
        for m in rows {
            let (i, role, id, n) = (m.i, m.role, m.entry_id.unwrap_or("(summary)"), m.tokens);
            writeln!(out, "{i:>5}  {role:<18} {id:<12} {n:>8}")?;
        }
        Ok(())
    });
    outln!("messages {count} · estimate {tokens} · llm messages {llm_count} · llm estimate {llm_tokens}");
    outln!("agent's context estimate {} (usage {} + trailing {})", est.tokens, est.usage_tokens, est.trailing_tokens);
    if let Some(rows) = breakdown {
        write_breakdown(&rows, tokens);
    }
    Ok(())
}

/// The breakdown as a table: category, tool or section, tokens, share of the messages'
/// estimate, messages.
fn write_breakdown(rows: &[BreakdownRow], total: u64) {
    outln!();
    outln!("{:<18} {:<24} {:>8} {:>6} {:>8}", "category", "tool/section", "tokens", "share", "messages");
    for r in rows {
        let what = r.tool.as_deref().or(r.section.as_deref()).unwrap_or("");
        let category = r.category.name();
        let share = if total == 0 { 0.0 } else { r.tokens as f64 * 100.0 / total as f64 };
        outln!("{category:<18} {what:<24} {:>8} {share:>5.1}% {:>8}", r.tokens, r.messages);
    }
}
