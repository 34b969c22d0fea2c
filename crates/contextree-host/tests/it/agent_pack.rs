//! Loads the prompt packs of the reference agents installed by the oracle and
//! checks that every text is the reference release's own (spec digests), and
//! that rendering with them has the agents' layout.
//!
//! The packages are taken from `CONTEXTREE_PI_PACKAGE` /
//! `CONTEXTREE_OMP_PACKAGE`, else from `tests/agents` (`ORACLE` names another
//! installed copy; `scripts/install-agents.sh` installs them). Without either the test fails on purpose: a
//! silently skipped test would hide that the exact-output path is untested.

use std::path::PathBuf;

use contextree_core::prompts::{HashedForm, PackOrigin, PromptId, PromptPack};
use contextree_core::Dialect;
use contextree_host::agent::{candidate_dirs, load_agent_pack, load_pack_from_dir, package_env_var, AgentLoadError};
use contextree_host::HostEnv;

use contextree_testkit::paths::agents_root;

fn oracle_fallback(dialect: Dialect) -> PathBuf {
    let oracle = agents_root();
    match dialect {
        Dialect::Pi => oracle.join("node_modules/@mariozechner/pi-coding-agent"),
        Dialect::Omp => oracle.join("omp13/node_modules/@oh-my-pi/pi-coding-agent"),
    }
}

fn package_dir(dialect: Dialect) -> PathBuf {
    let var = package_env_var(dialect);
    if let Some(dir) = std::env::var_os(var).filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    let fallback = oracle_fallback(dialect);
    assert!(
        fallback.join("package.json").is_file(),
        "the {dialect} reference package is not installed: set {var} to its package directory, \
         or install the agents with `scripts/install-agents.sh` (`npm ci` in tests/agents); \
         looked for {}",
        fallback.display()
    );
    fallback
}

fn load(dialect: Dialect) -> PromptPack {
    let dir = package_dir(dialect);
    load_pack_from_dir(dialect, &dir).unwrap_or_else(|e| panic!("loading the {dialect} pack: {e}"))
}

fn utf16(s: &str) -> usize {
    s.encode_utf16().count()
}

fn assert_verified(pack: &PromptPack, dialect: Dialect, version: &str, checks: usize) {
    let failed: Vec<String> = pack
        .checks()
        .iter()
        .filter(|c| !c.matches())
        .map(|c| format!("{} ({:?}, {}): len {} sha256 {}", c.id, c.form, c.source, c.utf16_len, c.sha256))
        .collect();
    assert!(failed.is_empty(), "{dialect} texts that differ from the spec:\n{}", failed.join("\n"));
    assert_eq!(pack.checks().len(), checks);
    match pack.origin() {
        PackOrigin::Agent { dialect: d, version: v, verified, .. } => {
            assert_eq!((*d, v.as_str(), *verified), (dialect, version, true));
        }
        other => panic!("{other:?}"),
    }
    for &id in PromptId::ALL {
        assert_eq!(pack.template(id).is_some(), id.used_by(dialect), "{dialect} {id}");
    }
}

/// `<summary>\n` + summary + newline + `</summary>`, with the blank line before.
const SKELETON: &str = "\n\n<summary>\n{{summary}}\n</summary>\n";

#[test]
fn omp_pack_is_verified_and_renders_like_omp() {
    let pack = load(Dialect::Omp);
    assert_verified(&pack, Dialect::Omp, "13.19.0", 9);

    // The spec gives the raw template lengths (465, 112); each is a lead
    // sentence/paragraph plus SKELETON, and the formatter drops the final
    // newline after `</summary>`.
    let text = pack.wrap_compaction_summary("S");
    let lead = 465 - utf16(SKELETON);
    assert_eq!(utf16(&text), lead + utf16("\n\n<summary>\nS\n</summary>"));
    let (head, tail) = text.split_at(text.find("\n\n<summary>\n").expect("summary block"));
    assert_eq!((utf16(head), tail), (lead, "\n\n<summary>\nS\n</summary>"));
    assert!(!head.contains('\n'), "the compaction lead is one paragraph");

    let text = pack.wrap_branch_summary("S");
    let lead = 112 - utf16(SKELETON);
    assert_eq!(utf16(&text), lead + utf16("\n\n<summary>\nS\n</summary>"));
    assert!(text.ends_with("\n\n<summary>\nS\n</summary>"));

    // context.md §2.4: the formatter rewrites the inserted summary too.
    let text = pack.wrap_compaction_summary("A\n\n- b\n\n\n| x |  y |\nend   ");
    assert!(text.ends_with("\n\n<summary>\nA\n- b\n\n|x|y|\nend\n</summary>"), "{text:?}");

    // branch-summary.md §4: two lines, no trailing newline, so the model's
    // first line is glued to the second.
    let preamble = pack.prompt(PromptId::BranchSummaryPreamble).unwrap();
    assert_eq!((utf16(&preamble), preamble.lines().count()), (101, 2));
    assert!(!preamble.ends_with('\n'));
}

#[test]
fn pi_pack_is_verified_and_concatenates_constants() {
    let pack = load(Dialect::Pi);
    assert_verified(&pack, Dialect::Pi, "0.73.1", 10);
    let forms: Vec<_> = pack.checks().iter().take(4).map(|c| (c.source.as_str(), c.form)).collect();
    assert_eq!(
        forms,
        [
            ("COMPACTION_SUMMARY_PREFIX", HashedForm::Prefix),
            ("COMPACTION_SUMMARY_SUFFIX", HashedForm::Suffix),
            ("BRANCH_SUMMARY_PREFIX", HashedForm::Prefix),
            ("BRANCH_SUMMARY_SUFFIX", HashedForm::Suffix),
        ]
    );

    let text = pack.wrap_compaction_summary("S  \n\n\n- x");
    assert_eq!(utf16(&text), 96 + utf16("S  \n\n\n- x") + 11, "pi does not format");
    assert!(text.ends_with("\n\n<summary>\nS  \n\n\n- x\n</summary>"));
    let text = pack.wrap_branch_summary("S");
    assert_eq!(utf16(&text), 89 + 1 + 10);
    assert!(text.ends_with("\n\n<summary>\nS</summary>"), "no newline before </summary>");

    let preamble = pack.prompt(PromptId::BranchSummaryPreamble).unwrap();
    assert_eq!(utf16(&preamble), 103);
    assert!(preamble.ends_with("\n\n"));
}

#[test]
fn agents_share_the_branch_wording() {
    // fixtures/README.md: pi's preamble is omp's plus a blank line, and pi's
    // branch prefix is omp's lead sentence plus `\n\n<summary>\n`.
    let pi = load(Dialect::Pi);
    let omp = load(Dialect::Omp);
    assert_eq!(pi.prompt(PromptId::BranchSummaryPreamble).unwrap(), omp.prompt(PromptId::BranchSummaryPreamble).unwrap() + "\n\n");
    let pi_branch = pi.wrap_branch_summary("S");
    let omp_branch = omp.wrap_branch_summary("S");
    assert_eq!(pi_branch.strip_suffix("S</summary>"), omp_branch.strip_suffix("S\n</summary>"));
}

#[test]
fn discovery_honours_the_env_override() {
    for dialect in Dialect::ALL {
        let dir = package_dir(dialect);
        let mut env = HostEnv::default();
        env.vars.insert(package_env_var(dialect).into(), dir.display().to_string());
        let pack = load_agent_pack(&env, dialect).expect("found via the env var").unwrap();
        assert!(matches!(pack.origin(), PackOrigin::Agent { verified: true, path, .. } if *path == dir));
        // A variable naming no package is reported, not replaced by another install.
        env.vars.insert(package_env_var(dialect).into(), dir.join("missing").display().to_string());
        assert!(matches!(load_agent_pack(&env, dialect), Some(Err(AgentLoadError::BadOverride { .. }))));
        // Without the variable, only the given environment is searched: an empty one finds
        // no package under its (absent) home, whatever the test process's home holds.
        assert!(candidate_dirs(&HostEnv::default(), dialect).iter().all(|(d, _)| d.starts_with("/usr")));
    }
}

/// oh-my-pi 18.2.3, the oracle's top-level package (or
/// `CONTEXTREE_OMP18_PACKAGE`): its texts live in `@oh-my-pi/pi-agent-core`
/// beside it (omp-18.md §0, §3, §5.7).
fn omp18_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CONTEXTREE_OMP18_PACKAGE").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    let dir = agents_root().join("node_modules/@oh-my-pi/pi-coding-agent");
    assert!(
        dir.join("package.json").is_file(),
        "oh-my-pi 18 is not installed at {}: install the agents with `scripts/install-agents.sh` \
         or set CONTEXTREE_OMP18_PACKAGE",
        dir.display()
    );
    dir
}

#[test]
fn omp18_pack_is_verified_and_wraps_like_omp18() {
    let pack = load_pack_from_dir(Dialect::Omp, &omp18_dir()).unwrap_or_else(|e| panic!("loading the omp 18 pack: {e}"));
    assert_verified(&pack, Dialect::Omp, "18.2.3", 10);
    assert!(pack.omp18_format());
    // The handoff wrapper (new in 18, raw 530 bytes) is read and verified too.
    assert!(pack.template(PromptId::HandoffSummaryContext).is_some());
    let handoff = pack.wrap_handoff_summary("H");
    assert!(handoff.contains("\nH\n"), "{handoff:?}");
    assert!(pack.checks().iter().all(|c| c.source.contains("pi-agent-core/src/compaction/prompts/")), "{:?}", pack.checks());
    // omp-18.md §3: two short lines, then the summary block (raw 127 bytes).
    let text = pack.wrap_compaction_summary("S");
    assert!(text.ends_with("<summary>\nS\n</summary>"), "{text:?}");
    assert_eq!(text.lines().filter(|l| !l.is_empty()).count(), 5, "{text:?}");
}
