//! `contextree context`.

use std::collections::HashMap;

use clap::Args;
use contextree_core::context::materialize::{agent_message, item_role, item_tokens, llm_messages, ReadBackError};
use contextree_core::context::system::{current_system, is_system_item};
use contextree_core::context::usage::{estimate_context_tokens_of, estimate_projected_context_tokens_of, ContextEstimate};
use contextree_core::context::{Context, Item};
use contextree_core::js::utf16_len;
use contextree_core::session::{Session, Source};
use contextree_core::tokens::tokenizer::TokenizerKind;
use contextree_core::Dialect;
use serde_json::{json, Map, Value};

use std::io::Write;

use crate::common::{print_session_json_streamed, read_back, write_stdout_with, CliError, SessionArgs};

#[derive(Debug, Args)]
pub struct ContextArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// Also count the LLM messages with a tokenizer: `o200k_base` or `cl100k_base`.
    #[arg(long)]
    tokenizer: Option<TokenizerKind>,
}

pub fn run(args: &ContextArgs) -> Result<(), CliError> {
    let a = &args.session;
    let loaded = a.load()?;
    let s = &loaded.session;
    let ctx = a.context(&loaded)?;
    let pack = a.pack(s.rules())?;
    // Each message's estimate (8 bytes a message) and the LLM messages' count and sum; the LLM
    // rows are made again while they are written, so a long context's rows are never held.
    let mut estimates: Vec<u64> = Vec::with_capacity(ctx.items.len());
    let (mut llm_count, mut llm_tokens) = (0usize, 0u64);
    let mut rows = Vec::new();
    for &item in &ctx.items {
        estimates.push(item_tokens(s, &ctx, item, &pack, &loaded.source, &mut rows).map_err(read_back)?);
        llm_count += rows.len();
        llm_tokens += rows.iter().map(|r| r.1).sum::<u64>();
    }
    let message_tokens: u64 = estimates.iter().sum();
    let estimate = |i: usize| estimates[i];
    let est = estimate_context_tokens_of(s, &ctx, &estimate);
    let projected = estimate_projected_context_tokens_of(s, &ctx, &estimate, &loaded.source).map_err(read_back)?;
    // The summary message stands for its compaction entry, as in the oracle.
    let entry_id = |item: Item| json!(s.entry(item.node()).id());
    let entry_index = |item: Item| Value::from(item.node().0);
    // Built one at a time while printing: a long context must not be held as JSON values.
    // pi ≥ 0.87 adds facts to a few messages (the edited ones, the system messages).
    let (projection, facts) = if s.rules().projects_context_edits() {
        let (p, f) = projection_facts(s, &ctx, &loaded.source).map_err(read_back)?;
        (Some(p), f)
    } else {
        (None, HashMap::new())
    };
    let with_facts = |mut v: Value, k: usize| {
        if let (Some(f), Some(obj)) = (facts.get(&k), v.as_object_mut()) {
            obj.extend(f.clone());
        }
        v
    };
    let messages = ctx.items.iter().enumerate().map(|(i, &item)| {
        let role = item_role(s, item);
        with_facts(json!({"i": i, "role": role, "tokens": estimates[i], "entryId": entry_id(item), "entryIndex": entry_index(item)}), i)
    });
    // LLM messages come in the items' order (dropped ones skipped), each item's made again here;
    // a read-back failure (the file changed) ends the list and the command with the error.
    let failed = std::cell::RefCell::new(None);
    let (with_facts, failed_ref, ctx_ref, pack_ref, source) = (&with_facts, &failed, &ctx, &pack, &loaded.source);
    let (mut rows, mut at, mut k, mut i) = (Vec::new(), 0, 0, 0);
    let llm = std::iter::from_fn(move || loop {
        if let Some((role, n)) = rows.get(at) {
            at += 1;
            i += 1;
            return Some(with_facts(json!({"i": i - 1, "role": role, "tokens": n}), k - 1));
        }
        let &item = ctx_ref.items.get(k)?;
        if let Err(e) = item_tokens(s, ctx_ref, item, pack_ref, source, &mut rows) {
            *failed_ref.borrow_mut() = Some(e);
            return None;
        }
        (at, k) = (0, k + 1);
    });
    let mut doc = Map::new();
    doc.insert("dialect".into(), s.dialect().name().into());
    doc.insert("leafId".into(), ctx.leaf.map_or(Value::Null, |n| s.entry(n).id.to_string().into()));
    doc.insert("leafIndex".into(), ctx.leaf.map_or(Value::Null, |n| n.0.into()));
    match s.dialect() {
        Dialect::Pi => {
            let model = ctx.model.pi.as_ref().map_or(Value::Null, |(p, m)| json!({"provider": p, "modelId": m}));
            doc.insert("model".into(), model);
        }
        Dialect::Omp => {
            let models: Map<String, Value> = ctx.model.omp.iter().map(|(r, m)| (r.clone(), Value::String(m.clone()))).collect();
            doc.insert("model".into(), models.get("default").cloned().unwrap_or(Value::Null));
            doc.insert("models".into(), Value::Object(models));
            doc.insert("mode".into(), ctx.omp.mode.clone().into());
        }
    }
    doc.insert("thinkingLevel".into(), ctx.thinking_level.clone());
    doc.insert("pathLength".into(), ctx.path.len().into());
    doc.insert("messageCount".into(), ctx.items.len().into());
    doc.insert("messageTokens".into(), message_tokens.into());
    doc.insert("llmCount".into(), llm_count.into());
    doc.insert("llmTokens".into(), llm_tokens.into());
    doc.insert("estimateContextTokens".into(), estimate_json(&est));
    doc.insert("estimateProjectedContextTokens".into(), estimate_json(&projected));
    for (k, v) in projection.into_iter().flatten() {
        doc.insert(k, v);
    }
    doc.insert("providerReplay".into(), ctx.provider_replay.into());
    if s.rules().counts_utf8_fragments() {
        // omp 18 (omp-18.md §4, docs/decisions.md D17, D23): whose counting the numbers are, and
        // what the file cannot tell.
        let model = ctx.model.omp.iter().find(|(r, _)| r == "default").map(|(_, m)| m.as_str());
        let family = model.and_then(contextree_core::tokens::family::native_tokenizer);
        doc.insert(
            "tokenCount".into(),
            json!({
                "model": model,
                "nativeTokenizer": family,
                "agentsOwn": family.is_none(),
                "method": "sum over text fragments of (UTF-8 bytes + 3) >> 2, images 1200",
                "note": match family {
                    Some(f) => format!("approximation of the agent's count: oh-my-pi 18 counts this model's tokens with its native `{f}` tokenizer, which is not reproducible from the file"),
                    None => "oh-my-pi 18's own count for this model".to_owned(),
                },
            }),
        );
        let items: Vec<Value> = contextree_core::context::omp18::not_reproducible(s, &ctx, model)
            .into_iter()
            .map(|n| json!({"entryId": n.entry.map(|e| s.entry(e).id.to_string()), "kind": n.kind, "reason": n.reason}))
            .collect();
        doc.insert("notReproducible".into(), Value::Array(items));
        doc.insert("configuredThinkingLevel".into(), ctx.omp.configured_thinking_level.clone().map_or(Value::Null, Value::from));
        doc.insert("resetBoundaryId".into(), ctx.reset_boundary.map_or(Value::Null, |n| s.entry(n).id.to_string().into()));
    }
    // Which pack produced the wrapper text around summaries (docs/decisions.md D8).
    doc.insert("prompts".into(), pack.origin().to_string().into());
    if let Some(kind) = args.tokenizer {
        let msgs = llm_messages(s, &ctx, &pack, &loaded.source).map_err(read_back)?;
        let n: usize =
            msgs.iter().filter_map(Value::as_object).map(|m| contextree_core::tokens::count::count_message(kind, m, s.rules())).sum();
        doc.insert("tokenizer".into(), json!({"name": kind.name(), "llmTokens": n}));
    }
    if a.json {
        print_session_json_streamed(s, doc, vec![("messages", Box::new(messages)), ("llm", Box::new(llm))]);
        return match failed.into_inner() {
            Some(e) => Err(read_back(e)),
            None => Ok(()),
        };
    }
    write_stdout_with(|out| {
        for (i, (&item, n)) in ctx.items.iter().zip(&estimates).enumerate() {
            let role = item_role(s, item);
            let id = s.entry(item.node()).id().unwrap_or("(summary)");
            writeln!(out, "{i:>5}  {role:<18} {id:<12} {n:>8}")?;
        }
        Ok(())
    });
    outln!("messages {} · estimate {message_tokens} · llm messages {llm_count} · llm estimate {llm_tokens}", ctx.items.len());
    outln!("agent's context estimate {} (usage {} + trailing {})", est.tokens, est.usage_tokens, est.trailing_tokens);
    Ok(())
}

fn estimate_json(est: &ContextEstimate) -> Value {
    json!({"tokens": est.tokens, "usageTokens": est.usage_tokens, "trailingTokens": est.trailing_tokens, "lastUsageIndex": est.last_usage_index, "unknownAfterCompaction": est.unknown_after_compaction})
}

/// pi ≥ 0.87 (the oracle's pi16 fields): the context edits and what they
/// did, the system messages and the replayed one; marks the messages
/// (`editedBy`, system facts).
/// The facts of a context (`contextEdits`, …) and of some of its messages, by item index.
type Facts = (Map<String, Value>, HashMap<usize, Map<String, Value>>);

fn projection_facts(s: &Session, ctx: &Context, source: &dyn Source) -> Result<Facts, ReadBackError> {
    let id = |n| Value::from(s.entry(n).id.to_string());
    let index_of = |target: &str| s.node(target).map_or(Value::Null, |n| n.0.into());
    let edits: Vec<Value> = ctx
        .edits
        .iter()
        .map(|e| {
            json!({"entryId": id(e.edit), "entryIndex": e.edit.0, "targetId": e.target_id, "targetIndex": index_of(&e.target_id),
                "action": if e.omit { "omit" } else { "replace" }, "effective": e.effective})
        })
        .collect();
    let mut replaced: Vec<Value> = Vec::new();
    for p in &ctx.projected {
        if ctx.items[p.items.clone()].iter().any(|i| matches!(i, Item::Replaced { .. })) {
            replaced.push(id(p.node));
        }
    }
    // The facts of each item's message, shared by its agent and LLM message.
    let mut facts = HashMap::new();
    for (k, &item) in ctx.items.iter().enumerate() {
        let mut f = Map::new();
        if let Item::Replaced { edit, .. } = item {
            f.insert("editedBy".into(), id(edit));
        }
        if is_system_item(s, item) {
            f.extend(system_facts(&agent_message(s, item, source)?));
        }
        if !f.is_empty() {
            facts.insert(k, f);
        }
    }
    let current = current_system(s, ctx, source)?.map(|cur| {
        let names = |key: &str| -> Vec<Value> {
            cur.get(key).and_then(Value::as_object).map_or_else(Vec::new, |m| m.keys().map(|k| k.as_str().into()).collect())
        };
        json!({
            "tokens": cur.as_object().map_or(0, |m| contextree_core::tokens::estimate::estimate_message(m, s.rules())),
            "contentLength": content_length(cur.get("content")),
            "sections": names("sections"),
            "tools": tool_names(cur.get("toolsAdded")),
            "timestamp": cur.get("timestamp").cloned().unwrap_or(Value::Null),
        })
    });
    let mut out = Map::new();
    out.insert("contextEntryCount".into(), ctx.projected.len().into());
    out.insert("contextEditsOnPath".into(), ctx.path.iter().filter(|&&n| &*s.entry(n).entry_type == "context_edit").count().into());
    out.insert("contextEdits".into(), Value::Array(edits));
    out.insert("omittedEntryIds".into(), ctx.omitted.iter().map(|&n| id(n)).collect());
    out.insert("replacedEntryIds".into(), Value::Array(replaced));
    out.insert("systemMessageCount".into(), ctx.items.iter().filter(|&&i| is_system_item(s, i)).count().into());
    out.insert("currentSystem".into(), current.unwrap_or(Value::Null));
    Ok((out, facts))
}

/// The oracle's `systemFacts`: section names set and removed, tool names
/// added and removed, the content's text length.
fn system_facts(m: &Value) -> Map<String, Value> {
    let sections = m.get("sections").and_then(Value::as_object);
    let keys = |removed: bool| -> Value {
        sections.into_iter().flatten().filter(|(_, v)| v.is_null() == removed).map(|(k, _)| Value::from(k.as_str())).collect()
    };
    let mut f = Map::new();
    f.insert("systemSections".into(), keys(false));
    f.insert("removedSections".into(), keys(true));
    f.insert("toolsAdded".into(), tool_names(m.get("toolsAdded")).into());
    f.insert("toolsRemoved".into(), tool_names(m.get("toolsRemoved")).into());
    f.insert("contentLength".into(), content_length(m.get("content")).into());
    f
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
