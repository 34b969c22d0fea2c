//! The spec's compaction examples (examples.md E02–E07, E14, E15, E17), both
//! dialects, on the stored fixtures.

use super::*;
use crate::context::{build, Leaf};
use crate::session::{NodeId, Session};
use crate::Dialect;

struct Case {
    session: Session,
    plan: CompactionPlan,
}

impl Case {
    fn new(stem: &str, dialect: Dialect, keep_recent_tokens: u64) -> Case {
        let file = contextree_testkit::fixture(&format!("synthetic/{stem}.jsonl"));
        let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let session = Session::parse(&bytes, Some(crate::RuleSet::oldest(dialect)));
        let ctx = build(&session, Leaf::Last);
        let settings = CompactionSettings { keep_recent_tokens, ..Default::default() };
        let plan = plan(&session, &ctx, &settings, &bytes).unwrap();
        Case { session, plan }
    }

    fn ids(&self, nodes: &[NodeId]) -> Vec<&str> {
        nodes.iter().map(|&n| &*self.session.entry(n).id).collect()
    }

    fn prepared(&self) -> &Prepared {
        self.plan.prepared().expect("a preparation")
    }

    fn first_kept(&self) -> &str {
        &self.session.entry(self.prepared().first_kept).id
    }

    fn summarized(&self) -> Vec<&str> {
        self.ids(&self.prepared().messages_to_summarize)
    }

    fn prefix(&self) -> Vec<&str> {
        self.ids(&self.prepared().turn_prefix)
    }

    fn files(&self) -> FileLists {
        self.prepared().file_ops.lists()
    }
}

#[test]
fn e02_cut_at_a_user_message() {
    for d in Dialect::ALL {
        let c = Case::new("E02", d, 45);
        assert_eq!(c.first_kept(), "u2");
        assert!(!c.prepared().is_split_turn());
        assert_eq!(c.summarized(), ["u1", "a1", "r1", "a2"]);
        assert!(c.prefix().is_empty());
        assert_eq!(c.files().modified_files, ["hello.py"]);
        assert_eq!(c.plan.tokens_before, 0.0);
        assert_eq!(c.ids(&c.prepared().recent), ["u2", "a3", "r2", "a4"]);
        assert!(c.plan.warnings.is_empty(), "{:?}", c.plan.warnings);
    }
}

#[test]
fn e03_split_turn() {
    for d in Dialect::ALL {
        let c = Case::new("E03", d, 25);
        assert_eq!(c.first_kept(), "a4");
        assert_eq!(c.prepared().turn_start.map(|n| &*c.session.entry(n).id), Some("u1"));
        assert_eq!(c.summarized(), ["u0", "a0"]);
        assert_eq!(c.prefix(), ["u1", "a1", "r1", "a2", "r2", "a3", "r3"]);
        // The src/b.ts edit is in the kept part; src/a.ts was read, then edited.
        assert_eq!(c.files(), FileLists { read_files: vec![], modified_files: vec!["src/a.ts".into()] });
    }
}

#[test]
fn e04_cut_moves_forward_past_a_tool_result() {
    for d in Dialect::ALL {
        let c = Case::new("E04", d, 20);
        assert_eq!(c.first_kept(), "a2");
        assert!(c.prepared().is_split_turn());
        assert!(c.summarized().is_empty());
        assert_eq!(c.prefix(), ["u1", "a1", "r1"]);
    }
}

#[test]
fn e05_metadata_is_pulled_onto_the_cut() {
    for d in Dialect::ALL {
        let c = Case::new("E05", d, 8);
        assert_eq!(c.first_kept(), "m1");
        assert!(c.prepared().is_split_turn());
        assert!(c.summarized().is_empty());
        assert_eq!(c.prefix(), ["u1", "a1"]);
    }
}

#[test]
fn e06_second_compaction_boundaries_differ() {
    let omp = Case::new("E06", Dialect::Omp, 30);
    assert_eq!(omp.first_kept(), "u3");
    assert_eq!(omp.summarized(), ["a3"]);
    assert_eq!(omp.files(), FileLists { read_files: vec!["README.md".into()], modified_files: vec!["Cargo.toml".into()] });
    // D2: u2, a2, r1 were kept by c1 and are now lost.
    assert_eq!(omp.plan.warnings.len(), 1, "{:?}", omp.plan.warnings);
    assert!(omp.plan.warnings[0].contains("3 message(s)"), "{}", omp.plan.warnings[0]);
    assert_eq!(omp.ids(&omp.prepared().dropped), ["u2", "a2", "r1"]);

    let pi = Case::new("E06", Dialect::Pi, 30);
    assert_eq!(pi.first_kept(), "u3");
    assert_eq!(pi.summarized(), ["u2", "a2", "r1", "a3"]);
    assert_eq!(pi.files(), FileLists { read_files: vec!["README.md".into()], modified_files: vec![".ci/run".into(), "Cargo.toml".into()] });
    assert!(pi.plan.warnings.is_empty());
    assert!(pi.prepared().dropped.is_empty());
    for c in [&omp, &pi] {
        let prev = c.plan.previous.expect("c1");
        assert_eq!(&*c.session.entry(prev.node).id, "c1");
    }
}

#[test]
fn e07_nothing_to_compact() {
    let omp = Case::new("E07a", Dialect::Omp, 20_000);
    assert_eq!(omp.plan.outcome, Err(NothingToCompact::NothingToSummarize));
    assert_eq!(omp.plan.outcome.as_ref().unwrap_err().to_string(), "Nothing to compact (session too small)");
    let pi = Case::new("E07a", Dialect::Pi, 20_000);
    assert_eq!(pi.first_kept(), "u1");
    assert!(pi.summarized().is_empty() && pi.prefix().is_empty());
    assert_eq!(pi.plan.warnings.len(), 1);
    for d in Dialect::ALL {
        let c = Case::new("E07b", d, 20_000);
        assert_eq!(c.plan.outcome, Err(NothingToCompact::AlreadyCompacted));
        assert_eq!(c.plan.cut, None);
    }
}

#[test]
fn e14_custom_message_starts_the_turn_and_is_kept() {
    for d in Dialect::ALL {
        let c = Case::new("E14", d, 20);
        assert_eq!(c.first_kept(), "cm1");
        // Split, but the turn starts at the cut itself: an empty prefix.
        assert_eq!(c.prepared().turn_start, Some(c.prepared().first_kept));
        assert!(c.prefix().is_empty());
        assert_eq!(c.summarized(), ["u1", "a1"]);
    }
}

#[test]
fn e15_omp_scales_keep_recent_tokens() {
    let omp = Case::new("E15", Dialect::Omp, 50);
    assert_eq!(omp.plan.keep_recent, KeepRecent { configured: 50, used: 20, estimated_tokens: Some(80), prompt_tokens: Some(200.0) });
    assert_eq!(omp.first_kept(), "a2");
    assert_eq!(omp.summarized(), ["u1", "a1"]);
    assert_eq!(omp.prefix(), ["u2"]);
    assert_eq!(omp.plan.tokens_before, 220.0);

    let pi = Case::new("E15", Dialect::Pi, 50);
    assert_eq!(pi.plan.keep_recent.used, 50);
    assert_eq!(pi.first_kept(), "a1");
    assert!(pi.summarized().is_empty());
    assert_eq!(pi.prefix(), ["u1"]);
    assert_eq!(pi.plan.tokens_before, 220.0);
}

#[test]
fn e17_file_lists_accumulate() {
    let omp = Case::new("E17", Dialect::Omp, 5);
    let pi = Case::new("E17", Dialect::Pi, 5);
    assert_eq!(omp.summarized(), ["u2", "a2", "r1", "r2", "a3", "r3", "r4", "r5"]);
    assert_eq!(pi.summarized()[0], "a1");
    for c in [&omp, &pi] {
        assert_eq!(c.first_kept(), "u3");
        let files = c.files();
        assert_eq!(files.read_files, ["README.md", "docs/a.md", "src/main.rs"]);
        assert_eq!(files.modified_files, ["Cargo.toml", "src/lib.rs", "src/new.rs"]);
    }
}

#[test]
fn empty_path_has_nothing_to_compact() {
    let bytes = std::fs::read(contextree_testkit::fixture("synthetic/E02.jsonl")).unwrap();
    for d in Dialect::ALL {
        let session = Session::parse(&bytes, Some(crate::RuleSet::oldest(d)));
        let ctx = build(&session, Leaf::Reset);
        let p = plan(&session, &ctx, &CompactionSettings::default(), &bytes).unwrap();
        assert_eq!(p.outcome, Err(NothingToCompact::NoFirstKeptId));
        assert_eq!(p.tokens_before, 0.0);
    }
}
