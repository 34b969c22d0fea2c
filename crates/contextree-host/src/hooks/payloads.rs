//! What each event hands its hooks: the agents' payloads, with the entries as
//! stored in the file.

use contextree_core::compaction::CompactionPlan;
use contextree_core::context::{agent_message, Item, ReadBackError};
use contextree_core::session::{NodeId, Session, Source};
use contextree_core::Dialect;
use serde::Serialize;
use serde_json::Value;

use super::HookEvent;
use crate::RawJson;

/// An entry as written in the file (the agents hand hooks their entry
/// objects); `null` when its line cannot be read back as JSON.
fn raw_entry(session: &Session, node: NodeId, source: &dyn Source) -> RawJson {
    let e = session.entry(node);
    let Ok(bytes) = source.bytes(e.span) else { return RawJson::null() };
    // Like omp's reading of a line: the first JSON value counts.
    serde_json::Deserializer::from_slice(&bytes)
        .into_iter::<Value>()
        .next()
        .and_then(Result::ok)
        .and_then(|v| RawJson::from_serialize(&v).ok())
        .unwrap_or_else(RawJson::null)
}

/// Agent messages (as the agents hand them to hooks).
fn messages(session: &Session, nodes: &[NodeId], source: &dyn Source) -> Result<Vec<RawJson>, ReadBackError> {
    nodes
        .iter()
        .map(|&n| agent_message(session, Item::Entry(n), source).map(|m| RawJson::from_serialize(&m).unwrap_or_else(|_| RawJson::null())))
        .collect()
}

/// `session_before_compact`'s payload.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BeforeCompactPayload {
    /// `session_before_compact`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// What prepareCompaction returns.
    pub preparation: CompactPreparation,
    /// The path root → leaf, as stored.
    pub branch_entries: Vec<RawJson>,
    /// `/compact TEXT`'s instructions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_instructions: Option<String>,
}

/// `preparation` of [`BeforeCompactPayload`]: the cut's fields only when there is a cut.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactPreparation {
    /// `firstKeptEntryId`: the id of the first entry kept verbatim after the summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_kept_entry_id: Option<String>,
    /// `messagesToSummarize`: the agent messages the history summary is written from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages_to_summarize: Option<Vec<RawJson>>,
    /// `turnPrefixMessages`: the agent messages of a split turn before the cut (empty when
    /// the cut falls between turns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_prefix_messages: Option<Vec<RawJson>>,
    /// omp only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recent_messages: Option<Vec<RawJson>>,
    /// `isSplitTurn`: the cut falls inside a turn, so a turn prefix is summarized too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_split_turn: Option<bool>,
    /// `fileOps`: the files the summarized part touched, with the previous compaction's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_ops: Option<PayloadFileOps>,
    /// `tokensBefore`: the context size before compacting (omp: the last usable usage, pi:
    /// the estimate); `null` when not finite.
    pub tokens_before: f64,
    /// `previousSummary`: the `summary` of the last compaction on the path, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_summary: Option<String>,
    /// omp only: the previous compaction's `preserveData`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_preserve_data: Option<RawJson>,
    /// `settings`: the compaction settings the plan used.
    pub settings: PayloadSettings,
}

/// The raw file-operation sets of a cut.
#[derive(Debug, Clone, Serialize)]
pub struct PayloadFileOps {
    /// `read`: paths of `read` tool calls, with the previous compaction's `readFiles`, in
    /// first-seen order.
    pub read: Vec<String>,
    /// `written`: paths of `write` tool calls, in first-seen order.
    pub written: Vec<String>,
    /// `edited`: paths of `edit` tool calls, with the previous compaction's `modifiedFiles`,
    /// in first-seen order.
    pub edited: Vec<String>,
}

/// The compaction settings the plan used.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PayloadSettings {
    /// `enabled`: automatic compaction is on.
    pub enabled: bool,
    /// `reserveTokens`: tokens left free for the model's reply.
    pub reserve_tokens: u64,
    /// `keepRecentTokens`: how many tokens of recent history are kept verbatim (as set,
    /// before omp's scaling).
    pub keep_recent_tokens: u64,
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
) -> Result<BeforeCompactPayload, ReadBackError> {
    let omp = session.dialect() == Dialect::Omp;
    let previous = plan.previous.map(|p| session.entry(p.node));
    let st = &plan.settings;
    let mut prep = CompactPreparation {
        first_kept_entry_id: None,
        messages_to_summarize: None,
        turn_prefix_messages: None,
        recent_messages: None,
        is_split_turn: None,
        file_ops: None,
        tokens_before: plan.tokens_before,
        previous_summary: previous.and_then(|e| e.str_field("summary")).map(str::to_owned),
        previous_preserve_data: previous
            .filter(|_| omp)
            .and_then(|e| e.object())
            .and_then(|m| m.get("preserveData"))
            .and_then(|d| RawJson::from_serialize(d).ok()),
        settings: PayloadSettings { enabled: st.enabled, reserve_tokens: st.reserve_tokens, keep_recent_tokens: st.keep_recent_tokens },
    };
    if let Some(p) = plan.prepared() {
        prep.first_kept_entry_id = Some(session.entry(p.first_kept).id.to_string());
        prep.messages_to_summarize = Some(messages(session, &p.messages_to_summarize, source)?);
        prep.turn_prefix_messages = Some(messages(session, &p.turn_prefix, source)?);
        if omp {
            prep.recent_messages = Some(messages(session, &p.recent, source)?);
        }
        prep.is_split_turn = Some(p.is_split_turn());
        prep.file_ops = Some(PayloadFileOps {
            read: p.file_ops.read.as_slice().to_vec(),
            written: p.file_ops.written.as_slice().to_vec(),
            edited: p.file_ops.edited.as_slice().to_vec(),
        });
    }
    Ok(BeforeCompactPayload {
        kind: HookEvent::BeforeCompact.name(),
        preparation: prep,
        branch_entries: path.iter().map(|&n| raw_entry(session, n, source)).collect(),
        custom_instructions: custom_instructions.map(str::to_owned),
    })
}

/// omp's `session.compacting` payload.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactingPayload {
    /// `session.compacting`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The header's `id` as stored (`null` without one).
    pub session_id: RawJson,
    /// `messagesToSummarize ++ turnPrefixMessages`, agent messages.
    pub messages: Vec<RawJson>,
}

/// omp's `session.compacting` payload: `messages = messagesToSummarize ++
/// turnPrefixMessages`.
pub fn compacting_payload(session: &Session, plan: &CompactionPlan, source: &dyn Source) -> Result<CompactingPayload, ReadBackError> {
    let nodes: Vec<NodeId> =
        plan.prepared().map(|p| p.messages_to_summarize.iter().chain(&p.turn_prefix).copied().collect()).unwrap_or_default();
    let session_id = session.header().and_then(|h| h.get("id")).and_then(|v| RawJson::from_serialize(v).ok()).unwrap_or_else(RawJson::null);
    Ok(CompactingPayload { kind: HookEvent::Compacting.name(), session_id, messages: messages(session, &nodes, source)? })
}

/// The `session_compact` payload.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactPayload<'a> {
    /// `session_compact`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The entry as written.
    pub compaction_entry: &'a RawJson,
    /// A hook (or the user) supplied it.
    pub from_extension: bool,
}

/// The `session_compact` payload: the entry as written and whether a hook
/// supplied it.
pub fn compact_payload(compaction_entry: &RawJson, from_extension: bool) -> CompactPayload<'_> {
    CompactPayload { kind: HookEvent::Compact.name(), compaction_entry, from_extension }
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

/// `session_before_tree`'s payload.
#[derive(Debug, Clone, Serialize)]
pub struct BeforeTreePayload {
    /// `session_before_tree`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `preparation`: the navigation, as `navigateTree` hands it to the event.
    pub preparation: TreePreparationPayload,
}

/// `preparation` of [`BeforeTreePayload`].
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreePreparationPayload {
    /// `targetId`: the id of the entry navigated to.
    pub target_id: Option<String>,
    /// `oldLeafId`: the id of the leaf before the move; `null` in an empty session.
    pub old_leaf_id: Option<String>,
    /// `commonAncestorId`: the id of the deepest entry shared by the old and the new path;
    /// `null` when they share none or there is no old leaf.
    pub common_ancestor_id: Option<String>,
    /// `entriesToSummarize`: the abandoned entries, chronological, as stored in the file.
    pub entries_to_summarize: Vec<RawJson>,
    /// `userWantsSummary`: the user asked for a branch summary.
    pub user_wants_summary: bool,
    /// pi only, as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_instructions: Option<String>,
    /// pi only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replace_instructions: Option<bool>,
    /// pi only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// The `session_before_tree` payload: `{type, preparation: {targetId,
/// oldLeafId, commonAncestorId, entriesToSummarize, userWantsSummary, (pi)
/// customInstructions?, replaceInstructions?, label?}}`, the entries as
/// stored in the file. `signal` has no JSON form (the time limit stands in).
pub fn before_tree_payload(session: &Session, prep: &TreePreparation<'_>, source: &dyn Source) -> BeforeTreePayload {
    let id = |n: Option<NodeId>| n.map(|n| session.entry(n).id.to_string());
    let pi = session.dialect() == Dialect::Pi;
    BeforeTreePayload {
        kind: HookEvent::BeforeTree.name(),
        preparation: TreePreparationPayload {
            target_id: id(Some(prep.target)),
            old_leaf_id: id(prep.old_leaf),
            common_ancestor_id: id(prep.common_ancestor),
            entries_to_summarize: prep.entries_to_summarize.iter().map(|&n| raw_entry(session, n, source)).collect(),
            user_wants_summary: prep.user_wants_summary,
            custom_instructions: prep.custom_instructions.filter(|_| pi).map(str::to_owned),
            replace_instructions: prep.replace_instructions.filter(|_| pi),
            label: prep.label.filter(|_| pi).map(str::to_owned),
        },
    }
}

/// The `session_tree` payload.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreePayload<'a> {
    /// `session_tree`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `newLeafId`: the id of the leaf after the move (the last entry the navigation wrote).
    pub new_leaf_id: Option<&'a str>,
    /// `oldLeafId`: the leaf before the move; `null` in an empty session.
    pub old_leaf_id: Option<&'a str>,
    /// The summary entry written, when one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary_entry: Option<&'a RawJson>,
    /// With `summaryEntry`: a hook supplied the summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_extension: Option<bool>,
}

/// The `session_tree` payload: `{type, newLeafId, oldLeafId, summaryEntry?,
/// fromExtension?}`, the last two only when a summary entry was written.
pub fn tree_payload<'a>(
    new_leaf_id: Option<&'a str>,
    old_leaf_id: Option<&'a str>,
    summary: Option<(&'a RawJson, bool)>,
) -> TreePayload<'a> {
    TreePayload {
        kind: HookEvent::Tree.name(),
        new_leaf_id,
        old_leaf_id,
        summary_entry: summary.map(|(e, _)| e),
        from_extension: summary.map(|(_, f)| f),
    }
}
