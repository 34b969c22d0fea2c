//! The tree of a session with each entry's state for a leaf: `contextree tree --json`. (The
//! app draws the same rows from core's `view::tree_layout`, sent as one binary column table
//! for its 200,000-row list, crates/contextree-face/src/tree/wire.rs.)

use contextree_core::context::entry_states;
use contextree_core::context::Context;
use contextree_core::dialect::RuleChoiceWire;
use contextree_core::session::Session;
use contextree_core::RuleChoice;
use serde::Serialize;
use ts_rs::TS;

use crate::rows::Rows;

/// Every entry in display order (preorder), with its depth and state for the leaf. The rows are
/// made while written (a million-entry tree is not held).
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TreeReport<'a> {
    /// The agent whose rules ran.
    pub dialect: &'static str,
    /// The rule set that ran and why.
    #[ts(as = "RuleChoiceWire")]
    pub rule_set: &'a RuleChoice,
    /// The leaf the states are for.
    pub leaf_id: Option<String>,
    /// The entries in display order.
    #[ts(type = "Array<TreeEntry>")]
    pub rows: Rows<Box<dyn Iterator<Item = TreeEntry<'a>> + 'a>>,
}

/// One entry of the tree.
#[derive(Serialize, TS)]
pub struct TreeEntry<'a> {
    /// Its id.
    pub id: Option<&'a str>,
    /// Its depth (roots 0).
    pub depth: u32,
    /// Its `type`.
    #[serde(rename = "type")]
    pub kind: Option<&'a str>,
    /// A message's role.
    pub role: Option<&'a str>,
    /// Its state for the leaf (`kept`, `summarized`, `pruned`, `offPath`, …).
    pub state: &'static str,
    /// The rule set's estimate of the entry.
    pub tokens: u64,
    /// Its label, if any.
    pub label: Option<&'a str>,
}

impl<'a> TreeReport<'a> {
    /// The tree of `s` with the states for `ctx`'s leaf.
    pub fn new(s: &'a Session, ctx: &Context) -> Self {
        let states = entry_states(s, ctx);
        let rows = s.tree().preorder().into_iter().map(move |(n, depth)| {
            let e = s.entry(n);
            TreeEntry {
                id: e.id(),
                depth,
                kind: e.kind_name(),
                role: e.message().map(|m| m.role.as_str()),
                state: states[n.index()].name(),
                tokens: s.entry_tokens(n),
                label: s.label(n),
            }
        });
        Self {
            dialect: s.dialect().name(),
            rule_set: s.rule_choice(),
            leaf_id: ctx.leaf.and_then(|n| s.entry(n).id().map(str::to_owned)),
            rows: Rows::new(Box::new(rows)),
        }
    }
}
