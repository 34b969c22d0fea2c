//! `contextree compact --dry-run`'s document: the preview plus what only a dry run tells (the
//! hooks that would run, the agent's own automatic check), typed so both faces serialize it.

use contextree_core::compaction::{auto_check_with, CheckInputs, CompactionPlan};
use contextree_core::context;
use contextree_core::models::{current_model, resolve_window};
use contextree_host::hooks::{HookEvent, Hooks};
use contextree_host::LoadedSession;
use serde::{Serialize, Serializer};

use super::preview::{plan_preview, Planned, TranscriptView};
use super::start::CompactOptions;
use crate::auto_check::AutoCheckReport;
use crate::report::{CallView, JsNumber};
use crate::summarizer::load_hooks;
use crate::OpsError;

/// Event → number of hooks configured, in the events' order (a dry run runs none of them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfiguredHooks(pub Vec<(&'static str, usize)>);

/// In the UI's types: an object of counts by event.
#[cfg(feature = "ts")]
impl ts_rs::TS for ConfiguredHooks {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn name(_: &ts_rs::Config) -> String {
        "Record<string, number>".to_owned()
    }
    fn inline(cfg: &ts_rs::Config) -> String {
        Self::name(cfg)
    }
}

impl Serialize for ConfiguredHooks {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// `contextree compact --dry-run`'s document: the plan and the exact prompts, the settings
/// files, the hooks that would run and the agent's own automatic check (without the dialect and
/// rule set, which the face writes first).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum DryRun {
    /// The agent would not compact.
    Nothing(Box<NothingDoc>),
    /// The plan.
    Plan(Box<PlanDoc>),
}

/// [`DryRun`] when the agent would not compact.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct NothingDoc {
    /// The id of the leaf whose path was planned; `null` for an empty session or a reset leaf.
    pub leaf_id: Option<String>,
    /// Always true: the document is a dry run's.
    pub dry_run: bool,
    /// Always true.
    #[cfg_attr(feature = "ts", ts(type = "true"))]
    pub nothing_to_compact: bool,
    /// The agent's own text.
    pub reason: String,
    /// `tokensBefore` as the dialect computes it (what the context holds now).
    pub tokens_before: JsNumber,
    /// The agent's settings files read, in merge order.
    pub settings_files: Vec<String>,
    /// Everything worth telling about the settings and the plan.
    pub warnings: Vec<String>,
    /// Whether and how the agent itself would compact after its last run.
    pub auto_check: AutoCheckReport,
}

/// [`DryRun`] with a plan.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PlanDoc {
    /// The id of the leaf whose path is compacted.
    pub leaf_id: Option<String>,
    /// Always true: the document is a dry run's.
    pub dry_run: bool,
    /// Always false.
    #[cfg_attr(feature = "ts", ts(type = "false"))]
    pub nothing_to_compact: bool,
    /// The plan, its numbers and its calls, flattened into this object.
    #[serde(flatten)]
    pub planned: Planned,
    /// Everything worth telling (settings, the plan, the summary model, omp 18's fold).
    pub warnings: Vec<String>,
    /// omp 18: the transcript format the conversation is written in for the summary model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript: Option<TranscriptView>,
    /// omp 18: the history calls after the first when the agent folds a long history, each
    /// quoting the answer before it as [`FOLD_MARKER`](super::FOLD_MARKER).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fold_calls: Vec<CallView>,
    /// The agent's settings files read, in merge order.
    pub settings_files: Vec<String>,
    /// Event → number of hooks configured for it (events without hooks left out).
    pub hooks: ConfiguredHooks,
    /// Whether and how the agent itself would compact after its last run.
    pub auto_check: AutoCheckReport,
}

impl DryRun {
    /// The settings files, the warnings and the automatic check, whichever the document is.
    pub fn settings_files(&self) -> &[String] {
        match self {
            DryRun::Nothing(d) => &d.settings_files,
            DryRun::Plan(d) => &d.settings_files,
        }
    }

    /// The automatic check.
    pub fn auto_check(&self) -> &AutoCheckReport {
        match self {
            DryRun::Nothing(d) => &d.auto_check,
            DryRun::Plan(d) => &d.auto_check,
        }
    }
}

/// The plan and the exact prompts as one document (`contextree compact --dry-run`): the
/// [`preview_plan`](super::preview_plan), the hooks that would run and the agent's own automatic
/// check; calls nothing, writes nothing, runs no hook.
pub fn dry_run(loaded: &LoadedSession, opts: &CompactOptions<'_>) -> Result<DryRun, OpsError> {
    // Read before anything is planned: a broken hooks section must stop the run rather than
    // skip a hook the user relies on (to cancel, say).
    let hooks = load_hooks(opts.env)?;
    let (pv, auto) = plan_preview(loaded, opts, |ctx, plan| auto_check_report(loaded, ctx, plan))?;
    Ok(match pv.planned {
        Err(reason) => DryRun::Nothing(Box::new(NothingDoc {
            leaf_id: pv.leaf_id,
            dry_run: true,
            nothing_to_compact: true,
            reason: reason.to_string(),
            tokens_before: JsNumber(pv.tokens_before),
            settings_files: pv.settings_files,
            warnings: pv.warnings,
            auto_check: auto,
        })),
        Ok(mut planned) => DryRun::Plan(Box::new(PlanDoc {
            leaf_id: pv.leaf_id,
            dry_run: true,
            nothing_to_compact: false,
            transcript: planned.transcript.take(),
            fold_calls: std::mem::take(&mut planned.fold_calls),
            planned,
            warnings: pv.warnings,
            settings_files: pv.settings_files,
            hooks: configured_hooks(&hooks),
            auto_check: auto,
        })),
    })
}

/// Whether and how the agent itself would compact after its last run, with the agent's settings
/// and the model table's window (`autoCheck` of the dry run): under omp 18 also its stale pass
/// and the method it would pick; contextree writes an LLM summary (`soft`) either way.
fn auto_check_report(loaded: &LoadedSession, ctx: &context::Context, plan: &CompactionPlan) -> Result<AutoCheckReport, OpsError> {
    let s = &loaded.session;
    let model = current_model(&ctx.model, s.dialect());
    let (window, _) = resolve_window(None, model.as_deref());
    let check = auto_check_with(s, ctx, &plan.settings, window, None, &CheckInputs::default(), &loaded.source)?;
    Ok(crate::auto_check::auto_check_report(s, &check))
}

/// Event → number of hooks, for the dry run (which runs none of them).
fn configured_hooks(hooks: &Hooks) -> ConfiguredHooks {
    ConfiguredHooks(HookEvent::ALL.into_iter().map(|e| (e.name(), hooks.for_event(e).len())).filter(|(_, n)| *n > 0).collect())
}
