//! Text renderings: the tree as `contextree tree` prints it, drawn from [`crate::view`]'s rows
//! (the same rows the desktop app shows).
//!
//! Like pi's `/tree`, a chain of single children stays at one indentation;
//! only branch points indent, so a 100,000-entry linear session is 100,000
//! lines, not a staircase.

use crate::context::state::EntryState;
use crate::session::{NodeId, Session};
use crate::view::tree_rows;

/// One line per entry: connectors, the leaf marker, id, kind, state, tokens,
/// label and a preview.
pub fn tree(session: &Session, states: &[EntryState], leaf: Option<NodeId>, preview: &dyn Fn(NodeId) -> String) -> String {
    let mut out = String::new();
    for row in tree_rows(session, states, leaf) {
        let e = session.entry(row.node);
        let marker = if row.is_leaf {
            "●"
        } else if row.state == EntryState::OffPath {
            " "
        } else {
            "•"
        };
        let label = row.label.map(|l| format!(" [{l}]")).unwrap_or_default();
        let text = preview(row.node);
        out.push_str(&format!(
            "{}{marker} {} {} ({}, {} tokens){label}{}{}\n",
            row.prefix(),
            e.id,
            row.kind,
            row.state.name(),
            row.tokens,
            if text.is_empty() { "" } else { "  " },
            text
        ));
    }
    out
}
