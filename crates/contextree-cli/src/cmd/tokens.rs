//! `contextree tokens`.

use contextree_core::context::materialize::item_estimate;
use contextree_core::context::Item;
use contextree_core::session::{Entry, NodeId};
use serde_json::{json, Map, Value};

use crate::common::{print_session_json, read_back, CliError, SessionArgs};

pub fn run(args: &SessionArgs) -> Result<(), CliError> {
    let loaded = args.load()?;
    let s = &loaded.session;
    let mut entries = Vec::with_capacity(s.entries().len());
    let mut by_type = Map::new();
    let mut total = 0;
    for (i, e) in s.entries().iter().enumerate() {
        // The role of the message the entry produces, as the oracle reports it.
        let role = match (e.message(), &*e.entry_type) {
            (Some(m), _) => Some(m.role.as_str().to_owned()),
            (None, "custom_message") => Some("custom".to_owned()),
            (None, "compaction") => Some("compactionSummary".to_owned()),
            (None, "branch_summary") => Some("branchSummary".to_owned()),
            _ => None,
        };
        let node = NodeId(i as u32);
        let projected = s.rules().projects_context_edits();
        // pi ≥ 0.87: a compaction's system checkpoint is one of its messages.
        let system = if projected && has_checkpoint(e) { Some(item_estimate(s, Item::SystemCheckpoint(node), &loaded.source).map_err(read_back)?) } else { None };
        let produces = produces_message(&e.entry_type) && !(projected && is_empty_branch_summary(e));
        let tokens = produces.then(|| s.entry_tokens(node) + system.unwrap_or(0));
        if let Some(n) = tokens {
            total += n;
            let key = match (&role, e.message()) {
                (Some(r), Some(_)) => format!("{}:{r}", e.entry_type),
                _ => e.entry_type.to_string(),
            };
            let acc = by_type.get(&key).and_then(Value::as_u64).unwrap_or(0) + n;
            by_type.insert(key, acc.into());
        }
        let mut row = json!({"i": i, "id": e.id(), "type": e.kind_name(), "role": role, "tokens": tokens});
        if let Some(n) = system {
            row["systemTokens"] = n.into();
        }
        entries.push(row);
    }
    if args.json {
        print_session_json(s, &json!({"totalTokens": total, "tokensByType": by_type, "entries": entries}));
        return Ok(());
    }
    for e in &entries {
        let tokens = e["tokens"].as_u64().map_or("-".to_owned(), |n| n.to_string());
        outln!("{:>8}  {:<12} {:<22} {}", tokens, e["id"].as_str().unwrap_or(""), e["type"].as_str().unwrap_or(""), e["role"].as_str().unwrap_or(""));
    }
    outln!("total {total}");
    Ok(())
}

/// Entry types that turn into a message when they are on a path.
fn produces_message(entry_type: &str) -> bool {
    matches!(entry_type, "message" | "custom_message" | "branch_summary" | "compaction")
}

/// A compaction with a (truthy) `systemMessage` checkpoint.
fn has_checkpoint(e: &Entry) -> bool {
    &*e.entry_type == "compaction" && e.object().and_then(|m| m.get("systemMessage")).is_some_and(|v| !matches!(v, Value::Null | Value::Bool(false)) && v.as_str() != Some("") && v.as_f64() != Some(0.0))
}

/// pi ≥ 0.87: a branch summary with an empty summary produces no message.
fn is_empty_branch_summary(e: &Entry) -> bool {
    &*e.entry_type == "branch_summary" && e.str_field("summary").is_none_or(str::is_empty)
}
