//! `contextree cut`: what compaction would do now (spec cli-contract.md), per
//! dialect, without calling any model.

use clap::Args;
use contextree_core::compaction::{
    auto_check_with, plan, should_compact_under, threshold_tokens_under, CheckInputs, CompactionPlan, CompactionSettings, FileOps, Prepared,
};
use contextree_core::session::{NodeId, Session};
use contextree_ops::auto_check::{auto_check_report, AutoCheckReport};
use contextree_ops::JsNumber;
use serde::Serialize;
use serde_json::Value;

use std::io::Write;

use super::compact::to_value;
use crate::common::{file_ops_json, print_session_doc, read_back, write_ids, write_stdout_with, CliError, Ids, SessionArgs};

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
        doc.auto_check = Some(auto_check_report(s, &check));
    }
    if a.json {
        // The id lists are written one element at a time (a million-entry path is not held
        // as strings or values).
        print_session_doc(s, &doc);
        Ok(())
    } else {
        print_text(s, &plan, &doc)
    }
}

/// The contract's fields plus the cut's details.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CutDoc<'a> {
    leaf_id: Option<String>,
    settings: SettingsDoc,
    nothing_to_compact: bool,
    reason: Option<String>,
    first_kept_entry_id: Option<String>,
    first_kept_entry_index: Option<u32>,
    is_split_turn: Option<bool>,
    turn_start_entry_id: Option<String>,
    tokens_before: JsNumber,
    keep_recent_tokens_used: u64,
    previous_compaction_id: Option<String>,
    messages_to_summarize_ids: Ids<'a>,
    turn_prefix_ids: Ids<'a>,
    recent_messages_ids: Ids<'a>,
    dropped_ids: Ids<'a>,
    /// The raw sets sorted and the agents' lists (`common::file_ops_json`).
    file_ops: Value,
    find_cut_point: FindCutPoint,
    warnings: Vec<String>,
    /// `--window`: the dialect's threshold rule.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    threshold: Option<Threshold>,
    #[serde(skip_serializing_if = "Option::is_none")]
    auto_check: Option<AutoCheckReport>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SettingsDoc {
    keep_recent_tokens: u64,
    reserve_tokens: u64,
}

/// The number the agents test after a run (omp's last usage, pi's context estimate, which is
/// what `tokensBefore` holds) against the window.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Threshold {
    window: u64,
    threshold_tokens: Option<JsNumber>,
    should_compact: bool,
}

/// Raw `findCutPoint` facts (see [`find_cut_point`]).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FindCutPoint {
    index_space: &'static str,
    boundary_start: usize,
    boundary_end: usize,
    estimated_tokens: Option<u64>,
    prompt_tokens: Option<JsNumber>,
    keep_recent_tokens_used: u64,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    cut: Option<CutAt>,
}

/// Where `findCutPoint` cut.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CutAt {
    first_kept_entry_index: usize,
    /// -1: none.
    turn_start_index: i64,
    is_split_turn: bool,
    first_kept_entry_id: Option<String>,
    turn_start_entry_id: Option<String>,
}

fn document<'a>(s: &'a Session, plan: &'a CompactionPlan, window: Option<u64>) -> CutDoc<'a> {
    let id = |n: NodeId| s.entry(n).id.to_string();
    let prepared = plan.prepared();
    let ids = |list: fn(&Prepared) -> &[NodeId]| Ids(s, prepared.map_or(&[][..], list));
    CutDoc {
        leaf_id: plan.leaf.map(id),
        settings: SettingsDoc { keep_recent_tokens: plan.settings.keep_recent_tokens, reserve_tokens: plan.settings.reserve_tokens },
        nothing_to_compact: prepared.is_none(),
        reason: plan.outcome.as_ref().err().map(|r| r.to_string()),
        first_kept_entry_id: prepared.map(|p| id(p.first_kept)),
        first_kept_entry_index: prepared.map(|p| p.first_kept.0),
        is_split_turn: prepared.map(Prepared::is_split_turn),
        turn_start_entry_id: prepared.and_then(turn_start_with_prefix).map(id),
        tokens_before: JsNumber(plan.tokens_before),
        keep_recent_tokens_used: plan.keep_recent.used,
        previous_compaction_id: plan.previous.map(|p| id(p.node)),
        messages_to_summarize_ids: ids(|p| &p.messages_to_summarize),
        turn_prefix_ids: ids(|p| &p.turn_prefix),
        recent_messages_ids: ids(|p| &p.recent),
        dropped_ids: ids(|p| &p.dropped),
        file_ops: prepared.map_or_else(|| file_ops_json(&FileOps::default()), |p| file_ops_json(&p.file_ops)),
        find_cut_point: find_cut_point(s, &plan.entries, plan),
        warnings: plan.warnings.clone(),
        threshold: window.map(|w| Threshold {
            window: w,
            threshold_tokens: threshold_tokens_under(w, &plan.settings, s.rules()).map(JsNumber),
            should_compact: should_compact_under(plan.tokens_before, w, &plan.settings, s.rules()),
        }),
        auto_check: None,
    }
}

/// The oracle's `turnStartEntryId`: the first turn-prefix message's entry, so
/// none when the cut is itself the turn start (E14).
fn turn_start_with_prefix(p: &Prepared) -> Option<NodeId> {
    p.turn_start.filter(|_| !p.turn_prefix.is_empty())
}

/// Raw `findCutPoint` facts with indices into the plan's entries (the path;
/// pi ≥ 0.87 the projected context entries, `indexSpace: "contextEntries"`),
/// also when the agent would not compact (as the oracle's `findCutPoint`).
fn find_cut_point(s: &Session, path: &[NodeId], plan: &CompactionPlan) -> FindCutPoint {
    let k = &plan.keep_recent;
    let id = |i: usize| path.get(i).map(|&n| s.entry(n).id.to_string());
    FindCutPoint {
        index_space: if s.rules().cuts_projected_entries() { "contextEntries" } else { "path" },
        boundary_start: plan.boundary.start,
        boundary_end: plan.boundary.end,
        estimated_tokens: k.estimated_tokens,
        prompt_tokens: k.prompt_tokens.map(JsNumber),
        keep_recent_tokens_used: k.used,
        cut: plan.cut.map(|cut| CutAt {
            first_kept_entry_index: cut.first_kept,
            turn_start_index: cut.turn_start.map_or(-1, |t| t as i64),
            is_split_turn: cut.is_split_turn(),
            first_kept_entry_id: id(cut.first_kept),
            turn_start_entry_id: cut.turn_start.and_then(id),
        }),
    }
}

fn print_text(s: &Session, plan: &CompactionPlan, cut: &CutDoc<'_>) -> Result<(), CliError> {
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
