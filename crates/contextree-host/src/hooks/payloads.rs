//! What each event hands its hooks: the agents' payloads, with the entries as
//! stored in the file.

use contextree_core::compaction::CompactionPlan;
use contextree_core::context::materialize::{agent_message, ReadBackError};
use contextree_core::context::Item;
use contextree_core::session::{NodeId, Session, Source};
use contextree_core::Dialect;
use serde_json::{json, Map, Value};

use super::HookEvent;

/// An entry as written in the file (the agents hand hooks their entry
/// objects); `null` when its line cannot be read back as JSON.
fn raw_entry(session: &Session, node: NodeId, source: &dyn Source) -> Value {
    let e = session.entry(node);
    let Ok(bytes) = source.bytes(e.span) else { return Value::Null };
    // Like omp's reading of a line: the first JSON value counts.
    serde_json::Deserializer::from_slice(&bytes).into_iter::<Value>().next().and_then(Result::ok).unwrap_or(Value::Null)
}

/// The `session_before_compact` payload (spec §2) with contextree's data:
/// `preparation` as prepareCompaction returns it (agent messages; the
/// settings used), `branchEntries` root → leaf as stored. `signal` has no JSON
/// form: a hook is cancelled by its time limit instead.
pub fn before_compact_payload(
    session: &Session,
    path: &[NodeId],
    plan: &CompactionPlan,
    source: &dyn Source,
    custom_instructions: Option<&str>,
) -> Result<Value, ReadBackError> {
    let messages = |nodes: &[NodeId]| -> Result<Value, ReadBackError> {
        Ok(Value::Array(nodes.iter().map(|&n| agent_message(session, Item::Entry(n), source)).collect::<Result<_, _>>()?))
    };
    let omp = session.dialect() == Dialect::Omp;
    let mut prep = Map::new();
    if let Some(p) = plan.prepared() {
        prep.insert("firstKeptEntryId".into(), session.entry(p.first_kept).id.to_string().into());
        prep.insert("messagesToSummarize".into(), messages(&p.messages_to_summarize)?);
        prep.insert("turnPrefixMessages".into(), messages(&p.turn_prefix)?);
        if omp {
            prep.insert("recentMessages".into(), messages(&p.recent)?);
        }
        prep.insert("isSplitTurn".into(), p.is_split_turn().into());
        prep.insert(
            "fileOps".into(),
            json!({"read": p.file_ops.read.as_slice(), "written": p.file_ops.written.as_slice(), "edited": p.file_ops.edited.as_slice()}),
        );
    }
    prep.insert("tokensBefore".into(), serde_json::Number::from_f64(plan.tokens_before).map_or(Value::Null, Value::Number));
    let previous = plan.previous.map(|p| session.entry(p.node));
    if let Some(summary) = previous.and_then(|e| e.str_field("summary")) {
        prep.insert("previousSummary".into(), summary.into());
    }
    if omp {
        if let Some(data) = previous.and_then(|e| e.object()).and_then(|m| m.get("preserveData")) {
            prep.insert("previousPreserveData".into(), data.clone());
        }
    }
    let st = &plan.settings;
    prep.insert(
        "settings".into(),
        json!({"enabled": st.enabled, "reserveTokens": st.reserve_tokens, "keepRecentTokens": st.keep_recent_tokens}),
    );
    let mut payload = Map::new();
    payload.insert("type".into(), HookEvent::BeforeCompact.name().into());
    payload.insert("preparation".into(), Value::Object(prep));
    payload.insert("branchEntries".into(), path.iter().map(|&n| raw_entry(session, n, source)).collect());
    if let Some(text) = custom_instructions {
        payload.insert("customInstructions".into(), text.into());
    }
    Ok(Value::Object(payload))
}

/// omp's `session.compacting` payload: `messages = messagesToSummarize ++
/// turnPrefixMessages`.
pub fn compacting_payload(session: &Session, plan: &CompactionPlan, source: &dyn Source) -> Result<Value, ReadBackError> {
    let nodes: Vec<NodeId> =
        plan.prepared().map(|p| p.messages_to_summarize.iter().chain(&p.turn_prefix).copied().collect()).unwrap_or_default();
    let messages = nodes.iter().map(|&n| agent_message(session, Item::Entry(n), source)).collect::<Result<Vec<_>, _>>()?;
    let session_id = session.header().and_then(|h| h.get("id")).cloned().unwrap_or(Value::Null);
    Ok(json!({"type": HookEvent::Compacting.name(), "sessionId": session_id, "messages": messages}))
}

/// The `session_compact` payload: the entry as written and whether a hook
/// supplied it.
pub fn compact_payload(compaction_entry: &Value, from_extension: bool) -> Value {
    json!({"type": HookEvent::Compact.name(), "compactionEntry": compaction_entry, "fromExtension": from_extension})
}

/// What `navigateTree` hands `session_before_tree` as `preparation`
/// (branch-summary.md §1 step 4), by node.
#[derive(Debug, Clone, Copy)]
pub struct TreePreparation<'a> {
    /// The entry navigated to.
    pub target: NodeId,
    /// The leaf before the move (`None`: an empty session).
    pub old_leaf: Option<NodeId>,
    /// `collectEntriesForBranchSummary`'s common ancestor.
    pub common_ancestor: Option<NodeId>,
    /// The abandoned entries, chronological.
    pub entries_to_summarize: &'a [NodeId],
    /// The user asked for a summary.
    pub user_wants_summary: bool,
    /// pi only: the navigation options as given (`None` leaves the key out, as `undefined`).
    pub custom_instructions: Option<&'a str>,
    /// pi only.
    pub replace_instructions: Option<bool>,
    /// pi only.
    pub label: Option<&'a str>,
}

/// The `session_before_tree` payload: `{type, preparation: {targetId,
/// oldLeafId, commonAncestorId, entriesToSummarize, userWantsSummary, (pi)
/// customInstructions?, replaceInstructions?, label?}}`, the entries as
/// stored in the file. `signal` has no JSON form (the time limit stands in).
pub fn before_tree_payload(session: &Session, prep: &TreePreparation<'_>, source: &dyn Source) -> Value {
    let id = |n: Option<NodeId>| n.map_or(Value::Null, |n| Value::from(session.entry(n).id.to_string()));
    let mut p = Map::new();
    p.insert("targetId".into(), id(Some(prep.target)));
    p.insert("oldLeafId".into(), id(prep.old_leaf));
    p.insert("commonAncestorId".into(), id(prep.common_ancestor));
    p.insert("entriesToSummarize".into(), prep.entries_to_summarize.iter().map(|&n| raw_entry(session, n, source)).collect());
    p.insert("userWantsSummary".into(), prep.user_wants_summary.into());
    if session.dialect() == Dialect::Pi {
        if let Some(c) = prep.custom_instructions {
            p.insert("customInstructions".into(), c.into());
        }
        if let Some(r) = prep.replace_instructions {
            p.insert("replaceInstructions".into(), r.into());
        }
        if let Some(l) = prep.label {
            p.insert("label".into(), l.into());
        }
    }
    json!({"type": HookEvent::BeforeTree.name(), "preparation": p})
}

/// The `session_tree` payload: `{type, newLeafId, oldLeafId, summaryEntry?,
/// fromExtension?}`, the last two only when a summary entry was written.
pub fn tree_payload(new_leaf_id: Option<&str>, old_leaf_id: Option<&str>, summary: Option<(&Value, bool)>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), HookEvent::Tree.name().into());
    m.insert("newLeafId".into(), new_leaf_id.map_or(Value::Null, Value::from));
    m.insert("oldLeafId".into(), old_leaf_id.map_or(Value::Null, Value::from));
    if let Some((entry, from_extension)) = summary {
        m.insert("summaryEntry".into(), entry.clone());
        m.insert("fromExtension".into(), from_extension.into());
    }
    Value::Object(m)
}
