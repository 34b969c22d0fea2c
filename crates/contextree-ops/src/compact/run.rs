//! The compaction itself: hooks (`run_hooks.rs`), summaries, and the one appended `compaction`
//! entry, with every way it can stop before the write leaving the file as it was.

use contextree_core::compaction::{compaction_result, new_entry, summary_requests, supplied_result, system_checkpoint, SuppliedCompaction};
use contextree_core::models::current_model;
use contextree_core::Dialect;
use contextree_host::hooks::HookEvent;
use contextree_host::write::{append_to_loaded, now_iso, random_u32, Appended};
use contextree_host::{LoadedSession, RawJson};
use contextree_llm::CancelToken;

use super::ask::{ask_models, calls};
use super::offline::{label_offline, offline_answers};
use super::run_hooks::{before_compact_hooks, compact_hooks, compacting_hooks};
use super::start::{prompt_options, request_error, start, CompactOptions, Start};
use crate::error::{require_entry_ids, write_error};
use crate::report::Summarizer;
use crate::summarizer::{self, load_hooks};
use crate::{OpsError, Progress, ProgressFn};

/// What was written.
#[derive(Debug)]
pub struct CompactOutcome {
    /// Whose rules applied.
    pub dialect: Dialect,
    /// The new entry's id.
    pub id: String,
    /// Its parent (the leaf).
    pub parent_id: Option<String>,
    /// The appended line.
    pub line: String,
    /// The appended entry.
    pub entry: RawJson,
    /// Where it went.
    pub appended: Appended,
    /// How the summary was written (`{kind: model|offline|supplied|hook, ...}`).
    pub summarizer: Summarizer,
    /// The entry's `firstKeptEntryId`.
    pub first_kept_entry_id: String,
    /// Everything worth telling (settings, hooks, a raced append).
    pub warnings: Vec<String>,
}

/// Compacts `opts.leaf` and appends the entry. `cancel` stops a model call (nothing is
/// written, [`OpsError::Cancelled`]).
pub fn run(
    loaded: &LoadedSession,
    opts: &CompactOptions<'_>,
    progress: ProgressFn<'_>,
    cancel: &CancelToken,
) -> Result<CompactOutcome, OpsError> {
    let s = &loaded.session;
    // Read before anything is planned: a broken hooks section must stop the
    // run rather than skip a hook the user relies on (to cancel, say).
    let hooks = load_hooks(opts.env)?;
    let Start { agent, ctx, plan, mut warnings } = start(loaded, opts)?;
    if let Err(reason) = &plan.outcome {
        // The agents' own refusal texts ("Already compacted", ...).
        return Err(OpsError::Refused(reason.to_string()));
    }
    let pack = (opts.pack)(s.dialect())?;
    let mut prompt_opts = prompt_options(opts, &ctx);
    require_entry_ids(loaded)?;

    // session_before_compact: may cancel, or supply the whole compaction.
    let hook_supplied = before_compact_hooks(loaded, &ctx, &plan, opts, &hooks, cancel, &mut warnings)?;
    // session.compacting (omp only, and only when nothing was supplied).
    if s.dialect() == Dialect::Omp
        && opts.summary.is_none()
        && hook_supplied.is_none()
        && !hooks.for_event(HookEvent::Compacting).is_empty()
    {
        prompt_opts.hook = compacting_hooks(loaded, &plan, opts, &hooks, cancel, &mut warnings)?;
    }

    // The user's summary is their answer here and now, so it wins over a hook's.
    let supplied = match (&opts.summary, hook_supplied) {
        (Some(text), _) => Some((SuppliedCompaction { summary: text.clone(), ..Default::default() }, Summarizer::Supplied)),
        (None, Some(c)) => Some((c, Summarizer::Hook { event: HookEvent::BeforeCompact.name() })),
        (None, None) => None,
    };
    let from_extension = supplied.is_some();
    let (mut result, summarizer) = match supplied {
        Some((supplied, summarizer)) => (supplied_result(s, &plan, &supplied)?, summarizer),
        None => {
            let mut candidates = summarizer::candidates(&opts.provider, &agent, opts.env)?;
            prompt_opts.summary_model =
                summarizer::omp18_summary_model(s, current_model(&ctx.model, s.dialect()), &mut candidates, &mut warnings);
            let requests = summary_requests(s, &plan, &loaded.source, &pack, &prompt_opts).map_err(request_error)?;
            let (answers, summarizer, usage) = if opts.provider.offline || candidates.is_empty() {
                let why = summarizer::offline_why(&opts.provider, &agent);
                for call in calls(&requests) {
                    progress(Progress::Offline { call });
                }
                (offline_answers(s, &plan, &requests), Summarizer::Offline { why }, None)
            } else {
                ask_models(&requests, &candidates, opts.env, progress, cancel)?
            };
            let mut result = compaction_result(s, &plan, &requests, &answers, &prompt_opts.hook)?;
            if summarizer.is_offline() {
                label_offline(&mut result, &plan);
            }
            // pi ≥ 0.81 stores the calls' usage with the entry.
            result.usage = usage.filter(|_| s.rules().projects_context_edits()).and_then(|u| serde_json::to_value(u).ok());
            (result, summarizer)
        }
    };
    // pi ≥ 0.86: the system prompt and tools in effect, as the entry's checkpoint.
    result.system_message = system_checkpoint(s, &ctx, &loaded.source)?;
    if cancel.is_cancelled() {
        return Err(OpsError::Cancelled);
    }

    progress(Progress::Writing);
    let mut draw = random_u32;
    let entry = new_entry(s, &plan, &result, &now_iso(), &mut draw);
    let appended = append_to_loaded(loaded, std::slice::from_ref(&entry.line))
        .map_err(|e| write_error(e, "nothing was written; the plan was made from the old contents"))?;
    if appended.raced {
        warnings.push(
            "another process appended to the file during the write: both lines are whole, but the new entry follows its lines".to_owned(),
        );
    }
    warnings.extend(appended.sync_warning());
    let entry_value = RawJson::from_text(&entry.line).map_err(|source| OpsError::Json { what: "the entry written", source })?;
    compact_hooks(&hooks, &entry_value, from_extension, &mut warnings);
    Ok(CompactOutcome {
        dialect: plan.dialect,
        id: entry.id,
        parent_id: entry.parent_id,
        line: entry.line,
        entry: entry_value,
        appended,
        summarizer,
        first_kept_entry_id: result.first_kept_entry_id,
        warnings,
    })
}
