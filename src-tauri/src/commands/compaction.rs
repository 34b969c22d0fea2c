//! The PLAN panel: what a compaction of a leaf would do, read only (nothing is called or written).
//!
//! The same core calls as `contextree compact --dry-run`: `plan`, `summary_requests`, `preview`,
//! with the agent's own settings (its settings files) and the open session's prompt pack.

use contextree_core::compaction::prompt::pi_reasoning;
use contextree_core::compaction::{plan, preview, summary_requests, CompactionSettings, HistoryStep, PromptOptions};
use contextree_core::context::build;
use tauri::State;

use super::{blocking, leaf};
use crate::dto::CompactionPreviewView;
use crate::{AppState, CommandError};

/// The compaction plan of `leaf_id` (the file's leaf when `None`): the cut, the entries
/// summarized and kept, tokens before → after, warnings and the exact summarizer calls; or why
/// the agent would not compact. `keep_recent` overrides `keepRecentTokens`; `instructions` are
/// `/compact TEXT`'s custom instructions. Hooks are not run (a preview has no effects).
#[tauri::command]
pub async fn compaction_preview(
    state: State<'_, AppState>,
    leaf_id: Option<String>,
    keep_recent: Option<u64>,
    instructions: Option<String>,
) -> Result<CompactionPreviewView, CommandError> {
    blocking(state.session()?, move |open| {
        let (s, src, pack) = (&open.loaded.session, &open.loaded.source, &open.pack);
        let ctx = build(s, leaf(open, leaf_id.as_deref())?);
        let agent = contextree_host::settings::agent_settings_from_env(s.dialect());
        let settings =
            CompactionSettings { keep_recent_tokens: keep_recent.unwrap_or(agent.compaction.keep_recent_tokens), ..agent.compaction };
        let plan = plan(s, &ctx, &settings, src)?;
        let mut warnings = agent.warnings.clone();
        warnings.extend(plan.warnings.iter().cloned());
        if plan.outcome.is_err() {
            return Ok(CompactionPreviewView::nothing(s, &plan, warnings));
        }
        // omp@18 writes the conversation in the summary model's transcript format: the model a
        // compaction would ask first (contextree's candidates), else the path's.
        let mut candidates = if s.rules().summarizes_with_model_transcript() {
            contextree_ops::summarizer::candidates(&Default::default(), &agent).unwrap_or_default()
        } else {
            Default::default()
        };
        let path_model = contextree_core::models::current_model(&ctx.model, s.dialect());
        let summary_model = contextree_ops::summarizer::omp18_summary_model(s, path_model, &mut candidates, &mut warnings);
        let opts = PromptOptions {
            custom_instructions: instructions.filter(|t| !t.trim().is_empty()),
            pi_reasoning: pi_reasoning(false, &ctx.thinking_level),
            summary_model,
            ..Default::default()
        };
        let requests = summary_requests(s, &plan, src, pack, &opts)?;
        let pv = preview(s, &plan, &requests).map_err(|e| CommandError::Compaction(e.to_string()))?;
        let literal = match &requests.history {
            HistoryStep::Literal(text) => Some(text.clone()),
            HistoryStep::Call(_) => None,
        };
        let mut view = CompactionPreviewView::new(s, &plan, &pv, literal, &pack.origin().to_string(), warnings);
        if let Some(p) = plan.prepared() {
            let summarized: Vec<_> = p.messages_to_summarize.iter().chain(&p.turn_prefix).copied().collect();
            view.requests = contextree_core::drops::check_requests(s, &summarized, None, src)?;
        }
        Ok(view)
    })
    .await
}

/// The user requests compaction `compaction_id` summarized, each checked against its summary
/// for the paths, identifiers and quoted text it names (`mayBeLost` when none is there).
#[tauri::command]
pub async fn compaction_requests(
    state: State<'_, AppState>,
    compaction_id: String,
) -> Result<Vec<contextree_core::drops::Request>, CommandError> {
    blocking(state.session()?, move |open| {
        let (s, src) = (&open.loaded.session, &open.loaded.source);
        let c = s
            .node(&compaction_id)
            .filter(|&n| &*s.entry(n).entry_type == "compaction")
            .ok_or_else(|| CommandError::Compaction(format!("no compaction with id `{compaction_id}`")))?;
        let summary = s.entry(c).str_field("summary").map(str::to_owned);
        let nodes = contextree_core::drops::summarized_by(s, c);
        Ok(contextree_core::drops::check_requests(s, &nodes, summary.as_deref(), src)?)
    })
    .await
}

/// What the open session cost: the usage records summed per session, kind, model and branch,
/// each reply's context size and the compactions (core `spend`, as `contextree usage`).
#[tauri::command]
pub async fn usage_report(state: State<'_, AppState>) -> Result<contextree_core::spend::Spend, CommandError> {
    blocking(state.session()?, move |open| Ok(contextree_core::spend::spend(&open.loaded.session, &open.loaded.source)?)).await
}
