//! The write flows (ipc-writes contract): read-only previews and the apply commands that append
//! to (or, for prune, rewrite) the open session's file through `contextree-ops`.
//!
//! Every apply command: takes the one write slot ([`WriteState`], else kind `busy`), runs the
//! flow (model calls run on the flow's own runtime, streaming [`Progress`] to the face's
//! callback), re-reads the file, makes it the open session and returns a [`WriteResult`]. The
//! file watcher's reload that follows is harmless. Blocking: the faces call them off their
//! async threads.

pub mod compact;
pub mod edit;
pub mod navigate;
pub mod prune;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use contextree_host::HostEnv;
use contextree_ops::summarizer::{CandidatePick, ProviderFlags};
use contextree_ops::{CancelToken, Progress, Summarizer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::state::OpenSession;
use crate::{AppState, CommandError};
use contextree_read::SessionReport;

/// Where a flow's progress goes (the app's IPC channel, the server's event stream).
pub type Report<'a> = &'a mut (dyn FnMut(Progress) + Send);

/// One write at a time, and the token that cancels its summary.
#[derive(Debug, Default)]
pub struct WriteState {
    busy: AtomicBool,
    cancel: Mutex<Option<CancelToken>>,
}

/// Holds the write slot; frees it (and forgets the cancel token) when dropped.
pub struct Slot<'a> {
    state: &'a WriteState,
    cancel: CancelToken,
}

impl WriteState {
    /// Takes the write slot, or `busy` when another write or summary runs.
    pub fn take(&self) -> Result<Slot<'_>, CommandError> {
        if self.busy.swap(true, Ordering::SeqCst) {
            return Err(CommandError::Busy);
        }
        let cancel = CancelToken::new();
        *self.cancel.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(cancel.clone());
        Ok(Slot { state: self, cancel })
    }

    /// Cancels the running summary; whether one was running.
    pub fn cancel(&self) -> bool {
        match &*self.cancel.lock().unwrap_or_else(std::sync::PoisonError::into_inner) {
            Some(token) if !token.is_cancelled() => {
                token.cancel();
                true
            }
            _ => false,
        }
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        *self.state.cancel.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        self.state.busy.store(false, Ordering::SeqCst);
    }
}

/// Where summaries come from (`SummarySource`): both absent/false → the configured candidates,
/// else offline.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SummarySource {
    /// The offline extractive summary; no model is asked.
    pub offline: bool,
    /// A provider instead of the config file's candidates.
    pub provider: Option<ProviderChoice>,
    /// Only this one of the config file's candidates (its index in `providers()`'s list, or
    /// its name there); with neither `offline` nor `provider`.
    pub candidate: Option<CandidateChoice>,
}

/// One configured candidate: a number is its 0-based place in `providers().candidates`, a
/// string its `name` there.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum CandidateChoice {
    /// 0-based index.
    Index(usize),
    /// The candidate's name.
    Name(String),
}

/// `Provider`: one model to ask.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderChoice {
    /// `openai-compatible`, `anthropic` or `remote`.
    pub kind: String,
    /// The model (a remote endpoint picks its own).
    pub model: Option<String>,
    /// The base URL (default: the provider's public API).
    pub base_url: Option<String>,
}

impl SummarySource {
    /// The ops' flags; `invalid-argument` for a candidate together with `offline` or `provider`
    /// (which would silently win over it).
    pub(crate) fn flags(self) -> Result<ProviderFlags, CommandError> {
        if self.candidate.is_some() && (self.offline || self.provider.is_some()) {
            return Err(CommandError::InvalidArgument(
                "a summary source names a configured candidate or a provider or offline, not several".to_owned(),
            ));
        }
        let candidate = self.candidate.map(|c| match c {
            CandidateChoice::Index(i) => CandidatePick::Index(i),
            CandidateChoice::Name(n) => CandidatePick::Name(n),
        });
        let (provider, model, base_url) = match self.provider {
            Some(p) => (Some(p.kind), p.model.filter(|m| !m.is_empty()), p.base_url.filter(|u| !u.is_empty())),
            None => (None, None, None),
        };
        Ok(ProviderFlags { offline: self.offline, provider, model, base_url, candidate })
    }
}

/// `invalid-argument` when `flags` pick a candidate that neither the config file nor the
/// agent of the session lists: contextree-ops decides (`summarizer::candidates`, as the flow
/// will), and the flow would fail on it too, as a `provider` error, but only after its hooks
/// ran; this is the caller's mistake, not the provider's. Anything else (a config file that
/// does not read, an agent's model that cannot be used) is left to the flow to report. Reads
/// the config file and the agent's settings: call it off the main thread.
pub(crate) fn check_candidate(flags: &ProviderFlags, dialect: contextree_core::Dialect, env: &HostEnv) -> Result<(), CommandError> {
    use contextree_ops::summarizer::PickError;
    if flags.candidate.is_none() {
        return Ok(());
    }
    let agent = env.agent_settings(dialect);
    match contextree_ops::summarizer::candidates(flags, &agent, env) {
        Err(contextree_ops::OpsError::Pick(e @ (PickError::Unknown { .. } | PickError::NoneConfigured { .. }))) => {
            Err(CommandError::InvalidArgument(e.to_string()))
        }
        _ => Ok(()),
    }
}

/// One appended entry.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WrittenEntry {
    /// Its id.
    pub id: String,
    /// Its parent.
    pub parent_id: Option<String>,
    /// Its `type`.
    #[serde(rename = "type")]
    pub entry_type: String,
    /// Its 1-based line in the file.
    pub line: Option<u32>,
}

/// A prune's rewrite.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RewriteView {
    /// The original file, kept next to it.
    pub backup_path: String,
    /// The entries whose output was replaced by a notice.
    pub pruned_ids: Vec<String>,
    /// The file's size before.
    pub bytes_before: u64,
    /// ... and after.
    pub bytes_after: u64,
}

/// What an apply command returns.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteResult {
    /// `compact`, `navigate`, `continue`, `undo-compaction`, `edit-summary` or `prune`.
    pub action: &'static str,
    /// The file written.
    pub file: String,
    /// The appended lines, in order (empty for prune).
    pub entries: Vec<WrittenEntry>,
    /// The file's leaf after the write.
    pub leaf_id: Option<String>,
    /// How the summary was written (`{kind: model|offline|supplied|hook, ...}`), if any.
    pub summarizer: Option<Summarizer>,
    /// Prune only.
    pub rewrite: Option<RewriteView>,
    /// Everything worth telling.
    pub warnings: Vec<String>,
    /// The re-read file, as `open_session` returns it.
    pub session: SessionReport,
}

/// What a flow reports before the file is re-read.
pub(crate) struct Applied {
    pub action: &'static str,
    pub lines: Vec<String>,
    pub summarizer: Option<Summarizer>,
    pub rewrite: Option<RewriteView>,
    pub warnings: Vec<String>,
}

impl Applied {
    /// An append of `lines` (every flow but prune).
    pub fn appended(action: &'static str, lines: Vec<String>, summarizer: Option<Summarizer>, warnings: Vec<String>) -> Self {
        Self { action, lines, summarizer, rewrite: None, warnings }
    }
}

/// Runs `flow` on the open session while holding the write slot, then re-reads the file and
/// makes it the open session (unless another session was opened since).
pub(crate) fn apply<F>(state: &AppState, writes: &WriteState, flow: F) -> Result<WriteResult, CommandError>
where
    F: FnOnce(&OpenSession, &CancelToken) -> Result<Applied, CommandError>,
{
    let slot = writes.take()?;
    let open = state.session()?;
    let generation = state.generation();
    let applied = flow(&open, &slot.cancel)?;
    let reread = Arc::new(reread(&state.env(), &open)?);
    drop(slot);
    state.replace_session(generation, reread.clone());
    Ok(result(applied, &reread))
}

/// [`apply`] for the flows that ask a summarizer: `source`'s flags (an invalid one refused
/// before the write slot is taken, an unlisted candidate before the flow runs) and the open
/// session's pack go to `flow`.
pub(crate) fn apply_summarized<F>(
    state: &AppState,
    writes: &WriteState,
    source: Option<SummarySource>,
    flow: F,
) -> Result<WriteResult, CommandError>
where
    F: FnOnce(&OpenSession, ProviderFlags, &PackFn<'_>, &HostEnv, &CancelToken) -> Result<Applied, CommandError>,
{
    let flags = source.unwrap_or_default().flags()?;
    let env = state.env();
    apply(state, writes, move |open, cancel| {
        check_candidate(&flags, open.loaded.session.dialect(), &env)?;
        let pack = pack_of(open);
        flow(open, flags, &pack, &env, cancel)
    })
}

/// How the flows ask for a dialect's prompt pack.
pub(crate) type PackFn<'a> =
    dyn Fn(contextree_core::Dialect) -> Result<contextree_core::prompts::PromptPack, contextree_ops::OpsError> + 'a;

/// The file of `open` read again, with the same dialect rule (a forced dialect stays) and pack.
fn reread(env: &HostEnv, open: &OpenSession) -> Result<OpenSession, CommandError> {
    Ok(open.reload(env)?)
}

fn result(applied: Applied, open: &OpenSession) -> WriteResult {
    let s = &open.loaded.session;
    let entries = applied
        .lines
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .map(|v| {
            let id = v["id"].as_str().unwrap_or_default().to_owned();
            WrittenEntry {
                line: s.node(&id).map(|n| s.entry(n).line),
                parent_id: v["parentId"].as_str().map(str::to_owned),
                entry_type: v["type"].as_str().unwrap_or_default().to_owned(),
                id,
            }
        })
        .collect();
    WriteResult {
        action: applied.action,
        file: open.loaded.path.display().to_string(),
        entries,
        leaf_id: s.leaf().map(|n| s.entry(n).id.to_string()),
        summarizer: applied.summarizer,
        rewrite: applied.rewrite,
        warnings: applied.warnings,
        session: open.report(),
    }
}

/// The open session's pack, as the flows ask for it.
pub(crate) fn pack_of(
    open: &OpenSession,
) -> impl Fn(contextree_core::Dialect) -> Result<contextree_core::prompts::PromptPack, contextree_ops::OpsError> + '_ {
    move |_| Ok(open.pack.clone())
}

/// `providers()`: the configured summarizers, keys masked (read only): contextree's config
/// file, omp's remote endpoint, and the agent's own models with their keys masked and the
/// reason for each that contextree cannot use — the open session's agent's, or both agents'
/// (pi's first) when no session is open.
pub fn providers(state: &AppState) -> Result<contextree_ops::summarizer::Providers, CommandError> {
    use contextree_core::Dialect;
    let dialect = state.session().ok().map(|s| s.loaded.session.dialect());
    let env = state.env();
    // omp's remote endpoint is the only other agent setting a summarizer list uses.
    let mut agent = env.agent_settings(Dialect::Omp);
    match dialect {
        Some(Dialect::Omp) => {}
        Some(Dialect::Pi) => {
            agent.models = env.agent_settings(Dialect::Pi).models;
        }
        None => {
            let mut pi = env.agent_settings(Dialect::Pi).models;
            pi.models.append(&mut agent.models.models);
            pi.warnings.append(&mut agent.models.warnings);
            agent.models = pi;
        }
    }
    Ok(contextree_ops::summarizer::providers(&agent, &env)?)
}
