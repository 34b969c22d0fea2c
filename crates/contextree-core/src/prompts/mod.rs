//! Prompt packs (decisions.md D8): the texts wrapped around summaries in the
//! context and sent to summarizing models, as data.
//!
//! (in progress: the API below is the contract other modules code against)

use crate::Dialect;

/// One text of a pack. Every text is a template with `{{name}}` placeholders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PromptId {
    /// The user-message text carrying a compaction summary (`{{summary}}`).
    CompactionSummaryContext,
    /// The user-message text carrying a branch summary (`{{summary}}`).
    BranchSummaryContext,
}

/// Where a pack's texts come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackOrigin {
    /// contextree's own wording, from `prompts/`.
    Own,
    /// Texts given by the caller (tests, placeholders).
    Custom(String),
}

/// A set of prompt texts for one dialect.
#[derive(Debug, Clone)]
pub struct PromptPack {
    dialect: Dialect,
    origin: PackOrigin,
    texts: std::collections::BTreeMap<PromptId, String>,
}

impl PromptPack {
    /// contextree's own wording (`prompts/`) for `dialect`.
    pub fn own(dialect: Dialect) -> PromptPack {
        PromptPack::from_templates(
            dialect,
            PackOrigin::Own,
            [
                (PromptId::CompactionSummaryContext, "<summary>\n{{summary}}\n</summary>".to_owned()),
                (PromptId::BranchSummaryContext, "<summary>\n{{summary}}</summary>".to_owned()),
            ],
        )
    }

    /// A pack made of the given templates.
    pub fn from_templates(
        dialect: Dialect,
        origin: PackOrigin,
        texts: impl IntoIterator<Item = (PromptId, String)>,
    ) -> PromptPack {
        PromptPack { dialect, origin, texts: texts.into_iter().collect() }
    }

    /// The dialect whose layout this pack follows.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Where the texts come from.
    pub fn origin(&self) -> &PackOrigin {
        &self.origin
    }

    /// The user-message text that carries a compaction summary in the context
    /// (pi: prefix + summary + suffix; omp: rendered template after the formatter).
    pub fn wrap_compaction_summary(&self, summary: &str) -> String {
        self.texts[&PromptId::CompactionSummaryContext].replace("{{summary}}", summary)
    }

    /// The user-message text that carries a branch summary in the context.
    pub fn wrap_branch_summary(&self, summary: &str) -> String {
        self.texts[&PromptId::BranchSummaryContext].replace("{{summary}}", summary)
    }
}
