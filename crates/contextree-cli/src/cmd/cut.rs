//! `contextree cut`: what compaction would do now (spec cli-contract.md), per
//! dialect, without calling any model.

use clap::Args;
use contextree_core::compaction::{auto_check_with, plan, CheckInputs, CompactionPlan, CompactionSettings};
use contextree_core::session::{NodeId, Session};
use contextree_ops::auto_check::auto_check_report;

use std::io::Write;

use super::compact::to_value;
use crate::common::{read_back, write_ids, write_json, write_stdout_with, CliError, SessionArgs};
use contextree_read::CutReport;

#[derive(Debug, Args)]
pub struct CutArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// `keepRecentTokens` (default 20000; omp scales it by usage/estimate).
    #[arg(long, value_name = "N")]
    keep_recent: Option<u64>,
    /// `reserveTokens` (default 16384).
    #[arg(long, value_name = "N")]
    reserve: Option<u64>,
    /// Context window: adds `shouldCompact` and `thresholdTokens` (the dialect's rule).
    #[arg(long, value_name = "N")]
    window: Option<u64>,
    /// The current model as `provider/id`, for the automatic check's
    /// same-model test (default: the last assistant message's own model).
    #[arg(long, value_name = "PROVIDER/ID", requires = "window")]
    model: Option<String>,
    /// omp 18: the current time (ms since the epoch) for the per-turn stale pass of the
    /// automatic check (default: right after the last message, a warm cache).
    #[arg(long, value_name = "MS", requires = "window")]
    now: Option<u64>,
    /// omp 18: the current model's thinking is prefix-bound (no pruning inside the cache).
    #[arg(long, requires = "window")]
    prefix_bound: bool,
    /// omp 18: whether the current model accepts images (snapcompact; default unknown).
    #[arg(long, value_name = "BOOL", requires = "window")]
    vision: Option<bool>,
    /// omp 18: whether the current model supports provider-native compaction (remote; default unknown).
    #[arg(long, value_name = "BOOL", requires = "window")]
    native_compaction: Option<bool>,
    /// pi 1.6: the current model's output limit (maxTokens), for a `length` stop (default unknown).
    #[arg(long, value_name = "N", requires = "window")]
    max_output: Option<u64>,
}

pub fn run(args: &CutArgs) -> Result<(), CliError> {
    let a = &args.session;
    let loaded = a.load()?;
    let s = &loaded.session;
    let ctx = a.context(&loaded)?;
    let defaults = CompactionSettings::default();
    let settings = CompactionSettings {
        keep_recent_tokens: args.keep_recent.unwrap_or(defaults.keep_recent_tokens),
        reserve_tokens: args.reserve.unwrap_or(defaults.reserve_tokens),
        reserve_tokens_set: args.reserve.is_some(),
        ..defaults
    };
    let plan = plan(s, &ctx, &settings, &loaded.source).map_err(read_back)?;
    let mut doc = CutReport::new(s, &plan, args.window);
    if let Some(w) = args.window {
        let model = match args.model.as_deref() {
            None => None,
            Some(m) => Some(
                m.split_once('/')
                    .filter(|(p, id)| !p.is_empty() && !id.is_empty())
                    .ok_or_else(|| CliError::Input(format!("--model {m:?}: expected provider/id")))?,
            ),
        };
        let inputs = CheckInputs {
            now_ms: args.now.map(|n| n as f64),
            prefix_bound: args.prefix_bound,
            accepts_images: args.vision,
            native_compaction: args.native_compaction,
            max_output_tokens: args.max_output,
        };
        let check = auto_check_with(s, &ctx, &settings, w, model, &inputs, &loaded.source).map_err(read_back)?;
        doc.auto_check = Some(auto_check_report(s, &check));
    }
    if a.json {
        // The id lists are written one element at a time (a million-entry path is not held
        // as strings or values).
        write_json(&doc);
        Ok(())
    } else {
        print_text(s, &plan, &doc)
    }
}

fn print_text(s: &Session, plan: &CompactionPlan, cut: &CutReport<'_>) -> Result<(), CliError> {
    let id = |n: NodeId| s.entry(n).id.to_string();
    let k = &plan.keep_recent;
    outln!(
        "dialect {} · keepRecentTokens {} (used {}) · tokensBefore {}",
        plan.dialect,
        k.configured,
        k.used,
        to_value(&cut.tokens_before)?
    );
    match &plan.outcome {
        Err(reason) => outln!("nothing to compact: {reason}"),
        Ok(p) => {
            outln!("first kept entry {}{}", id(p.first_kept), if p.is_split_turn() { " (split turn)" } else { "" });
            write_stdout_with(|out| {
                for (what, list) in [("summarize", &p.messages_to_summarize), ("turn prefix", &p.turn_prefix), ("kept", &p.recent)] {
                    write!(out, "{what} ({}): ", list.len())?;
                    write_ids(out, s, list)?;
                    writeln!(out)?;
                }
                Ok(())
            });
            let files = p.file_ops.lists();
            outln!("read files: {}", files.read_files.join(", "));
            outln!("modified files: {}", files.modified_files.join(", "));
        }
    }
    if let Some(t) = &cut.threshold {
        outln!("window {} · threshold {} · should compact: {}", t.window, to_value(&t.threshold_tokens)?, t.should_compact);
    }
    if let Some(check) = &cut.auto_check {
        let check = &to_value(check)?;
        outln!("auto check: {} — {}", check["decision"].as_str().unwrap_or("?"), check["reason"].as_str().unwrap_or(""));
        if let Some(text) = check["method"]["text"].as_str() {
            outln!("  method: {text}");
        }
        if check.get("storedEstimate").is_some_and(|v| !v.is_null()) {
            outln!(
                "  stored estimate {} · stale pass prunes {} (saving {}) · overflow pruning {} (saving {}); savings are not subtracted",
                check["storedEstimate"],
                check["stalePrunedCount"],
                check["staleSavings"],
                check["prunedCount"],
                check["pruningSavings"]
            );
        }
        for note in check["notes"].as_array().into_iter().flatten() {
            outln!("  note: {}", note.as_str().unwrap_or(""));
        }
    }
    for w in &plan.warnings {
        outln!("warning: {w}");
    }
    Ok(())
}
