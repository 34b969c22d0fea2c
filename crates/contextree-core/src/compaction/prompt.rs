//! Prompt assembly (compaction.md §6.2): the exact summarizer calls a
//! compaction makes, per dialect, from a [`CompactionPlan`].
//!
//! The calls come in two rounds, as in the agents' `compact()`:
//! 1. the history summary and (split turns) the turn-prefix summary, which
//!    pi 0.73 and omp run concurrently and pi 1.6 one after the other
//!    ([`SummaryRequests::sequential`]);
//! 2. omp only: the short summary, whose prompt quotes the *merged* result of
//!    round 1 — so it can only be built once those answers are in
//!    ([`SummaryRequests::short_call`]).
//!
//! Pure: entry text is read back through a [`Source`]; nothing is sent.

use serde_json::Value;

use super::plan::{CompactionPlan, NothingToCompact};
use super::transcript::{escape_boundary_tags, preferred_dialect, serialize_for_summary, ChunkedTranscript, SummaryDialect};
use crate::context::llm::convert_message;
use crate::context::materialize::{agent_message, ReadBackError};
use crate::context::serialize::serialize_message_into;
use crate::context::Item;
use crate::js::{is_truthy, to_js_string};
use crate::prompts::{PromptError, PromptId, PromptPack};
use crate::session::{NodeId, Session, Source};
use crate::{Dialect, RawJson, RuleSet};

/// The literal history both agents use when a split turn has nothing before it.
pub(crate) const NO_PRIOR_HISTORY: &str = "No prior history.";

/// What separates the history summary from the turn-prefix summary.
pub(crate) const SPLIT_TURN_SEPARATOR: &str = "\n\n---\n\n**Turn Context (split turn):**\n\n";

/// Which summary a call asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    /// `generateSummary`: the history before the kept part (or before the split turn).
    History,
    /// `generateTurnPrefixSummary`: the early part of a split turn.
    TurnPrefix,
    /// omp's `generateShortSummary`: 2–3 sentences over the kept part.
    Short,
}

impl CallKind {
    /// Stable name for JSON output.
    pub fn name(self) -> &'static str {
        match self {
            CallKind::History => "history",
            CallKind::TurnPrefix => "turnPrefix",
            CallKind::Short => "short",
        }
    }
}

/// One summarizer request, as `completeSimple` receives it: a system prompt
/// and a single user message holding `prompt` as one text block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummarizerCall {
    /// Which summary.
    pub kind: CallKind,
    /// The summarization system prompt.
    pub system_prompt: String,
    /// The user message text.
    pub prompt: String,
    /// `maxTokens` of the request; for a call that sends none (pi@1.6,
    /// `max_tokens_sent` false) the notional budget the preview counts with
    /// (0.73.1's value).
    pub max_tokens: u64,
    /// Whether the request carries `maxTokens` (pi@1.6 sends none: the
    /// model's own output limit applies, pi-1.6.md §4.4).
    pub max_tokens_sent: bool,
    /// The `reasoning` option (omp always `high`; pi the session's thinking
    /// level when the model reasons, else none).
    pub reasoning: Option<String>,
    /// The serialized conversation in `prompt` as a byte range (after the
    /// opening tag or heading); kept as offsets because the conversation may
    /// itself contain `</conversation>`.
    conversation_range: (usize, usize),
}

impl SummarizerCall {
    /// The serialized conversation the prompt quotes (what an offline
    /// summarizer reads instead of asking a model).
    pub fn conversation(&self) -> &str {
        &self.prompt[self.conversation_range.0..self.conversation_range.1]
    }

    /// The `maxTokens` the request carries, if any.
    pub fn sent_max_tokens(&self) -> Option<u64> {
        self.max_tokens_sent.then_some(self.max_tokens)
    }

    /// The fixtures' shape: `{systemPrompt, prompt, maxTokens?, reasoning?}`
    /// (no `maxTokens` when the request carries none).
    pub fn to_json(&self) -> Value {
        self.clone().into_json()
    }

    /// [`SummarizerCall::to_json`], the prompts moved into the value (a prompt quoting a
    /// million-message history is not copied).
    pub fn into_json(self) -> Value {
        let mut m = serde_json::Map::new();
        m.insert("systemPrompt".into(), self.system_prompt.into());
        m.insert("prompt".into(), self.prompt.into());
        if self.max_tokens_sent {
            m.insert("maxTokens".into(), self.max_tokens.into());
        }
        if let Some(r) = self.reasoning {
            m.insert("reasoning".into(), r.into());
        }
        Value::Object(m)
    }
}

/// The result omp's `session.compacting` hook may return
/// (hooks-and-settings.md §2), for emulating it. pi has no such hook.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompactingHook {
    /// Replaces the base history prompt (initial and update alike).
    pub prompt: Option<String>,
    /// Lines of `<additional-context>` in the history and short prompts.
    pub context: Vec<String>,
    /// Merged into the stored entry's `preserveData`.
    pub preserve_data: Option<RawJson>,
}

/// Inputs of prompt assembly besides the plan.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptOptions {
    /// `/compact <text>`: appended as `Additional focus:` to the history prompt.
    pub custom_instructions: Option<String>,
    /// omp's `session.compacting` result (ignored in pi).
    pub hook: CompactingHook,
    /// pi: the `reasoning` option, i.e. the session's thinking level when the
    /// summarizing model supports reasoning and the level is not `off` (see
    /// [`pi_reasoning`]). Ignored in omp, which always asks for `high`.
    pub pi_reasoning: Option<String>,
    /// omp@18: the model that writes the summaries — its id picks the transcript format of
    /// the conversation (`preferredDialect`), its window the input budget. `None`: no model is
    /// known, the fallback format (`xml`) is used and the requests say so.
    pub summary_model: Option<SummaryModel>,
}

/// The model omp 18 summarizes with, as far as the prompts depend on it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SummaryModel {
    /// The model id the provider knows (no `provider/` prefix).
    pub id: String,
    /// Its context window; `None`: omp's fallback of 200000.
    pub context_window: Option<u64>,
}

/// omp@18's summary input format and budget, for showing with the requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptFormat {
    /// The transcript format of the conversations.
    pub dialect: SummaryDialect,
    /// The summary model it was chosen for (`None`: none known, the fallback format).
    pub model: Option<String>,
    /// The history call's input budget in tokens: `max(min input, floor(0.8·window) −
    /// maxTokens − 16384)`; a larger conversation is summarized by the agent in windows.
    pub budget_tokens: u64,
    /// The history conversation's size against the budget, and how it was measured.
    pub fit: Fit,
    /// The windows after the first when the agent folds the history over several (each
    /// summary call updates the previous one's result), else empty.
    pub fold: Vec<String>,
}

/// How the history conversation was found to fit the input budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// UTF-8 bytes within the budget (a hard upper bound on tokens: the agent's first test).
    Bytes(u64),
    /// The agent's exact count for this model (o200k_base), within the budget.
    Tokens(u64),
    /// An o200k_base count within 80% of the budget, for a model the agent counts with a
    /// native tokenizer contextree does not have: the agent's own count may differ.
    Approximate(u64),
    /// Over the budget (o200k_base tokens): the agent summarizes it in windows.
    Folded(u64),
}

impl Fit {
    /// Wire form: `{"by": "bytes"|"tokens"|"approximate", "size": n}`.
    pub fn to_json(self) -> Value {
        let (by, n) = match self {
            Fit::Bytes(n) => ("bytes", n),
            Fit::Tokens(n) => ("tokens", n),
            Fit::Approximate(n) => ("approximate", n),
            Fit::Folded(n) => ("folded", n),
        };
        serde_json::json!({"by": by, "size": n})
    }
}

/// omp 18's cap on a summary's output tokens (`MAX_SUMMARY_TOKENS`, also the prompt reserve
/// of the input budget).
const OMP18_MAX_SUMMARY_TOKENS: u64 = 16_384;
/// omp 18's window for a model without one.
const OMP18_DEFAULT_SUMMARY_WINDOW: u64 = 200_000;

/// `summaryInputBudgetTokens` of omp 18.
pub(crate) fn omp18_input_budget(window: Option<u64>, max_tokens: u64) -> u64 {
    let window = window.filter(|&w| w > 0).unwrap_or(OMP18_DEFAULT_SUMMARY_WINDOW);
    let min_input = OMP18_MAX_SUMMARY_TOKENS.min(1024u64.max(window / 8));
    let room = (window as f64 * 0.8).floor() as i64 - max_tokens as i64 - OMP18_MAX_SUMMARY_TOKENS as i64;
    min_input.max(room.max(0) as u64)
}

/// How omp 18 would send the history conversation: in one window, or split into windows
/// (`Err`: it cannot be told, the model's native count being unknown to contextree).
enum Plan18 {
    /// How it fits, and the conversation.
    One(Fit, String),
    /// The conversation of every window, each already cut to the budget when one message alone
    /// exceeds it.
    Fold(Vec<String>, u64),
}

/// omp 18's `checkTokenBudget`: UTF-8 bytes within the budget fit; else the exact count
/// (o200k_base for a model without a native tokenizer) decides.
fn o200k(text: &str) -> u64 {
    super::transcript::o200k_count(text)
}

/// The history's transcript ([`transcript_of`] with the budget as limit): its text, or only
/// its o200k_base count when that exceeds the budget (the text is then not sent whole).
enum Transcript18 {
    Text(String),
    Over(u64),
}

/// `generateSummary`'s window plan for the history's transcript against `budget`; `llm` gives
/// the history's messages when it has to be split into windows.
fn omp18_plan(
    llm: &mut dyn FnMut() -> Result<Vec<Value>, ReadBackError>,
    transcript: Transcript18,
    format: SummaryDialect,
    budget: u64,
    model: Option<&str>,
) -> Result<Result<Plan18, String>, ReadBackError> {
    let tokens = match transcript {
        Transcript18::Text(text) => {
            let bytes = text.len() as u64;
            if bytes <= budget {
                return Ok(Ok(Plan18::One(Fit::Bytes(bytes), text)));
            }
            match omp18_fit(o200k(&text), budget, model) {
                Ok(Ok(fit)) => return Ok(Ok(Plan18::One(fit, text))),
                Ok(Err(tokens)) => tokens,
                Err(e) => return Ok(Err(e)),
            }
        }
        // Over the budget: never one window (and a count, like bytes, is never under it).
        Transcript18::Over(tokens) => match omp18_fit(tokens, budget, model) {
            Ok(Ok(_)) => unreachable!("a count over the budget fits it"),
            Ok(Err(tokens)) => tokens,
            Err(e) => return Ok(Err(e)),
        },
    };
    Ok(Ok(Plan18::Fold(omp18_windows(&llm()?, format, budget), tokens)))
}

/// Whether a history of `tokens` (o200k_base) and more bytes than `budget` fits it (`Ok(Ok)`),
/// is split into windows (`Ok(Err(tokens))`), or cannot be told (`Err`).
fn omp18_fit(tokens: u64, budget: u64, model: Option<&str>) -> Result<Result<Fit, u64>, String> {
    if let Some(fam) = model.and_then(crate::tokens::family::native_tokenizer) {
        // The agent counts this model with a native tokenizer contextree does not have: a
        // conversation clearly within the budget by o200k_base is taken as one window; near or
        // over it, the agent's own split cannot be reproduced.
        if tokens * 5 <= budget * 4 {
            return Ok(Ok(Fit::Approximate(tokens)));
        }
        return Err(format!(
            "the conversation to summarize is about {tokens} tokens (o200k_base), near or over the summarizer's input budget of {budget}: whether and where oh-my-pi 18 splits it into folded windows depends on its {fam} count, which contextree cannot reproduce — nothing is sent; compact earlier, or with a model of a larger window"
        ));
    }
    if tokens <= budget {
        return Ok(Ok(Fit::Tokens(tokens)));
    }
    Ok(Err(tokens))
}

/// The conversation of every window of `llm` (see [`Plan18::Fold`]).
fn omp18_windows(llm: &[Value], format: SummaryDialect, budget: u64) -> Vec<String> {
    // `planSummaryWindows`: each message sized alone by the byte estimate, windows cut on
    // message boundaries; then each window clamped when it still exceeds the budget.
    let mut windows: Vec<Vec<Value>> = Vec::new();
    let mut current: Vec<Value> = Vec::new();
    let mut current_tokens = 0u64;
    for m in llm {
        let one = serialize_for_summary(std::slice::from_ref(m), format);
        let t = (one.len() as u64 + 3) >> 2;
        if current_tokens > 0 && current_tokens + t > budget {
            windows.push(std::mem::take(&mut current));
            current_tokens = 0;
        }
        current.push(m.clone());
        current_tokens += t;
    }
    if !current.is_empty() {
        windows.push(current);
    }
    windows
        .iter()
        .map(|w| {
            let text = serialize_for_summary(w, format);
            if text.len() as u64 <= budget {
                return text;
            }
            let tokens = o200k(&text);
            if tokens <= budget {
                return text;
            }
            // `clampConversationToBudget`.
            let len = crate::js::utf16_len(&text) as u64;
            let keep = 1024u64.max(((len as f64 * budget as f64 * 0.95) / tokens as f64).floor() as u64);
            if keep >= len {
                return text;
            }
            let mut out = crate::js::slice_utf16(&text, keep as usize);
            out.push_str(&format!("\n\n[... {} more characters truncated]", len - keep));
            out
        })
        .collect()
}

/// pi 0.73.1's rule: `model.reasoning && thinkingLevel && thinkingLevel !== "off"`.
pub fn pi_reasoning(model_reasons: bool, thinking_level: &Value) -> Option<String> {
    let level = thinking_level.as_str().filter(|l| !l.is_empty() && *l != "off")?;
    model_reasons.then(|| level.to_owned())
}

/// What round 1 produces for the history part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryStep {
    /// Ask the model.
    Call(SummarizerCall),
    /// No call: a fixed text (`No prior history.`, or omp reusing the
    /// previous summary when nothing new is summarized).
    Literal(String),
}

/// Why no requests could be built.
#[derive(Debug, thiserror::Error)]
pub enum PromptBuildError {
    /// The agent would not compact.
    #[error("{0}")]
    Nothing(NothingToCompact),
    /// An entry could not be read back.
    #[error(transparent)]
    ReadBack(#[from] ReadBackError),
    /// The pack lacks a text or a text does not render.
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// omp@18 would split the input into windows (a fold contextree does not reproduce).
    #[error("{0}")]
    TooLarge(String),
}

/// The omp short-summary prompt, minus the summary it quotes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ShortParts {
    system_prompt: String,
    conversation: String,
    additional_context: String,
    instructions: String,
    max_tokens: u64,
    /// omp@18: the quoted summary's boundary tags are neutralised.
    escape: bool,
}

/// Every summarizer request of one compaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryRequests {
    /// Whose rules built them.
    pub dialect: Dialect,
    /// The rule set that built them.
    pub rules: RuleSet,
    /// The history part.
    pub history: HistoryStep,
    /// The turn-prefix call (split turns with a non-empty prefix).
    pub turn_prefix: Option<SummarizerCall>,
    short: Option<ShortParts>,
    /// omp@18: the transcript format, the model it is for and the input budget.
    pub transcript: Option<TranscriptFormat>,
    /// omp@18: the history windows after the first, when the history is folded.
    fold: Option<FoldParts>,
}

/// The history calls after the first of a folded history (omp-18.md §5.5).
#[derive(Debug, Clone, PartialEq, Eq)]
struct FoldParts {
    windows: Vec<String>,
    system_prompt: String,
    additional_context: String,
    initial: String,
    update: String,
    max_tokens: u64,
    reasoning: Option<String>,
}

impl SummaryRequests {
    /// Round 1: the calls that can be sent now (concurrently), in the
    /// agents' order: history, then turn prefix.
    pub fn first_calls(&self) -> Vec<&SummarizerCall> {
        let history = match &self.history {
            HistoryStep::Call(c) => Some(c),
            HistoryStep::Literal(_) => None,
        };
        history.into_iter().chain(&self.turn_prefix).collect()
    }

    /// [`SummaryRequests::first_calls`], moved out of the requests.
    pub fn into_first_calls(self) -> Vec<SummarizerCall> {
        let history = match self.history {
            HistoryStep::Call(c) => Some(c),
            HistoryStep::Literal(_) => None,
        };
        history.into_iter().chain(self.turn_prefix).collect()
    }

    /// Whether round 1's calls go one after the other, history first
    /// (pi ≥ 0.80.4, pi-1.6.md §4.4), rather than concurrently.
    pub fn sequential(&self) -> bool {
        self.rules.at_least(RuleSet::Pi16)
    }

    /// What a failed call is called in the agent's error message
    /// (`<label> failed: …`).
    pub fn label(kind: CallKind) -> &'static str {
        match kind {
            CallKind::History | CallKind::Short => "Summarization",
            CallKind::TurnPrefix => "Turn prefix summarization",
        }
    }

    /// Whether a summary that stopped at the output cap is an error
    /// (pi ≥ 0.84.3: `generation hit the token cap…`, pi-1.6.md §4.4).
    pub fn rejects_length_stop(&self) -> bool {
        self.rules.at_least(RuleSet::Pi16)
    }

    /// Whether a short summary follows (omp).
    pub fn has_short(&self) -> bool {
        self.short.is_some()
    }

    /// The summary before file tags, from round 1's answers (`history` is
    /// ignored when the history step is a literal). A missing answer for a
    /// call counts as empty text.
    pub fn merge(&self, history: Option<&str>, turn_prefix: Option<&str>) -> String {
        let history = match &self.history {
            HistoryStep::Literal(text) => text.as_str(),
            HistoryStep::Call(_) => history.unwrap_or(""),
        };
        match &self.turn_prefix {
            Some(_) => format!("{history}{SPLIT_TURN_SEPARATOR}{}", turn_prefix.unwrap_or("")),
            None => history.to_owned(),
        }
    }

    /// Round 2 (omp): the short-summary call quoting `merged` (the result of
    /// [`SummaryRequests::merge`], before file tags) as `<previous-summary>`.
    pub fn short_call(&self, merged: &str) -> Option<SummarizerCall> {
        let s = self.short.as_ref()?;
        let mut prompt = conversation_block(&s.conversation);
        let conversation_range = (CONVERSATION_OPEN.len(), CONVERSATION_OPEN.len() + s.conversation.len());
        // `if (historySummary)`: an empty merged summary adds no block.
        if !merged.is_empty() {
            push_previous_summary(&mut prompt, merged, s.escape);
        }
        prompt.push_str(&s.additional_context);
        prompt.push_str(&s.instructions);
        Some(SummarizerCall {
            kind: CallKind::Short,
            system_prompt: s.system_prompt.clone(),
            prompt,
            max_tokens: s.max_tokens,
            max_tokens_sent: true,
            reasoning: Some(OMP_REASONING.to_owned()),
            conversation_range,
        })
    }

    /// How many more history calls follow the first (omp@18's fold): each quotes the summary
    /// the one before it returned ([`SummaryRequests::fold_call`]); the last one's answer is the
    /// history summary.
    pub fn fold_len(&self) -> usize {
        self.fold.as_ref().map_or(0, |f| f.windows.len())
    }

    /// The `i`-th history call after the first, quoting `carried` (the previous call's answer)
    /// as `<previous-summary>`: the update prompt then, the initial one when `carried` is empty.
    pub fn fold_call(&self, i: usize, carried: &str) -> Option<SummarizerCall> {
        let f = self.fold.as_ref()?;
        let conversation = f.windows.get(i)?;
        let mut prompt = conversation_block(conversation);
        let conversation_range = (CONVERSATION_OPEN.len(), CONVERSATION_OPEN.len() + conversation.len());
        if !carried.is_empty() {
            push_previous_summary(&mut prompt, carried, true);
        }
        prompt.push_str(&f.additional_context);
        prompt.push_str(if carried.is_empty() { &f.initial } else { &f.update });
        Some(SummarizerCall {
            kind: CallKind::History,
            system_prompt: f.system_prompt.clone(),
            prompt,
            max_tokens: f.max_tokens,
            max_tokens_sent: true,
            reasoning: f.reasoning.clone(),
            conversation_range,
        })
    }

    /// Every call in the agents' order, given round 1's answers.
    pub fn all_calls(&self, history: Option<&str>, turn_prefix: Option<&str>) -> Vec<SummarizerCall> {
        let mut calls: Vec<SummarizerCall> = self.first_calls().into_iter().cloned().collect();
        calls.extend(self.short_call(&self.merge(history, turn_prefix)));
        calls
    }
}

/// omp's `reasoning: Effort.High` on every summarizer call.
const OMP_REASONING: &str = "high";

/// Builds the requests `compact()` would send for `plan` (compaction.md §6.2).
/// `pack` supplies the system prompt and instruction texts (and the summary
/// wrappers `convertToLlm` puts around branch summaries in the conversation).
///
/// Long on purpose: one pass in the order the agents' `compact()` builds its requests; the
/// steps share the pack's texts, the caps, the budget, the transcript format and the hook,
/// which smaller functions would only hand around.
pub fn summary_requests(
    session: &Session,
    plan: &CompactionPlan,
    source: &dyn Source,
    pack: &PromptPack,
    opts: &PromptOptions,
) -> Result<SummaryRequests, PromptBuildError> {
    let prepared = plan.outcome.as_ref().map_err(|&r| PromptBuildError::Nothing(r))?;
    let dialect = plan.dialect;
    let rules = session.rules();
    // pi 1.6 sends no output cap (the model's own limit applies).
    let max_tokens_sent = !rules.at_least(RuleSet::Pi16);
    let system_prompt = pack.prompt(PromptId::SummarizationSystem)?;
    let reserve = plan.settings.reserve_tokens as f64;
    let reasoning = match dialect {
        Dialect::Omp => Some(OMP_REASONING.to_owned()),
        Dialect::Pi => opts.pi_reasoning.clone(),
    };
    let hook = match dialect {
        Dialect::Omp => Some(&opts.hook),
        Dialect::Pi => None,
    };
    let additional_context = hook.map_or_else(String::new, |h| additional_context(&h.context));
    let previous_summary = previous_summary(session, plan);
    let split = prepared.is_split_turn() && !prepared.turn_prefix.is_empty();
    let omp18 = rules.summarizes_with_model_transcript();
    let format = omp18.then(|| opts.summary_model.as_ref().map_or(SummaryDialect::Xml, |m| preferred_dialect(&m.id)));
    let conv = |nodes: &[NodeId]| conversation_of(session, nodes, source, pack, &|n| prepared.item(n), format);
    // omp ≥ 17.2.2 caps the summaries at 16384 tokens.
    let cap = |n: u64| if omp18 { n.min(OMP18_MAX_SUMMARY_TOKENS) } else { n };
    let history_max_tokens = cap((0.8 * reserve).floor() as u64);
    let budget = omp18_input_budget(opts.summary_model.as_ref().and_then(|m| m.context_window), history_max_tokens);
    let mut fit = Fit::Bytes(0);
    let mut fold_windows: Vec<String> = Vec::new();
    // The base prompt: initial or update, a hook's override, the custom focus.
    let base_prompt = |update: bool| -> Result<String, PromptBuildError> {
        let mut base = if update { pack.prompt(PromptId::CompactionUpdateSummary)? } else { pack.prompt(PromptId::CompactionSummary)? };
        if let Some(over) = hook.and_then(|h| h.prompt.as_deref()).filter(|p| !p.is_empty()) {
            base = over.to_owned();
        }
        if let Some(focus) = opts.custom_instructions.as_deref().filter(|c| !c.is_empty()) {
            base = format!("{base}\n\nAdditional focus: {focus}");
        }
        Ok(base)
    };

    let mut history_call = || -> Result<SummarizerCall, PromptBuildError> {
        let (mut prompt, conversation_range) = match format {
            Some(f) => {
                let item = |n| prepared.item(n);
                let nodes = &prepared.messages_to_summarize;
                let transcript = match transcript_within(session, nodes, source, pack, &item, f, budget)? {
                    Ok(text) => Transcript18::Text(text),
                    Err(tokens) => Transcript18::Over(tokens),
                };
                let mut llm = || llm_of(session, nodes, source, pack, &item);
                let conversation = match omp18_plan(&mut llm, transcript, f, budget, opts.summary_model.as_ref().map(|m| m.id.as_str()))?
                    .map_err(PromptBuildError::TooLarge)?
                {
                    Plan18::One(how, text) => {
                        fit = how;
                        text
                    }
                    Plan18::Fold(mut windows, tokens) => {
                        fit = Fit::Folded(tokens);
                        let first = windows.remove(0);
                        fold_windows = windows;
                        first
                    }
                };
                (conversation_block(&conversation), (CONVERSATION_OPEN.len(), CONVERSATION_OPEN.len() + conversation.len()))
            }
            None => {
                // Written into the prompt itself: a million-message history is one string, not two.
                let mut prompt = String::from(CONVERSATION_OPEN);
                conversation_into(&mut prompt, session, &prepared.messages_to_summarize, source, pack, &|n| prepared.item(n))?;
                let range = (CONVERSATION_OPEN.len(), prompt.len());
                prompt.push_str(CONVERSATION_CLOSE);
                (prompt, range)
            }
        };
        let base = base_prompt(previous_summary.is_some())?;
        if let Some(prev) = &previous_summary {
            push_previous_summary(&mut prompt, prev, omp18);
        }
        prompt.push_str(&additional_context);
        prompt.push_str(&base);
        Ok(SummarizerCall {
            kind: CallKind::History,
            system_prompt: system_prompt.clone(),
            prompt,
            max_tokens: history_max_tokens,
            max_tokens_sent,
            reasoning: reasoning.clone(),
            conversation_range,
        })
    };

    let history = if split {
        // omp 18 asks even with nothing new when a previous summary exists (omp-18.md §5.5).
        if prepared.messages_to_summarize.is_empty() && !(omp18 && previous_summary.is_some()) {
            // pi 1.6: `previousSummary ?? "No prior history."` (the previous
            // summary verbatim, even when empty); pi 0.73 always the literal.
            let literal = match previous_value(session, plan) {
                Some(prev) if rules.at_least(RuleSet::Pi16) => prev,
                _ => NO_PRIOR_HISTORY.to_owned(),
            };
            HistoryStep::Literal(literal)
        } else {
            HistoryStep::Call(history_call()?)
        }
    } else {
        match dialect {
            // pi always asks, even for an empty conversation (E07a).
            Dialect::Pi => HistoryStep::Call(history_call()?),
            Dialect::Omp if !prepared.messages_to_summarize.is_empty() => HistoryStep::Call(history_call()?),
            Dialect::Omp => HistoryStep::Literal(previous_summary.clone().unwrap_or_else(|| NO_PRIOR_HISTORY.to_owned())),
        }
    };

    let turn_prefix = if split {
        // No previous summary or hook context here; pi 1.6 lays the prompt
        // out under headings and adds the custom instructions (§4.4).
        let conversation = conv(&prepared.turn_prefix)?;
        let text = pack.prompt(PromptId::CompactionTurnPrefix)?;
        let (prompt, conversation_range) = if rules.at_least(RuleSet::Pi16) {
            let mut prompt = format!("{TURN_PREFIX_CONVERSATION_HEADING}{conversation}\n\n# Instructions\n{text}");
            if let Some(focus) = opts.custom_instructions.as_deref().filter(|c| !c.is_empty()) {
                prompt.push_str("\n\nAdditional focus: ");
                prompt.push_str(focus);
            }
            let start = TURN_PREFIX_CONVERSATION_HEADING.len();
            (prompt, (start, start + conversation.len()))
        } else {
            let mut prompt = conversation_block(&conversation);
            prompt.push_str(&text);
            (prompt, (CONVERSATION_OPEN.len(), CONVERSATION_OPEN.len() + conversation.len()))
        };
        Some(SummarizerCall {
            kind: CallKind::TurnPrefix,
            system_prompt: system_prompt.clone(),
            prompt,
            max_tokens: cap((0.5 * reserve).floor() as u64),
            max_tokens_sent,
            reasoning: reasoning.clone(),
            conversation_range,
        })
    } else {
        None
    };

    let fold = if fold_windows.is_empty() {
        None
    } else {
        Some(FoldParts {
            windows: fold_windows.clone(),
            system_prompt: system_prompt.clone(),
            additional_context: additional_context.clone(),
            initial: base_prompt(false)?,
            update: base_prompt(true)?,
            max_tokens: history_max_tokens,
            reasoning: reasoning.clone(),
        })
    };
    let short = match dialect {
        Dialect::Pi => None,
        Dialect::Omp => Some(ShortParts {
            system_prompt,
            conversation: conv(&prepared.recent)?,
            additional_context,
            instructions: pack.prompt(PromptId::CompactionShortSummary)?,
            max_tokens: ((0.2 * reserve).floor() as u64).min(512),
            escape: omp18,
        }),
    };
    let transcript = format.map(|dialect| TranscriptFormat {
        dialect,
        model: opts.summary_model.as_ref().map(|m| m.id.clone()),
        budget_tokens: budget,
        fit,
        fold: fold_windows,
    });
    Ok(SummaryRequests { dialect, rules, history, turn_prefix, short, transcript, fold })
}

/// pi 1.6's turn-prefix prompt opens with this heading, then the conversation.
const TURN_PREFIX_CONVERSATION_HEADING: &str = "# Conversation\n";

/// `previousSummary` when JS would treat it as defined (`??`): present and
/// not null, as a string.
fn previous_value(session: &Session, plan: &CompactionPlan) -> Option<String> {
    let prev = plan.previous?;
    let summary = session.entry(prev.node).object()?.get("summary");
    (!matches!(summary, None | Some(Value::Null))).then(|| to_js_string(summary))
}

/// `previousSummary` when JS would treat it as present (truthy), as the
/// agents interpolate it.
fn previous_summary(session: &Session, plan: &CompactionPlan) -> Option<String> {
    let prev = plan.previous?;
    let summary = session.entry(prev.node).object()?.get("summary");
    is_truthy(summary).then(|| to_js_string(summary))
}

/// `serializeConversation(convertToLlm(messages of nodes))`, one entry read
/// back at a time.
pub(crate) fn conversation(session: &Session, nodes: &[NodeId], source: &dyn Source, pack: &PromptPack) -> Result<String, ReadBackError> {
    conversation_of(session, nodes, source, pack, &Item::Entry, None)
}

/// [`conversation`] of the messages `item` gives for each entry: under pi ≥ 0.87 the one a
/// `context_edit` replaced ([`super::plan::Prepared::item`]), as pi summarizes the projection.
/// `convertToLlm` of the messages of `nodes`.
fn llm_of(
    session: &Session,
    nodes: &[NodeId],
    source: &dyn Source,
    pack: &PromptPack,
    item: &dyn Fn(NodeId) -> Item,
) -> Result<Vec<Value>, ReadBackError> {
    let mut llm = Vec::with_capacity(nodes.len());
    for &node in nodes {
        let msg = agent_message(session, item(node), source)?;
        llm.extend(convert_message(&msg, session.rules(), pack));
    }
    Ok(llm)
}

/// How many messages [`transcript_of`] holds at a time (about).
const TRANSCRIPT_CHUNK: usize = 1024;

/// `serializeConversationForSummary(convertToLlm(messages of nodes), format)`, written a few
/// messages at a time ([`ChunkedTranscript`]): each entry is read back twice, first for the
/// tool results flagged useless, then for the transcript.
fn transcript_of(
    session: &Session,
    nodes: &[NodeId],
    source: &dyn Source,
    pack: &PromptPack,
    item: &dyn Fn(NodeId) -> Item,
    format: SummaryDialect,
) -> Result<String, ReadBackError> {
    Ok(transcript_writer(session, nodes, source, pack, item, format, None)?.finish())
}

/// [`transcript_of`], or only its o200k_base count when that exceeds `limit`.
fn transcript_within(
    session: &Session,
    nodes: &[NodeId],
    source: &dyn Source,
    pack: &PromptPack,
    item: &dyn Fn(NodeId) -> Item,
    format: SummaryDialect,
    limit: u64,
) -> Result<Result<String, u64>, ReadBackError> {
    Ok(transcript_writer(session, nodes, source, pack, item, format, Some(limit))?.finish_within())
}

fn transcript_writer(
    session: &Session,
    nodes: &[NodeId],
    source: &dyn Source,
    pack: &PromptPack,
    item: &dyn Fn(NodeId) -> Item,
    format: SummaryDialect,
    limit: Option<u64>,
) -> Result<ChunkedTranscript, ReadBackError> {
    let mut useless = std::collections::HashSet::new();
    for &node in nodes {
        let msg = agent_message(session, item(node), source)?;
        if let Some(key) = convert_message(&msg, session.rules(), pack).as_ref().and_then(ChunkedTranscript::useless_key) {
            useless.insert(key);
        }
    }
    let mut out = ChunkedTranscript::new(format, useless, TRANSCRIPT_CHUNK);
    if let Some(limit) = limit {
        out = out.with_limit(limit);
    }
    for &node in nodes {
        let msg = agent_message(session, item(node), source)?;
        if let Some(llm) = convert_message(&msg, session.rules(), pack) {
            out.push(llm);
        }
    }
    Ok(out)
}

/// With `format` (omp@18), omp 18's `serializeConversationForSummary` in that transcript format.
fn conversation_of(
    session: &Session,
    nodes: &[NodeId],
    source: &dyn Source,
    pack: &PromptPack,
    item: &dyn Fn(NodeId) -> Item,
    format: Option<SummaryDialect>,
) -> Result<String, ReadBackError> {
    if let Some(format) = format {
        return transcript_of(session, nodes, source, pack, item, format);
    }
    let mut out = String::new();
    conversation_into(&mut out, session, nodes, source, pack, item)?;
    Ok(out)
}

/// `serializeConversation` of `nodes`' messages appended to `out`.
fn conversation_into(
    out: &mut String,
    session: &Session,
    nodes: &[NodeId],
    source: &dyn Source,
    pack: &PromptPack,
    item: &dyn Fn(NodeId) -> Item,
) -> Result<(), ReadBackError> {
    let mut first = true;
    for &node in nodes {
        let msg = agent_message(session, item(node), source)?;
        if let Some(llm) = convert_message(&msg, session.rules(), pack) {
            serialize_message_into(&llm, session.rules(), out, &mut first);
        }
    }
    Ok(())
}

const CONVERSATION_OPEN: &str = "<conversation>\n";
const CONVERSATION_CLOSE: &str = "\n</conversation>\n\n";

fn conversation_block(conversation: &str) -> String {
    format!("{CONVERSATION_OPEN}{conversation}{CONVERSATION_CLOSE}")
}

/// `<previous-summary>` block; `escape` (omp@18): its boundary tags neutralised.
fn push_previous_summary(prompt: &mut String, summary: &str, escape: bool) {
    prompt.push_str("<previous-summary>\n");
    if escape {
        prompt.push_str(&escape_boundary_tags(summary));
    } else {
        prompt.push_str(summary);
    }
    prompt.push_str("\n</previous-summary>\n\n");
}

/// omp's `formatAdditionalContext`.
fn additional_context(lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let body: Vec<String> = lines.iter().map(|l| format!("- {l}")).collect();
    format!("<additional-context>\n{}\n</additional-context>\n\n", body.join("\n"))
}
