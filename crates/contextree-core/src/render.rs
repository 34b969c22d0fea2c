//! Text renderings: the tree as `contextree tree` prints it, drawn from [`crate::view`]'s rows
//! (the same rows the desktop app shows).
//!
//! Like pi's `/tree`, a chain of single children stays at one indentation;
//! only branch points indent, so a 100,000-entry linear session is 100,000
//! lines, not a staircase.

use crate::context::state::EntryState;
use crate::session::{NodeId, Session};
use crate::view::tree_rows_iter;

/// One line per entry: connectors, the leaf marker, id, kind, state, tokens,
/// label and a preview.
pub fn tree(session: &Session, states: &[EntryState], leaf: Option<NodeId>, preview: &dyn Fn(NodeId) -> String) -> String {
    let mut out = Vec::new();
    // Writing into memory does not fail.
    let _ = write_tree(&mut out, session, states, leaf, preview);
    String::from_utf8(out).unwrap_or_default()
}

/// [`tree`] written line by line to `out`, each row made as it is written (a million-entry
/// tree is not held, neither as rows nor as text).
pub fn write_tree(
    out: &mut dyn std::io::Write,
    session: &Session,
    states: &[EntryState],
    leaf: Option<NodeId>,
    preview: &dyn Fn(NodeId) -> String,
) -> std::io::Result<()> {
    for row in tree_rows_iter(session, states, leaf) {
        let e = session.entry(row.node);
        let marker = if row.is_leaf {
            "●"
        } else if row.state == EntryState::OffPath {
            " "
        } else {
            "•"
        };
        let text = preview(row.node);
        for &guide in &row.guides {
            out.write_all(if guide { "│  " } else { "   " }.as_bytes())?;
        }
        write!(out, "{}{marker} {} {} ({}, {} tokens)", row.connector.text(), e.id, row.kind, row.state.name(), row.tokens)?;
        if let Some(l) = row.label {
            write!(out, " [{l}]")?;
        }
        writeln!(out, "{}{}", if text.is_empty() { "" } else { "  " }, text)?;
    }
    Ok(())
}
