//! The UI contract: the reports' TypeScript declarations, generated from the report types
//! into `ui/src/generated/reports.d.ts`, which the UI's JSDoc types import and `tsc --checkJs`
//! checks (`scripts/test.sh`, step `ui_types`). No shape is written by hand a second time: a
//! field renamed or removed here breaks the type check of every UI module that reads it.
//!
//! The file is checked by the test `the_ui_contract_is_current`; after changing a report, write
//! it again with `CONTEXTREE_WRITE_CONTRACT=1 cargo test -p contextree-read contract`.

use std::any::TypeId;

use ts_rs::{Config, TypeVisitor, TS};

use crate::branch::{BranchMessage, BranchReport};
use crate::budget::BudgetReport;
use crate::compare::{CompareReport, CompareRow};
use crate::context::{ContextReport, LlmRow, MessageRow};
use crate::cut::CutReport;
use crate::drops::DropsReport;
use crate::entry::EntryReport;
use crate::library::LibraryReport;
use crate::navigate::NavigateReport;
use crate::parts::{MessageTextReport, RowPreview, TokenCountsReport};
use crate::plan::PlanReport;
use crate::prune::PruneReport;
use crate::rule_sets::RuleSetRow;
use crate::search::{IndexedReport, SearchHit, SearchReport};
use crate::session::SessionReport;
use crate::tokens::{EntryTokens, TokensReport};
use crate::tree::{TreeEntry, TreeReport};
use crate::usage::UsageReport;
use crate::weight::WeightReport;

/// Where the declarations go, from the repository's root.
pub const CONTRACT_PATH: &str = "ui/src/generated/reports.d.ts";

/// Every declaration the reports need, each type once, sorted by name (ts-rs visits a
/// flattened type's dependencies in no fixed order), as one TypeScript file.
pub fn declarations() -> String {
    let cfg = Config::new().with_large_int("number");
    let mut out = Collect { cfg: &cfg, seen: Vec::new(), decls: Vec::new() };
    out.visit::<SessionReport>();
    out.visit::<ContextReport<'static>>();
    out.visit::<CompareReport<'static>>();
    out.visit::<BudgetReport>();
    out.visit::<EntryReport>();
    out.visit::<UsageReport<'static>>();
    out.visit::<WeightReport>();
    out.visit::<contextree_core::spend::Record>();
    out.visit::<DropsReport<'static>>();
    out.visit::<LibraryReport>();
    out.visit::<SearchReport>();
    out.visit::<SearchHit>();
    out.visit::<IndexedReport>();
    out.visit::<PlanReport<'static>>();
    out.visit::<CutReport<'static>>();
    out.visit::<BranchReport<'static>>();
    out.visit::<BranchMessage<'static>>();
    out.visit::<PruneReport<'static>>();
    out.visit::<NavigateReport<'static>>();
    out.visit::<TreeReport<'static>>();
    out.visit::<TreeEntry<'static>>();
    out.visit::<TokensReport<'static>>();
    out.visit::<EntryTokens<'static>>();
    out.visit::<TokenCountsReport>();
    out.visit::<MessageTextReport>();
    out.visit::<RowPreview>();
    out.visit::<contextree_core::drops::Request>();
    // Behind `Rows` (their fields say `Array<…>`).
    out.visit::<MessageRow<'static>>();
    out.visit::<LlmRow>();
    out.visit::<CompareRow<'static>>();
    out.visit::<RuleSetRow>();
    let mut text = String::from(
        "// Generated from the report types of crates/contextree-read (src/contract.rs): do not edit.\n\
         // Write it again with `CONTEXTREE_WRITE_CONTRACT=1 cargo test -p contextree-read contract`.\n",
    );
    out.decls.sort();
    // Two Rust types of one name would make one TypeScript type of two shapes.
    for pair in out.decls.windows(2) {
        assert!(pair[0].0 != pair[1].0, "two report types are named {} in TypeScript: rename one with #[ts(rename)]", pair[0].0);
    }
    for (_, decl) in out.decls {
        text.push('\n');
        text.push_str("export ");
        text.push_str(&decl);
        text.push('\n');
    }
    text
}

struct Collect<'a> {
    cfg: &'a Config,
    seen: Vec<TypeId>,
    decls: Vec<(String, String)>,
}

impl TypeVisitor for Collect<'_> {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        // Only named types have a declaration (primitives, `Option`, `Vec` do not).
        if T::output_path().is_none() || self.seen.contains(&TypeId::of::<T>()) {
            return;
        }
        self.seen.push(TypeId::of::<T>());
        self.decls.push((T::ident(self.cfg), T::decl(self.cfg)));
        T::visit_dependencies(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ui_contract_is_current() {
        let path = contextree_testkit::repo().join(CONTRACT_PATH);
        let want = declarations();
        if std::env::var_os("CONTEXTREE_WRITE_CONTRACT").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &want).unwrap();
            return;
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{} is not what the report types declare: write it again with \
             `CONTEXTREE_WRITE_CONTRACT=1 cargo test -p contextree-read contract`",
            path.display()
        );
    }
}
