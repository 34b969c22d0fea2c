//! `contextree context`.

use std::collections::HashMap;

use clap::Args;
use contextree_core::context::materialize::{agent_message, item_role, item_tokens, llm_messages, ReadBackError};
use contextree_core::context::system::{current_system, is_system_item};
use contextree_core::context::usage::{estimate_context_tokens_of, estimate_projected_context_tokens_of, ContextEstimate};
use contextree_core::context::{Context, Item};
use contextree_core::js::utf16_len;
use contextree_core::session::Name;
use contextree_core::session::{Session, Source};
use contextree_core::tokens::tokenizer::TokenizerKind;
use contextree_core::Dialect;
use serde::Serialize;
use serde_json::Value;
use std::io::Write;

use crate::common::{print_session_doc, read_back, write_stdout_with, CliError, Ordered, SessionArgs, Streamed};

#[derive(Debug, Args)]
pub struct ContextArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// Also count the LLM messages with a tokenizer: `o200k_base` or `cl100k_base`.
    #[arg(long)]
    tokenizer: Option<TokenizerKind>,
}

/// `context --json` (after `dialect` and `ruleSet`); `M` and `L` are the [`Streamed`]
/// [`MessageRow`]s and [`LlmRow`]s.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ContextDoc<'a, M, L> {
    leaf_id: Option<String>,
    leaf_index: Option<u32>,
    model: ModelDoc<'a>,
    /// omp: role → model.
    #[serde(skip_serializing_if = "Option::is_none")]
    models: Option<Ordered<&'a str>>,
    /// omp's mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<&'a str>,
    thinking_level: &'a Value,
    path_length: usize,
    message_count: usize,
    message_tokens: u64,
    llm_count: usize,
    llm_tokens: u64,
    estimate_context_tokens: ContextEstimate,
    estimate_projected_context_tokens: ContextEstimate,
    /// pi ≥ 0.87.
    #[serde(flatten)]
    projection: Option<Projection>,
    provider_replay: bool,
    /// omp 18.
    #[serde(flatten)]
    omp18: Option<Omp18Doc<'a>>,
    /// Which pack produced the wrapper text around summaries (docs/decisions.md D8).
    prompts: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    tokenizer: Option<TokenizerDoc>,
    messages: M,
    llm: L,
}

/// The model: pi's `{provider, modelId}`, omp's default role's.
#[derive(Serialize)]
#[serde(untagged)]
enum ModelDoc<'a> {
    Pi(Option<PiModel<'a>>),
    Omp(Option<&'a str>),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PiModel<'a> {
    provider: Option<&'a str>,
    model_id: Option<&'a str>,
}

/// omp 18 (omp-18.md §4, docs/decisions.md D17, D23): whose counting the numbers are, and
/// what the file cannot tell.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Omp18Doc<'a> {
    token_count: TokenCount<'a>,
    not_reproducible: Vec<NotReproducible>,
    configured_thinking_level: Option<&'a str>,
    reset_boundary_id: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TokenCount<'a> {
    model: Option<&'a str>,
    native_tokenizer: Option<&'static str>,
    agents_own: bool,
    method: &'static str,
    note: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NotReproducible {
    entry_id: Option<String>,
    kind: &'static str,
    reason: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TokenizerDoc {
    name: &'static str,
    llm_tokens: usize,
}

/// One agent message.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageRow<'a> {
    i: usize,
    role: &'a str,
    tokens: u64,
    /// The summary message stands for its compaction entry, as in the oracle.
    entry_id: Option<&'a str>,
    entry_index: u32,
    #[serde(flatten)]
    facts: Option<&'a Facts>,
}

/// One LLM message.
#[derive(Serialize)]
struct LlmRow<'a> {
    i: usize,
    role: Name,
    tokens: u64,
    #[serde(flatten)]
    facts: Option<&'a Facts>,
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
    let entry_id = |item: Item| s.entry(item.node()).id();
    // Built one at a time while printing: a long context must not be held as JSON values.
    // pi ≥ 0.87 adds facts to a few messages (the edited ones, the system messages).
    let (projection, facts) = if s.rules().projects_context_edits() {
        let (p, f) = projection_facts(s, &ctx, &loaded.source).map_err(read_back)?;
        (Some(p), f)
    } else {
        (None, HashMap::new())
    };
    let messages = ctx.items.iter().enumerate().map(|(i, &item)| MessageRow {
        i,
        role: item_role(s, item),
        tokens: estimates[i],
        entry_id: entry_id(item),
        entry_index: item.node().0,
        facts: facts.get(&i),
    });
    // LLM messages come in the items' order (dropped ones skipped), each item's made again here;
    // a read-back failure (the file changed) ends the list and the command with the error.
    let failed = std::cell::RefCell::new(None);
    let (facts_ref, failed_ref, ctx_ref, pack_ref, source) = (&facts, &failed, &ctx, &pack, &loaded.source);
    let (mut rows, mut at, mut k, mut i) = (Vec::<(Name, u64)>::new(), 0, 0, 0);
    let llm = std::iter::from_fn(move || loop {
        if let Some((role, n)) = rows.get(at) {
            at += 1;
            i += 1;
            return Some(LlmRow { i: i - 1, role: role.clone(), tokens: *n, facts: facts_ref.get(&(k - 1)) });
        }
        let &item = ctx_ref.items.get(k)?;
        if let Err(e) = item_tokens(s, ctx_ref, item, pack_ref, source, &mut rows) {
            *failed_ref.borrow_mut() = Some(e);
            return None;
        }
        (at, k) = (0, k + 1);
    });
    let mut models = Ordered::default();
    for (role, model) in &ctx.model.omp {
        models.set(role, model.as_str());
    }
    let (model, models, mode) = match s.dialect() {
        Dialect::Pi => {
            let model = ctx.model.pi.as_ref().map(|(p, m)| PiModel { provider: p.as_deref(), model_id: m.as_deref() });
            (ModelDoc::Pi(model), None, None)
        }
        Dialect::Omp => (ModelDoc::Omp(models.get("default").copied()), Some(models), Some(ctx.omp.mode.as_str())),
    };
    let omp18 = s.rules().counts_utf8_fragments().then(|| {
        let model = ctx.model.omp.iter().find(|(r, _)| r == "default").map(|(_, m)| m.as_str());
        let family = model.and_then(contextree_core::tokens::family::native_tokenizer);
        Omp18Doc {
            token_count: TokenCount {
                model,
                native_tokenizer: family,
                agents_own: family.is_none(),
                method: "sum over text fragments of (UTF-8 bytes + 3) >> 2, images 1200",
                note: match family {
                    Some(f) => format!("approximation of the agent's count: oh-my-pi 18 counts this model's tokens with its native `{f}` tokenizer, which is not reproducible from the file"),
                    None => "oh-my-pi 18's own count for this model".to_owned(),
                },
            },
            not_reproducible: contextree_core::context::omp18::not_reproducible(s, &ctx, model)
                .into_iter()
                .map(|n| NotReproducible { entry_id: n.entry.map(|e| s.entry(e).id.to_string()), kind: n.kind, reason: n.reason })
                .collect(),
            configured_thinking_level: ctx.omp.configured_thinking_level.as_deref(),
            reset_boundary_id: ctx.reset_boundary.map(|n| s.entry(n).id.to_string()),
        }
    });
    let tokenizer = match args.tokenizer {
        Some(kind) => {
            let msgs = llm_messages(s, &ctx, &pack, &loaded.source).map_err(read_back)?;
            let n: usize =
                msgs.iter().filter_map(Value::as_object).map(|m| contextree_core::tokens::count::count_message(kind, m, s.rules())).sum();
            Some(TokenizerDoc { name: kind.name(), llm_tokens: n })
        }
        None => None,
    };
    if a.json {
        let doc = ContextDoc {
            leaf_id: ctx.leaf.map(|n| s.entry(n).id.to_string()),
            leaf_index: ctx.leaf.map(|n| n.0),
            model,
            models,
            mode,
            thinking_level: &ctx.thinking_level,
            path_length: ctx.path.len(),
            message_count: ctx.items.len(),
            message_tokens,
            llm_count,
            llm_tokens,
            estimate_context_tokens: est,
            estimate_projected_context_tokens: projected,
            projection,
            provider_replay: ctx.provider_replay,
            omp18,
            prompts: pack.origin().to_string(),
            tokenizer,
            messages: Streamed::new(messages),
            llm: Streamed::new(llm),
        };
        print_session_doc(s, &doc);
        return match failed.into_inner() {
            Some(e) => Err(read_back(e)),
            None => Ok(()),
        };
    }
    write_stdout_with(|out| {
        for (i, (&item, n)) in ctx.items.iter().zip(&estimates).enumerate() {
            let role = item_role(s, item);
            let id = entry_id(item).unwrap_or("(summary)");
            writeln!(out, "{i:>5}  {role:<18} {id:<12} {n:>8}")?;
        }
        Ok(())
    });
    outln!("messages {} · estimate {message_tokens} · llm messages {llm_count} · llm estimate {llm_tokens}", ctx.items.len());
    outln!("agent's context estimate {} (usage {} + trailing {})", est.tokens, est.usage_tokens, est.trailing_tokens);
    Ok(())
}

/// pi ≥ 0.87 (the oracle's pi16 fields): the context edits and what they did, the system
/// messages and the replayed one.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Projection {
    context_entry_count: usize,
    context_edits_on_path: usize,
    context_edits: Vec<Edit>,
    omitted_entry_ids: Vec<String>,
    replaced_entry_ids: Vec<String>,
    system_message_count: usize,
    current_system: Option<CurrentSystem>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Edit {
    entry_id: String,
    entry_index: u32,
    target_id: String,
    target_index: Option<u32>,
    action: &'static str,
    effective: bool,
}

/// The system message the request leads with.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CurrentSystem {
    tokens: u64,
    content_length: usize,
    sections: Vec<String>,
    tools: Vec<Value>,
    timestamp: Value,
}

/// The facts of a message (`editedBy`, system facts), shared by its agent and LLM message.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct Facts {
    #[serde(skip_serializing_if = "Option::is_none")]
    edited_by: Option<String>,
    #[serde(flatten)]
    system: Option<SystemFacts>,
}

/// The oracle's `systemFacts`: section names set and removed, tool names
/// added and removed, the content's text length.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SystemFacts {
    system_sections: Vec<String>,
    removed_sections: Vec<String>,
    tools_added: Vec<Value>,
    tools_removed: Vec<Value>,
    content_length: usize,
}

/// pi ≥ 0.87: the context's [`Projection`] and the [`Facts`] of some of its messages, by
/// item index (marks the edited messages and the system messages).
fn projection_facts(s: &Session, ctx: &Context, source: &dyn Source) -> Result<(Projection, HashMap<usize, Facts>), ReadBackError> {
    let id = |n: contextree_core::session::NodeId| s.entry(n).id.to_string();
    let index_of = |target: &str| s.node(target).map(|n| n.0);
    let edits = ctx
        .edits
        .iter()
        .map(|e| Edit {
            entry_id: id(e.edit),
            entry_index: e.edit.0,
            target_id: e.target_id.to_string(),
            target_index: index_of(&e.target_id),
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
    // The facts of each item's message, shared by its agent and LLM message.
    let mut facts = HashMap::new();
    for (k, &item) in ctx.items.iter().enumerate() {
        let mut f = Facts::default();
        if let Item::Replaced { edit, .. } = item {
            f.edited_by = Some(id(edit));
        }
        if is_system_item(s, item) {
            f.system = Some(system_facts(&agent_message(s, item, source)?));
        }
        if f.edited_by.is_some() || f.system.is_some() {
            facts.insert(k, f);
        }
    }
    let current_system = current_system(s, ctx, source)?.map(|cur| {
        let names =
            |key: &str| -> Vec<String> { cur.get(key).and_then(Value::as_object).map_or_else(Vec::new, |m| m.keys().cloned().collect()) };
        CurrentSystem {
            tokens: cur.as_object().map_or(0, |m| contextree_core::tokens::estimate::estimate_message(m, s.rules())),
            content_length: content_length(cur.get("content")),
            sections: names("sections"),
            tools: tool_names(cur.get("toolsAdded")),
            timestamp: cur.get("timestamp").cloned().unwrap_or(Value::Null),
        }
    });
    let projection = Projection {
        context_entry_count: ctx.projected.len(),
        context_edits_on_path: ctx.path.iter().filter(|&&n| &*s.entry(n).entry_type == "context_edit").count(),
        context_edits: edits,
        omitted_entry_ids: ctx.omitted.iter().map(|&n| id(n)).collect(),
        replaced_entry_ids: replaced,
        system_message_count: ctx.items.iter().filter(|&&i| is_system_item(s, i)).count(),
        current_system,
    };
    Ok((projection, facts))
}

/// [`SystemFacts`] of a system message.
fn system_facts(m: &Value) -> SystemFacts {
    let sections = m.get("sections").and_then(Value::as_object);
    let keys = |removed: bool| -> Vec<String> {
        sections.into_iter().flatten().filter(|(_, v)| v.is_null() == removed).map(|(k, _)| k.clone()).collect()
    };
    SystemFacts {
        system_sections: keys(false),
        removed_sections: keys(true),
        tools_added: tool_names(m.get("toolsAdded")),
        tools_removed: tool_names(m.get("toolsRemoved")),
        content_length: content_length(m.get("content")),
    }
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
