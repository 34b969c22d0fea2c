//! What every path of the flow starts from, shared so that the preview, the dry run and the
//! run plan with the same settings and build the same prompts.

use contextree_core::compaction::{
    pi_reasoning, plan, CompactingHook, CompactionPlan, CompactionSettings, PromptBuildError, PromptOptions,
};
use contextree_core::context::{self, Leaf};
use contextree_core::prompts::PromptPack;
use contextree_core::Dialect;
use contextree_host::settings::AgentSettings;
use contextree_host::{HostEnv, LoadedSession};

use crate::summarizer::ProviderFlags;
use crate::OpsError;

/// What to compact and how.
pub struct CompactOptions<'a> {
    /// The leaf whose context is compacted; the new entry's parent.
    pub leaf: Leaf,
    /// The prompt pack, asked for only when there is something to compact.
    pub pack: &'a dyn Fn(Dialect) -> Result<PromptPack, OpsError>,
    /// Custom instructions (`/compact TEXT`).
    pub instructions: Option<String>,
    /// `keepRecentTokens` (default: the agent's setting).
    pub keep_recent: Option<u64>,
    /// `reserveTokens` (default: the agent's setting).
    pub reserve: Option<u64>,
    /// pi: the summarizing model reasons.
    pub model_reasons: bool,
    /// omp: `session.compacting` context lines, after the hooks' lines.
    pub context: Vec<String>,
    /// The user's own summary (stored as a hook's).
    pub summary: Option<String>,
    /// Which models to ask.
    pub provider: ProviderFlags,
    /// The machine: the agent's settings, the hooks and the config file are read through it.
    pub env: &'a HostEnv,
}

/// The settings and the plan every path starts from.
pub(super) struct Start {
    pub(super) agent: AgentSettings,
    pub(super) ctx: context::Context,
    pub(super) plan: CompactionPlan,
    pub(super) warnings: Vec<String>,
}

pub(super) fn start(loaded: &LoadedSession, opts: &CompactOptions<'_>) -> Result<Start, OpsError> {
    let s = &loaded.session;
    let ctx = context::build(s, opts.leaf);
    let agent = opts.env.agent_settings(s.dialect());
    let settings = CompactionSettings {
        keep_recent_tokens: opts.keep_recent.unwrap_or(agent.compaction.keep_recent_tokens),
        reserve_tokens: opts.reserve.unwrap_or(agent.compaction.reserve_tokens),
        reserve_tokens_set: opts.reserve.is_some() || agent.compaction.reserve_tokens_set,
        ..agent.compaction
    };
    let plan = plan(s, &ctx, &settings, &loaded.source)?;
    let mut warnings = agent.warnings.clone();
    warnings.extend(plan.warnings.iter().cloned());
    if s.dialect() == Dialect::Pi && !opts.context.is_empty() {
        warnings.push("--context is ignored: pi has no session.compacting hook".to_owned());
    }
    Ok(Start { agent, ctx, plan, warnings })
}

pub(super) fn prompt_options(opts: &CompactOptions<'_>, ctx: &context::Context) -> PromptOptions {
    PromptOptions {
        custom_instructions: opts.instructions.clone(),
        hook: CompactingHook { context: opts.context.clone(), ..Default::default() },
        pi_reasoning: pi_reasoning(opts.model_reasons, &ctx.thinking_level),
        summary_model: None,
    }
}

/// A request that cannot be built: omp 18's fold (an input over the summarizer's budget) is a
/// refusal, the rest a failure.
pub(super) fn request_error(e: PromptBuildError) -> OpsError {
    match e {
        PromptBuildError::TooLarge(why) => OpsError::Refused(format!("Compaction not attempted: {why}")),
        e => OpsError::Requests(e),
    }
}
