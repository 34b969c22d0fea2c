//! Summaries written without a model (offline, or no model configured), labelled as such in
//! the entry so nobody takes an extract for an LLM summary.

use contextree_core::compaction::{
    details_value, strip_file_tags, Answers, CompactionPlan, CompactionResult, HistoryStep, SummaryRequests,
};
use contextree_core::js::{js_trim_end, slice_utf16, utf16_len};
use contextree_core::session::Session;
use contextree_llm::offline::{parts, PartKind, OFFLINE_LABEL};
use contextree_llm::summarize_offline;

use crate::OFFLINE_DETAILS;

/// Answers written without a model (contextree-llm's extractive summary).
/// An update keeps the previous summary below the new extract, since an
/// extract of the new messages alone would lose it.
pub(super) fn offline_answers(s: &Session, plan: &CompactionPlan, requests: &SummaryRequests) -> Answers {
    let previous = plan.previous.and_then(|p| s.entry(p.node).str_field("summary")).filter(|t| !t.is_empty());
    let history = match &requests.history {
        HistoryStep::Call(c) => {
            // A folded history (omp 18): every window's conversation.
            let mut conversation = c.conversation().to_owned();
            for w in requests.transcript.iter().flat_map(|t| &t.fold) {
                conversation.push_str("\n\n");
                conversation.push_str(w);
            }
            let mut text = summarize_offline(&conversation);
            if let Some(prev) = previous {
                text.push_str("\n\n## Earlier Summary\n\n");
                text.push_str(js_trim_end(&strip_file_tags(prev)));
            }
            Some(text)
        }
        HistoryStep::Literal(_) => None,
    };
    let turn_prefix = requests.turn_prefix.as_ref().map(|c| summarize_offline(c.conversation()));
    let merged = requests.merge(history.as_deref(), turn_prefix.as_deref());
    let short = requests.short_call(&merged).map(|c| offline_short(c.conversation()));
    Answers { history, turn_prefix, short }
}

/// omp's short summary, offline: one sentence quoting the latest request
/// in the kept part, else the latest reply.
fn offline_short(recent: &str) -> String {
    let latest = |kind: PartKind| {
        parts(recent)
            .into_iter()
            .rev()
            .find(|(k, t)| *k == kind && !t.trim().is_empty())
            .map(|(_, t)| t.trim().lines().next().unwrap_or("").to_owned())
    };
    let clip = |t: String| if utf16_len(&t) > 200 { format!("{}\u{2026}", slice_utf16(&t, 200)) } else { t };
    match (latest(PartKind::User), latest(PartKind::Assistant)) {
        (Some(req), _) => format!("{OFFLINE_LABEL} Latest request kept verbatim: {}", clip(req)),
        (None, Some(reply)) => format!("{OFFLINE_LABEL} Latest reply kept verbatim: {}", clip(reply)),
        (None, None) => OFFLINE_LABEL.to_owned(),
    }
}

/// Marks an offline summary in `details` (the agents read only its two lists).
pub(super) fn label_offline(result: &mut CompactionResult, plan: &CompactionPlan) {
    let details = result.details.get_or_insert_with(|| details_value(&plan.prepared().map(|p| p.file_ops.lists()).unwrap_or_default()));
    if let Some(map) = details.as_object_mut() {
        map.insert("summarizer".into(), OFFLINE_DETAILS.into());
    }
}
