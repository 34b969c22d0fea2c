//! Differential fuzzing of the parser, the migration and the context builder (the shared
//! generator and checks are in `fuzz_check/`; the libFuzzer targets under `fuzz/` run the same
//! checks coverage-guided on nightly):
//! - proptest turns random bytes into session files (valid and invalid lines, BOM, CRLF,
//!   unterminated values, v1/v2/v3 headers, trees with cycles and orphans, compactions, labels,
//!   edits) and checks each under every rule set;
//! - raw random bytes are checked as files too;
//! - the corpus in `tests/fuzz-corpus/` (inputs that once mattered) is replayed, cut into
//!   chunks at every line, at none and at every other line.
//!
//! `CONTEXTREE_FUZZ_CASES` sets the cases per property (default 300: a few seconds).

use proptest::prelude::*;

use crate::fuzz_check;
use std::path::Path;

fn cases() -> u32 {
    std::env::var("CONTEXTREE_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
}

/// The same cases on every run of the smoke test (a failure seen once is seen again);
/// `CONTEXTREE_FUZZ_SEED` picks others for a long run.
fn seed() -> proptest::test_runner::RngSeed {
    let seed = std::env::var("CONTEXTREE_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x00c0_ffee);
    proptest::test_runner::RngSeed::Fixed(seed)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, rng_seed: seed(), ..ProptestConfig::default() })]

    #[test]
    fn generated_sessions(data in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let (file, cuts) = fuzz_check::session_file(&data);
        fuzz_check::check_file(&file, &cuts);
    }

    #[test]
    fn raw_bytes(file in proptest::collection::vec(any::<u8>(), 0..512), cuts in proptest::collection::vec(0usize..512, 0..6)) {
        let starts: Vec<usize> = cuts.into_iter().filter(|&c| c > 0 && c < file.len() && file[c - 1] == b'\n').collect();
        fuzz_check::check_file(&file, &starts);
    }
}

#[test]
fn the_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    assert!(files.len() >= 10, "corpus missing in {}", dir.display());
    let mut lines = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let starts: Vec<usize> = (1..bytes.len()).filter(|&i| bytes[i - 1] == b'\n').collect();
        let every_other: Vec<usize> = starts.iter().copied().step_by(2).collect();
        for cuts in [&starts[..], &[][..], &every_other[..]] {
            lines += fuzz_check::check_file(&bytes, cuts);
        }
    }
    assert!(lines > 0);
}

#[test]
fn a_lone_surrogate_escape_is_read_back() {
    // Found by this test's corpus: JSON.stringify writes half of a surrogate pair cut apart as
    // `\ud83d`; the agents read it, the scanner indexed it, and reading the entry back (context
    // --json, serialize) failed with "the entry no longer parses ...; was the file changed?".
    use contextree_core::context::{build, serialize_context, Leaf};
    use contextree_core::prompts::PromptPack;
    use contextree_core::session::Session;
    let file = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-corpus/surrogates.jsonl")).unwrap();
    for rules in contextree_core::RuleSet::ALL {
        let s = Session::parse(&file, Some(rules));
        assert_eq!(s.entries().len(), 3, "{rules:?}");
        let ctx = build(&s, Leaf::Last);
        let text = serialize_context(&s, &ctx, &PromptPack::own(s.dialect()), &file).unwrap();
        assert!(text.contains("\u{fffd} lone \u{fffd}") && text.contains("😀"), "{rules:?}: {text}");
    }
}
