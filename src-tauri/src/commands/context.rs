//! The context panel: what the model sees from a leaf; tokenizer counts, a message's whole
//! text and the exports on demand (each on a blocking thread: they read every message back).

mod export;
#[cfg(test)]
mod ipc_tests;

use contextree_core::context::{build, context_tokens};
use contextree_core::tokens::TokenizerKind;
use contextree_core::view::context_pairs;
use contextree_read::{ContextOptions, ContextReport, MessageTextReport, TokenCountsReport};
use serde_json::value::RawValue;
use serde_json::Value;
use std::path::Path;

use tauri::{AppHandle, Runtime, State};
use tauri_plugin_dialog::DialogExt;

use super::{blocking, leaf};
use crate::state::OpenSession;
use crate::{AppState, CommandError};

/// Characters of message text sent to the UI per message (the rest is marked as cut).
const TEXT_CHARS: usize = 8_000;

/// The context of `leaf_id` (the file's leaf when `None`): the read layer's `ContextReport`
/// with the messages' text (cut at [`TEXT_CHARS`]), written to JSON on the blocking thread (its
/// lists are made while it is written, from the open session).
#[tauri::command]
pub async fn context_view(state: State<'_, AppState>, leaf_id: Option<String>) -> Result<Box<RawValue>, CommandError> {
    blocking(state.session()?, move |open| {
        let (s, src, pack) = (&open.loaded.session, &open.loaded.source, &open.pack);
        let ctx = build(s, leaf(open, leaf_id.as_deref())?);
        let options = ContextOptions { tokenizer: None, text_chars: Some(TEXT_CHARS), breakdown: true };
        let report = ContextReport::new(s, &ctx, pack, src, options)?;
        let json = serde_json::value::to_raw_value(&report).map_err(CommandError::Report)?;
        report.finish()?;
        Ok(json)
    })
    .await
}

/// Tokenizer counts (`tokenizer`: `o200k_base` or `cl100k_base`) of every LLM message of the
/// context of `leaf_id`, over the fragments the dialect's estimate measures (`None`: not sent).
#[tauri::command]
pub async fn token_counts(
    state: State<'_, AppState>,
    leaf_id: Option<String>,
    tokenizer: String,
) -> Result<TokenCountsReport, CommandError> {
    let kind: TokenizerKind =
        tokenizer.parse().map_err(|e: contextree_core::tokens::UnknownTokenizer| CommandError::InvalidArgument(e.to_string()))?;
    blocking(state.session()?, move |open| {
        let (s, src, pack) = (&open.loaded.session, &open.loaded.source, &open.pack);
        let ctx = build(s, leaf(open, leaf_id.as_deref())?);
        Ok(TokenCountsReport::new(s, &ctx, pack, src, kind)?)
    })
    .await
}

/// The whole text of message `index` of the context of `leaf_id` (the panel's is cut).
#[tauri::command]
pub async fn message_text(state: State<'_, AppState>, leaf_id: Option<String>, index: usize) -> Result<MessageTextReport, CommandError> {
    blocking(state.session()?, move |open| {
        let (s, src, pack) = (&open.loaded.session, &open.loaded.source, &open.pack);
        let ctx = build(s, leaf(open, leaf_id.as_deref())?);
        MessageTextReport::new(s, &ctx, pack, src, index)?
            .ok_or_else(|| CommandError::InvalidArgument(format!("the context has no message {index}")))
    })
    .await
}

/// The context of `leaf_id` as one text, `format` `json` or `markdown`, nothing cut.
#[tauri::command]
pub async fn export_context(state: State<'_, AppState>, leaf_id: Option<String>, format: String) -> Result<String, CommandError> {
    let format: export::Format = format.parse()?;
    blocking(state.session()?, move |open| export_text(open, leaf_id.as_deref(), format)).await
}

/// Asks where to save the context of `leaf_id` (the native save dialog, opened here so that the
/// page never names a path to write) and writes it there: Markdown for `.md`, a self-contained
/// page for `.html`, else JSON.
/// `None` when the dialog is cancelled.
#[tauri::command]
pub async fn save_context<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    leaf_id: Option<String>,
) -> Result<Option<String>, CommandError> {
    let open = state.session()?;
    tauri::async_runtime::spawn_blocking(move || {
        let leaf = leaf_id.clone().or_else(|| {
            let s = &open.loaded.session;
            s.leaf().map(|n| s.entry(n).id.to_string())
        });
        let chosen = app
            .dialog()
            .file()
            .set_title("Save the context")
            .set_file_name(format!("context-{}.md", leaf.as_deref().unwrap_or("empty")))
            .add_filter("Markdown", &["md"])
            .add_filter("HTML page", &["html"])
            .add_filter("JSON", &["json"])
            .blocking_save_file();
        let Some(path) = chosen.and_then(|p| p.as_path().map(Path::to_path_buf)) else {
            return Ok(None);
        };
        let format = match path.extension().and_then(|e| e.to_str()) {
            Some("md" | "markdown") => export::Format::Markdown,
            Some("html" | "htm") => export::Format::Html,
            _ => export::Format::Json,
        };
        let text = export_text(&open, leaf_id.as_deref(), format)?;
        contextree_host::atomic::write_whole(&path, text.as_bytes(), None)
            .map_err(|source| CommandError::Save { path: path.clone(), source })?;
        Ok(Some(path.display().to_string()))
    })
    .await?
}

fn export_text(open: &OpenSession, leaf_id: Option<&str>, format: export::Format) -> Result<String, CommandError> {
    let (s, src, pack) = (&open.loaded.session, &open.loaded.source, &open.pack);
    let ctx = build(s, leaf(open, leaf_id)?);
    let tokens = context_tokens(s, &ctx, pack, src)?;
    let pairs = context_pairs(s, &ctx, pack, src)?;
    let rules = s.rules();
    let messages: Vec<export::Message> = pairs
        .into_iter()
        .zip(&tokens.messages)
        .map(|(p, (_, role, n))| {
            let text = p.text();
            let llm_role = p.llm.as_ref().and_then(|m| m.get("role")).and_then(Value::as_str).map(str::to_owned);
            let llm_tokens = p.llm.as_ref().and_then(Value::as_object).map_or(0, |m| contextree_core::tokens::estimate_message(m, rules));
            export::Message {
                role: role.to_string(),
                entry_id: s.entry(p.item.node()).id.to_string(),
                tokens: *n,
                llm_role,
                llm_tokens,
                message: p.llm.unwrap_or(p.message),
                text,
            }
        })
        .collect();
    let head = export::Head {
        leaf_id: ctx.leaf.map(|n| s.entry(n).id.to_string()),
        dialect: rules.dialect().name(),
        prompts: pack.origin().to_string(),
        message_tokens: tokens.message_tokens(),
        llm_count: tokens.llm.len(),
        llm_tokens: tokens.llm_tokens(),
        rules: format!("{} ({})", rules.name(), s.rule_choice().why()),
        branch: {
            let states = contextree_core::context::entry_states(s, &ctx);
            ctx.path
                .iter()
                .map(|&n| {
                    let e = s.entry(n);
                    export::BranchRow {
                        entry_id: e.id.to_string(),
                        kind: e.message().map_or_else(|| e.entry_type.to_string(), |m| m.role.as_str().to_owned()),
                        state: states[n.index()].name(),
                    }
                })
                .collect()
        },
    };
    Ok(export::render(format, &head, &messages))
}
