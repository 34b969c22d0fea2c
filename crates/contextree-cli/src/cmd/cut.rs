//! `contextree cut`: what compaction would do now (spec cli-contract.md), per
//! dialect, without calling any model.

use clap::Args;
use contextree_core::compaction::{
    auto_check_with, plan, should_compact_under, threshold_tokens_under, CheckInputs, CompactionPlan, CompactionSettings, FileOps, Prepared,
};
use contextree_core::js::json_number;
use contextree_core::session::{NodeId, Session};
use serde_json::{json, Map, Value};

use std::io::Write;

use crate::common::{
    file_ops_json, id_stream, print_session_json_streamed, read_back, write_ids, write_stdout_with, CliError, SessionArgs,
};

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
    let mut doc = document(s, &plan, args.window);
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
        doc.insert("autoCheck".into(), contextree_ops::auto_check::auto_check_json(s, &check));
    }
    if a.json {
        // The id lists are written one element at a time (a million-entry path is not held as
        // JSON values).
        let list = |f: fn(&Prepared) -> &[NodeId]| plan.prepared().map_or(&[][..], f);
        let streams = vec![
            ("messagesToSummarizeIds", id_stream(s, list(|p| &p.messages_to_summarize))),
            ("turnPrefixIds", id_stream(s, list(|p| &p.turn_prefix))),
            ("recentMessagesIds", id_stream(s, list(|p| &p.recent))),
            ("droppedIds", id_stream(s, list(|p| &p.dropped))),
        ];
        print_session_json_streamed(s, doc, streams);
    } else {
        print_text(s, &plan, &doc);
    }
    Ok(())
}

/// The contract's fields plus the cut's details; the id lists are placeholders (`null`) for
/// [`print_session_json_streamed`].
fn document(s: &Session, plan: &CompactionPlan, window: Option<u64>) -> Map<String, Value> {
    let id = |n: NodeId| Value::from(s.entry(n).id.to_string());
    let prepared = plan.prepared();
    let mut doc = Map::new();
    doc.insert("dialect".into(), plan.dialect.name().into());
    doc.insert("leafId".into(), plan.leaf.map_or(Value::Null, id));
    doc.insert(
        "settings".into(),
        json!({"keepRecentTokens": plan.settings.keep_recent_tokens, "reserveTokens": plan.settings.reserve_tokens}),
    );
    doc.insert("nothingToCompact".into(), prepared.is_none().into());
    doc.insert("reason".into(), plan.outcome.as_ref().err().map_or(Value::Null, |r| r.to_string().into()));
    doc.insert("firstKeptEntryId".into(), prepared.map_or(Value::Null, |p| id(p.first_kept)));
    doc.insert("firstKeptEntryIndex".into(), prepared.map_or(Value::Null, |p| p.first_kept.0.into()));
    doc.insert("isSplitTurn".into(), prepared.map_or(Value::Null, |p| p.is_split_turn().into()));
    doc.insert("turnStartEntryId".into(), prepared.and_then(turn_start_with_prefix).map_or(Value::Null, id));
    doc.insert("tokensBefore".into(), json_number(plan.tokens_before));
    doc.insert("keepRecentTokensUsed".into(), plan.keep_recent.used.into());
    doc.insert("previousCompactionId".into(), plan.previous.map_or(Value::Null, |p| id(p.node)));
    for list in ["messagesToSummarizeIds", "turnPrefixIds", "recentMessagesIds", "droppedIds"] {
        doc.insert(list.into(), Value::Null);
    }
    doc.insert("fileOps".into(), prepared.map_or_else(|| file_ops_json(&FileOps::default()), |p| file_ops_json(&p.file_ops)));
    doc.insert("findCutPoint".into(), find_cut_point(s, &plan.entries, plan));
    doc.insert("warnings".into(), plan.warnings.clone().into());
    if let Some(w) = window {
        // The number the agents test after a run: omp's last usage, pi's
        // context estimate, which is what `tokensBefore` holds.
        doc.insert("window".into(), w.into());
        doc.insert("thresholdTokens".into(), threshold_tokens_under(w, &plan.settings, s.rules()).map_or(Value::Null, json_number));
        doc.insert("shouldCompact".into(), should_compact_under(plan.tokens_before, w, &plan.settings, s.rules()).into());
    }
    doc
}

/// The oracle's `turnStartEntryId`: the first turn-prefix message's entry, so
/// none when the cut is itself the turn start (E14).
fn turn_start_with_prefix(p: &Prepared) -> Option<NodeId> {
    p.turn_start.filter(|_| !p.turn_prefix.is_empty())
}

/// Raw `findCutPoint` facts with indices into the plan's entries (the path;
/// pi ≥ 0.87 the projected context entries, `indexSpace: "contextEntries"`),
/// also when the agent would not compact (as the oracle's `findCutPoint`).
fn find_cut_point(s: &Session, path: &[NodeId], plan: &CompactionPlan) -> Value {
    let k = &plan.keep_recent;
    let mut v = json!({
        "indexSpace": if s.rules().cuts_projected_entries() { "contextEntries" } else { "path" },
        "boundaryStart": plan.boundary.start,
        "boundaryEnd": plan.boundary.end,
        "estimatedTokens": k.estimated_tokens,
        "promptTokens": k.prompt_tokens.map(json_number),
        "keepRecentTokensUsed": k.used,
    });
    if let Some(cut) = plan.cut {
        let id = |i: usize| path.get(i).map_or(Value::Null, |&n| s.entry(n).id.to_string().into());
        v["firstKeptEntryIndex"] = cut.first_kept.into();
        v["turnStartIndex"] = cut.turn_start.map_or(json!(-1), Value::from);
        v["isSplitTurn"] = cut.is_split_turn().into();
        v["firstKeptEntryId"] = id(cut.first_kept);
        v["turnStartEntryId"] = cut.turn_start.map_or(Value::Null, id);
    }
    v
}

fn print_text(s: &Session, plan: &CompactionPlan, doc: &Map<String, Value>) {
    let id = |n: NodeId| s.entry(n).id.to_string();
    let k = &plan.keep_recent;
    outln!("dialect {} · keepRecentTokens {} (used {}) · tokensBefore {}", plan.dialect, k.configured, k.used, doc["tokensBefore"]);
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
    if let Some(should) = doc.get("shouldCompact") {
        outln!("window {} · threshold {} · should compact: {should}", doc["window"], doc["thresholdTokens"]);
    }
    if let Some(check) = doc.get("autoCheck") {
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
}
