//! [`Progress`]: what a flow reports while it summarizes and writes, and the model calls that
//! report it.

use std::sync::Mutex;

use contextree_llm::{CancelToken, Candidates, Event, LlmError, Summary, SummaryRequest};
use serde::Serialize;

/// Which summary a report is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Call {
    /// The compaction's history summary.
    History,
    /// The compaction's turn-prefix summary (a split turn).
    TurnPrefix,
    /// omp's short summary.
    Short,
    /// A branch summary (navigate).
    Branch,
}

impl Call {
    /// The name the CLI and the wire use (`history`, `turnPrefix`, `short`, `branch`).
    pub fn name(self) -> &'static str {
        match self {
            Call::History => "history",
            Call::TurnPrefix => "turnPrefix",
            Call::Short => "short",
            Call::Branch => "branch",
        }
    }
}

/// One report; serialized as the app's `ProgressEvent` (`{kind: 'attempt', call, ...}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Progress {
    /// A model is asked (`attempt` 0 is the first try of this candidate).
    Attempt {
        /// The summary.
        call: Call,
        /// The candidate's label.
        provider: String,
        /// The model.
        model: String,
        /// 0, 1, 2, ...
        attempt: u32,
        /// Milliseconds left of the call's total deadline as the attempt starts (the app
        /// counts down from it); absent when the call has no deadline.
        #[serde(skip_serializing_if = "Option::is_none")]
        deadline_ms: Option<u64>,
    },
    /// The next piece of summary text.
    Delta {
        /// The summary.
        call: Call,
        /// The text.
        text: String,
    },
    /// The attempt failed and is retried after `delay_ms`; its text so far is void.
    Retry {
        /// The summary.
        call: Call,
        /// Why (keys redacted).
        error: String,
        /// The wait before the retry.
        delay_ms: u64,
    },
    /// The candidate failed for good and the next is tried; its text so far is void.
    Fallback {
        /// The summary.
        call: Call,
        /// The candidate that failed.
        provider: String,
        /// Its last error.
        error: String,
    },
    /// The call has its summary (its deadline no longer runs; other calls may still stream).
    Done {
        /// The summary.
        call: Call,
    },
    /// The offline extractive summary is used for this call (no model).
    Offline {
        /// The summary.
        call: Call,
    },
    /// The summaries are done; the entry is being written.
    Writing,
}

/// The progress callback the flows take.
pub type ProgressFn<'a> = &'a mut (dyn FnMut(Progress) + Send);

impl Progress {
    fn from_event(call: Call, event: Event<'_>) -> Option<Progress> {
        Some(match event {
            Event::Attempt { provider, model, attempt, deadline_left } => Progress::Attempt {
                call,
                provider: provider.to_owned(),
                model: model.to_owned(),
                attempt,
                deadline_ms: deadline_left.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            },
            Event::Delta(text) => Progress::Delta { call, text: text.to_owned() },
            Event::Retry { error, delay } => {
                Progress::Retry { call, error: error.to_string(), delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX) }
            }
            Event::Fallback { provider, error } => Progress::Fallback { call, provider: provider.to_owned(), error: error.to_string() },
            _ => return None,
        })
    }
}

/// Asks models for summaries on a current-thread runtime of its own, reporting to one
/// callback (shared by concurrent calls through a mutex, never held across an await).
pub(crate) struct Asker<'a, 'p> {
    runtime: tokio::runtime::Runtime,
    candidates: &'a Candidates,
    cancel: &'a CancelToken,
    progress: Mutex<&'a mut (dyn FnMut(Progress) + Send + 'p)>,
    env: &'a contextree_host::HostEnv,
}

impl<'a, 'p> Asker<'a, 'p> {
    pub(crate) fn new(
        candidates: &'a Candidates,
        cancel: &'a CancelToken,
        progress: &'a mut (dyn FnMut(Progress) + Send + 'p),
        env: &'a contextree_host::HostEnv,
    ) -> Result<Self, crate::OpsError> {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(crate::OpsError::Runtime)?;
        Ok(Asker { runtime, candidates, cancel, progress: Mutex::new(progress), env })
    }

    /// Runs `f` to completion on the runtime.
    pub(crate) fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.runtime.block_on(f)
    }

    /// One request through the candidates.
    pub(crate) async fn ask(&self, call: Call, request: &SummaryRequest) -> Result<Summary, LlmError> {
        let mut on_event = |event: Event<'_>| {
            if let Some(p) = Progress::from_event(call, event) {
                let mut report = self.progress.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                report(p);
            }
        };
        // Keys named by a variable come from the flow's environment, not the process's.
        let env = |var: &str| self.env.var(var);
        let summary = contextree_llm::summarize_with_env(request, self.candidates, &mut on_event, self.cancel, &env).await?;
        let mut report = self.progress.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        report(Progress::Done { call });
        Ok(summary)
    }
}

/// A model failure as an [`crate::OpsError`]: a cancel is [`crate::OpsError::Cancelled`].
pub(crate) fn llm_error(e: LlmError, message: impl FnOnce(&LlmError) -> String) -> crate::OpsError {
    match e {
        LlmError::Cancelled => crate::OpsError::Cancelled,
        e => crate::OpsError::Provider { message: message(&e), source: Some(e) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn progress_serializes_as_the_apps_progress_event() {
        let wire = |p: Progress| serde_json::to_value(p).unwrap();
        assert_eq!(
            wire(Progress::Attempt { call: Call::TurnPrefix, provider: "p".into(), model: "m".into(), attempt: 1, deadline_ms: None }),
            json!({"kind": "attempt", "call": "turnPrefix", "provider": "p", "model": "m", "attempt": 1})
        );
        assert_eq!(
            wire(Progress::Attempt {
                call: Call::History,
                provider: "p".into(),
                model: "m".into(),
                attempt: 0,
                deadline_ms: Some(300_000)
            })["deadlineMs"],
            300_000
        );
        assert_eq!(
            wire(Progress::Delta { call: Call::History, text: "t".into() }),
            json!({"kind": "delta", "call": "history", "text": "t"})
        );
        assert_eq!(
            wire(Progress::Retry { call: Call::Short, error: "e".into(), delay_ms: 2000 }),
            json!({"kind": "retry", "call": "short", "error": "e", "delayMs": 2000})
        );
        assert_eq!(
            wire(Progress::Fallback { call: Call::Branch, provider: "p".into(), error: "e".into() }),
            json!({"kind": "fallback", "call": "branch", "provider": "p", "error": "e"})
        );
        assert_eq!(wire(Progress::Offline { call: Call::Branch }), json!({"kind": "offline", "call": "branch"}));
        assert_eq!(wire(Progress::Done { call: Call::Short }), json!({"kind": "done", "call": "short"}));
        assert_eq!(wire(Progress::Writing), json!({"kind": "writing"}));
    }
}
