//! `contextree context`: the read layer's [`ContextReport`], printed as it is (`--json`) or as
//! a table of its messages; `--full` adds the LLM messages themselves.

use clap::Args;
use contextree_core::context::llm_messages;
use contextree_core::tokens::TokenizerKind;
use contextree_read::{ContextOptions, ContextReport};
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
    let options = ContextOptions { tokenizer: args.tokenizer, text_chars: None };
    let report = ContextReport::new(s, &ctx, &pack, &loaded.source, options).map_err(read_back)?;
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
    Ok(())
}
