//! The text outputs people read — the tree, the context, the compaction dry run, the comparison
//! of two leaves, the usage with omp's subagents — pinned as insta snapshots (`tests/it/snapshots/`) over fixtures of every rule
//! set. The JSON of the same commands is checked against the agents by the parity tests; these
//! catch any change in how it is shown. `INSTA_UPDATE=always` (or `cargo insta review`) after an intended change.
//!
//! The commands run in an empty HOME (no agent settings, no contextree config, no installed
//! agent), with explicit rule sets and contextree's own prompt texts, so nothing of the machine
//! gets in; the repository's path is shown as `<repo>`.

use std::path::Path;
use std::process::Command;

use crate::support::repo;

/// `(fixture under tests/fixtures, rule set)`.
const CASES: &[(&str, &str)] = &[
    ("synthetic/E05.jsonl", "pi@0.73"),
    ("synthetic/E14.jsonl", "omp@13"),
    ("edge/edge-bash-meta.jsonl", "omp@13"),
    ("generated/g-v3-branchy-s23.jsonl", "pi@0.73"),
    ("pi16/g16-small-s7.jsonl", "pi@1.6"),
    ("omp18/omp18-compaction.jsonl", "omp@18"),
    ("omp18/omp18-notices.jsonl", "omp@18"),
    ("omp183/omp183-snapshot.jsonl", "omp@18.3"),
];

/// `(fixture, rule set, leaf A, leaf B)` for `contextree compare`: a compaction on one
/// branch, context edits hiding what the other sends, a long shared run folded.
const COMPARE_CASES: &[(&str, &str, &str, &str)] = &[
    ("synthetic/E11.jsonl", "pi@0.73", "a2", "u3"),
    ("pi16/pi16-system.jsonl", "pi@1.6", "e4", "f3"),
    ("edge/edge-omp-compaction.jsonl", "omp@18", "f5", "a6"),
];

/// `contextree ARGS` in an empty HOME; its stdout with the repository's path replaced.
fn text(home: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_contextree"))
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("PATH", "/usr/bin:/bin")
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CONFIG_DIR")
        .env_remove("XDG_DATA_HOME")
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert!(out.status.success(), "contextree {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().replace(&repo().display().to_string(), "<repo>")
}

#[test]
fn text_outputs_are_as_snapshotted() {
    let home = contextree_testkit::Scratch::new("snapshots");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo().join("crates/contextree-cli/tests/it/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for &(fixture, rules) in CASES {
            let file = repo().join("tests/fixtures").join(fixture);
            let file = file.to_str().unwrap();
            let stem = Path::new(fixture).file_stem().unwrap().to_str().unwrap().to_owned();
            let common = ["--dialect", rules, "--prompts", "own"];
            for (what, mut args) in [
                ("tree", vec!["tree", file, "--dialect", rules]),
                ("context", vec!["context", file]),
                ("compact", vec!["compact", file, "--dry-run", "--keep-recent", "40"]),
            ] {
                if what != "tree" {
                    args.extend_from_slice(&common);
                }
                insta::assert_snapshot!(format!("{stem}.{what}"), text(home.path(), &args));
            }
        }
        for &(fixture, rules, a, b) in COMPARE_CASES {
            let file = repo().join("tests/fixtures").join(fixture);
            let stem = Path::new(fixture).file_stem().unwrap().to_str().unwrap().to_owned();
            let args = ["compare", file.to_str().unwrap(), a, b, "--dialect", rules, "--prompts", "own"];
            insta::assert_snapshot!(format!("{stem}.compare"), text(home.path(), &args));
        }
        // omp's subagents and advisor, each on its line, then the sums with them.
        let file = repo().join("tests/fixtures/omp-subagents/omp-subagents.jsonl");
        insta::assert_snapshot!("omp-subagents.usage", text(home.path(), &["usage", file.to_str().unwrap(), "--dialect", "omp@18"]));
    });
}
