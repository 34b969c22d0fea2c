//! Prompt packs (docs/decisions.md D8): the texts wrapped around summaries in the
//! context and sent to summarizing models, as data.
//!
//! A [`PromptPack`] holds one [`Template`] per [`PromptId`] for one dialect.
//! Packs come from three places, told apart by [`PackOrigin`]:
//! - [`PromptPack::own`]: contextree's own wording (`prompts/` at the
//!   repository root, compiled in). The agents' prose is never copied into
//!   this repository.
//! - [`PromptPack::from_agent_files`]: the texts of an agent installed on the
//!   user's machine, read at run time and checked against the digests of
//!   [`KNOWN_TEXTS`] (the spec's tables). Only a verified pack makes the output
//!   byte-identical to the agent's.
//! - [`PromptPack::from_templates`] / [`PromptPack::placeholders`]: texts
//!   given by the caller, e.g. the tokens the golden fixtures use.
//!
//! Rendering ([`PromptPack::render`]) substitutes `{{name}}` placeholders and,
//! in the omp dialect, passes the *whole* result (inserted summary included)
//! through omp's post-render formatter, as omp does (context.md §2.4). pi
//! concatenates its constants, so nothing is formatted there.

mod agent;
mod js_literal;
mod known;
mod own;
mod pack;
mod template;

use std::fmt;
use std::path::PathBuf;

use crate::Dialect;

pub use agent::{agent_package_name, agent_package_names, AgentPackError, TextCheck, PI_SOURCE_FILES};
pub use js_literal::JsLiteralError;
pub use known::{HashedForm, KnownText, KNOWN_TEXTS};
pub use pack::PromptPack;
pub use template::{RenderError, Segment, Template, TemplateError};

/// One text of a pack. Every text is a template with `{{name}}` placeholders
/// (see [`PromptId::variables`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PromptId {
    /// The user-message text carrying a compaction summary (`{{summary}}`).
    /// pi: `COMPACTION_SUMMARY_PREFIX{{summary}}COMPACTION_SUMMARY_SUFFIX`.
    CompactionSummaryContext,
    /// The user-message text carrying a branch summary (`{{summary}}`).
    /// pi: `BRANCH_SUMMARY_PREFIX{{summary}}BRANCH_SUMMARY_SUFFIX`.
    BranchSummaryContext,
    /// System prompt of every summarization call (compaction and branch).
    SummarizationSystem,
    /// Instructions for the first history summary (no previous summary).
    CompactionSummary,
    /// Instructions for merging new messages into the summary given in
    /// `<previous-summary>`.
    CompactionUpdateSummary,
    /// Instructions for summarizing the early part of a split turn.
    CompactionTurnPrefix,
    /// Instructions for the short pull-request-style summary (omp only).
    CompactionShortSummary,
    /// Instructions for a branch summary.
    BranchSummary,
    /// Text put before the model's branch summary.
    BranchSummaryPreamble,
    /// omp ≥ 18: the user-message text carrying a handoff document (a
    /// compaction with `method: "handoff"`, `{{summary}}`). Not in
    /// [`PromptId::ALL`]: only omp 18 packs have it; a pack without it wraps
    /// handoffs in contextree's own wording.
    HandoffSummaryContext,
}

impl PromptId {
    /// Every id, in a stable order.
    pub const ALL: &'static [PromptId] = &[
        PromptId::CompactionSummaryContext,
        PromptId::BranchSummaryContext,
        PromptId::SummarizationSystem,
        PromptId::CompactionSummary,
        PromptId::CompactionUpdateSummary,
        PromptId::CompactionTurnPrefix,
        PromptId::CompactionShortSummary,
        PromptId::BranchSummary,
        PromptId::BranchSummaryPreamble,
    ];

    /// Stable name, also the file stem of the template under `prompts/`
    /// (and of omp's own file).
    pub fn name(self) -> &'static str {
        match self {
            PromptId::CompactionSummaryContext => "compaction-summary-context",
            PromptId::BranchSummaryContext => "branch-summary-context",
            PromptId::SummarizationSystem => "summarization-system",
            PromptId::CompactionSummary => "compaction-summary",
            PromptId::CompactionUpdateSummary => "compaction-update-summary",
            PromptId::CompactionTurnPrefix => "compaction-turn-prefix",
            PromptId::CompactionShortSummary => "compaction-short-summary",
            PromptId::BranchSummary => "branch-summary",
            PromptId::BranchSummaryPreamble => "branch-summary-preamble",
            PromptId::HandoffSummaryContext => "handoff-summary-context",
        }
    }

    /// The id whose [`PromptId::name`] is `name`.
    pub fn from_name(name: &str) -> Option<PromptId> {
        PromptId::ALL.iter().copied().find(|id| id.name() == name)
    }

    /// The placeholders a template for this id may (and, for the context
    /// wrappers, must) contain.
    pub fn variables(self) -> &'static [&'static str] {
        if self.is_context_wrapper() {
            &["summary"]
        } else {
            &[]
        }
    }

    /// Whether this text wraps a summary inside the LLM context.
    pub fn is_context_wrapper(self) -> bool {
        matches!(self, PromptId::CompactionSummaryContext | PromptId::BranchSummaryContext | PromptId::HandoffSummaryContext)
    }

    /// Whether the agent of `dialect` uses this text at all.
    pub fn used_by(self, dialect: Dialect) -> bool {
        !(self == PromptId::CompactionShortSummary && dialect == Dialect::Pi)
    }
}

impl fmt::Display for PromptId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a pack's texts come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackOrigin {
    /// contextree's own wording, from `prompts/`.
    Own,
    /// Read from an agent package installed on this machine.
    Agent {
        /// The agent's dialect.
        dialect: Dialect,
        /// `version` from the package's `package.json`.
        version: String,
        /// Every text matched the spec's digest ([`known::KNOWN_TEXTS`]).
        verified: bool,
        /// The package directory.
        path: PathBuf,
    },
    /// Texts given by the caller (tests, placeholders).
    Custom(String),
}

/// Names the pack the way the context view shows it.
impl fmt::Display for PackOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackOrigin::Own => f.write_str("contextree's own wording"),
            PackOrigin::Agent { dialect, version, verified, path } => {
                let agent = match dialect {
                    Dialect::Pi => "pi",
                    Dialect::Omp => "oh-my-pi",
                };
                let status = if *verified { "verified" } else { "not verified: texts differ from the reference" };
                write!(f, "{agent} {version} at {} ({status})", path.display())
            }
            PackOrigin::Custom(what) => write!(f, "custom: {what}"),
        }
    }
}

/// Why a pack could not be built or a text not rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    /// The pack has no text for this id.
    #[error("the {dialect} prompt pack has no `{id}` text")]
    NotInPack {
        /// The missing text.
        id: PromptId,
        /// The pack's dialect.
        dialect: Dialect,
    },
    /// The text is not a valid template.
    #[error("`{id}` template: {source}")]
    Template {
        /// The text.
        id: PromptId,
        /// What is wrong.
        source: TemplateError,
    },
    /// A placeholder this text does not support.
    #[error("`{id}` template uses unknown placeholder `{{{{{name}}}}}` (allowed: {allowed:?})")]
    UnknownPlaceholder {
        /// The text.
        id: PromptId,
        /// The placeholder.
        name: String,
        /// The placeholders it may use.
        allowed: &'static [&'static str],
    },
    /// A context wrapper without `{{summary}}`: it would drop the summary.
    #[error("`{id}` template lacks the `{{{{{name}}}}}` placeholder")]
    MissingPlaceholder {
        /// The text.
        id: PromptId,
        /// The placeholder.
        name: &'static str,
    },
    /// Rendering needed a value that was not given.
    #[error("`{id}`: {source}")]
    Render {
        /// The text.
        id: PromptId,
        /// What was missing.
        source: RenderError,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &id in PromptId::ALL {
            assert_eq!(PromptId::from_name(id.name()), Some(id));
        }
        assert_eq!(PromptId::from_name("nope"), None);
    }

    #[test]
    fn origin_display_names_the_pack() {
        let origin = PackOrigin::Agent { dialect: Dialect::Omp, version: "13.19.0".into(), verified: true, path: "/x".into() };
        assert_eq!(origin.to_string(), "oh-my-pi 13.19.0 at /x (verified)");
        assert_eq!(PackOrigin::Own.to_string(), "contextree's own wording");
    }
}
