//! Loads pi 1.6.0's prompt pack (`@earendil-works/pi-coding-agent`, the
//! oracle's `--impl pi16`) from the installed package and checks it against
//! the spec's digests (pi-1.6.md §4.6): every text is 1.6.0's own, the pack
//! fits `pi@1.6`, and only the system prompt and the turn-prefix
//! instructions differ from 0.73.1's.
//!
//! The package is taken from `CONTEXTREE_PI16_PACKAGE`, else from the pinned
//! agents in `tests/agents` (`ORACLE` names another installed copy;
//! `scripts/install-agents.sh` installs them). Without either the test fails
//! on purpose, like `agent_pack.rs`.

use std::path::{Path, PathBuf};

use contextree_core::prompts::{PackOrigin, PromptId, PromptPack};
use contextree_core::{Dialect, RuleSet};
use contextree_host::agent::{load_pack_from_dir, pick_installed};

fn oracle() -> PathBuf {
    contextree_testkit::paths::agents_root().join("node_modules")
}

fn pi16_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("CONTEXTREE_PI16_PACKAGE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| oracle().join("@earendil-works/pi-coding-agent"));
    assert!(
        dir.join("package.json").is_file(),
        "pi 1.6.0 is not installed at {}: install the agents with `scripts/install-agents.sh` \
         or set CONTEXTREE_PI16_PACKAGE",
        dir.display()
    );
    Some(dir)
}

fn load(dir: &Path) -> PromptPack {
    load_pack_from_dir(Dialect::Pi, dir).unwrap_or_else(|e| panic!("loading pi 1.6.0's pack: {e}"))
}

#[test]
fn pi16_pack_is_verified_and_fits_pi16() {
    let Some(dir) = pi16_dir() else { return };
    let pack = load(&dir);
    let failed: Vec<String> = pack
        .checks()
        .iter()
        .filter(|c| !c.matches())
        .map(|c| format!("{} ({:?}): len {} sha256 {}", c.id, c.form, c.utf16_len, c.sha256))
        .collect();
    assert!(failed.is_empty(), "texts that differ from pi-1.6.md §4.6:\n{}", failed.join("\n"));
    assert_eq!(pack.checks().len(), 10);
    assert!(pack.checks().iter().all(|c| c.expected.is_some_and(|k| k.rules == RuleSet::Pi16)));
    assert!(matches!(pack.origin(), PackOrigin::Agent { version, verified: true, .. } if version == "1.6.0"));
    assert_eq!(pack.rules(), Some(RuleSet::Pi16));
    assert!(pack.fits(RuleSet::Pi16) && !pack.fits(RuleSet::Pi073));

    let len = |id| pack.prompt(id).unwrap().encode_utf16().count();
    assert_eq!(len(PromptId::SummarizationSystem), 310);
    assert_eq!(len(PromptId::CompactionTurnPrefix), 664);
    // Built from a separate instructions constant by `${...}`, same text.
    assert_eq!(len(PromptId::CompactionUpdateSummary), 1257);
}

#[test]
fn pi16_changed_two_texts_of_073() {
    let Some(dir) = pi16_dir() else { return };
    let old_dir = oracle().join("@mariozechner/pi-coding-agent");
    if !old_dir.join("package.json").is_file() {
        eprintln!("pi 0.73.1 is not installed at {}", old_dir.display());
        return;
    }
    let (new, old) = (load(&dir), load(&old_dir));
    assert_eq!(old.rules(), Some(RuleSet::Pi073));
    let changed: Vec<PromptId> = PromptId::ALL
        .iter()
        .copied()
        .filter(|&id| new.template(id).map(ToString::to_string) != old.template(id).map(ToString::to_string))
        .collect();
    assert_eq!(changed, [PromptId::SummarizationSystem, PromptId::CompactionTurnPrefix]);

    // `--prompts auto` with both installed: each rule set gets its release.
    let both = || vec![dir.clone(), old_dir.clone()];
    assert_eq!(pick_installed(Dialect::Pi, both(), Some(RuleSet::Pi16)), Some(dir.clone()));
    assert_eq!(pick_installed(Dialect::Pi, both(), Some(RuleSet::Pi073)), Some(old_dir.clone()));
}
