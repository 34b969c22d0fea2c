//! Built-in packs: contextree's own wording (`prompts/` at the repository
//! root, see its README) and the fixtures' placeholder tokens.

use super::{PackOrigin, PromptId, PromptPack};
use crate::{Dialect, RuleSet};

macro_rules! own {
    ($path:literal) => {
        include_str!(concat!("../../../../prompts/", $path))
    };
}

/// The template file of `id` for `rules`, as written: pi 1.6's two changed
/// texts (pi-1.6.md §4.6) have files of their own under `pi16/`.
fn own_file(rules: RuleSet, id: PromptId) -> Option<&'static str> {
    use Dialect::{Omp, Pi};
    use PromptId::*;
    // pi 1.6's texts hold for every later pi rule set too.
    match (rules.at_least(RuleSet::Pi16), id) {
        (true, SummarizationSystem) => return Some(own!("pi16/summarization-system.md")),
        (true, CompactionTurnPrefix) => return Some(own!("pi16/compaction-turn-prefix.md")),
        _ => {}
    }
    Some(match (rules.dialect(), id) {
        (_, SummarizationSystem) => own!("shared/summarization-system.md"),
        (_, CompactionTurnPrefix) => own!("shared/compaction-turn-prefix.md"),
        (_, BranchSummary) => own!("shared/branch-summary.md"),
        (Pi, CompactionSummaryContext) => own!("pi/compaction-summary-context.md"),
        (Pi, BranchSummaryContext) => own!("pi/branch-summary-context.md"),
        (Pi, CompactionSummary) => own!("pi/compaction-summary.md"),
        (Pi, CompactionUpdateSummary) => own!("pi/compaction-update-summary.md"),
        (Pi, BranchSummaryPreamble) => own!("pi/branch-summary-preamble.md"),
        (Pi, CompactionShortSummary | HandoffSummaryContext) => return None,
        (Omp, HandoffSummaryContext) => own!("omp/handoff-summary-context.md"),
        (Omp, CompactionSummaryContext) => own!("omp/compaction-summary-context.md"),
        (Omp, BranchSummaryContext) => own!("omp/branch-summary-context.md"),
        (Omp, CompactionSummary) => own!("omp/compaction-summary.md"),
        (Omp, CompactionUpdateSummary) => own!("omp/compaction-update-summary.md"),
        (Omp, BranchSummaryPreamble) => own!("omp/branch-summary-preamble.md"),
        (Omp, CompactionShortSummary) => own!("omp/compaction-short-summary.md"),
    })
}

pub(super) fn own_pack(rules: RuleSet) -> PromptPack {
    // Editors end files with a newline; the texts' own trailing newlines
    // (pi's preamble) are written as extra lines (prompts/README.md).
    let texts = PromptId::ALL.iter().filter_map(|&id| {
        let file = own_file(rules, id)?;
        Some((id, file.strip_suffix('\n').unwrap_or(file).to_owned()))
    });
    PromptPack::from_templates(rules.dialect(), PackOrigin::Own, texts).with_rules(Some(rules))
}

/// contextree's own handoff wrapper, rendered around `summary` (for packs
/// that lack the text).
pub(super) fn own_handoff_wrapper(summary: &str) -> String {
    let file = own!("omp/handoff-summary-context.md");
    let text = file.strip_suffix('\n').unwrap_or(file).to_owned();
    let pack = PromptPack::from_templates(
        Dialect::Omp,
        PackOrigin::Own,
        [(PromptId::CompactionSummaryContext, text.clone()), (PromptId::BranchSummaryContext, text)],
    );
    pack.wrap_compaction_summary(summary)
}

pub(super) fn placeholder_pack(dialect: Dialect) -> PromptPack {
    use PromptId::*;
    let texts: Vec<(PromptId, String)> = match dialect {
        Dialect::Pi => vec![
            (CompactionSummaryContext, "<<pi:COMPACTION_SUMMARY_PREFIX#lead>>\n\n<summary>\n{{summary}}\n</summary>".into()),
            // pi's branch wording equals omp's, so the fixtures use the omp token.
            (BranchSummaryContext, "<<omp:compaction/branch-summary-context.md#lead>>\n\n<summary>\n{{summary}}</summary>".into()),
            (SummarizationSystem, "<<pi:SUMMARIZATION_SYSTEM_PROMPT>>".into()),
            (CompactionSummary, "<<pi:SUMMARIZATION_PROMPT>>".into()),
            (CompactionUpdateSummary, "<<pi:UPDATE_SUMMARIZATION_PROMPT>>".into()),
            (CompactionTurnPrefix, "<<pi:TURN_PREFIX_SUMMARIZATION_PROMPT>>".into()),
            (BranchSummary, "<<pi:BRANCH_SUMMARY_PROMPT>>".into()),
            (BranchSummaryPreamble, "<<omp:compaction/branch-summary-preamble.md>>\n\n".into()),
        ],
        Dialect::Omp => PromptId::ALL
            .iter()
            .map(|&id| {
                let dir = if id == SummarizationSystem { "system" } else { "compaction" };
                let token = format!("<<omp:{dir}/{}.md", id.name());
                let text = if id.is_context_wrapper() {
                    format!("{token}#lead>>\n\n<summary>\n{{{{summary}}}}\n</summary>")
                } else {
                    format!("{token}>>")
                };
                (id, text)
            })
            .collect(),
    };
    PromptPack::from_templates(dialect, PackOrigin::Custom("fixture placeholder tokens".into()), texts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// Summaries the wrappers are rendered around in the snapshots: a plain
    /// one, and one that shows what the omp formatter does to a summary.
    const SUMMARIES: &[(&str, &str)] = &[("plain", "S"), ("messy", "## Goal\n\n- a  \n\n\n| x |  y |\nend\n")];

    fn snapshot_dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/prompts/snapshots")
    }

    /// Snapshot folders: one per rule set with texts of its own.
    const SNAPSHOT_SETS: &[(RuleSet, &str)] = &[(RuleSet::Pi073, "pi"), (RuleSet::Pi16, "pi16"), (RuleSet::Omp13, "omp")];

    fn renders(rules: RuleSet) -> Vec<(String, String)> {
        let pack = PromptPack::own_for(rules);
        let mut out = Vec::new();
        for id in pack.ids() {
            if id.is_context_wrapper() {
                for (label, summary) in SUMMARIES {
                    out.push((format!("{id}.{label}"), pack.render(id, &[("summary", summary)]).unwrap()));
                }
            } else {
                out.push((id.to_string(), pack.prompt(id).unwrap()));
            }
        }
        out
    }

    /// The snapshot of a rendered text. insta trims the newlines around a snapshot, and a
    /// prompt's leading and trailing newlines are part of what the model gets: the text sits
    /// between two marker lines, so every byte of it counts.
    fn framed(text: &str) -> String {
        format!("[start]\n{text}\n[end]")
    }

    /// `cargo insta review` (or `INSTA_UPDATE=always`) after changing a text.
    #[test]
    fn own_texts_render_as_snapshotted() {
        for &(rules, folder) in SNAPSHOT_SETS {
            let mut settings = insta::Settings::clone_current();
            settings.set_snapshot_path(snapshot_dir().join(folder));
            settings.set_prepend_module_to_snapshot(false);
            settings.set_omit_expression(true);
            settings.bind(|| {
                for (name, text) in renders(rules) {
                    insta::assert_snapshot!(name, framed(&text));
                }
            });
        }
    }

    #[test]
    fn pi16_differs_from_pi073_in_two_texts() {
        let (old, new) = (PromptPack::own_for(RuleSet::Pi073), PromptPack::own_for(RuleSet::Pi16));
        let changed: Vec<PromptId> =
            old.ids().filter(|&id| old.template(id).map(ToString::to_string) != new.template(id).map(ToString::to_string)).collect();
        assert_eq!(changed, [PromptId::SummarizationSystem, PromptId::CompactionTurnPrefix]);
        assert_eq!((old.rules(), new.rules()), (Some(RuleSet::Pi073), Some(RuleSet::Pi16)));
        assert_eq!(PromptPack::own(Dialect::Pi).rules(), Some(RuleSet::Pi073));
    }

    #[test]
    fn own_packs_cover_what_each_agent_uses() {
        for rules in RuleSet::ALL {
            let dialect = rules.dialect();
            let pack = PromptPack::own_for(rules);
            assert_eq!(pack.origin(), &PackOrigin::Own);
            for &id in PromptId::ALL {
                assert_eq!(pack.template(id).is_some(), id.used_by(dialect), "{dialect} {id}");
            }
        }
    }

    #[test]
    fn own_layouts_follow_the_agents() {
        let pi = PromptPack::own(Dialect::Pi);
        let omp = PromptPack::own(Dialect::Omp);
        assert!(pi.wrap_compaction_summary("S").ends_with("\n\n<summary>\nS\n</summary>"));
        assert!(pi.wrap_branch_summary("S").ends_with("\n\n<summary>\nS</summary>"));
        assert!(omp.wrap_compaction_summary("S").ends_with("\n\n<summary>\nS\n</summary>"));
        assert!(omp.wrap_branch_summary("S").ends_with("\n\n<summary>\nS\n</summary>"));
        let pi_preamble = pi.prompt(PromptId::BranchSummaryPreamble).unwrap();
        let omp_preamble = omp.prompt(PromptId::BranchSummaryPreamble).unwrap();
        assert_eq!(pi_preamble.trim_end().lines().count(), 2);
        assert!(pi_preamble.ends_with(":\n\n") && !pi_preamble.ends_with("\n\n\n"));
        assert_eq!(format!("{omp_preamble}\n\n"), pi_preamble);
        for pack in [&pi, &omp] {
            for id in pack.ids().filter(|&id| id != PromptId::BranchSummaryPreamble) {
                let text = pack.template(id).unwrap().to_string();
                assert!(!text.ends_with('\n') && !text.starts_with(char::is_whitespace), "{id}");
            }
        }
    }

    #[test]
    fn placeholder_packs_match_the_fixture_tokens() {
        let pi = PromptPack::placeholders(Dialect::Pi);
        let omp = PromptPack::placeholders(Dialect::Omp);
        assert_eq!(
            pi.wrap_compaction_summary("## Goal\nDocs work."),
            "<<pi:COMPACTION_SUMMARY_PREFIX#lead>>\n\n<summary>\n## Goal\nDocs work.\n</summary>"
        );
        assert_eq!(
            pi.wrap_branch_summary("x\n\nResult: flaky."),
            "<<omp:compaction/branch-summary-context.md#lead>>\n\n<summary>\nx\n\nResult: flaky.</summary>"
        );
        assert_eq!(
            omp.wrap_branch_summary("x\n\nResult: flaky."),
            "<<omp:compaction/branch-summary-context.md#lead>>\n\n<summary>\nx\n\nResult: flaky.\n</summary>"
        );
        assert_eq!(omp.prompt(PromptId::SummarizationSystem).unwrap(), "<<omp:system/summarization-system.md>>");
        assert_eq!(omp.prompt(PromptId::CompactionShortSummary).unwrap(), "<<omp:compaction/compaction-short-summary.md>>");
        assert_eq!(
            format!("{}## Goal", pi.prompt(PromptId::BranchSummaryPreamble).unwrap()),
            "<<omp:compaction/branch-summary-preamble.md>>\n\n## Goal"
        );
    }
}
