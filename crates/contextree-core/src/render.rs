//! Text renderings: the tree as `contextree tree` prints it.
//!
//! Like pi's `/tree`, a chain of single children stays at one indentation;
//! only branch points indent, so a 100,000-entry linear session is 100,000
//! lines, not a staircase.

use crate::context::state::EntryState;
use crate::session::{NodeId, Session};

/// One line per entry: connectors, the leaf marker, id, kind, state, tokens,
/// label and a preview.
pub fn tree(session: &Session, states: &[EntryState], leaf: Option<NodeId>, preview: &dyn Fn(NodeId) -> String) -> String {
    let tree = session.tree();
    let mut out = String::new();
    // (node, indentation prefix, connector)
    let mut stack: Vec<(NodeId, String, &'static str)> = Vec::new();
    let roots = tree.roots();
    let multi = roots.len() > 1;
    for (i, &r) in roots.iter().enumerate().rev() {
        let connector = match (multi, i + 1 == roots.len()) {
            (false, _) => "",
            (true, true) => "└─ ",
            (true, false) => "├─ ",
        };
        stack.push((r, String::new(), connector));
    }
    while let Some((node, prefix, connector)) = stack.pop() {
        let e = session.entry(node);
        let kind = match e.message() {
            Some(m) => m.role.as_str().to_owned(),
            None => e.entry_type.to_string(),
        };
        let marker = if Some(node) == leaf { "●" } else if states[node.index()] == EntryState::OffPath { " " } else { "•" };
        let label = session.label(node).map(|l| format!(" [{l}]")).unwrap_or_default();
        let text = preview(node);
        out.push_str(&format!(
            "{prefix}{connector}{marker} {} {kind} ({}, {} tokens){label}{}{}\n",
            e.id,
            states[node.index()].name(),
            session.entry_tokens(node),
            if text.is_empty() { "" } else { "  " },
            text
        ));
        let kids: Vec<NodeId> = tree.children(node).collect();
        let child_prefix = match connector {
            "├─ " => format!("{prefix}│  "),
            "└─ " => format!("{prefix}   "),
            _ => prefix.clone(),
        };
        if kids.len() == 1 {
            stack.push((kids[0], child_prefix, ""));
        } else {
            for (i, &k) in kids.iter().enumerate().rev() {
                stack.push((k, child_prefix.clone(), if i + 1 == kids.len() { "└─ " } else { "├─ " }));
            }
        }
    }
    out
}
