//! Each report, under each rule set, as JSON snapshots (insta): what the CLI's `--json` and the
//! app's commands send. A change of shape or of a number shows up here first.

use std::path::Path;

use contextree_core::context::{build, Leaf};
use contextree_core::prompts::PromptPack;
use contextree_core::session::{Session, Source};
use contextree_core::RuleSet;
use contextree_read::{ContextOptions, ContextReport, SessionReport};
use serde_json::Value;

/// A fixture of the repository (`tests/fixtures/…`) read under `rules`, and its bytes.
pub(crate) fn open(rel: &str, rules: RuleSet) -> (Session, Vec<u8>) {
    let bytes = std::fs::read(contextree_testkit::fixture(rel)).unwrap();
    (Session::parse(&bytes, Some(rules)), bytes)
}

/// The context report of the file's leaf as a JSON value, with or without the text.
fn context_json(s: &Session, source: &dyn Source, text: Option<usize>) -> Value {
    let ctx = build(s, Leaf::Last);
    let pack = PromptPack::own_for(s.rules());
    let report =
        ContextReport::new(s, &ctx, &pack, source, ContextOptions { tokenizer: None, text_chars: text, breakdown: false }).unwrap();
    let json = serde_json::to_value(&report).unwrap();
    report.finish().unwrap();
    json
}

const CASES: [(&str, RuleSet, &str); 5] = [
    ("synthetic/E05.jsonl", RuleSet::Pi073, "pi073-E05"),
    ("pi16/pi16-edit-example.jsonl", RuleSet::Pi16, "pi16-edit-example"),
    ("synthetic/E05.jsonl", RuleSet::Omp13, "omp13-E05"),
    ("omp18/omp18-compaction.jsonl", RuleSet::Omp18, "omp18-compaction"),
    ("omp183/omp183-snapshot.jsonl", RuleSet::Omp183, "omp183-snapshot"),
];

#[test]
fn the_context_report_under_every_rule_set() {
    for (rel, rules, name) in CASES {
        let (s, bytes) = open(rel, rules);
        let json = context_json(&s, &bytes, Some(200));
        assert_eq!(json["ruleSet"]["name"], rules.name());
        insta::assert_snapshot!(format!("context-{name}"), serde_json::to_string_pretty(&json).unwrap());
    }
}

#[test]
fn the_session_report_under_every_rule_set() {
    for (rel, rules, name) in CASES {
        let (s, bytes) = open(rel, rules);
        let report = SessionReport::new(Path::new(rel), bytes.len() as u64, &s, Some(rules.into()));
        insta::assert_snapshot!(format!("session-{name}"), serde_json::to_string_pretty(&report).unwrap());
    }
}

/// Without text asked (the CLI) the messages carry numbers only; with it (the app) each one
/// carries what the model gets, and everything else is the same document.
#[test]
fn text_adds_to_the_document_and_changes_nothing_else() {
    for (rel, rules, _) in CASES {
        let (s, bytes) = open(rel, rules);
        let bare = context_json(&s, &bytes, None);
        let mut with = context_json(&s, &bytes, Some(200));
        for m in bare["messages"].as_array().unwrap() {
            for key in ["text", "truncated", "llmRole", "llmTokens"] {
                assert!(m.get(key).is_none(), "{rel}: {key} without text asked");
            }
        }
        let with_obj = with.as_object_mut().unwrap();
        with_obj.remove("system");
        for m in with_obj["messages"].as_array_mut().unwrap() {
            let m = m.as_object_mut().unwrap();
            for key in ["text", "truncated", "llmRole", "llmTokens"] {
                assert!(m.remove(key).is_some(), "{rel}: no {key} with text asked");
            }
        }
        assert_eq!(bare, with, "{rel} under {rules}");
    }
}

/// The list of what the file cannot tell is one list for every face, present exactly for the
/// rule sets that name something (docs/decisions.md D23).
#[test]
fn what_is_not_reproducible_is_listed_where_the_rules_name_something() {
    for (rel, rules, _) in CASES {
        let (s, bytes) = open(rel, rules);
        let json = context_json(&s, &bytes, None);
        let list = json.get("notReproducible").and_then(Value::as_array);
        match rules {
            RuleSet::Pi073 | RuleSet::Omp13 => assert!(list.is_none(), "{rules}: {json}"),
            RuleSet::Pi16 => {
                let kinds: Vec<&str> = list.unwrap().iter().map(|n| n["kind"].as_str().unwrap()).collect();
                assert_eq!(kinds, ["context-hooks", "system-placement"]);
            }
            RuleSet::Omp18 => {
                let kinds: Vec<&str> = list.unwrap().iter().map(|n| n["kind"].as_str().unwrap()).collect();
                assert!(kinds.contains(&"native-tokenizer"), "{kinds:?}");
            }
            RuleSet::Omp183 => {
                // omp-18.3.md §1.4: the live agent's own additions, named where the file shows their cause.
                let kinds: Vec<&str> = list.unwrap().iter().map(|n| n["kind"].as_str().unwrap()).collect();
                assert_eq!(
                    kinds,
                    ["anthropic-native-compaction", "request-reminder", "native-tokenizer", "eval-state-notice", "length-stop-retry"]
                );
            }
        }
    }
}

#[test]
fn the_budget_report_under_every_rule_set() {
    for (rel, rules, name) in CASES {
        let (s, bytes) = open(rel, rules);
        let ctx = build(&s, Leaf::Last);
        let pack = PromptPack::own_for(rules);
        let settings = contextree_core::compaction::CompactionSettings::default();
        let report = contextree_read::BudgetReport::new(&s, &ctx, &pack, &bytes, &settings, None).unwrap();
        insta::assert_snapshot!(format!("budget-{name}"), serde_json::to_string_pretty(&report).unwrap());
        // A window given wins over the model's.
        let small = contextree_read::BudgetReport::new(&s, &ctx, &pack, &bytes, &settings, Some(1000)).unwrap();
        assert_eq!((small.window, small.window_source, small.used), (1000, "override", report.used));
    }
}

#[test]
fn the_entry_report_is_the_files_line() {
    for (rel, rules, name) in CASES {
        let (s, bytes) = open(rel, rules);
        let leaf = s.leaf().unwrap();
        let report = contextree_read::EntryReport::new(&s, leaf, &bytes).unwrap();
        let line = std::str::from_utf8(&bytes).unwrap().lines().nth(report.line as usize - 1).unwrap();
        let want: Value = serde_json::from_str(line).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&report.json).unwrap(), want, "{rel}");
        insta::assert_snapshot!(format!("entry-{name}"), serde_json::to_string_pretty(&report).unwrap());
    }
}

#[test]
fn the_usage_report_under_every_rule_set() {
    for (rel, rules, name) in CASES {
        let (s, bytes) = open(rel, rules);
        let sums = contextree_read::usage_sums(&s, &bytes).unwrap();
        let json = serde_json::to_value(contextree_read::UsageReport::new(&s, &sums, &[])).unwrap();
        // The records add up to the totals.
        let records = json["records"].as_array().unwrap();
        assert_eq!(json["totals"]["records"], records.len() as u64, "{rel}");
        insta::assert_snapshot!(format!("usage-{name}"), serde_json::to_string_pretty(&json).unwrap());
    }
}

#[test]
fn the_drops_report_of_a_plan_and_of_a_compaction() {
    for (rel, rules, name) in CASES {
        let (s, bytes) = open(rel, rules);
        let ctx = build(&s, Leaf::Last);
        let of = contextree_read::Summarized::plan(&s, &ctx, &bytes).unwrap();
        let report = contextree_read::DropsReport::new(&s, &of, &bytes).unwrap();
        let json = serde_json::to_value(&report).unwrap();
        report.finish().unwrap();
        assert_eq!(json["hasSummary"], false);
        insta::assert_snapshot!(format!("drops-plan-{name}"), serde_json::to_string_pretty(&json).unwrap());
    }
    // An existing compaction: its requests checked against its summary.
    let (s, bytes) = open("omp18/omp18-compaction.jsonl", RuleSet::Omp18);
    let c = s.node("cmp1").unwrap();
    let of = contextree_read::Summarized::compaction(&s, c);
    let report = contextree_read::DropsReport::new(&s, &of, &bytes).unwrap();
    let json = serde_json::to_value(&report).unwrap();
    report.finish().unwrap();
    assert_eq!((json["hasSummary"].as_bool(), json["what"].as_str()), (Some(true), Some("compaction cmp1")));
    insta::assert_snapshot!("drops-compaction-omp18", serde_json::to_string_pretty(&json).unwrap());
}

/// The panel's per-message counts add up to the count `contextree context --tokenizer` gives,
/// one per agent message, and the whole text of a message starts with the report's cut text.
#[test]
fn token_counts_and_whole_texts_agree_with_the_context_report() {
    use contextree_core::tokens::TokenizerKind;
    for (rel, rules, _) in CASES {
        let (s, bytes) = open(rel, rules);
        let ctx = build(&s, Leaf::Last);
        let pack = PromptPack::own_for(rules);
        let counts = contextree_read::TokenCountsReport::new(&s, &ctx, &pack, &bytes, TokenizerKind::O200kBase).unwrap();
        let options = ContextOptions { tokenizer: Some(TokenizerKind::O200kBase), text_chars: Some(40), breakdown: false };
        let report = ContextReport::new(&s, &ctx, &pack, &bytes, options).unwrap();
        let json = serde_json::to_value(&report).unwrap();
        report.finish().unwrap();
        assert_eq!(counts.messages.len() as u64, json["messageCount"].as_u64().unwrap(), "{rel}");
        assert_eq!(counts.total, json["tokenizer"]["llmTokens"].as_u64().unwrap(), "{rel} under {rules}");
        for (i, m) in json["messages"].as_array().unwrap().iter().enumerate() {
            let whole = contextree_read::MessageTextReport::new(&s, &ctx, &pack, &bytes, i).unwrap().unwrap();
            assert!(whole.text.starts_with(m["text"].as_str().unwrap()), "{rel} message {i}");
            assert_eq!(m["truncated"].as_bool().unwrap(), whole.text.chars().count() > 40, "{rel} message {i}");
        }
        assert!(contextree_read::MessageTextReport::new(&s, &ctx, &pack, &bytes, ctx.items.len()).unwrap().is_none());
    }
}

/// The plan report is contextree-ops' dry run (what `compact --dry-run` prints) and the user
/// requests it would summarize, under every rule set; the requests are the summarized entries'
/// user messages.
#[test]
fn the_plan_report_under_every_rule_set() {
    use contextree_ops::compact::{dry_run, CompactOptions};
    let home = contextree_testkit::Scratch::new("plan-report");
    let env = contextree_host::HostEnv::isolated(home.path());
    for (rel, rules, name) in CASES {
        let path = contextree_testkit::fixture(rel);
        let loaded = contextree_host::load_session(&env, &path, Some(rules.into())).unwrap();
        let pack = move |_| Ok(PromptPack::own_for(rules));
        let opts = CompactOptions {
            leaf: Leaf::Last,
            pack: &pack,
            instructions: None,
            keep_recent: Some(40),
            reserve: None,
            model_reasons: false,
            context: Vec::new(),
            summary: None,
            provider: Default::default(),
            env: &env,
        };
        let dry = dry_run(&loaded, &opts).unwrap();
        let summarized: Vec<String> = match &dry {
            contextree_ops::compact::DryRun::Plan(p) => {
                p.planned.summarized.iter().map(|&n| loaded.session.entry(n).id.to_string()).collect()
            }
            contextree_ops::compact::DryRun::Nothing(_) => Vec::new(),
        };
        let report = contextree_read::PlanReport::new(&loaded.session, &loaded.source, dry);
        let json = serde_json::to_value(&report).unwrap();
        report.finish().unwrap();
        assert_eq!(json["ruleSet"]["name"], rules.name());
        for r in json["requests"].as_array().unwrap() {
            assert!(summarized.iter().any(|id| r["entryId"] == id.as_str()), "{rel}: {r} is not summarized");
        }
        insta::assert_snapshot!(format!("plan-{name}"), serde_json::to_string_pretty(&json).unwrap());
    }
}

#[test]
fn the_tree_and_tokens_reports_under_every_rule_set() {
    for (rel, rules, name) in CASES {
        let (s, bytes) = open(rel, rules);
        let ctx = build(&s, Leaf::Last);
        let tree = serde_json::to_value(contextree_read::TreeReport::new(&s, &ctx)).unwrap();
        assert_eq!(tree["rows"].as_array().unwrap().len(), s.entries().len(), "{rel}");
        insta::assert_snapshot!(format!("tree-{name}"), serde_json::to_string_pretty(&tree).unwrap());
        let tokens = serde_json::to_value(contextree_read::TokensReport::new(&s, &bytes).unwrap()).unwrap();
        let sum: u64 = tokens["entries"].as_array().unwrap().iter().filter_map(|e| e["tokens"].as_u64()).sum();
        assert_eq!(tokens["totalTokens"].as_u64(), Some(sum), "{rel}");
        insta::assert_snapshot!(format!("tokens-{name}"), serde_json::to_string_pretty(&tokens).unwrap());
    }
}

/// The prune report over contextree-ops' turn preview (what `contextree prune --dry-run` and the
/// app's prune preview show), under every rule set with the agent's own configuration.
#[test]
fn the_prune_report_under_every_rule_set() {
    use contextree_core::prune::{PruneConfig, StaleConfig};
    let home = contextree_testkit::Scratch::new("prune-report");
    let env = contextree_host::HostEnv::isolated(home.path());
    for (rel, rules, name) in CASES {
        let path = contextree_testkit::fixture(rel);
        let loaded = contextree_host::load_session(&env, &path, Some(rules.into())).unwrap();
        let overflow = PruneConfig::agent(rules);
        let stale = rules.prunes_stale_results().then(|| StaleConfig::agent(false, 1_764_000_000_000.0));
        let pv =
            contextree_ops::prune::preview_turn(&loaded, Leaf::Last, Some(&overflow), stale.as_ref(), &PromptPack::own_for(rules)).unwrap();
        let passes = if stale.is_some() { vec!["stale", "overflow"] } else { vec!["overflow"] };
        let json = serde_json::to_value(contextree_read::PruneReport::new(&loaded.session, &pv, passes, true)).unwrap();
        assert_eq!(json["prunedIds"].as_array().unwrap().len() as u64, json["total"]["prunedCount"].as_u64().unwrap(), "{rel}");
        assert_eq!(json["bytes"]["before"], bytes_of(&path), "{rel}");
        insta::assert_snapshot!(format!("prune-{name}"), serde_json::to_string_pretty(&json).unwrap());
    }
}

fn bytes_of(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().len()
}

#[test]
fn the_cut_and_branch_reports_under_every_rule_set() {
    use contextree_core::branch::{collect_entries_for_branch_summary, prepare_branch_entries};
    use contextree_core::compaction::{plan, CompactionSettings};
    for (rel, rules, name) in CASES {
        let (s, bytes) = open(rel, rules);
        let ctx = build(&s, Leaf::Last);
        let settings = CompactionSettings { keep_recent_tokens: 40, ..CompactionSettings::default() };
        let p = plan(&s, &ctx, &settings, &bytes).unwrap();
        let cut = serde_json::to_value(contextree_read::CutReport::new(&s, &p, Some(1000))).unwrap();
        assert_eq!(cut["window"], 1000, "{rel}");
        insta::assert_snapshot!(format!("cut-{name}"), serde_json::to_string_pretty(&cut).unwrap());
        // Back to the second entry: everything after it is left behind.
        let to = contextree_core::session::NodeId(1);
        let collected = collect_entries_for_branch_summary(&s, s.leaf(), to);
        let prep = prepare_branch_entries(&s, &collected.entries, 0, &bytes).unwrap();
        let report = contextree_read::BranchReport::new(&s, [s.leaf(), Some(to)], 0, &collected, &prep);
        let branch = serde_json::to_value(&report).unwrap();
        assert_eq!(branch["messages"].as_array().unwrap().len(), branch["selectedIds"].as_array().unwrap().len(), "{rel}");
        insta::assert_snapshot!(format!("branch-{name}"), serde_json::to_string_pretty(&branch).unwrap());
    }
}
