//! Asking the models for the summaries, in the agent's order of calls, and what pi stores of
//! their answers (its usage shape, its refusal of a summary cut at the output cap).

use contextree_core::compaction::{Answers, CallKind, HistoryStep, SummarizerCall, SummaryRequests};
use contextree_host::HostEnv;
use contextree_llm::{CancelToken, Candidates, Summary, SummaryRequest, Usage};

use crate::progress::{llm_error, Asker};
use crate::report::{ModelAnswer, PiCost, PiUsage, Summarizer};
use crate::{Call, OpsError, ProgressFn};

/// The calls a set of requests makes, in order (the short call only when there is one).
pub(super) fn calls(requests: &SummaryRequests) -> Vec<Call> {
    let mut v: Vec<Call> = requests.first_calls().iter().map(|c| call_of(c.kind)).collect();
    if requests.has_short() {
        v.push(Call::Short);
    }
    v
}

fn summary_request(call: &SummarizerCall) -> SummaryRequest {
    SummaryRequest {
        system_prompt: call.system_prompt.clone(),
        prompt: call.prompt.clone(),
        max_tokens: call.sent_max_tokens().map(|m| u32::try_from(m).unwrap_or(u32::MAX)),
        reasoning: call.reasoning.clone(),
    }
}

/// `stopReason` values that mean the answer stopped at the output cap.
fn hit_token_cap(summary: &Summary) -> bool {
    matches!(summary.stop_reason.as_deref(), Some("length" | "max_tokens"))
}

/// pi ≥ 0.84.3's refusal of a length-capped summary (pi-1.6.md §4.4), as
/// `<label> failed: …`.
pub(crate) fn token_cap_failure(label: &str) -> String {
    format!("{label} failed: generation hit the token cap and the summary is incomplete")
}

/// The usage pi stores with a summary entry (its `Usage` shape), from what the
/// providers reported: input and output tokens, no cache or cost figures
/// (contextree does not know them); summed over the calls as pi's
/// `combineUsage` does. `None` when no call reported usage.
pub(crate) fn pi_usage<'a>(reports: impl IntoIterator<Item = &'a Usage>) -> Option<PiUsage> {
    let mut any = false;
    let (mut input, mut output) = (0u64, 0u64);
    for u in reports {
        any = true;
        input += u.input_tokens.unwrap_or(0);
        output += u.output_tokens.unwrap_or(0);
    }
    any.then(|| PiUsage {
        input,
        output,
        cache_read: 0,
        cache_write: 0,
        total_tokens: input + output,
        cost: PiCost { input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0 },
    })
}

fn call_of(kind: CallKind) -> Call {
    match kind {
        CallKind::History => Call::History,
        CallKind::TurnPrefix => Call::TurnPrefix,
        CallKind::Short => Call::Short,
    }
}

/// Round 1 (history and turn prefix: concurrently as pi 0.73 and omp do, one
/// after the other as pi 1.6 does), then omp's short summary quoting round 1's
/// merged result. Also returns pi's usage of the calls.
pub(super) fn ask_models(
    requests: &SummaryRequests,
    candidates: &Candidates,
    env: &HostEnv,
    progress: ProgressFn<'_>,
    cancel: &CancelToken,
) -> Result<(Answers, Summarizer, Option<PiUsage>), OpsError> {
    let asker = Asker::new(candidates, cancel, progress, env)?;
    // pi's wording for a failed manual compaction (hooks-and-settings.md §2).
    fn failed(what: &'static str) -> impl Fn(contextree_llm::LlmError) -> OpsError {
        move |e| llm_error(e, |e| format!("Compaction failed: {e} (the {what} summary)"))
    }
    let ask = |call: Option<&SummarizerCall>| {
        let asker = &asker;
        let request = call.map(|c| (call_of(c.kind), summary_request(c)));
        async move {
            match request {
                Some((kind, request)) => asker.ask(kind, &request).await.map(Some),
                None => Ok(None),
            }
        }
    };
    let history_call = match &requests.history {
        HistoryStep::Call(c) => Some(c),
        HistoryStep::Literal(_) => None,
    };
    // pi 1.6 refuses a summary cut at the output cap.
    let capped = |s: &Option<Summary>, kind: CallKind| match s {
        Some(s) if requests.rejects_length_stop() && hit_token_cap(s) => Err(OpsError::Provider {
            message: format!("Compaction failed: {}", token_cap_failure(SummaryRequests::label(kind))),
            source: None,
        }),
        _ => Ok(()),
    };
    // omp 18 folds an oversized history over several windows, one call after the other, each
    // quoting the summary the one before returned.
    let history_chain = || async {
        let mut carried = ask(history_call).await?;
        for i in 0..requests.fold_len() {
            let text = carried.as_ref().map(|s| s.text.clone()).unwrap_or_default();
            let Some(call) = requests.fold_call(i, &text) else { break };
            carried = ask(Some(&call)).await?;
        }
        Ok::<_, contextree_llm::LlmError>(carried)
    };
    let (history, prefix) = if requests.sequential() {
        let history = asker.block_on(history_chain()).map_err(failed("history"))?;
        capped(&history, CallKind::History)?;
        let prefix = asker.block_on(ask(requests.turn_prefix.as_ref())).map_err(failed("turn-prefix"))?;
        (history, prefix)
    } else {
        let (history, prefix) = asker.block_on(async { tokio::join!(history_chain(), ask(requests.turn_prefix.as_ref())) });
        (history.map_err(failed("history"))?, prefix.map_err(failed("turn-prefix"))?)
    };
    capped(&history, CallKind::History)?;
    capped(&prefix, CallKind::TurnPrefix)?;
    let text = |s: &Option<contextree_llm::Summary>| s.as_ref().map(|s| s.text.clone());
    let merged = requests.merge(text(&history).as_deref(), text(&prefix).as_deref());
    let short = match requests.short_call(&merged) {
        Some(call) => asker.block_on(ask(Some(&call))).map_err(failed("short"))?,
        None => None,
    };
    let used: Vec<ModelAnswer> = [(Call::History, &history), (Call::TurnPrefix, &prefix), (Call::Short, &short)]
        .iter()
        .filter_map(|&(call, s)| {
            s.as_ref().map(|s| ModelAnswer {
                call,
                provider: s.provider.clone(),
                model: s.model.clone(),
                stop_reason: s.stop_reason.clone(),
            })
        })
        .collect();
    let answers = Answers { history: text(&history), turn_prefix: text(&prefix), short: text(&short) };
    let usage = pi_usage([&history, &prefix].into_iter().flatten().filter_map(|s| s.usage.as_ref()));
    Ok((answers, Summarizer::Models { calls: used }, usage))
}
