//! Field-by-field comparisons shared by the parity tests (pi 0.73.1 and
//! omp 13.19 in `tests/golden/`, pi 1.6.0 in `tests/golden-pi16/`), and the
//! answers contextree gives differently from the agents on purpose.

use serde_json::{json, Value};

use super::{pick, Report};

/// Entries the agents leave out of their root and leaf lists (and, with
/// `true`, out of `getTree`) but contextree shows as roots with a diagnostic
/// (spec session-format.md §6: self-parented entries are displayed as roots; a
/// parent cycle is cut rather than looped on).
pub const HIDDEN_BY_AGENTS: &[(&str, &[&str], bool)] =
    &[("edge-cycle", &["cycb", "cyca"], true), ("edge-self-parent", &["selfp001"], false)];

/// Tree fields contextree deliberately answers differently, and why.
pub const TREE_DEVIATIONS: &[(&str, &str)] = &[(
    "edge-duplicate-id",
    "the agents attach the later `dup00001` (the one the id resolves to) under both parents, so it and its subtree appear twice; contextree shows each entry once and the first `dup00001` as a leaf, with a duplicate-id diagnostic",
)];

/// Removes the ids the agents hide from a list of ids or rows.
pub fn without(v: Value, hidden: &[&str], id_of: impl Fn(&Value) -> Option<&str>) -> Value {
    Value::Array(v.as_array().into_iter().flatten().filter(|x| !id_of(x).is_some_and(|id| hidden.contains(&id))).cloned().collect())
}

/// The oracle's `info` document against ours: counts, leaf, types, and
/// (unless the file's tree deviates) roots, leaves and branch points
/// without the entries the agents hide; the labels.
pub fn compare_info(report: &mut Report, at: &str, stem: &str, ours: &Value, gi: &Value) {
    let hidden = HIDDEN_BY_AGENTS.iter().find(|(s, ..)| *s == stem).map_or(&[][..], |(_, ids, _)| *ids);
    for key in ["entryCount", "leafId", "leafIndex", "leafPathLength", "types", "roles"] {
        report.eq(&format!("{at} info.{key}"), ours[key].clone(), gi[key].clone());
    }
    if !TREE_DEVIATIONS.iter().any(|(s, _)| *s == stem) {
        for key in ["roots", "leaves", "branchPoints"] {
            let ours = without(ours[key].clone(), hidden, |v| v.as_str().or_else(|| v["id"].as_str()));
            report.eq(&format!("{at} info.{key}"), ours, gi[key].clone());
        }
    }
    let labels: serde_json::Map<String, Value> =
        gi["labels"].as_array().into_iter().flatten().map(|l| (l["id"].as_str().unwrap().to_owned(), l["label"].clone())).collect();
    report.eq(&format!("{at} info.labels"), ours["labels"].clone(), Value::Object(labels));
}

/// The oracle's `getTree` nodes against our tree rows (None: the file's
/// tree deviates on purpose, nothing compared).
pub fn compare_tree(report: &mut Report, at: &str, stem: &str, ours: &Value, gt: &Value) {
    if TREE_DEVIATIONS.iter().any(|(s, _)| *s == stem) {
        return;
    }
    let hidden = HIDDEN_BY_AGENTS.iter().find(|(s, _, t)| *s == stem && *t).map_or(&[][..], |(_, ids, _)| *ids);
    let rows = without(ours["rows"].clone(), hidden, |r| r["id"].as_str());
    report.eq(&format!("{at} tree"), pick(&rows, &["id", "depth", "label"]), gt["nodes"].clone());
}

/// The oracle's `cut` document against `contextree cut --json`.
pub fn compare_cut(at: &str, ours: &Value, theirs: &Value, report: &mut Report) {
    let prepared = &theirs["prepared"];
    report.eq(&format!("{at} nothingToCompact"), &ours["nothingToCompact"], json!(prepared.is_null()));
    if !prepared.is_null() {
        for key in ["firstKeptEntryId", "isSplitTurn", "tokensBefore", "messagesToSummarizeIds", "turnPrefixIds", "turnStartEntryId"] {
            report.eq(&format!("{at} {key}"), &ours[key], &prepared[key]);
        }
        for key in ["readFiles", "modifiedFiles", "read", "written", "edited"] {
            report.eq(&format!("{at} fileOps.{key}"), &ours["fileOps"][key], &prepared["fileOps"][key]);
        }
        if let Some(recent) = prepared.get("recentMessagesIds") {
            report.eq(&format!("{at} recentMessagesIds"), &ours["recentMessagesIds"], recent);
        }
    }
    // pi ≥ 0.87: what its threshold check compares (prepareCompaction's
    // tokensBefore), also when nothing is prepared.
    if let Some(projected) = theirs.get("projectedContextTokens") {
        report.eq(&format!("{at} projectedContextTokens"), &ours["tokensBefore"], projected);
    }
    // The raw cut, also where the agent refuses; contextree skips it after a
    // trailing compaction (nothing is cut there).
    let (of, tf) = (&ours["findCutPoint"], &theirs["findCutPoint"]);
    // pi 1.6's exported `findCutPoint` on the projected entries is not the
    // cut `prepareCompaction` makes (edits, recovery suffix); contextree
    // reports the latter, so the two are compared only where the oracle says
    // they agree.
    let raw_is_ours = tf.get("indexSpace").is_none() || tf["matchesPrepared"] == json!(true);
    let keys: &[&str] = if of.get("firstKeptEntryIndex").is_some() && raw_is_ours {
        &["boundaryStart", "boundaryEnd", "firstKeptEntryIndex", "turnStartIndex", "isSplitTurn", "firstKeptEntryId", "turnStartEntryId"]
    } else {
        &["boundaryStart", "boundaryEnd"]
    };
    for key in keys
        .iter()
        .chain(tf.get("keepRecentTokensUsed").map(|_| &["keepRecentTokensUsed", "estimatedTokens", "promptTokens"][..]).unwrap_or(&[]))
    {
        report.eq(&format!("{at} findCutPoint.{key}"), &of[*key], &tf[*key]);
    }
    if let Some(space) = tf.get("indexSpace") {
        report.eq(&format!("{at} findCutPoint.indexSpace"), &of["indexSpace"], space);
    }
}

/// The `--keep-recent` / `--reserve` / `--window` flags the oracle ran with.
pub fn cut_flags(theirs: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (flag, value) in [
        ("--keep-recent", &theirs["settings"]["keepRecentTokens"]),
        ("--reserve", &theirs["settings"]["reserveTokens"]),
        ("--window", &theirs["window"]),
    ] {
        if let Some(n) = value.as_u64() {
            out.extend([flag.to_owned(), n.to_string()]);
        }
    }
    out
}

/// The oracle's `branch` document against ours, field by field.
pub fn compare_branch(report: &mut Report, at: &str, ours: &Value, g: &Value) {
    for key in ["commonAncestorId", "entryIds", "selectedIds", "totalTokens"] {
        report.eq(&format!("{at} {key}"), ours[key].clone(), g[key].clone());
    }
    let messages = ["entryId", "role", "tokens"];
    report.eq(&format!("{at} messages"), pick(&ours["messages"], &messages), pick(&g["messages"], &messages));
    for key in ["read", "written", "edited", "readFiles", "modifiedFiles"] {
        report.eq(&format!("{at} fileOps.{key}"), ours["fileOps"][key].clone(), g["fileOps"][key].clone());
    }
}
