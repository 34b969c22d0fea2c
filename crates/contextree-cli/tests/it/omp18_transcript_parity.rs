//! omp 18's summarizer input (omp-18.md §5.5) against oh-my-pi 18.2.3: every golden file of
//! `tests/golden-omp18-transcript/` (made by its `make.sh`: the agent's own
//! `serializeConversationForSummary(convertToLlm(context), dialect)` for the ten dialects
//! `preferredDialect` names) is compared byte for byte with
//! `contextree serialize --dialect omp@18 --transcript D`, and `_models.json`
//! (`preferredDialect` of many model ids) with `--summary-model ID`; `prompts/` (the requests of
//! 18.2.3's `compact()` with a stand-in summary model) with `contextree compact --dry-run`, and
//! `branches/` (`generateBranchSummary`'s request) with `contextree branch --summary-model`, and
//! `folds/` (histories the agent splits into windows) with the dry run's `foldCalls`.
//! `--nocapture` prints how many files match per dialect.

use crate::support;

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::oracle::agent_pack;
use crate::support::{json_files, repo, Report};
use serde_json::Value;

/// `(fixture stem, why)`: files whose transcripts are known not to match (in every dialect); the
/// test fails when one matches again, so the list stays true.
const ALLOWED: &[(&str, &str)] = &[];

fn serialize(file: &Path, extra: &[&str]) -> Result<Value, String> {
    serialize_like("serialize", file, extra)
}

/// Where two texts first differ, with some context of each.
fn first_difference(ours: &str, theirs: &str) -> String {
    let at = ours.char_indices().zip(theirs.chars()).find(|((_, a), b)| a != b).map_or(ours.len().min(theirs.len()), |((i, _), _)| i);
    let at = (0..=at).rev().find(|&i| ours.is_char_boundary(i) && theirs.is_char_boundary(i)).unwrap_or(0);
    let start = (0..=at.saturating_sub(80)).rev().find(|&i| ours.is_char_boundary(i) && theirs.is_char_boundary(i)).unwrap_or(0);
    let around = |s: &str| s[start..].chars().take(200).collect::<String>();
    format!("at byte {at}:\n    contextree {:?}\n    agent      {:?}", around(ours), around(theirs))
}

#[test]
fn transcripts_match_the_agent() {
    let dir = repo().join("tests/golden-omp18-transcript");
    let mut per_dialect: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut report = Report::default();
    let mut files = 0;
    for golden in json_files(&dir) {
        if golden.file_name().is_some_and(|n| n.to_string_lossy().starts_with('_')) {
            continue;
        }
        files += 1;
        let g: Value = serde_json::from_slice(&std::fs::read(&golden).unwrap()).unwrap();
        let fixture = repo().join("tests/fixtures").join(g["fixture"].as_str().unwrap());
        let name = golden.file_stem().unwrap().to_string_lossy().into_owned();
        let allowed = ALLOWED.iter().any(|(stem, _)| *stem == name);
        for (dialect, want) in g["transcripts"].as_object().unwrap() {
            let tally = per_dialect.entry(dialect.clone()).or_default();
            tally.1 += 1;
            let ours = match serialize(&fixture, &["--transcript", dialect]) {
                Ok(v) => v,
                Err(e) => {
                    report.fail(format!("{name} {dialect}: {e}"));
                    continue;
                }
            };
            let before = report.failures.len();
            report.eq(&format!("{name} {dialect} length"), &ours["length"], &want["length"]);
            report.eq(&format!("{name} {dialect} sha256"), &ours["sha256"], &want["sha256"]);
            if let (Some(o), Some(t)) = (ours["text"].as_str(), want["text"].as_str()) {
                if o != t {
                    report.fail(format!("{name} {dialect} text {}", first_difference(o, t)));
                }
            }
            let matched = report.failures.len() == before;
            if matched {
                tally.0 += 1;
            }
            if allowed {
                report.failures.truncate(before);
                if matched {
                    report.fail(format!("{name} {dialect} matches the agent now: remove it from ALLOWED"));
                }
            }
        }
    }
    for (d, (ok, n)) in &per_dialect {
        println!("{d:10} {ok}/{n} files byte-exact");
    }
    assert!(files > 0, "no golden files in {}", dir.display());
    report.assert_clean(&format!("{files} files"));
}

#[test]
fn preferred_dialect_matches_the_agent() {
    let models: BTreeMap<String, String> =
        serde_json::from_slice(&std::fs::read(repo().join("tests/golden-omp18-transcript/_models.json")).unwrap()).unwrap();
    let file = repo().join("tests/fixtures/synthetic/E07a.jsonl");
    let mut report = Report::default();
    for (model, dialect) in &models {
        match serialize(&file, &["--summary-model", model]) {
            Ok(v) => report.eq(&format!("preferredDialect({model:?})"), &v["transcript"], Value::from(dialect.as_str())),
            Err(e) => report.fail(format!("{model}: {e}")),
        }
    }
    println!("{}/{} model ids classified as the agent does", models.len() - report.failures.len(), models.len());
    report.assert_clean(&format!("{} model ids", models.len()));
}

/// The text of the first `<previous-summary>` block of `prompt`.
fn previous_block(prompt: &str) -> Option<&str> {
    let start = prompt.find("<previous-summary>\n")? + "<previous-summary>\n".len();
    let end = prompt[start..].find("\n</previous-summary>")? + start;
    Some(&prompt[start..end])
}

#[test]
fn compaction_prompts_match_the_agent() {
    let dir = repo().join("tests/golden-omp18-transcript/prompts");
    let mut report = Report::default();
    let (mut files, mut exact) = (0, 0);
    for golden in json_files(&dir) {
        files += 1;
        let g: Value = serde_json::from_slice(&std::fs::read(&golden).unwrap()).unwrap();
        let name = golden.file_stem().unwrap().to_string_lossy().into_owned();
        let fixture = repo().join("tests/fixtures").join(g["fixture"].as_str().unwrap());
        let keep = g["keepRecent"].to_string();
        let reserve = g["reserve"].to_string();
        let model = g["model"].as_str().unwrap();
        let pack = agent_pack("omp18");
        let args = [
            "--dry-run",
            "--keep-recent",
            &keep,
            "--reserve",
            &reserve,
            "--provider",
            "openai-compatible",
            "--model",
            model,
            "--base-url",
            "http://127.0.0.1:9",
            "--prompts",
            pack.to_str().unwrap(),
        ];
        let ours = match support::run_rules("compact", &fixture, "omp@18", &args) {
            Ok(v) => v,
            Err(e) => {
                report.fail(format!("{name}: {e}"));
                continue;
            }
        };
        let before = report.failures.len();
        let theirs = g["calls"].as_array().unwrap();
        let calls = ours["calls"].as_array().cloned().unwrap_or_default();
        report.eq(&format!("{name} firstKeptEntryId"), &ours["firstKeptEntryId"], &g["firstKeptEntryId"]);
        report.eq(&format!("{name} number of calls"), Value::from(calls.len()), Value::from(theirs.len()));
        for (i, (o, t)) in calls.iter().zip(theirs).enumerate() {
            let kind = o["kind"].as_str().unwrap_or("?");
            let mut prompt = o["prompt"].as_str().unwrap_or("").to_owned();
            if kind == "short" {
                // The dry run cannot know round 1's answers: the agent's stand-in answers go where
                // the marker stands.
                let merged = previous_block(t["prompt"].as_str().unwrap()).unwrap_or("");
                prompt = prompt.replace(contextree_core_marker(), merged);
            }
            let want = t["prompt"].as_str().unwrap();
            if prompt != want {
                report.fail(format!("{name} call {i} ({kind}) prompt {}", first_difference(&prompt, want)));
            }
            report.eq(&format!("{name} call {i} ({kind}) systemPrompt"), &o["systemPrompt"], &t["systemPrompt"]);
            report.eq(&format!("{name} call {i} ({kind}) maxTokens"), &o["maxTokens"], &t["maxTokens"]);
        }
        if report.failures.len() == before {
            exact += 1;
        }
    }
    println!("{exact}/{files} compactions: every request byte-exact");
    assert!(files > 0);
    report.assert_clean(&format!("{files} compactions"));
}

/// What the dry run's short-summary prompt shows for the summary it quotes.
fn contextree_core_marker() -> &'static str {
    "<<summary returned by the calls above>>"
}

#[test]
fn branch_summary_prompts_match_the_agent() {
    let dir = repo().join("tests/golden-omp18-transcript/branches");
    let mut report = Report::default();
    let (mut files, mut exact) = (0, 0);
    for golden in json_files(&dir) {
        files += 1;
        let g: Value = serde_json::from_slice(&std::fs::read(&golden).unwrap()).unwrap();
        let name = golden.file_stem().unwrap().to_string_lossy().into_owned();
        let fixture = repo().join("tests/fixtures").join(g["fixture"].as_str().unwrap());
        let budget = (g["window"].as_u64().unwrap() - g["reserve"].as_u64().unwrap()).to_string();
        let args = ["--to", g["to"].as_str().unwrap(), "--budget", &budget, "--summary-model", g["model"].as_str().unwrap()];
        let ours = match serialize_like("branch", &fixture, &args) {
            Ok(v) => v,
            Err(e) => {
                report.fail(format!("{name}: {e}"));
                continue;
            }
        };
        let before = report.failures.len();
        report.eq(&format!("{name} selectedIds"), &ours["selectedIds"], &g["selectedIds"]);
        let theirs = g["calls"].as_array().unwrap();
        report.eq(&format!("{name} number of calls"), Value::from(usize::from(!ours["call"].is_null())), Value::from(theirs.len()));
        if let (false, Some(t)) = (ours["call"].is_null(), theirs.first()) {
            let (prompt, want) = (ours["call"]["prompt"].as_str().unwrap_or(""), t["prompt"].as_str().unwrap());
            if prompt != want {
                report.fail(format!("{name} prompt {}", first_difference(prompt, want)));
            }
            report.eq(&format!("{name} systemPrompt"), &ours["call"]["systemPrompt"], &t["systemPrompt"]);
            report.eq(&format!("{name} maxTokens"), &ours["call"]["maxTokens"], &t["maxTokens"]);
        }
        if report.failures.len() == before {
            exact += 1;
        }
    }
    println!("{exact}/{files} branch summaries: the request byte-exact");
    assert!(files > 0);
    report.assert_clean(&format!("{files} branch summaries"));
}

/// `contextree CMD FILE --dialect omp@18 --json --prompts <18.2.3's pack> EXTRA…`.
fn serialize_like(cmd: &str, file: &Path, extra: &[&str]) -> Result<Value, String> {
    let pack = agent_pack("omp18");
    let mut args = vec!["--prompts", pack.to_str().unwrap()];
    args.extend_from_slice(extra);
    support::run_rules(cmd, file, "omp@18", &args)
}

/// `folds/`: compactions whose history oh-my-pi 18 summarizes in several windows (a small
/// summary-model window, given through a config file of the test's own).
#[test]
fn folded_history_matches_the_agent() {
    let dir = repo().join("tests/golden-omp18-transcript/folds");
    let mut report = Report::default();
    let (mut files, mut exact) = (0, 0);
    let scratch = contextree_testkit::Scratch::new("fold");
    let cfg = scratch.path();
    for golden in json_files(&dir) {
        files += 1;
        let g: Value = serde_json::from_slice(&std::fs::read(&golden).unwrap()).unwrap();
        let name = golden.file_stem().unwrap().to_string_lossy().into_owned();
        let fixture = repo().join("tests/fixtures").join(g["fixture"].as_str().unwrap());
        // The summary model and its window come from a config file of its own.
        std::fs::create_dir_all(cfg.join("contextree")).unwrap();
        let config = serde_json::json!({"providers": [{"kind": "openai-compatible", "baseUrl": "http://127.0.0.1:9", "model": g["model"], "contextWindow": g["window"]}]});
        std::fs::write(cfg.join("contextree/config.json"), config.to_string()).unwrap();
        let pack = agent_pack("omp18");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_contextree"))
            .arg("compact")
            .arg(&fixture)
            .args([
                "--json",
                "--dialect",
                "omp@18",
                "--dry-run",
                "--keep-recent",
                &g["keepRecent"].to_string(),
                "--reserve",
                &g["reserve"].to_string(),
            ])
            .args(["--prompts", pack.to_str().unwrap()])
            .env("XDG_CONFIG_HOME", cfg)
            .output()
            .unwrap();
        if !out.status.success() {
            report.fail(format!("{name}: {}", String::from_utf8_lossy(&out.stderr)));
            continue;
        }
        let ours: Value = serde_json::from_slice(&out.stdout).unwrap();
        let before = report.failures.len();
        // Ours: history (first window), the fold's calls, turn prefix, short. The agent's, told
        // apart by their output caps (history 13107, turn prefix 8192, short 512 here).
        let calls = ours["calls"].as_array().cloned().unwrap_or_default();
        let folds = ours["foldCalls"].as_array().cloned().unwrap_or_default();
        let of = |v: &[Value], kind: &str| v.iter().filter(|c| c["kind"] == kind).cloned().collect::<Vec<_>>();
        let mut our_history = of(&calls, "history");
        our_history.extend(folds);
        let theirs = g["calls"].as_array().unwrap();
        let by_cap = |cap: u64| theirs.iter().filter(|c| c["maxTokens"] == cap).cloned().collect::<Vec<_>>();
        let pairs = [
            (our_history, by_cap(13107), "history"),
            (of(&calls, "turnPrefix"), by_cap(8192), "turnPrefix"),
            (of(&calls, "short"), by_cap(512), "short"),
        ];
        for (o, t, kind) in pairs {
            report.eq(&format!("{name} {kind} calls"), Value::from(o.len()), Value::from(t.len()));
            for (i, (o, t)) in o.iter().zip(&t).enumerate() {
                let want = t["prompt"].as_str().unwrap();
                let carried = previous_block(want).unwrap_or("");
                let prompt = o["prompt"]
                    .as_str()
                    .unwrap_or("")
                    .replace("<<summary returned by the history call before>>", carried)
                    .replace(contextree_core_marker(), carried);
                if prompt != want {
                    report.fail(format!("{name} {kind} call {i} prompt {}", first_difference(&prompt, want)));
                }
                report.eq(&format!("{name} {kind} call {i} maxTokens"), &o["maxTokens"], &t["maxTokens"]);
            }
        }
        if report.failures.len() == before {
            exact += 1;
        }
    }
    println!("{exact}/{files} folded compactions: every request byte-exact");
    assert!(files > 0);
    report.assert_clean(&format!("{files} folded compactions"));
}
