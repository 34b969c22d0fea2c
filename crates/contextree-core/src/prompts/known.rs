//! The agents' prompt texts as recorded in the spec (context.md §2.3,
//! compaction.md §6.4, branch-summary.md §4, pi-1.6.md §4.6): lengths and
//! sha256 digests only, never the texts (docs/decisions.md D8). A pack loaded from
//! an installed agent is "verified" when every one of its texts matches the
//! rows of one rule set, and it then fits that rule set.

use super::PromptId;
use crate::{Dialect, RuleSet};

/// Which form of a text a digest was taken of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HashedForm {
    /// The template file as shipped (omp context wrappers).
    Raw,
    /// The template rendered with no variables and formatted (omp prompts).
    Rendered,
    /// The whole string constant (pi prompts).
    Constant,
    /// The constant placed before the summary (pi wrappers).
    Prefix,
    /// The constant placed after the summary (pi wrappers).
    Suffix,
}

/// One row of the spec's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownText {
    /// Agent the text belongs to.
    pub dialect: Dialect,
    /// The rule set whose release the digest was taken from.
    pub rules: RuleSet,
    /// Agent release the digest was taken from.
    pub version: &'static str,
    /// What the text is for.
    pub id: PromptId,
    /// Which form was hashed.
    pub form: HashedForm,
    /// Where the agent keeps it: a file under the package root (omp) or a
    /// constant name (pi).
    pub source: &'static str,
    /// Length in UTF-16 code units (JavaScript `.length`).
    pub utf16_len: usize,
    /// sha256 of the UTF-8 bytes, lowercase hex.
    pub sha256: &'static str,
}

const fn row(
    rules: RuleSet,
    version: &'static str,
    id: PromptId,
    form: HashedForm,
    source: &'static str,
    utf16_len: usize,
    sha256: &'static str,
) -> KnownText {
    KnownText { dialect: rules.dialect(), rules, version, id, form, source, utf16_len, sha256 }
}

use HashedForm::{Constant, Prefix, Raw, Rendered, Suffix};
use PromptId::*;
use RuleSet::{Omp13 as Omp, Omp18, Pi073 as Pi, Pi16};

pub(crate) const PI: &str = "0.73.1";
const PI16: &str = "1.6.0";
pub(crate) const OMP: &str = "13.19.0";
/// The omp release of the `omp@18` rules (omp-18.md §3, §5.7; sources relative to
/// `@oh-my-pi/pi-agent-core`).
pub(crate) const OMP18: &str = "18.2.3";

/// Every text of pi 0.73.1, pi 1.6.0, omp 13.19.0 and omp 18.2.3. pi 1.6.0 changed two
/// texts (the system prompt and the turn-prefix instructions); its other rows
/// repeat 0.73.1's digests.
#[rustfmt::skip]
pub const KNOWN_TEXTS: &[KnownText] = &[
    row(Pi, PI, CompactionSummaryContext, Prefix, "COMPACTION_SUMMARY_PREFIX", 96, "f9e67958bb63d2f538bbf6827b496c6121bc86c56d6a825e46fa72a90e9984a9"),
    row(Pi, PI, CompactionSummaryContext, Suffix, "COMPACTION_SUMMARY_SUFFIX", 11, "7f052d2f136be4fb495d8f286e1213fe42b1c4c5d34d9194667873616085a67a"),
    row(Pi, PI, BranchSummaryContext, Prefix, "BRANCH_SUMMARY_PREFIX", 89, "4fb1c2d818e9996a2c58d6330b3306087008000c173cce80bf5583ec7c218466"),
    row(Pi, PI, BranchSummaryContext, Suffix, "BRANCH_SUMMARY_SUFFIX", 10, "7b6935dd2809d39329dd45e593833189975947c2cfb1fb37dbdb098666738420"),
    row(Pi, PI, SummarizationSystem, Constant, "SUMMARIZATION_SYSTEM_PROMPT", 317, "78c24210d5ba3e2fbcb8b13289c2488d52f3d5317fe5bfc4055dfc126e4b8570"),
    row(Pi, PI, CompactionSummary, Constant, "SUMMARIZATION_PROMPT", 879, "9b00aa68df1a64279bc36e9093367f638701d48ec82e3d08436f65092a515f9b"),
    row(Pi, PI, CompactionUpdateSummary, Constant, "UPDATE_SUMMARIZATION_PROMPT", 1257, "240c52982209146eae47d73c7172f6ba1dab60f44520bcb6a6ec1a883fef2ec7"),
    row(Pi, PI, CompactionTurnPrefix, Constant, "TURN_PREFIX_SUMMARIZATION_PROMPT", 440, "9aeeb36ea731a8497d38abb03c2da351d81bcade4b2ae389bb6ae74300cf6ba5"),
    row(Pi, PI, BranchSummary, Constant, "BRANCH_SUMMARY_PROMPT", 689, "76cf34f4204cc5465282460c9a3099301d9c8c0a672eda0e9d48ee7af422cec1"),
    row(Pi, PI, BranchSummaryPreamble, Constant, "BRANCH_SUMMARY_PREAMBLE", 103, "8cec318a8d7b328ea984295f5a59325e2f8736059661b70a1b9e957e69788e16"),
    row(Pi16, PI16, CompactionSummaryContext, Prefix, "COMPACTION_SUMMARY_PREFIX", 96, "f9e67958bb63d2f538bbf6827b496c6121bc86c56d6a825e46fa72a90e9984a9"),
    row(Pi16, PI16, CompactionSummaryContext, Suffix, "COMPACTION_SUMMARY_SUFFIX", 11, "7f052d2f136be4fb495d8f286e1213fe42b1c4c5d34d9194667873616085a67a"),
    row(Pi16, PI16, BranchSummaryContext, Prefix, "BRANCH_SUMMARY_PREFIX", 89, "4fb1c2d818e9996a2c58d6330b3306087008000c173cce80bf5583ec7c218466"),
    row(Pi16, PI16, BranchSummaryContext, Suffix, "BRANCH_SUMMARY_SUFFIX", 10, "7b6935dd2809d39329dd45e593833189975947c2cfb1fb37dbdb098666738420"),
    row(Pi16, PI16, SummarizationSystem, Constant, "SUMMARIZATION_SYSTEM_PROMPT", 310, "c464889dcfa60441e642f291445b49523f263e6fb2725d0c25075543a2ec3f8f"),
    row(Pi16, PI16, CompactionSummary, Constant, "SUMMARIZATION_PROMPT", 879, "9b00aa68df1a64279bc36e9093367f638701d48ec82e3d08436f65092a515f9b"),
    row(Pi16, PI16, CompactionUpdateSummary, Constant, "UPDATE_SUMMARIZATION_PROMPT", 1257, "240c52982209146eae47d73c7172f6ba1dab60f44520bcb6a6ec1a883fef2ec7"),
    row(Pi16, PI16, CompactionTurnPrefix, Constant, "TURN_PREFIX_SUMMARIZATION_PROMPT", 664, "7b0a15be5e0fdcce338ce7c1ef1fdd386faed258cc25d03915a05b05e7a6a183"),
    row(Pi16, PI16, BranchSummary, Constant, "BRANCH_SUMMARY_PROMPT", 689, "76cf34f4204cc5465282460c9a3099301d9c8c0a672eda0e9d48ee7af422cec1"),
    row(Pi16, PI16, BranchSummaryPreamble, Constant, "BRANCH_SUMMARY_PREAMBLE", 103, "8cec318a8d7b328ea984295f5a59325e2f8736059661b70a1b9e957e69788e16"),
    row(Omp, OMP, CompactionSummaryContext, Raw, "src/prompts/compaction/compaction-summary-context.md", 465, "d70fbd7745826cb35dfbd4b1fc3145cf20c1d347e15deaa31f65a5f1a6717b73"),
    row(Omp, OMP, BranchSummaryContext, Raw, "src/prompts/compaction/branch-summary-context.md", 112, "23843a8287cc803177aa8e53607f8c83657b3b031b15d05557f70939bdec56fa"),
    row(Omp, OMP, SummarizationSystem, Rendered, "src/prompts/system/summarization-system.md", 350, "1448ab4c36da3ec5173fe646f975c4655256e2597118e9e5bf9567c80806301a"),
    row(Omp, OMP, CompactionSummary, Rendered, "src/prompts/compaction/compaction-summary.md", 1265, "a325475d005765352a1d77a36f070f11db3302b76ec0c0f7c1d291ab54a2b9a8"),
    row(Omp, OMP, CompactionUpdateSummary, Rendered, "src/prompts/compaction/compaction-update-summary.md", 1664, "4096b74b328dc617f424c610be7be9a33130d826a8b5bc6520f6d7a3e674cc6e"),
    row(Omp, OMP, CompactionTurnPrefix, Rendered, "src/prompts/compaction/compaction-turn-prefix.md", 700, "f2dec4e9d2cd3bd20131648f20e6d84b71b4939a3aff471e45ca177aff73c03e"),
    row(Omp, OMP, CompactionShortSummary, Rendered, "src/prompts/compaction/compaction-short-summary.md", 395, "2d06c13ea9c8bc69cdfb84c7b5844afb5f1387088553fca1bbabf1d6cddda0b0"),
    row(Omp, OMP, BranchSummary, Rendered, "src/prompts/compaction/branch-summary.md", 670, "80d2635abf9130838da6f6f8bfbf86a27fcff43aa0aeeef99b0dd49093f439c7"),
    row(Omp, OMP, BranchSummaryPreamble, Rendered, "src/prompts/compaction/branch-summary-preamble.md", 101, "5ed8b8e14790f8da297c43eebece78b666557c024e486b501ce65097277caeda"),
    row(Omp18, OMP18, CompactionSummaryContext, Raw, "src/compaction/prompts/compaction-summary-context.md", 127, "3eff752e5594e3651691351ee640785a9b949f552392c31280c3009d57a82c0d"),
    row(Omp18, OMP18, BranchSummaryContext, Raw, "src/compaction/prompts/branch-summary-context.md", 57, "5ad7010bb5fb5d7a34500d7888afe8f04f67d7f61127c00416cc4eab128e6671"),
    row(Omp18, OMP18, SummarizationSystem, Rendered, "src/compaction/prompts/summarization-system.md", 484, "bad8378a52d7090a85f63ef737656a69952cbb3d193c62736117361c5c28e32c"),
    row(Omp18, OMP18, CompactionSummary, Rendered, "src/compaction/prompts/compaction-summary.md", 1205, "f7fe5d84dfc9fa56f2aa9f8bc111a3bf7b5d2571db0e1a7e4185b6b840d2b5d4"),
    row(Omp18, OMP18, CompactionUpdateSummary, Rendered, "src/compaction/prompts/compaction-update-summary.md", 1391, "c9b288300e9e655987def423b97611c839ca22a1d3e2658638030102abc8223d"),
    row(Omp18, OMP18, CompactionTurnPrefix, Rendered, "src/compaction/prompts/compaction-turn-prefix.md", 571, "42907c43a67a4f705065be12fc556b26a3b93818a06df905aec02f2c2375291d"),
    row(Omp18, OMP18, CompactionShortSummary, Rendered, "src/compaction/prompts/compaction-short-summary.md", 244, "c0ed2a7edd16fa93daab53b1a102a53cb2673ae849143046279221e2715fd54d"),
    row(Omp18, OMP18, BranchSummary, Rendered, "src/compaction/prompts/branch-summary.md", 661, "e20a553b3c72277bf68a2691e50685a188fc3caa28253475d58ee12827483998"),
    row(Omp18, OMP18, HandoffSummaryContext, Raw, "src/compaction/prompts/handoff-summary-context.md", 530, "afc5b740633d573d0825ac44d38c15206b27aa1fe6d7828dd2f296ebbcec5065"),
    row(Omp18, OMP18, BranchSummaryPreamble, Rendered, "src/compaction/prompts/branch-summary-preamble.md", 83, "f3247acd17855edb1b166459f2b163701109c77cecb7505e8c5e8b5bacca46d4"),
];

/// The rows for one dialect (every rule set of it), in table order.
pub(crate) fn known_texts(dialect: Dialect) -> impl Iterator<Item = &'static KnownText> {
    KNOWN_TEXTS.iter().filter(move |k| k.dialect == dialect)
}

/// The rows of one rule set, in table order (empty for a rule set whose
/// texts are not recorded).
pub(crate) fn known_texts_of(rules: RuleSet) -> impl Iterator<Item = &'static KnownText> {
    KNOWN_TEXTS.iter().filter(move |k| k.rules == rules)
}

/// The rule set whose recorded texts `rules` sends: itself, or the newest recorded set of its
/// agent before it (a release that changed no text records none).
pub(crate) fn texts_of_rules(rules: RuleSet) -> RuleSet {
    recorded_rule_sets(rules.dialect()).filter(|r| rules.at_least(*r)).last().unwrap_or(rules)
}

/// The rule sets whose texts are recorded, oldest first within an agent.
pub(crate) fn recorded_rule_sets(dialect: Dialect) -> impl Iterator<Item = RuleSet> {
    RuleSet::ALL.into_iter().filter(move |r| r.dialect() == dialect && known_texts_of(*r).next().is_some())
}

/// sha256 of `text`'s UTF-8 bytes, lowercase hex.
pub(crate) fn sha256_hex(text: &str) -> String {
    use sha2::{Digest, Sha256};
    use std::fmt::Write;
    Sha256::digest(text.as_bytes()).iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_set_text_is_listed_once() {
        for rules in [Pi, Pi16, Omp] {
            for &id in PromptId::ALL {
                let forms: Vec<_> = known_texts_of(rules).filter(|k| k.id == id).map(|k| k.form).collect();
                let expected: &[HashedForm] = match (rules.dialect(), id) {
                    (Dialect::Pi, CompactionShortSummary) => &[],
                    (Dialect::Pi, CompactionSummaryContext | BranchSummaryContext) => &[Prefix, Suffix],
                    (Dialect::Pi, _) => &[Constant],
                    (Dialect::Omp, CompactionSummaryContext | BranchSummaryContext) => &[Raw],
                    (Dialect::Omp, _) => &[Rendered],
                };
                assert_eq!(forms, expected, "{rules} {id:?}");
            }
        }
        assert_eq!(recorded_rule_sets(Dialect::Pi).collect::<Vec<_>>(), [Pi, Pi16]);
    }

    #[test]
    fn pi16_changed_two_texts() {
        let changed: Vec<PromptId> = known_texts_of(Pi16)
            .filter(|k| !known_texts_of(Pi).any(|o| o.id == k.id && o.form == k.form && o.sha256 == k.sha256))
            .map(|k| k.id)
            .collect();
        assert_eq!(changed, [SummarizationSystem, CompactionTurnPrefix]);
    }

    #[test]
    fn digests_are_lowercase_hex() {
        assert!(KNOWN_TEXTS.iter().all(|k| k.sha256.len() == 64 && k.sha256.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))));
        assert_eq!(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }
}
