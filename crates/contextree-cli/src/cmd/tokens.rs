//! `contextree tokens`.

use contextree_core::context::{item_estimate, Item};
use contextree_core::session::{Entry, NodeId};
use serde::Serialize;
use serde_json::Value;

use crate::common::{print_session_doc, read_back, CliError, Ordered, SessionArgs, Streamed};

/// `tokens --json` (after `dialect` and `ruleSet`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TokensDoc<R> {
    total_tokens: u64,
    /// Per `type` (`message:role` for messages), in first-seen order.
    tokens_by_type: Ordered<u64>,
    /// [`Row`]s, [`Streamed`].
    entries: R,
}

/// One entry.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Row<'a> {
    i: usize,
    id: Option<&'a str>,
    #[serde(rename = "type")]
    kind: Option<&'a str>,
    /// The role of the message the entry produces.
    role: Option<String>,
    /// Its estimate, when it produces a message.
    tokens: Option<u64>,
    /// pi ≥ 0.87: a compaction's system checkpoint (counted in `tokens`).
    #[serde(skip_serializing_if = "Option::is_none")]
    system_tokens: Option<u64>,
}

pub fn run(args: &SessionArgs) -> Result<(), CliError> {
    let loaded = args.load()?;
    let s = &loaded.session;
    // Two passes, so that no row is held: the totals first (and the few system checkpoints,
    // the only numbers that read the file back), then the rows, written one at a time.
    let projected = s.rules().projects_context_edits();
    let mut systems: Vec<(usize, u64)> = Vec::new();
    for (i, e) in s.entries().iter().enumerate() {
        // pi ≥ 0.87: a compaction's system checkpoint is one of its messages.
        if projected && has_checkpoint(e) {
            systems.push((i, item_estimate(s, Item::SystemCheckpoint(NodeId(i as u32)), &loaded.source).map_err(read_back)?));
        }
    }
    let row = |i: usize, e: &Entry| -> (Option<String>, Option<u64>, Option<u64>) {
        // The role of the message the entry produces, as the oracle reports it.
        let role = match (e.message(), &*e.entry_type) {
            (Some(m), _) => Some(m.role.as_str().to_owned()),
            (None, "custom_message") => Some("custom".to_owned()),
            (None, "compaction") => Some("compactionSummary".to_owned()),
            (None, "branch_summary") => Some("branchSummary".to_owned()),
            _ => None,
        };
        let system = systems.binary_search_by_key(&i, |&(at, _)| at).ok().map(|k| systems[k].1);
        let produces = produces_message(&e.entry_type) && !(projected && is_empty_branch_summary(e));
        let tokens = produces.then(|| s.entry_tokens(NodeId(i as u32)) + system.unwrap_or(0));
        (role, tokens, system)
    };
    let mut by_type = Ordered::default();
    let mut total = 0;
    for (i, e) in s.entries().iter().enumerate() {
        let (role, tokens, _) = row(i, e);
        if let Some(n) = tokens {
            total += n;
            let key = match (&role, e.message()) {
                (Some(r), Some(_)) => format!("{}:{r}", e.entry_type),
                _ => e.entry_type.to_string(),
            };
            *by_type.entry(&key) += n;
        }
    }
    if args.json {
        let rows = s.entries().iter().enumerate().map(|(i, e)| {
            let (role, tokens, system_tokens) = row(i, e);
            Row { i, id: e.id(), kind: e.kind_name(), role, tokens, system_tokens }
        });
        print_session_doc(s, &TokensDoc { total_tokens: total, tokens_by_type: by_type, entries: Streamed::new(rows) });
        return Ok(());
    }
    for (i, e) in s.entries().iter().enumerate() {
        let (role, tokens, _) = row(i, e);
        let tokens = tokens.map_or("-".to_owned(), |n| n.to_string());
        outln!("{:>8}  {:<12} {:<22} {}", tokens, e.id().unwrap_or(""), e.kind_name().unwrap_or(""), role.as_deref().unwrap_or(""));
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
    &*e.entry_type == "compaction"
        && e.object()
            .and_then(|m| m.get("systemMessage"))
            .is_some_and(|v| !matches!(v, Value::Null | Value::Bool(false)) && v.as_str() != Some("") && v.as_f64() != Some(0.0))
}

/// pi ≥ 0.87: a branch summary with an empty summary produces no message.
fn is_empty_branch_summary(e: &Entry) -> bool {
    &*e.entry_type == "branch_summary" && e.str_field("summary").is_none_or(str::is_empty)
}
