//! Prompt packs (decisions.md D8): the texts wrapped around summaries in the
//! context and sent to summarizing models, as data.
//!
//! (in progress: the API below is the contract other modules code against)

use crate::Dialect;

/// A set of prompt texts for one dialect.
#[derive(Debug, Clone)]
pub struct PromptPack {
    dialect: Dialect,
}

impl PromptPack {
    /// contextree's own wording (`prompts/`) for `dialect`.
    pub fn own(dialect: Dialect) -> PromptPack {
        PromptPack { dialect }
    }

    /// The dialect whose layout this pack follows.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The user-message text that carries a compaction summary in the context
    /// (pi: prefix + summary + suffix; omp: rendered template after the formatter).
    pub fn wrap_compaction_summary(&self, summary: &str) -> String {
        format!("<summary>\n{summary}\n</summary>")
    }

    /// The user-message text that carries a branch summary in the context.
    pub fn wrap_branch_summary(&self, summary: &str) -> String {
        format!("<summary>\n{summary}</summary>")
    }
}
