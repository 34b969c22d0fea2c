//! Wire types of the commands that are not yet reports of the read layer (contextree-read):
//! camelCase JSON, converted from core values here. The session and the context are the read
//! layer's reports, the same values the CLI's `--json` prints.

use serde::Serialize;

use crate::state::OpenSession;

/// An opened session, as `open_session` returns it (and `session-changed` carries it): the
/// read layer's report.
pub type SessionView = contextree_read::SessionReport;

/// [`SessionView`] of an open session.
pub fn session_view(open: &OpenSession) -> SessionView {
    contextree_read::SessionReport::new(&open.loaded.path, open.loaded.fingerprint.len, &open.loaded.session, open.request)
}

/// One summarizer call of a compaction preview, exactly as it would be sent.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummarizerCallView {
    /// `history`, `turnPrefix` or `short` (omp's short summary).
    pub kind: &'static str,
    pub system_prompt: String,
    pub prompt: String,
    pub max_tokens: u64,
    /// The `reasoning` option, when one is sent.
    pub reasoning: Option<String>,
}

/// What `compaction_preview` returns: the plan of a compaction, or why there is none.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionPreviewView {
    pub dialect: &'static str,
    /// The leaf whose path would be compacted.
    pub leaf_id: Option<String>,
    /// True when the agent would not compact; `reason` says why (the agent's own text).
    pub nothing_to_compact: bool,
    pub reason: Option<String>,
    /// The prompt pack the calls are written with.
    pub prompt_pack: Option<String>,
    pub first_kept_entry_id: Option<String>,
    pub is_split_turn: bool,
    /// `tokensBefore` as the dialect computes it.
    pub tokens_before: f64,
    pub keep_recent_tokens_used: u64,
    pub kept_tokens: u64,
    pub summary_budget: u64,
    /// At most this many tokens after the compaction (kept + summary budget).
    pub estimated_tokens_after: Option<u64>,
    /// Entries whose messages the history summary covers.
    pub summarized_ids: Vec<String>,
    /// The split turn's entries before the cut (summarized separately).
    pub turn_prefix_ids: Vec<String>,
    /// Entries kept verbatim after the summary.
    pub kept_ids: Vec<String>,
    /// omp: entries the previous compaction kept that this one drops.
    pub dropped_ids: Vec<String>,
    /// omp's history step without a call (`No prior history.`, a reused summary).
    pub history_literal: Option<String>,
    pub warnings: Vec<String>,
    pub calls: Vec<SummarizerCallView>,
    /// The user's requests it would summarize, with the paths, identifiers and quoted text
    /// they name (what the summary should keep; core `drops`).
    pub requests: Vec<contextree_core::drops::Request>,
}

impl CompactionPreviewView {
    /// contextree-ops' preview of a compaction, as the plan panel shows it; `requests` are the
    /// user requests it would summarize.
    pub fn new(pv: contextree_ops::compact::PlanPreview, requests: Vec<contextree_core::drops::Request>) -> Self {
        let mut v = Self {
            dialect: pv.dialect.name(),
            leaf_id: pv.leaf_id,
            nothing_to_compact: true,
            reason: None,
            prompt_pack: None,
            first_kept_entry_id: None,
            is_split_turn: false,
            tokens_before: pv.tokens_before,
            keep_recent_tokens_used: pv.keep_recent_tokens_used,
            kept_tokens: 0,
            summary_budget: 0,
            estimated_tokens_after: None,
            summarized_ids: vec![],
            turn_prefix_ids: vec![],
            kept_ids: vec![],
            dropped_ids: vec![],
            history_literal: None,
            warnings: pv.warnings,
            calls: vec![],
            requests,
        };
        let p = match pv.planned {
            Err(reason) => {
                v.reason = Some(reason.to_string());
                return v;
            }
            Ok(p) => p,
        };
        v.nothing_to_compact = false;
        v.prompt_pack = Some(p.prompt_pack);
        v.first_kept_entry_id = Some(p.first_kept_entry_id);
        v.is_split_turn = p.is_split_turn;
        v.tokens_before = p.preview.tokens_before.0;
        v.kept_tokens = p.preview.kept_tokens;
        v.summary_budget = p.preview.summary_budget;
        v.estimated_tokens_after = Some(p.preview.estimated_tokens_after);
        v.summarized_ids = p.messages_to_summarize_ids.to_vec();
        v.turn_prefix_ids = p.turn_prefix_ids.to_vec();
        v.kept_ids = p.recent_messages_ids.to_vec();
        v.dropped_ids = p.dropped_ids.to_vec();
        v.history_literal = p.history_literal;
        v.calls = p
            .calls
            .into_iter()
            .map(|c| SummarizerCallView {
                kind: c.kind.unwrap_or_default(),
                system_prompt: c.system_prompt,
                prompt: c.prompt,
                max_tokens: c.budget_tokens,
                reasoning: c.reasoning,
            })
            .collect();
        v
    }
}
