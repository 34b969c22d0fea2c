//! pi ≥ 0.87's context (pi-1.6.md §2.1–2.3): `buildContextEntries` selects
//! the entries (the latest compaction first, then its kept range without
//! system messages, then everything after it), `buildSessionProjection`
//! turns each into its messages with the latest `context_edit` of that entry
//! applied. The context's items are the concatenation; `ctx.projected` keeps
//! which entry each came from, as compaction needs it.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::build::{emits_message, Context, EditEffect, Item, Projected};
use crate::session::{Entry, NodeId, Role, Session};

/// Fills `ctx.items`, `ctx.projected`, `ctx.edits`, `ctx.omitted` (and the
/// compaction fields) for `path`, whose latest compaction is at `compaction_at`.
pub(super) fn project(session: &Session, ctx: &mut Context, path: &[NodeId], compaction_at: Option<usize>) {
    let selected = select(session, ctx, path, compaction_at);

    // The last edit of each target among the selected entries wins.
    let mut edits: HashMap<&str, NodeId> = HashMap::new();
    for &n in &selected {
        let e = session.entry(n);
        if e.entry_type == "context_edit" {
            if let Some(target) = e.str_field("targetId") {
                edits.insert(target, n);
            }
        }
    }
    // Only an edit's `effective` asks, and with no edit it is false anyway: a path without edits
    // (nearly all) builds no set of every id (34 MB for a million entries).
    let selected_ids: HashSet<&str> = match edits.is_empty() {
        true => HashSet::new(),
        false => selected.iter().map(|&n| &*session.entry(n).id).filter(|id| !id.is_empty()).collect(),
    };

    for (i, &n) in selected.iter().enumerate() {
        let e = session.entry(n);
        if e.entry_type == "context_edit" {
            let target_id = e.str_field("targetId").unwrap_or_default().to_owned();
            ctx.edits.push(EditEffect {
                edit: n,
                target: session.node(&target_id),
                omit: is_omission(e),
                effective: edits.get(target_id.as_str()) == Some(&n) && selected_ids.contains(target_id.as_str()),
                target_id,
            });
        }
        let start = ctx.items.len();
        // An older compaction inside the kept range projects to nothing.
        if !(i > 0 && e.entry_type == "compaction") {
            let base = base_items(session, n);
            // Without edits (nearly every path) no id is looked at.
            let edit = if edits.is_empty() || e.id.is_empty() { None } else { edits.get(&*e.id) };
            match edit.map(|&edit| (edit, session.entry(edit))) {
                None => ctx.items.extend(base),
                Some((_, edit)) if is_omission(edit) => {
                    if !base.is_empty() {
                        ctx.omitted.push(n);
                    }
                }
                // A replacement that is not an object would make pi throw; the message is shown as it is.
                Some((_, edit)) if !is_replacement(edit) => ctx.items.extend(base),
                Some((edit, _)) => ctx.items.extend(base.into_iter().map(|item| match item {
                    Item::Entry(node) if takes_replacement(session.entry(node)) => Item::Replaced { node, edit },
                    other => other,
                })),
            }
        }
        ctx.projected.push(Projected { node: n, items: start..ctx.items.len() });
    }
}

/// `buildContextEntries`: the whole path without a compaction; else the
/// latest compaction, its kept range (from `firstKeptEntryId`, system
/// messages left out) and everything after it.
fn select(session: &Session, ctx: &mut Context, path: &[NodeId], compaction_at: Option<usize>) -> Vec<NodeId> {
    let Some(latest) = compaction_at else { return path.to_vec() };
    let c = path[latest];
    // pi looks the compaction up again by id: the first entry of the path with it.
    let cid = &*session.entry(c).id;
    let k = path.iter().position(|&n| session.entry(n).id == cid).unwrap_or(latest);
    ctx.compaction = Some(c);
    let first_kept = session.entry(c).str_field("firstKeptEntryId");
    ctx.kept_from = first_kept.and_then(|f| path[..k].iter().position(|&n| session.entry(n).id == f));
    let mut selected = vec![c];
    if let Some(from) = ctx.kept_from {
        selected.extend(path[from..k].iter().copied().filter(|&n| !is_system_message(session.entry(n))));
    }
    selected.extend_from_slice(&path[k + 1..]);
    selected
}

/// `sessionEntryToContextMessages` as items.
fn base_items(session: &Session, n: NodeId) -> Vec<Item> {
    let e = session.entry(n);
    if e.entry_type == "compaction" {
        let checkpoint = e.object().and_then(|m| m.get("systemMessage")).is_some_and(is_truthy);
        return if checkpoint { vec![Item::SystemCheckpoint(n), Item::CompactionSummary(n)] } else { vec![Item::CompactionSummary(n)] };
    }
    if emits_message(e) {
        vec![Item::Entry(n)]
    } else {
        Vec::new()
    }
}

/// A `context_edit` whose `replacement` is `null`.
pub(crate) fn is_omission(e: &Entry) -> bool {
    e.object().and_then(|m| m.get("replacement")).is_some_and(Value::is_null)
}

/// A `context_edit` whose `replacement` is an object (its `content` replaces
/// the target's); any other non-null value would make pi throw.
pub(crate) fn is_replacement(e: &Entry) -> bool {
    e.object().and_then(|m| m.get("replacement")).is_some_and(Value::is_object)
}

/// The roles whose content an edit replaces: user, assistant, toolResult, custom.
pub(crate) fn takes_replacement(e: &Entry) -> bool {
    match e.message() {
        Some(m) => matches!(m.role, Role::User | Role::Assistant | Role::ToolResult | Role::Custom),
        None => e.entry_type == "custom_message",
    }
}

fn is_system_message(e: &Entry) -> bool {
    e.message().is_some_and(|m| m.role == Role::System)
}

/// JavaScript truthiness of a JSON value.
fn is_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}
