//! The read layer: one typed report per view, built once from core, shared by every face.
//!
//! A report is a `#[derive(Serialize, TS)]` value. The CLI's `--json` prints it as it is and
//! renders its text output from it; the app's command returns it; the UI's type declarations
//! are generated from it (`ui/src/generated/reports.d.ts`, see [`contract`]). A report's large
//! lists are [`Rows`]: made one at a time while they are written, so a million-message context
//! is never held (memory stays within the file's size, docs/benchmarks.md).
//!
//! Views: [`session::SessionReport`] (an opened file), [`context::ContextReport`] (what the
//! model receives from a leaf; its [`breakdown`] by category), [`compare::CompareReport`] (two leaves' contexts side by side),
//! [`budget::BudgetReport`] (how full it is),
//! [`entry::EntryReport`] (one entry's line), [`usage::UsageReport`] (what it cost), [`weight::WeightReport`] (what made it grow),
//! [`drops::DropsReport`] (what a compaction summarizes and may lose), [`library::LibraryReport`]
//! (every session on the machine), [`search::SearchReport`] (every entry matching a query, with
//! its state for its session's leaf), [`plan::PlanReport`] (what compacting would do; its [`cost`] lines), and the
//! [`cut::CutReport`] (where compaction would cut), [`branch::BranchReport`] (what a branch
//! summary would read), [`prune::PruneReport`] (what pruning would do), [`navigate::NavigateReport`] (what moving
//! the leaf would write), [`tree::TreeReport`] and [`tokens::TokensReport`] (the tree and every entry's estimate), and
//! the [`parts`] a face reads on demand beside a view, [`rule_sets::RuleSetRow`] (the rules contextree
//! knows).

#![warn(missing_docs, unreachable_pub)]

pub mod branch;
pub mod breakdown;
pub mod budget;
pub mod compare;
pub mod context;
pub mod contract;
pub mod cost;
pub mod cut;
pub mod drops;
pub mod entry;
pub mod kept;
pub mod library;
pub mod navigate;
pub mod parts;
pub mod plan;
pub mod prune;
pub mod rule_sets;
pub mod search;
pub mod session;
pub mod subagents;
pub mod tokens;
pub mod tree;
pub mod usage;
pub mod weight;

mod rows;

pub use branch::BranchReport;
pub use breakdown::{Breakdown, BreakdownRow, Category};
pub use budget::BudgetReport;
pub use compare::{CompareOptions, CompareReport};
pub use context::{ContextOptions, ContextReport};
pub use cut::CutReport;
pub use drops::{DropsReport, Summarized};
pub use entry::EntryReport;
pub use kept::{Fact, FactShare, KeptFacts};
pub use library::LibraryReport;
pub use navigate::NavigateReport;
pub use parts::{row_previews, MessageTextReport, RowPreview, TokenCountsReport};
pub use plan::PlanReport;
pub use prune::PruneReport;
pub use rows::{FileOpsReport, Ids, Ordered, Rows};
pub use rule_sets::{rule_sets, RuleSetRow};
pub use search::{search_library, IndexedReport, SearchHit, SearchReport};
pub use session::SessionReport;
pub use subagents::{BranchSubagents, SubagentRow};
pub use tokens::TokensReport;
pub use tree::TreeReport;
pub use usage::{usage_sums, UsageReport};
pub use weight::WeightReport;
