//! `contextree bench`: in-process timings of each phase of opening a session,
//! for the benchmark table (docs/benchmarks.md). Whole-process numbers come
//! from `scripts/bench.sh`, which also measures peak memory from outside.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use contextree_core::context::{self, context_tokens, entry_states, Leaf};
use contextree_core::prompts::PromptPack;
use contextree_core::session::NodeId;
use contextree_core::RuleChoice;
use serde::Serialize;

use crate::common::{print_json, read_back, CliError};

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Session files to measure.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Whose rules apply (default: detected).
    #[arg(long)]
    dialect: Option<contextree_core::RuleRequest>,
    /// Print one JSON document.
    #[arg(long)]
    json: bool,
}

/// `bench --json`: `{"runs": [...]}`.
#[derive(Serialize)]
struct BenchDoc {
    runs: Vec<Run>,
}

/// One file's numbers.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    file: String,
    dialect: &'static str,
    rule_set: RuleChoice,
    bytes: u64,
    entries: usize,
    leaves: usize,
    path_length: usize,
    context_messages: usize,
    context_tokens: u64,
    all_entry_tokens: u64,
    kept_entries: usize,
    timings_ms: Timings,
    #[serde(rename = "peakRssMiB")]
    peak_rss_mib: Option<f64>,
}

/// Milliseconds per phase.
#[derive(Serialize)]
struct Timings {
    open: f64,
    tree: f64,
    context: f64,
    estimate: f64,
    total: f64,
}

pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    let mut rows = Vec::new();
    let env = contextree_host::HostEnv::from_process();
    for file in &args.files {
        let t = Instant::now();
        let loaded = contextree_host::load_session(&env, file, args.dialect)?;
        let open_ms = ms(t);
        let s = &loaded.session;
        let t = Instant::now();
        let leaves = s.tree().leaves().len();
        let tree_ms = ms(t);
        let t = Instant::now();
        let ctx = context::build(s, Leaf::Last);
        let states = entry_states(s, &ctx);
        let context_ms = ms(t);
        let t = Instant::now();
        let pack = PromptPack::own(s.dialect());
        let tokens = context_tokens(s, &ctx, &pack, &loaded.source).map_err(read_back)?;
        let all: u64 = (0..s.entries().len() as u32).map(|i| s.entry_tokens(NodeId(i))).sum();
        let estimate_ms = ms(t);
        rows.push(Run {
            file: file.display().to_string(),
            dialect: s.dialect().name(),
            rule_set: s.rule_choice().clone(),
            bytes: loaded.fingerprint.len,
            entries: s.entries().len(),
            leaves,
            path_length: ctx.path.len(),
            context_messages: tokens.messages.len(),
            context_tokens: tokens.message_tokens(),
            all_entry_tokens: all,
            kept_entries: states.iter().filter(|st| st.name() == "kept").count(),
            timings_ms: Timings {
                open: open_ms,
                tree: tree_ms,
                context: context_ms,
                estimate: estimate_ms,
                total: open_ms + tree_ms + context_ms + estimate_ms,
            },
            peak_rss_mib: peak_rss_mib(),
        });
    }
    if args.json {
        print_json(&BenchDoc { runs: rows });
        return Ok(());
    }
    outln!(
        "{:<40} {:>9} {:>9} {:>9} {:>8} {:>9} {:>9} {:>9}",
        "file",
        "MB",
        "entries",
        "open ms",
        "tree ms",
        "ctx ms",
        "est ms",
        "peak MiB"
    );
    for r in &rows {
        let t = &r.timings_ms;
        outln!(
            "{:<40} {:>9.1} {:>9} {:>9.1} {:>8.1} {:>9.1} {:>9.1} {:>9.1}",
            r.file,
            r.bytes as f64 / 1e6,
            r.entries,
            t.open,
            t.tree,
            t.context,
            t.estimate,
            r.peak_rss_mib.unwrap_or(0.0),
        );
    }
    Ok(())
}

fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e4).round() / 10.0
}

/// Peak resident memory so far (`VmHWM`), when the OS reports it.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some((kb / 1024.0 * 10.0).round() / 10.0)
}
