//! oh-my-pi 18's `buildSessionContext` emission (omp-18.md §2.2–§2.4): the
//! `reset_boundary`, the kept part of provider-native compactions, the
//! per-entry filters, and the post-processing of the message list (tool
//! calls without a result stripped, aborted and failed replies dropped with
//! their results). Everything here reads the index only; the stripped
//! assistants are rewritten when their text is read back
//! ([`strip_dangling_calls`]).

use serde_json::Value;

use super::build::{has_openai_replay, Context, Item};
use crate::session::{NodeId, Role, Session};

mod finish;
pub(super) use finish::finish;

/// Custom messages omp 18 never sends (`PREWALK_PLAN_MESSAGE_TYPE`,
/// `VIBE_MODE_CONTEXT_MESSAGE_TYPE`).
const UNSENT_CUSTOM_TYPES: &[&str] = &["prewalk-plan", "vibe-mode-context"];

/// `INTERRUPTED_THINKING_MESSAGE_TYPE`: the continuity note that keeps an
/// interrupted assistant in the context.
const INTERRUPTED_THINKING: &str = "interrupted-thinking";

/// Fills `ctx.items` (and the compaction fields) for `path` under omp 18.
pub(super) fn emit(session: &Session, ctx: &mut Context, path: &[NodeId], compaction_at: Option<usize>) {
    let items = gather(session, ctx, path, compaction_at);
    ctx.items = finish(session, items, &mut ctx.stripped);
    ctx.interrupted = ctx
        .items
        .windows(2)
        .filter(|w| {
            let is_assistant = session.entry(w[0].node()).message().is_some_and(|m| m.role == Role::Assistant);
            let next = session.entry(w[1].node());
            is_assistant && next.entry_type == "custom_message" && next.str_field("customType") == Some(INTERRUPTED_THINKING)
        })
        .map(|w| w[0].node())
        .collect();
}

/// The messages `path`'s entries send before the post-processing ([`finish`]), with the
/// compaction fields of `ctx` set.
fn gather(session: &Session, ctx: &mut Context, path: &[NodeId], compaction_at: Option<usize>) -> Vec<Item> {
    // Types compared as bytes: `&str` costs a UTF-8 check per entry of the path.
    let reset_at = path.iter().rposition(|&n| session.entry(n).entry_type == "reset_boundary");
    let mut items = Vec::new();
    match (reset_at, compaction_at) {
        (Some(r), k) if k.is_none_or(|k| r > k) => {
            ctx.reset_boundary = Some(path[r]);
            items.extend(path[r + 1..].iter().filter_map(|&n| item_of(session, n)));
        }
        (r, Some(k)) => {
            let c = path[k];
            let entry = session.entry(c);
            ctx.compaction = Some(c);
            ctx.reset_boundary = r.map(|r| path[r]);
            items.push(Item::CompactionSummary(c));
            ctx.provider_replay = has_openai_replay(entry);
            let index_of =
                |id: Option<&str>, end: usize| id.and_then(|id| path[..end].iter().position(|&n| session.entry(n).id() == Some(id)));
            let first_kept = index_of(entry.str_field("firstKeptEntryId"), k);
            // omp ≥ 18.3: an Anthropic snapshot compaction that summarized everything up to
            // its replay point keeps what follows that point (omp-18.3.md §1.1).
            let snapshot_through = snapshot_replay_point(session, path, k).filter(|_| has_anthropic_payload(entry));
            let retained = first_kept.or(snapshot_through.map(|t| t + 1)).filter(|&s| s < k);
            ctx.kept_from = retained;
            if first_kept.is_none() {
                ctx.replay_through = snapshot_through.map(|t| path[t]);
            }
            let rollover = entry.object().and_then(|m| m.get("details")).and_then(|d| d.get("kind")).and_then(Value::as_str)
                == Some("experimental-context-rollover");
            if rollover {
                // The latest user request before the compaction, when the kept part starts after it.
                let lowest = r.map_or(0, |r| r + 1);
                if let Some(i) = (lowest..k).rev().find(|&i| is_user_request(session, path[i])) {
                    if first_kept.is_none_or(|f| i < f) {
                        items.extend(item_of(session, path[i]));
                    }
                }
            }
            if !ctx.provider_replay {
                if let Some(start) = retained {
                    items.extend(path[start..k].iter().filter_map(|&n| item_of(session, n)));
                }
            } else if let Some(through) = index_of(entry.str_field("providerReplayThroughEntryId"), k) {
                // Messages appended while the native compaction ran.
                ctx.replay_through = Some(path[through]);
                items.extend(path[through + 1..k].iter().filter_map(|&n| item_of(session, n)));
            }
            items.extend(path[k + 1..].iter().filter_map(|&n| item_of(session, n)));
        }
        (_, None) => items.extend(path.iter().filter_map(|&n| item_of(session, n))),
    }
    items
}

/// `stripDemotedThinkingForLlm`: an interrupted assistant's trailing run of unsigned,
/// non-blank thinking blocks (after any trailing blank text) is left out of what it sends,
/// with the blank text after it; a message without such a run is unchanged.
pub(crate) fn strip_demoted_thinking(msg: &mut Value) {
    let Some(blocks) = msg.get_mut("content").and_then(Value::as_array_mut) else { return };
    let ty = |b: &Value| b.get("type").and_then(Value::as_str).map(str::to_owned);
    let text = |b: &Value, k: &str| b.get(k).and_then(Value::as_str).map(str::trim).unwrap_or("").to_owned();
    let mut scan_end = blocks.len();
    while scan_end > 0 && ty(&blocks[scan_end - 1]).as_deref() == Some("text") && text(&blocks[scan_end - 1], "text").is_empty() {
        scan_end -= 1;
    }
    let mut run_start = scan_end;
    while run_start > 0 {
        let b = &blocks[run_start - 1];
        if ty(b).as_deref() != Some("thinking") || text(b, "thinking").is_empty() || crate::js::is_truthy(b.get("thinkingSignature")) {
            break;
        }
        run_start -= 1;
    }
    if run_start < scan_end {
        blocks.truncate(run_start);
    }
}

/// omp ≥ 18.3: the path index of the replay point of the compaction at `path[k]` when it kept
/// nothing of its own (`firstKeptEntryId` `""`) and its `providerReplayThroughEntryId` is on the
/// path before it: a snapshot compaction, whose retained tail is the entries after that point.
/// `prepareCompaction` asks only that (omp-18.3.md §2.1); `buildSessionContext` also asks for an
/// Anthropic-native payload (§1.1, [`has_anthropic_payload`]). `None` under older rules.
pub(crate) fn snapshot_replay_point(session: &Session, path: &[NodeId], k: usize) -> Option<usize> {
    let c = session.entry(path[k]);
    if !session.rules().keeps_snapshot_replay_tail() || c.str_field("firstKeptEntryId") != Some("") {
        return None;
    }
    let through = c.str_field("providerReplayThroughEntryId").filter(|id| !id.is_empty())?;
    path[..k].iter().position(|&n| session.entry(n).id() == Some(through))
}

/// `getPreservedAnthropicCompactionData` finds a payload: `preserveData.anthropicCompaction`
/// with a non-empty `provider` and `content`.
pub(crate) fn has_anthropic_payload(c: &crate::session::Entry) -> bool {
    let native = c.object().and_then(|m| m.get("preserveData")).and_then(|p| p.get("anthropicCompaction"));
    let non_empty = |key| native.and_then(|a| a.get(key)).and_then(Value::as_str).is_some_and(|v| !v.is_empty());
    non_empty("provider") && non_empty("content")
}

/// `appendMessage`: the message an entry emits, if omp 18 sends it.
pub(super) fn item_of(session: &Session, n: NodeId) -> Option<Item> {
    let e = session.entry(n);
    match e.entry_type.as_bytes() {
        b"message" => {
            let m = e.message()?;
            let dropped = m.role == Role::Assistant && (m.turn.retry_recovery || m.turn.empty_error);
            (!dropped).then_some(Item::Entry(n))
        }
        b"custom_message" => {
            let map = e.object()?;
            let unsent = map.get("customType").and_then(Value::as_str).is_some_and(|t| UNSENT_CUSTOM_TYPES.contains(&t));
            // `isCustomMessageContent`: only a string or an array is sendable.
            let sendable = matches!(map.get("content"), Some(Value::String(_) | Value::Array(_)));
            (!unsent && sendable).then_some(Item::Entry(n))
        }
        b"branch_summary" => e.str_field("summary").is_some_and(|s| !s.is_empty()).then_some(Item::Entry(n)),
        _ => None,
    }
}

/// `isUserRequestEntry`, for the index: a user message (custom requests
/// initiated by the user are not told apart here). Also what the post-processing
/// never removes, which a leaf change's cut relies on (`derive::omp18_cut`).
pub(super) fn is_user_request(session: &Session, n: NodeId) -> bool {
    session.entry(n).message().is_some_and(|m| m.role == Role::User)
}

/// Rewrites a read-back assistant message whose calls `mask` marks (bit k =
/// the k-th `toolCall` block): those calls and every `redactedThinking`
/// block go, thinking blocks lose their signature.
pub(crate) fn strip_dangling_calls(msg: &mut Value, mask: u64) {
    let Some(blocks) = msg.get_mut("content").and_then(Value::as_array_mut) else { return };
    let mut k = 0;
    blocks.retain(|b| match b.get("type").and_then(Value::as_str) {
        Some("toolCall") => {
            k += 1;
            k > 64 || mask & (1 << (k - 1)) == 0
        }
        Some("redactedThinking") => false,
        _ => true,
    });
    for b in blocks.iter_mut() {
        if b.get("type").and_then(Value::as_str) == Some("thinking") && crate::js::is_truthy(b.get("thinkingSignature")) {
            if let Some(obj) = b.as_object_mut() {
                obj.remove("thinkingSignature");
            }
        }
    }
}

/// Something the request the agent really sends depends on that the file
/// does not determine (docs/decisions.md D17, D23).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotReproducible {
    /// The entry it comes from (None: the whole context).
    pub entry: Option<NodeId>,
    /// A short machine name: `openai-native-history`, `anthropic-native-compaction`,
    /// `snapcompact-frames`, `context-notes`, `request-reminder`, `native-tokenizer`, and
    /// omp 18.3's `eval-state-notice`, `length-stop-retry`.
    pub kind: &'static str,
    /// What cannot be recomputed and why.
    pub reason: String,
}

/// What the context of `ctx` shows that the file cannot fully determine.
/// `model` is the session's current model (`provider/id`), whose tokenizer
/// family decides whether omp's counts are reproducible.
pub(crate) fn not_reproducible(session: &Session, ctx: &Context, model: Option<&str>) -> Vec<NotReproducible> {
    let mut out = Vec::new();
    if let Some(c) = ctx.compaction {
        let e = session.entry(c);
        let preserve = e.object().and_then(|m| m.get("preserveData"));
        if ctx.provider_replay {
            let tail = match ctx.replay_through {
                Some(t) => format!("; the entries after `{}` (appended while it ran) follow it", session.entry(t).id),
                None => String::new(),
            };
            out.push(NotReproducible {
                entry: Some(c),
                kind: "openai-native-history",
                reason: format!("compaction `{}` replaced the kept messages by an OpenAI-native replacement history that only the provider can read; the context shows the summary placeholder and the later messages{tail}", e.id),
            });
        }
        if preserve
            .and_then(|p| p.get("anthropicCompaction"))
            .is_some_and(|a| a.get("provider").and_then(Value::as_str).is_some_and(|p| !p.is_empty()))
        {
            out.push(NotReproducible {
                entry: Some(c),
                kind: "anthropic-native-compaction",
                reason: format!("compaction `{}` is Anthropic's own: its encrypted native payload goes with the summary; the messages shown are right, what the provider reads of the payload is not in the file", e.id),
            });
        }
        if preserve.and_then(|p| p.get("snapcompact")).is_some() || e.str_field("method") == Some("snapcompact") {
            out.push(NotReproducible {
                entry: Some(c),
                kind: "snapcompact-frames",
                reason: format!("compaction `{}` is a snapcompact archive: the history goes as image frames (5024 tokens each) with the text head and tail, rebuilt by the snapcompact package from frames kept in the blob store; the context shows the stored summary text only", e.id),
            });
        }
    }
    let reset = ctx.reset_boundary.and_then(|r| ctx.path.iter().position(|&n| n == r));
    let notes = ctx.path.iter().enumerate().rev().find(|(i, &n)| {
        reset.is_none_or(|r| *i > r)
            && &*session.entry(n).entry_type == "custom"
            && session.entry(n).str_field("customType") == Some("experimental_context_notes")
    });
    if let Some((_, &n)) = notes {
        out.push(NotReproducible {
            entry: Some(n),
            kind: "context-notes",
            reason: "experimental context notes are rendered through omp's notes template and put first in the context; contextree does not render them".to_owned(),
        });
    }
    if ctx.items.iter().any(|i| session.entry(i.node()).message().is_some_and(|m| m.role == Role::User)) {
        // Seen on the wire (tests/agents/wire.mjs): 18.2.3 and 18.3.4 alike.
        out.push(NotReproducible {
            entry: None,
            kind: "request-reminder",
            reason: "the running agent puts a `<system-reminder>` with the current date and working directory before the first user message's text of every request; it is made when the request is sent, not stored".to_owned(),
        });
    }
    if let Some(family) = model.and_then(crate::tokens::family::native_tokenizer) {
        out.push(NotReproducible {
            entry: None,
            kind: "native-tokenizer",
            reason: format!(
                "oh-my-pi 18 counts the tokens of {} with its native `{family}` tokenizer, whose tables ship only inside the agent; the numbers here are (UTF-8 bytes + 3) >> 2 per text fragment, an approximation of the agent's count, not its own",
                model.unwrap_or_default()
            ),
        });
    }
    out
}
