//! `contextree context`.

use clap::Args;
use contextree_core::context::materialize::{context_tokens, llm_messages};
use contextree_core::context::usage::estimate_context_tokens;
use contextree_core::context::Item;
use contextree_core::tokens::tokenizer::TokenizerKind;
use contextree_core::Dialect;
use serde_json::{json, Map, Value};

use crate::common::{print_session_json_streamed, read_back, CliError, SessionArgs};

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
    let pack = a.pack(s.dialect())?;
    let tokens = context_tokens(s, &ctx, &pack, &loaded.source).map_err(read_back)?;
    let est = estimate_context_tokens(s, &ctx, &tokens);
    // The summary message stands for its compaction entry, as in the oracle.
    let entry_id = |item: Item| json!(s.entry(item.node()).id());
    let entry_index = |item: Item| Value::from(item.node().0);
    // Built one at a time while printing: a long context must not be held as JSON values.
    let messages = tokens
        .messages
        .iter()
        .enumerate()
        .map(|(i, (item, role, n))| json!({"i": i, "role": role, "tokens": n, "entryId": entry_id(*item), "entryIndex": entry_index(*item)}));
    let llm = tokens.llm.iter().enumerate().map(|(i, (_, role, n))| json!({"i": i, "role": role, "tokens": n}));
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
    doc.insert("messageCount".into(), tokens.messages.len().into());
    doc.insert("messageTokens".into(), tokens.message_tokens().into());
    doc.insert("llmCount".into(), tokens.llm.len().into());
    doc.insert("llmTokens".into(), tokens.llm_tokens().into());
    doc.insert(
        "estimateContextTokens".into(),
        json!({"tokens": est.tokens, "usageTokens": est.usage_tokens, "trailingTokens": est.trailing_tokens, "lastUsageIndex": est.last_usage_index, "unknownAfterCompaction": est.unknown_after_compaction}),
    );
    doc.insert("providerReplay".into(), ctx.provider_replay.into());
    // Which pack produced the wrapper text around summaries (docs/decisions.md D8).
    doc.insert("prompts".into(), pack.origin().to_string().into());
    if let Some(kind) = args.tokenizer {
        let msgs = llm_messages(s, &ctx, &pack, &loaded.source).map_err(read_back)?;
        let n: usize = msgs.iter().filter_map(Value::as_object).map(|m| contextree_core::tokens::count::count_message(kind, m, s.rules())).sum();
        doc.insert("tokenizer".into(), json!({"name": kind.name(), "llmTokens": n}));
    }
    if a.json {
        print_session_json_streamed(s, doc, vec![("messages", Box::new(messages)), ("llm", Box::new(llm))]);
        return Ok(());
    }
    for (i, (item, role, n)) in tokens.messages.iter().enumerate() {
        let id = entry_id(*item);
        outln!("{i:>5}  {role:<18} {:<12} {n:>8}", id.as_str().unwrap_or("(summary)"));
    }
    outln!("messages {} · estimate {} · llm messages {} · llm estimate {}", tokens.messages.len(), tokens.message_tokens(), tokens.llm.len(), tokens.llm_tokens());
    outln!("agent's context estimate {} (usage {} + trailing {})", est.tokens, est.usage_tokens, est.trailing_tokens);
    Ok(())
}
