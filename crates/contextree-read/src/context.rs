//! What the model receives from a leaf: `contextree context --json`, its text output, and the
//! app's context panel, all from one [`ContextReport`].

use std::collections::HashMap;

use contextree_core::context::system::{current_system, is_system_item, parts};
use contextree_core::context::{
    agent_message, context_tokens, estimate_context_tokens_of, estimate_projected_context_tokens_of, item_role, item_tokens,
    not_reproducible, Context, ContextEstimate, Item, ReadBackError,
};
use contextree_core::dialect::RuleChoiceWire;
use contextree_core::js::utf16_len;
use contextree_core::prompts::{PackOrigin, PromptPack};
use contextree_core::session::{Name, NodeId, Session, Source};
use contextree_core::tokens::TokenizerKind;
use contextree_core::view::context_messages;
use contextree_core::{Dialect, RuleChoice};
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crate::breakdown::{breakdown, BreakdownRow};
use crate::rows::{Ordered, ReadBackSlot, Rows};

/// What a face asks of the context report besides the numbers.
#[derive(Debug, Clone, Copy, Default)]
pub struct ContextOptions {
    /// Count the LLM messages with this tokenizer too (`tokenizer`).
    pub tokenizer: Option<TokenizerKind>,
    /// Show the messages' text, cut at this many characters (the app's panel): each message's
    /// `shown` and the report's `system`. `None`: numbers only (the CLI), every message made
    /// as it is written.
    pub text_chars: Option<usize>,
    /// Split the messages' estimate by category (`breakdown`); every message is read back.
    pub breakdown: bool,
}

/// The context of a leaf (`contextree context --json`, the app's `context_view`). Its lists are
/// made while it is written: write it once, then [`ContextReport::finish`] says whether every
/// message could be read back.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ContextReport<'a> {
    /// The agent whose rules ran (`pi`, `omp`).
    pub dialect: &'static str,
    /// The rule set that ran and why.
    #[ts(as = "RuleChoiceWire")]
    pub rule_set: &'a RuleChoice,
    /// The leaf.
    pub leaf_id: Option<String>,
    /// The leaf's entry number in the file.
    pub leaf_index: Option<u32>,
    /// The model: pi's `{provider, modelId}`, omp's default role's.
    pub model: ModelReport<'a>,
    /// omp: role → model.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(type = "Record<string, string>", optional)]
    pub models: Option<Ordered<&'a str>>,
    /// omp's mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mode: Option<&'a str>,
    /// The thinking level set on the path (as the file has it).
    #[ts(type = "unknown")]
    pub thinking_level: &'a Value,
    /// Entries on the path from the root to the leaf.
    pub path_length: usize,
    /// Agent messages of the context.
    pub message_count: usize,
    /// Their estimate.
    pub message_tokens: u64,
    /// When asked: `messageTokens` by category, summing to it exactly (see [`crate::breakdown`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub breakdown: Option<Vec<BreakdownRow>>,
    /// Messages after `convertToLlm`.
    pub llm_count: usize,
    /// Their estimate.
    pub llm_tokens: u64,
    /// The agent's `estimateContextTokens`.
    pub estimate_context_tokens: ContextEstimate,
    /// What the agent shows (pi ≥ 0.87: `estimateProjectedContextTokens`, pi-1.6.md §3.4).
    pub estimate_projected_context_tokens: ContextEstimate,
    /// pi ≥ 0.87: the context edits and the system messages.
    #[serde(flatten)]
    pub projection: Projection,
    /// omp: the kept messages are the provider's native replacement history.
    pub provider_replay: bool,
    /// omp 18: whose counting the numbers are.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub token_count: Option<TokenCount<'a>>,
    /// What the request depends on that the file cannot tell (docs/decisions.md D23), for the
    /// rule sets that name something (pi ≥ 0.86, omp ≥ 18).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub not_reproducible: Option<Vec<NotReproducible>>,
    /// omp 18: the thinking level of the session's settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub configured_thinking_level: Option<Option<&'a str>>,
    /// omp 18: the `/clear` the context starts after.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reset_boundary_id: Option<Option<String>>,
    /// Whose wording wraps the summaries (docs/decisions.md D8).
    pub prompts: PromptsReport,
    /// The LLM messages counted with a tokenizer, when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tokenizer: Option<TokenizerCount>,
    /// pi ≥ 0.86, with text asked: the system prompt and tools the request leads with.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub system: Option<SystemText>,
    /// One per agent message, in order.
    #[ts(type = "Array<MessageRow>")]
    pub messages: Rows<Box<dyn Iterator<Item = MessageRow<'a>> + 'a>>,
    /// One per LLM message, in order.
    #[ts(type = "Array<LlmRow>")]
    pub llm: Rows<Box<dyn Iterator<Item = LlmRow> + 'a>>,
    #[serde(skip)]
    #[ts(skip)]
    failed: ReadBackSlot,
}

/// The model of the path.
#[derive(Serialize, TS)]
#[serde(untagged)]
pub enum ModelReport<'a> {
    /// pi: the provider and model of the last model change or assistant.
    Pi(Option<PiModel<'a>>),
    /// omp: the default role's model.
    Omp(Option<&'a str>),
}

/// pi's model.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PiModel<'a> {
    /// The provider.
    pub provider: Option<&'a str>,
    /// The model id.
    pub model_id: Option<&'a str>,
}

/// pi ≥ 0.87 (the oracle's pi16 fields): the context edits and what they did, the system
/// messages and the replayed one. Every field is absent under other rule sets.
#[derive(Serialize, TS, Default)]
#[serde(rename_all = "camelCase")]
pub struct Projection {
    /// Entries of the projection.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub context_entry_count: Option<usize>,
    /// `context_edit` entries on the path.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub context_edits_on_path: Option<usize>,
    /// The edits among the context's entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub context_edits: Option<Vec<Edit>>,
    /// Entries an edit hides.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub omitted_entry_ids: Option<Vec<String>>,
    /// Entries an edit replaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub replaced_entry_ids: Option<Vec<String>>,
    /// System messages in the context.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub system_message_count: Option<usize>,
    /// The system message the request leads with.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub current_system: Option<Option<CurrentSystem>>,
}

/// A `context_edit` entry and what it does to the leaf's context.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Edit {
    /// The `context_edit` entry.
    pub entry_id: String,
    /// Its entry number.
    pub entry_index: u32,
    /// The entry it names.
    pub target_id: String,
    /// That entry's number, when it exists.
    pub target_index: Option<u32>,
    /// `omit` or `replace`.
    pub action: &'static str,
    /// The last edit of a target in the context: this one applies.
    pub effective: bool,
}

/// The system message the request leads with.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CurrentSystem {
    /// pi's estimate of it.
    pub tokens: u64,
    /// Its content's length in UTF-16 units.
    pub content_length: usize,
    /// Its sections' names.
    pub sections: Vec<String>,
    /// Its tools' names.
    #[ts(type = "unknown[]")]
    pub tools: Vec<Value>,
    /// Its timestamp as stored.
    #[ts(type = "unknown")]
    pub timestamp: Value,
}

/// omp 18 (omp-18.md §4, docs/decisions.md D17): whose counting the numbers are.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TokenCount<'a> {
    /// The default role's model.
    pub model: Option<&'a str>,
    /// The native tokenizer omp counts that model with, if any.
    pub native_tokenizer: Option<&'static str>,
    /// The numbers are omp's own (no native tokenizer).
    pub agents_own: bool,
    /// How the numbers are counted.
    pub method: &'static str,
    /// The same, in a sentence.
    pub note: String,
}

/// Something the request depends on that the file does not determine.
#[derive(Serialize, TS, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct NotReproducible {
    /// The entry it comes from (`None`: the whole context).
    pub entry_id: Option<String>,
    /// A short machine name (`openai-native-history`, `context-hooks`, …).
    pub kind: &'static str,
    /// What cannot be recomputed and why.
    pub reason: String,
}

/// Whose wording wraps the summaries.
#[derive(Serialize, TS, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct PromptsReport {
    /// `agent`, `own` or `custom`.
    pub source: &'static str,
    /// Short name: `pi 0.73.1`, `contextree's own wording`.
    pub name: String,
    /// The full description (package path, verification).
    pub detail: String,
}

impl From<&PackOrigin> for PromptsReport {
    fn from(origin: &PackOrigin) -> Self {
        let (source, name) = match origin {
            PackOrigin::Own => ("own", "contextree's own wording".to_owned()),
            PackOrigin::Agent { dialect, version, .. } => {
                let agent = match dialect {
                    Dialect::Pi => "pi",
                    Dialect::Omp => "oh-my-pi",
                };
                ("agent", format!("{agent} {version}"))
            }
            PackOrigin::Custom(what) => ("custom", what.clone()),
        };
        Self { source, name, detail: origin.to_string() }
    }
}

/// A tokenizer's count of the LLM messages.
#[derive(Serialize, TS, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct TokenizerCount {
    /// `o200k_base` or `cl100k_base`.
    pub name: &'static str,
    /// The count.
    pub llm_tokens: usize,
}

/// The replayed system message, as text (pi-1.6.md §2.5).
#[derive(Serialize, TS, Debug)]
#[serde(rename_all = "camelCase")]
pub struct SystemText {
    /// pi's estimate of the whole system message.
    pub tokens: u64,
    /// Its content text, cut.
    pub content: String,
    /// Prompt sections in order.
    pub sections: Vec<SystemSection>,
    /// Declared tools in order.
    pub tools: Vec<SystemTool>,
    /// System messages in the context (the first, or a compaction's checkpoint, and patches).
    pub messages: usize,
}

/// One prompt section.
#[derive(Serialize, TS, Debug)]
#[serde(rename_all = "camelCase")]
pub struct SystemSection {
    /// Its name (`preamble`, `tools`, …).
    pub name: String,
    /// `ceil(chars / 4)` of its text: its share of the estimate.
    pub tokens: u64,
    /// The text, cut.
    pub text: String,
    /// `text` was cut.
    pub truncated: bool,
}

/// One declared tool.
#[derive(Serialize, TS, Debug)]
#[serde(rename_all = "camelCase")]
pub struct SystemTool {
    /// The tool's name.
    pub name: String,
    /// Length of its declaration (name, description, parameter schema) as JSON.
    pub schema_chars: u64,
    /// `ceil(schema_chars / 4)`: its share of the estimate.
    pub tokens: u64,
}

/// One agent message.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MessageRow<'a> {
    /// Its place in the context.
    pub i: usize,
    /// Its role (`user`, `toolResult`, `compactionSummary`, …).
    pub role: &'a str,
    /// The dialect's estimate.
    pub tokens: u64,
    /// The entry behind it (a summary stands for its compaction entry, as in the oracle).
    pub entry_id: Option<&'a str>,
    /// That entry's number.
    pub entry_index: u32,
    /// pi ≥ 0.87's facts of the message.
    #[serde(flatten)]
    pub facts: Facts,
    /// With the breakdown asked: the indices of its rows this message has a part in (the app
    /// filters the messages by a row with them).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub breakdown_rows: Option<Vec<u32>>,
    /// With text asked: what the model gets of it (the fields are absent otherwise).
    #[serde(flatten)]
    pub shown: Shown,
}

/// One LLM message.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LlmRow {
    /// Its place among the LLM messages.
    pub i: usize,
    /// Its role.
    #[ts(type = "string")]
    pub role: Name,
    /// The dialect's estimate.
    pub tokens: u64,
    /// The facts of the agent message it comes from.
    #[serde(flatten)]
    pub facts: Facts,
}

/// The facts of a message (pi ≥ 0.87: `editedBy`, a system message's), shared by its agent and
/// LLM message; empty for most.
#[derive(Serialize, TS, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Facts {
    /// The `context_edit` entry whose content this message carries.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub edited_by: Option<String>,
    /// A system message: the section names it sets.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub system_sections: Option<Vec<String>>,
    /// The section names it removes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub removed_sections: Option<Vec<String>>,
    /// The tools it adds.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(type = "unknown[]", optional)]
    pub tools_added: Option<Vec<Value>>,
    /// The tools it removes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(type = "unknown[]", optional)]
    pub tools_removed: Option<Vec<Value>>,
    /// Its content's length in UTF-16 units.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub content_length: Option<usize>,
}

/// What the model gets of a message, as the app's panel shows it: present only when the face
/// asked for text ([`ContextOptions::text_chars`]).
#[derive(Serialize, TS, Debug, Default)]
#[serde(rename_all = "camelCase")]
pub struct Shown {
    /// The role after `convertToLlm`; `null` when it is not sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub llm_role: Option<Option<String>>,
    /// The dialect's estimate of the LLM message (0 when not sent).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub llm_tokens: Option<u64>,
    /// Readable text of the LLM message (of the agent message when not sent), cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub text: Option<String>,
    /// `text` was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub truncated: Option<bool>,
}

impl<'a> ContextReport<'a> {
    /// The report of `ctx`, a context of `s` whose messages read back through `source`, with
    /// the summaries wrapped in `pack`'s words. Each message's estimate is kept (8 bytes a
    /// message); the rows are made again while they are written.
    pub fn new(
        s: &'a Session,
        ctx: &'a Context,
        pack: &'a PromptPack,
        source: &'a dyn Source,
        options: ContextOptions,
    ) -> Result<Self, ReadBackError> {
        // With text asked (the app), every message is read back once and its numbers kept;
        // without (the CLI), only each message's estimate is kept and the LLM rows are made
        // again while they are written, so a long context's rows are never held.
        let held = match options.text_chars {
            Some(_) => Some(context_tokens(s, ctx, pack, source)?),
            None => None,
        };
        let (estimates, llm_count, llm_tokens) = match &held {
            Some(t) => (t.messages.iter().map(|m| m.2).collect(), t.llm.len(), t.llm_tokens()),
            None => {
                let mut estimates: Vec<u64> = Vec::with_capacity(ctx.items.len());
                let (mut llm_count, mut llm_tokens) = (0usize, 0u64);
                let mut rows = Vec::new();
                for &item in &ctx.items {
                    estimates.push(item_tokens(s, ctx, item, pack, source, &mut rows)?);
                    llm_count += rows.len();
                    llm_tokens += rows.iter().map(|r| r.1).sum::<u64>();
                }
                (estimates, llm_count, llm_tokens)
            }
        };
        let message_tokens: u64 = estimates.iter().sum();
        let (breakdown, of_message) = match options.breakdown {
            true => {
                let b = breakdown(s, ctx, &estimates, source)?;
                (Some(b.rows), Some(b.of_message))
            }
            false => (None, None),
        };
        let estimate = |i: usize| estimates[i];
        let est = estimate_context_tokens_of(s, ctx, &estimate);
        let projected = estimate_projected_context_tokens_of(s, ctx, &estimate, source)?;
        let (projection, facts) =
            if s.rules().projects_context_edits() { projection_facts(s, ctx, source)? } else { (Projection::default(), HashMap::new()) };
        let (model, models, mode) = model_of(s, ctx);
        let default_model = default_role_model(ctx);
        let omp18 = s.rules().counts_utf8_fragments();
        let tokenizer = match options.tokenizer {
            Some(kind) => Some(tokenizer_count(s, ctx, pack, source, kind)?),
            None => None,
        };
        let shown = match (options.text_chars, &held) {
            (Some(max), Some(tokens)) => Some(context_messages(s, ctx, tokens, pack, source, max)?),
            _ => None,
        };
        let system = match options.text_chars {
            Some(max) if s.rules().projects_context_edits() => current_system(s, ctx, source)?.map(|m| system_text(s, ctx, &m, max)),
            _ => None,
        };
        let failed = ReadBackSlot::default();
        let facts = std::rc::Rc::new(facts);
        let messages = message_rows(s, ctx, estimates, facts.clone(), shown, of_message);
        let llm = match held {
            Some(tokens) => held_llm_rows(ctx, tokens, facts),
            None => llm_rows(s, ctx, pack, source, facts, failed.clone()),
        };
        Ok(ContextReport {
            dialect: s.dialect().name(),
            rule_set: s.rule_choice(),
            leaf_id: ctx.leaf.and_then(|n| s.entry(n).id().map(str::to_owned)),
            leaf_index: ctx.leaf.map(|n| n.0),
            model,
            models,
            mode,
            thinking_level: &ctx.thinking_level,
            path_length: ctx.path.len(),
            message_count: ctx.items.len(),
            message_tokens,
            breakdown,
            llm_count,
            llm_tokens,
            estimate_context_tokens: est,
            estimate_projected_context_tokens: projected,
            projection,
            provider_replay: ctx.provider_replay,
            token_count: omp18.then(|| token_count(default_model)),
            not_reproducible: not_reproducible_of(s, ctx, default_model),
            configured_thinking_level: omp18.then_some(ctx.omp.configured_thinking_level.as_deref()),
            reset_boundary_id: omp18.then(|| ctx.reset_boundary.and_then(|n| s.entry(n).id().map(str::to_owned))),
            prompts: pack.origin().into(),
            tokenizer,
            system,
            messages: Rows::new(messages),
            llm: Rows::new(llm),
            failed,
        })
    }

    /// After the report was written: the first message that could not be read back while its
    /// LLM rows were made (the file changed); the list ended there.
    pub fn finish(self) -> Result<(), ReadBackError> {
        self.failed.finish()
    }
}

/// The agent message rows, from the kept estimates (and, with text asked, the shown messages).
fn message_rows<'a>(
    s: &'a Session,
    ctx: &'a Context,
    estimates: Vec<u64>,
    facts: std::rc::Rc<HashMap<usize, Facts>>,
    shown: Option<Vec<contextree_core::view::ContextMessage>>,
    of_message: Option<Vec<Vec<u32>>>,
) -> Box<dyn Iterator<Item = MessageRow<'a>> + 'a> {
    let mut shown = shown.map(Vec::into_iter);
    let mut of_message = of_message.map(Vec::into_iter);
    Box::new(ctx.items.iter().zip(estimates).enumerate().map(move |(i, (&item, tokens))| MessageRow {
        i,
        role: item_role(s, item),
        tokens,
        entry_id: s.entry(item.node()).id(),
        entry_index: item.node().0,
        facts: facts.get(&i).cloned().unwrap_or_default(),
        breakdown_rows: of_message.as_mut().and_then(Iterator::next),
        shown: shown.as_mut().and_then(Iterator::next).map_or_else(Shown::default, |m| Shown {
            llm_role: Some(m.llm_role),
            llm_tokens: Some(m.llm_tokens),
            text: Some(m.text),
            truncated: Some(m.truncated),
        }),
    }))
}

/// The LLM rows in the items' order (dropped ones skipped), each item's made again; a
/// read-back failure ends the list and is kept for [`ContextReport::finish`].
fn llm_rows<'a>(
    s: &'a Session,
    ctx: &'a Context,
    pack: &'a PromptPack,
    source: &'a dyn Source,
    facts: std::rc::Rc<HashMap<usize, Facts>>,
    failed: ReadBackSlot,
) -> Box<dyn Iterator<Item = LlmRow> + 'a> {
    let (mut rows, mut at, mut k, mut i) = (Vec::<(Name, u64)>::new(), 0, 0, 0);
    Box::new(std::iter::from_fn(move || loop {
        if let Some((role, n)) = rows.get(at) {
            at += 1;
            i += 1;
            return Some(LlmRow { i: i - 1, role: role.clone(), tokens: *n, facts: facts.get(&(k - 1)).cloned().unwrap_or_default() });
        }
        let &item = ctx.items.get(k)?;
        if let Err(e) = item_tokens(s, ctx, item, pack, source, &mut rows) {
            failed.keep(e);
            return None;
        }
        (at, k) = (0, k + 1);
    }))
}

/// The LLM rows from numbers already held (text asked): the same rows [`llm_rows`] makes,
/// each with the facts of the agent message it comes from.
fn held_llm_rows<'a>(
    ctx: &'a Context,
    tokens: contextree_core::context::ContextTokens,
    facts: std::rc::Rc<HashMap<usize, Facts>>,
) -> Box<dyn Iterator<Item = LlmRow> + 'a> {
    let mut k = 0;
    Box::new(tokens.llm.into_iter().enumerate().map(move |(i, (item, role, n))| {
        // LLM messages come in the items' order: the agent message is the next item that is it.
        while ctx.items.get(k).is_some_and(|&at| at != item) {
            k += 1;
        }
        LlmRow { i, role, tokens: n, facts: facts.get(&k).cloned().unwrap_or_default() }
    }))
}

/// What the request from `ctx`'s leaf depends on that the file cannot tell, under the rule sets
/// that name something (`default_model`: omp's default role's model).
pub(crate) fn not_reproducible_of(s: &Session, ctx: &Context, default_model: Option<&str>) -> Option<Vec<NotReproducible>> {
    not_reproducible(s, ctx, default_model).map(|list| {
        list.into_iter()
            .map(|n| NotReproducible { entry_id: n.entry.and_then(|e| s.entry(e).id().map(str::to_owned)), kind: n.kind, reason: n.reason })
            .collect()
    })
}

/// omp's default role's model on `ctx`'s path.
pub(crate) fn default_role_model(ctx: &Context) -> Option<&str> {
    ctx.model.omp.iter().find(|(r, _)| r == "default").map(|(_, m)| m.as_str())
}

pub(crate) type ModelParts<'a> = (ModelReport<'a>, Option<Ordered<&'a str>>, Option<&'a str>);

/// The model of the path: pi's pair, omp's roles and mode.
pub(crate) fn model_of<'a>(s: &Session, ctx: &'a Context) -> ModelParts<'a> {
    match s.dialect() {
        Dialect::Pi => {
            let model = ctx.model.pi.as_ref().map(|(p, m)| PiModel { provider: p.as_deref(), model_id: m.as_deref() });
            (ModelReport::Pi(model), None, None)
        }
        Dialect::Omp => {
            let mut models = Ordered::default();
            for (role, model) in &ctx.model.omp {
                models.set(role, model.as_str());
            }
            (ModelReport::Omp(models.get("default").copied()), Some(models), Some(ctx.omp.mode.as_str()))
        }
    }
}

/// omp 18's counting for the default model.
pub(crate) fn token_count(model: Option<&str>) -> TokenCount<'_> {
    let family = model.and_then(contextree_core::tokens::native_tokenizer);
    TokenCount {
        model,
        native_tokenizer: family,
        agents_own: family.is_none(),
        method: "sum over text fragments of (UTF-8 bytes + 3) >> 2, images 1200",
        note: match family {
            Some(f) => format!("approximation of the agent's count: oh-my-pi 18 counts this model's tokens with its native `{f}` tokenizer, which is not reproducible from the file"),
            None => "oh-my-pi 18's own count for this model".to_owned(),
        },
    }
}

fn tokenizer_count(
    s: &Session,
    ctx: &Context,
    pack: &PromptPack,
    source: &dyn Source,
    kind: TokenizerKind,
) -> Result<TokenizerCount, ReadBackError> {
    let msgs = contextree_core::context::llm_messages(s, ctx, pack, source)?;
    let n = msgs.iter().filter_map(Value::as_object).map(|m| contextree_core::tokens::count_message(kind, m, s.rules())).sum();
    Ok(TokenizerCount { name: kind.name(), llm_tokens: n })
}

/// The replayed system message as the panel shows it, its texts cut at `max_chars`.
fn system_text(s: &Session, ctx: &Context, msg: &Value, max_chars: usize) -> SystemText {
    let cut = |t: &str| -> (String, bool) {
        match t.char_indices().nth(max_chars) {
            Some((i, _)) => (t[..i].to_owned(), true),
            None => (t.to_owned(), false),
        }
    };
    let p = parts(msg);
    SystemText {
        tokens: p.tokens,
        content: cut(&p.content).0,
        sections: p
            .sections
            .iter()
            .map(|(name, text)| {
                let (text_cut, truncated) = cut(text);
                SystemSection { name: name.clone(), tokens: (utf16_len(text) as u64).div_ceil(4), text: text_cut, truncated }
            })
            .collect(),
        tools: p
            .tools
            .iter()
            .map(|(name, chars)| SystemTool { name: name.clone(), schema_chars: *chars, tokens: chars.div_ceil(4) })
            .collect(),
        messages: ctx.items.iter().filter(|&&i| is_system_item(s, i)).count(),
    }
}

/// pi ≥ 0.87: the context's [`Projection`] and the [`Facts`] of some of its messages, by
/// item index (the edited messages and the system messages).
fn projection_facts(s: &Session, ctx: &Context, source: &dyn Source) -> Result<(Projection, HashMap<usize, Facts>), ReadBackError> {
    let id = |n: NodeId| s.entry(n).id.to_string();
    let edits = ctx
        .edits
        .iter()
        .map(|e| Edit {
            entry_id: id(e.edit),
            entry_index: e.edit.0,
            target_id: e.target_id.to_string(),
            target_index: s.node(&e.target_id).map(|n| n.0),
            action: if e.omit { "omit" } else { "replace" },
            effective: e.effective,
        })
        .collect();
    let mut replaced = Vec::new();
    for p in &ctx.projected {
        if ctx.items[p.items.clone()].iter().any(|i| matches!(i, Item::Replaced { .. })) {
            replaced.push(id(p.node));
        }
    }
    let mut facts = HashMap::new();
    for (k, &item) in ctx.items.iter().enumerate() {
        let mut f = Facts::default();
        if let Item::Replaced { edit, .. } = item {
            f.edited_by = Some(id(edit));
        }
        if is_system_item(s, item) {
            system_facts(&mut f, &agent_message(s, item, source)?);
        }
        if f.edited_by.is_some() || f.content_length.is_some() {
            facts.insert(k, f);
        }
    }
    let current_system = current_system(s, ctx, source)?.map(|cur| {
        let names =
            |key: &str| -> Vec<String> { cur.get(key).and_then(Value::as_object).map_or_else(Vec::new, |m| m.keys().cloned().collect()) };
        CurrentSystem {
            tokens: cur.as_object().map_or(0, |m| contextree_core::tokens::estimate_message(m, s.rules())),
            content_length: content_length(cur.get("content")),
            sections: names("sections"),
            tools: tool_names(cur.get("toolsAdded")),
            timestamp: cur.get("timestamp").cloned().unwrap_or(Value::Null),
        }
    });
    let projection = Projection {
        context_entry_count: Some(ctx.projected.len()),
        context_edits_on_path: Some(ctx.path.iter().filter(|&&n| s.entry(n).entry_type == "context_edit").count()),
        context_edits: Some(edits),
        omitted_entry_ids: Some(ctx.omitted.iter().map(|&n| id(n)).collect()),
        replaced_entry_ids: Some(replaced),
        system_message_count: Some(ctx.items.iter().filter(|&&i| is_system_item(s, i)).count()),
        current_system: Some(current_system),
    };
    Ok((projection, facts))
}

/// The oracle's `systemFacts` of a system message: section names set and removed, tool names
/// added and removed, the content's text length.
fn system_facts(f: &mut Facts, m: &Value) {
    let sections = m.get("sections").and_then(Value::as_object);
    let keys = |removed: bool| -> Vec<String> {
        sections.into_iter().flatten().filter(|(_, v)| v.is_null() == removed).map(|(k, _)| k.clone()).collect()
    };
    f.system_sections = Some(keys(false));
    f.removed_sections = Some(keys(true));
    f.tools_added = Some(tool_names(m.get("toolsAdded")));
    f.tools_removed = Some(tool_names(m.get("toolsRemoved")));
    f.content_length = Some(content_length(m.get("content")));
}

fn tool_names(list: Option<&Value>) -> Vec<Value> {
    list.and_then(Value::as_array).into_iter().flatten().map(|t| t.get("name").cloned().unwrap_or(Value::Null)).collect()
}

/// A string's UTF-16 length, or the text blocks' lengths summed.
fn content_length(content: Option<&Value>) -> usize {
    match content {
        Some(Value::String(text)) => utf16_len(text),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .map(utf16_len)
            .sum(),
        _ => 0,
    }
}
