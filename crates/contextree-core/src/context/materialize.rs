//! From context items to the agents' message objects, the LLM messages and
//! their token numbers. Message text is read back through a [`Source`] only
//! where a number or view needs it.

use serde_json::{Map, Value};

use super::build::{entry_estimate, Context, Item};
use super::llm::convert_message_all;
use crate::prompts::PromptPack;
use crate::session::{Entry, EntryKind, Name, Role, Session, Source, SourceError};
use crate::tokens::estimate::estimate_message;
use crate::{Dialect, RuleSet};

/// An entry's bytes could not be read back or no longer parse.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {cause}")]
pub struct ReadBackError {
    /// 1-based file line of the entry.
    pub line: u32,
    /// What went wrong.
    #[source]
    pub cause: ReadBackCause,
}

/// Why an entry could not be read back: the file changed since it was indexed, or reading failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadBackCause {
    /// Its bytes cannot be had.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// Its bytes are no longer the JSON that was indexed.
    #[error("the entry no longer parses ({0}); was the file changed?")]
    NoLongerParses(#[source] serde_json::Error),
    /// Its message is gone.
    #[error("the entry has no message any more; was the file changed?")]
    NoMessage,
}

impl ReadBackError {
    /// `cause` at the entry on `line`.
    pub fn at(line: u32, cause: impl Into<ReadBackCause>) -> ReadBackError {
        ReadBackError { line, cause: cause.into() }
    }
}

/// The agent message (context.md §1 step 4) of one item.
pub fn agent_message(session: &Session, item: Item, source: &dyn Source) -> Result<Value, ReadBackError> {
    let e = session.entry(item.node());
    let map = e.object();
    let ts = || iso_ms_value(e);
    let field = |k: &str| map.and_then(|m| m.get(k)).cloned();
    let mut out = Map::new();
    match item {
        Item::SystemCheckpoint(_) => return Ok(field("systemMessage").unwrap_or(Value::Null)),
        Item::Replaced { node, edit } => {
            let mut msg = agent_message(session, Item::Entry(node), source)?;
            let replacement = session.entry(edit).object().and_then(|m| m.get("replacement")).and_then(|r| r.get("content")).cloned();
            if let Some(obj) = msg.as_object_mut() {
                let role = obj.get("role").and_then(Value::as_str).unwrap_or("");
                // A string replaces an assistant's or a tool result's content as one text block.
                let content = match (role, replacement) {
                    ("assistant" | "toolResult", Some(Value::String(text))) => serde_json::json!([{"type": "text", "text": text}]),
                    (_, Some(v)) => v,
                    (_, None) => Value::Null,
                };
                if content.is_null() {
                    // `{...message, content: undefined}`: JSON leaves the key out.
                    obj.remove("content");
                } else {
                    obj.insert("content".into(), content);
                }
            }
            return Ok(msg);
        }
        Item::CompactionSummary(_) => {
            out.insert("role".into(), "compactionSummary".into());
            out.insert("summary".into(), field("summary").unwrap_or(Value::Null));
            if session.dialect() == Dialect::Omp {
                if let Some(short) = field("shortSummary") {
                    out.insert("shortSummary".into(), short);
                }
            }
            out.insert("tokensBefore".into(), field("tokensBefore").unwrap_or(Value::Null));
            if session.rules().honours_reset_boundary() {
                // omp ≥ 18 (omp-18.md §2.2): display metadata and the method, which picks the wrapper.
                for k in ["tokensAfter", "method", "warning"] {
                    if let Some(v) = field(k).filter(|v| !v.is_null()) {
                        out.insert(k.into(), v);
                    }
                }
            }
            out.insert("timestamp".into(), ts());
            let payload = openai_payload(e, session.dialect()).or_else(|| anthropic_payload(e, session.rules()));
            if let Some(payload) = payload {
                out.insert("providerPayload".into(), payload);
            }
        }
        Item::Entry(_) => match &*e.entry_type {
            "custom_message" => {
                out.insert("role".into(), "custom".into());
                for k in ["customType", "content", "display", "details"] {
                    match field(k) {
                        // pi ≥ 0.80 sends `content ?? []`.
                        None | Some(Value::Null) if k == "content" && session.rules().projects_context_edits() => {
                            out.insert(k.into(), Value::Array(Vec::new()));
                        }
                        Some(v) => {
                            out.insert(k.into(), v);
                        }
                        None => {}
                    }
                }
                if session.dialect() == Dialect::Omp {
                    if let Some(v) = field("attribution") {
                        out.insert("attribution".into(), v);
                    }
                }
                out.insert("timestamp".into(), ts());
            }
            "branch_summary" => {
                out.insert("role".into(), "branchSummary".into());
                out.insert("summary".into(), field("summary").unwrap_or(Value::Null));
                out.insert("fromId".into(), field("fromId").unwrap_or(Value::Null));
                out.insert("timestamp".into(), ts());
            }
            _ => {
                let mut msg = read_message(e, source)?;
                if session.rules().projects_context_edits() {
                    normalize_null_content(&mut msg);
                }
                return Ok(msg);
            }
        },
    }
    Ok(Value::Object(out))
}

/// pi ≥ 0.80: a message whose content is null or missing gets `""` (system)
/// or `[]` (user, assistant, tool result) (pi-1.6.md §2.3).
fn normalize_null_content(msg: &mut Value) {
    let Some(obj) = msg.as_object_mut() else { return };
    if !obj.get("content").is_none_or(Value::is_null) {
        return;
    }
    match obj.get("role").and_then(Value::as_str) {
        Some("system") => {
            obj.insert("content".into(), Value::String(String::new()));
        }
        Some("user" | "assistant" | "toolResult") => {
            obj.insert("content".into(), Value::Array(Vec::new()));
        }
        _ => {}
    }
}

fn read_message(e: &Entry, source: &dyn Source) -> Result<Value, ReadBackError> {
    let bytes = source.bytes(e.span).map_err(|x| ReadBackError::at(e.line, x))?;
    let mut value: Value =
        crate::session::probe::parse_value_lenient(&bytes).map_err(|x| ReadBackError::at(e.line, ReadBackCause::NoLongerParses(x)))?;
    let mut msg = value.get_mut("message").map(Value::take).ok_or(ReadBackError::at(e.line, ReadBackCause::NoMessage))?;
    if let (Some(EntryKind::Message(m)), Some(obj)) = (Some(&e.kind), msg.as_object_mut()) {
        // v2 → v3 migration renamed the role in the agents' memory.
        if m.role == Role::Custom && obj.get("role").and_then(Value::as_str) == Some("hookMessage") {
            obj.insert("role".into(), "custom".into());
        }
    }
    Ok(msg)
}

/// `new Date(entry.timestamp).getTime()`: integral ms print as integers, and
/// NaN (an unparseable timestamp) becomes null in JSON.
fn iso_ms_value(e: &Entry) -> Value {
    match e.timestamp_ms.get() {
        Some(ms) if ms.fract() == 0.0 => Value::from(ms as i64),
        Some(ms) => serde_json::Number::from_f64(ms).map_or(Value::Null, Value::Number),
        None => Value::Null,
    }
}

fn openai_payload(c: &Entry, dialect: Dialect) -> Option<Value> {
    if dialect != Dialect::Omp {
        return None;
    }
    let replay = c.object()?.get("preserveData")?.get("openaiRemoteCompaction")?;
    let provider = replay.get("provider")?.as_str().filter(|p| !p.is_empty())?;
    let items = replay.get("replacementHistory").filter(|h| h.is_array())?;
    let mut payload = Map::new();
    payload.insert("type".into(), "openaiResponsesHistory".into());
    payload.insert("provider".into(), provider.into());
    payload.insert("items".into(), items.clone());
    Some(Value::Object(payload))
}

/// omp ≥ 18's Anthropic-native compaction payload (`getAnthropicCompactionPayload`,
/// omp-18.md §2.2), as stored.
fn anthropic_payload(c: &Entry, rules: RuleSet) -> Option<Value> {
    if !rules.honours_reset_boundary() {
        return None;
    }
    let native = c.object()?.get("preserveData")?.get("anthropicCompaction")?;
    native.get("provider")?.as_str().filter(|p| !p.is_empty())?;
    let mut payload = Map::new();
    payload.insert("type".into(), "anthropicCompaction".into());
    payload.insert("data".into(), native.clone());
    Some(Value::Object(payload))
}

/// The agent message of an item as the context holds it: omp ≥ 18 strips
/// the tool calls without a result from an assistant ([`Context::stripped`]).
pub fn context_message(session: &Session, ctx: &Context, item: Item, source: &dyn Source) -> Result<Value, ReadBackError> {
    let mut msg = agent_message(session, item, source)?;
    if let Some(mask) = ctx.stripped_calls(item) {
        super::omp18::strip_dangling_calls(&mut msg, mask);
    }
    if let Item::CompactionSummary(c) = item {
        date_native_rewrite(session, ctx, c, &mut msg);
    }
    Ok(msg)
}

/// The message `convertToLlm` starts from for `item`, given its agent message `msg` (from
/// [`context_message`]): the same, but for an interrupted assistant under omp ≥ 18, whose
/// trailing unsigned thinking the LLM does not get ([`Context::interrupted`]).
pub(crate) fn llm_source<'m>(ctx: &Context, item: Item, msg: &'m Value) -> std::borrow::Cow<'m, Value> {
    if !matches!(item, Item::Entry(_)) || !ctx.interrupted.contains(&item.node()) {
        return std::borrow::Cow::Borrowed(msg);
    }
    let mut out = msg.clone();
    super::omp18::strip_demoted_thinking(&mut out);
    std::borrow::Cow::Owned(out)
}

/// omp ≥ 18 dates the summary of an Anthropic-native compaction just before the first entry
/// it retains, so that entry's signed thinking stays valid (`buildSessionContext`): 18.2 moves
/// the summary's `timestamp` there, 18.3 keeps the compaction's time as `timestamp` and puts
/// the rewrite time in `historyRewriteAt`, just before it (omp-18.md §2.2, omp-18.3.md §1.2).
fn date_native_rewrite(session: &Session, ctx: &Context, c: crate::session::NodeId, msg: &mut Value) {
    let rules = session.rules();
    if !rules.honours_reset_boundary() || !super::omp18::has_anthropic_payload(session.entry(c)) {
        return;
    }
    let Some(k) = ctx.path.iter().position(|&n| n == c) else { return };
    let kept_id = session.entry(c).str_field("firstKeptEntryId");
    let first_kept = ctx.path.iter().position(|&n| session.entry(n).id() == kept_id).filter(|&i| i < k);
    let snapshot = || {
        let through = session.entry(c).str_field("providerReplayThroughEntryId").filter(|t| kept_id == Some("") && !t.is_empty())?;
        ctx.path.iter().position(|&n| session.entry(n).id() == Some(through)).filter(|&t| t + 1 < k).map(|t| t + 1)
    };
    let retained = first_kept.or_else(|| rules.dates_native_rewrites_separately().then(snapshot).flatten()).unwrap_or(k + 1);
    let Some(at) = ctx.path.get(retained).and_then(|&n| session.entry(n).timestamp_ms.get()).filter(|ms| ms.is_finite()) else {
        return;
    };
    let rewrite = serde_json::Number::from_f64(at - 1.0).map_or(Value::Null, |n| js_ms(n, at - 1.0));
    let Some(obj) = msg.as_object_mut() else { return };
    if rules.dates_native_rewrites_separately() {
        // The key sits just before `timestamp`, as the agent builds the message.
        let ts = obj.remove("timestamp");
        obj.insert("historyRewriteAt".into(), rewrite);
        if let Some(ts) = ts {
            obj.insert("timestamp".into(), ts);
        }
    } else {
        obj.insert("timestamp".into(), rewrite);
    }
}

/// A millisecond time as `getTime()` gives it: integral values print as integers.
fn js_ms(n: serde_json::Number, ms: f64) -> Value {
    if ms.fract() == 0.0 && ms.abs() < 9.0e15 {
        Value::from(ms as i64)
    } else {
        Value::Number(n)
    }
}

/// Token numbers of a context, in the dialect's estimate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextTokens {
    /// Per agent message: `(item, role, estimate)`.
    pub messages: Vec<(Item, Name, u64)>,
    /// Per LLM message after `convertToLlm`: `(item it came from, role, estimate)`.
    pub llm: Vec<(Item, Name, u64)>,
}

impl ContextTokens {
    /// Sum over agent messages.
    pub fn message_tokens(&self) -> u64 {
        self.messages.iter().map(|m| m.2).sum()
    }
    /// Sum over LLM messages.
    pub fn llm_tokens(&self) -> u64 {
        self.llm.iter().map(|m| m.2).sum()
    }
}

/// The role of an item's agent message.
pub fn item_role(session: &Session, item: Item) -> &str {
    let e = session.entry(item.node());
    match (item, &e.kind) {
        (Item::CompactionSummary(_), _) => "compactionSummary",
        (Item::SystemCheckpoint(_), _) => "system",
        (_, EntryKind::Message(m)) => m.role.as_str(),
        _ if &*e.entry_type == "custom_message" => "custom",
        _ => "branchSummary",
    }
}

/// The estimate of one item's agent message; a replaced message and a
/// compaction's system checkpoint are read back and measured.
pub fn item_estimate(session: &Session, item: Item, source: &dyn Source) -> Result<u64, ReadBackError> {
    let rules = session.rules();
    if matches!(item, Item::SystemCheckpoint(_) | Item::Replaced { .. }) {
        let msg = agent_message(session, item, source)?;
        return Ok(msg.as_object().map_or(0, |m| estimate_message(m, rules)));
    }
    Ok(entry_estimate(session.entry(item.node()), rules))
}

/// The agent messages' token numbers only (`llm` left empty): what the
/// estimates and the compaction cut need, without a prompt pack.
pub(crate) fn message_tokens(session: &Session, ctx: &Context, source: &dyn Source) -> Result<ContextTokens, ReadBackError> {
    let mut res = ContextTokens { messages: Vec::with_capacity(ctx.items.len()), llm: Vec::new() };
    for &item in &ctx.items {
        res.messages.push((item, item_role(session, item).into(), item_estimate(session, item, source)?));
    }
    Ok(res)
}

/// [`message_tokens`]' estimates alone (8 bytes a message), in `ctx.items` order.
pub(crate) fn message_estimates(session: &Session, ctx: &Context, source: &dyn Source) -> Result<Vec<u64>, ReadBackError> {
    ctx.items.iter().map(|&item| item_estimate(session, item, source)).collect()
}

/// Token numbers of every message, reading entry text back only for messages
/// that `convertToLlm` rewrites (bash output, summaries, custom messages, ...).
pub fn context_tokens(session: &Session, ctx: &Context, pack: &PromptPack, source: &dyn Source) -> Result<ContextTokens, ReadBackError> {
    let mut res = ContextTokens { messages: Vec::with_capacity(ctx.items.len()), llm: Vec::with_capacity(ctx.items.len()) };
    let mut llm = Vec::new();
    for &item in &ctx.items {
        let n = item_tokens(session, ctx, item, pack, source, &mut llm)?;
        res.messages.push((item, item_role(session, item).into(), n));
        res.llm.extend(llm.drain(..).map(|(role, n)| (item, role, n)));
    }
    Ok(res)
}

/// The sums of [`context_tokens`] (agent messages', LLM messages'), without holding the rows.
pub fn context_token_sums(session: &Session, ctx: &Context, pack: &PromptPack, source: &dyn Source) -> Result<(u64, u64), ReadBackError> {
    let (mut messages, mut llm_sum) = (0u64, 0u64);
    let mut llm = Vec::new();
    for &item in &ctx.items {
        messages += item_tokens(session, ctx, item, pack, source, &mut llm)?;
        llm_sum += llm.iter().map(|r| r.1).sum::<u64>();
    }
    Ok((messages, llm_sum))
}

/// [`context_tokens`] of one item of `ctx`: the estimate of its agent message (returned; its
/// role is [`item_role`]) and the roles and estimates of the LLM messages `convertToLlm`
/// makes of it (in `llm`, cleared first). One item at a time, a caller need not hold the
/// rows of a million-message context.
pub fn item_tokens(
    session: &Session,
    ctx: &Context,
    item: Item,
    pack: &PromptPack,
    source: &dyn Source,
    llm: &mut Vec<(Name, u64)>,
) -> Result<u64, ReadBackError> {
    let rules = session.rules();
    llm.clear();
    let e = session.entry(item.node());
    let rows = |msg: &Value, llm: &mut Vec<(Name, u64)>| {
        for m in convert_message_all(msg, rules, pack) {
            let role: Name = m.get("role").and_then(Value::as_str).unwrap_or("").into();
            llm.push((role, m.as_object().map_or(0, |m| estimate_message(m, rules))));
        }
    };
    if matches!(item, Item::SystemCheckpoint(_) | Item::Replaced { .. }) || ctx.stripped_calls(item).is_some() {
        // Not what the entry itself holds: measured on the message it becomes.
        let msg = context_message(session, ctx, item, source)?;
        rows(&llm_source(ctx, item, &msg), llm);
        return Ok(msg.as_object().map_or(0, |m| estimate_message(m, rules)));
    }
    if ctx.interrupted.contains(&item.node()) {
        // The agent message as stored; the LLM message without its demoted thinking.
        let msg = context_message(session, ctx, item, source)?;
        rows(&llm_source(ctx, item, &msg), llm);
        return Ok(entry_estimate(e, rules));
    }
    match unchanged_by_conversion(e, item, rules) {
        Some(Some(llm_role)) => llm.push((llm_role.into(), entry_estimate(e, rules))),
        Some(None) => {}
        None => rows(&agent_message(session, item, source)?, llm),
    }
    Ok(entry_estimate(e, rules))
}

/// The estimate of one item's agent message as the context holds it: what [`item_tokens`]
/// returns, without making the LLM messages. Only a replaced message, a system checkpoint and
/// an assistant with stripped calls are read back; the rest is the index's number.
pub fn context_item_estimate(session: &Session, ctx: &Context, item: Item, source: &dyn Source) -> Result<u64, ReadBackError> {
    if matches!(item, Item::SystemCheckpoint(_) | Item::Replaced { .. }) || ctx.stripped_calls(item).is_some() {
        let msg = context_message(session, ctx, item, source)?;
        return Ok(msg.as_object().map_or(0, |m| estimate_message(m, session.rules())));
    }
    Ok(entry_estimate(session.entry(item.node()), session.rules()))
}

/// Whether `convertToLlm` passes the message through with the same estimate:
/// `Some(Some(role))` yes, `Some(None)` it drops it, `None` it rewrites it.
fn unchanged_by_conversion(e: &Entry, item: Item, rules: RuleSet) -> Option<Option<&'static str>> {
    let (Item::Entry(_), EntryKind::Message(m)) = (item, &e.kind) else { return None };
    let dialect = rules.dialect();
    match (&m.role, dialect) {
        (Role::System, _) if rules.projects_context_edits() => Some(Some("system")),
        (Role::User, _) => Some(Some("user")),
        (Role::Assistant, _) => Some(Some("assistant")),
        (Role::ToolResult, _) if !(m.pruned && dialect == Dialect::Omp) => Some(Some("toolResult")),
        (Role::BashExecution, _) if m.exclude_from_context => Some(None),
        (Role::Developer, Dialect::Pi) | (Role::HookMessage, Dialect::Pi) | (Role::System | Role::Other(_), _) => Some(None),
        _ => None,
    }
}

/// The LLM messages of a context, in order (`convertToLlm` of every item).
pub fn llm_messages(session: &Session, ctx: &Context, pack: &PromptPack, source: &dyn Source) -> Result<Vec<Value>, ReadBackError> {
    let mut res = Vec::with_capacity(ctx.items.len());
    for &item in &ctx.items {
        let msg = context_message(session, ctx, item, source)?;
        res.extend(convert_message_all(&llm_source(ctx, item, &msg), session.rules(), pack));
    }
    Ok(res)
}

/// `serializeConversation(convertToLlm(context))`, streamed: one entry is
/// parsed at a time, so memory stays bounded by the output text.
pub fn serialize_context(session: &Session, ctx: &Context, pack: &PromptPack, source: &dyn Source) -> Result<String, ReadBackError> {
    let mut out = String::new();
    serialize_context_with(session, ctx, pack, source, &mut |part| out.push_str(part))?;
    Ok(out)
}

/// [`serialize_context`] given to `emit` one message's text at a time (their concatenation is
/// the whole text), so a writer need not hold the text of a million messages.
pub fn serialize_context_with(
    session: &Session,
    ctx: &Context,
    pack: &PromptPack,
    source: &dyn Source,
    emit: &mut dyn FnMut(&str),
) -> Result<(), ReadBackError> {
    let mut out = String::new();
    let mut first = true;
    let rules = session.rules();
    // omp ≥ 18 leaves useless tool results and their calls out (omp-18.md §5.6).
    let useless: std::collections::HashSet<u64> = ctx
        .items
        .iter()
        .filter_map(|i| session.entry(i.node()).message().filter(|m| m.turn.useless).and_then(|m| m.turn.tool_call_id))
        .collect();
    let is_useless = |id: Option<&Value>| crate::session::call_key(id).is_some_and(|k| useless.contains(&k));
    for &item in &ctx.items {
        let msg = context_message(session, ctx, item, source)?;
        for llm in convert_message_all(&llm_source(ctx, item, &msg), rules, pack) {
            if rules.serializes_with_omp18_labels() {
                super::serialize::serialize_omp18_into(&llm, &is_useless, &mut out, &mut first);
            } else {
                super::serialize::serialize_message_into(&llm, rules, &mut out, &mut first);
            }
        }
        if !out.is_empty() {
            emit(&out);
            out.clear();
        }
    }
    Ok(())
}

/// omp 18's summarizer input for the whole context (omp-18.md §5.5):
/// `serializeConversationForSummary(convertToLlm(context), dialect)`.
pub fn summary_transcript(
    session: &Session,
    ctx: &Context,
    pack: &PromptPack,
    source: &dyn Source,
    dialect: crate::compaction::transcript::SummaryDialect,
) -> Result<String, ReadBackError> {
    let llm = llm_messages(session, ctx, pack, source)?;
    Ok(crate::compaction::transcript::serialize_for_summary(&llm, dialect))
}
