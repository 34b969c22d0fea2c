//! What the request the agent really sends depends on that the file cannot tell
//! (docs/decisions.md D17, D23), under each rule set: one list for every face.

use super::omp18::{self, NotReproducible};
use super::Context;
use crate::session::{NodeId, Role, Session};

/// What the context of `ctx` cannot reproduce under the session's rules; `None` where the rule
/// set names nothing (pi 0.73, omp 13). `model` is the session's current model
/// (`provider/id`), whose tokenizer decides whether omp 18's counts are its own.
pub fn not_reproducible(session: &Session, ctx: &Context, model: Option<&str>) -> Option<Vec<NotReproducible>> {
    let rules = session.rules();
    if rules.counts_utf8_fragments() {
        let mut out = omp18::not_reproducible(session, ctx, model);
        if rules.adds_live_context_notices() {
            out.extend(live_notices(session, ctx));
        }
        return Some(out);
    }
    if rules.projects_context_edits() {
        // pi-1.6.md §2.5: both are decided at request time, outside the session file.
        return Some(vec![
            NotReproducible {
                entry: None,
                kind: "context-hooks",
                reason: "extensions' context hooks (`context`, `context_with_system` handlers) may change the messages before they are sent".to_owned(),
            },
            NotReproducible {
                entry: None,
                kind: "system-placement",
                reason: "the provider decides whether later system messages stay in place or are folded into the first (per model); the panel shows the replayed prompt first".to_owned(),
            },
        ]);
    }
    None
}

/// omp ≥ 18.3's messages that only the running agent adds (omp-18.3.md §1.4), named where the
/// file shows their cause: an `eval` tool result on the path, a `length` stop as the last reply.
fn live_notices(session: &Session, ctx: &Context) -> Vec<NotReproducible> {
    let mut out = Vec::new();
    let message = |n: &NodeId| session.entry(*n).message();
    if let Some(&eval) =
        ctx.path.iter().find(|n| message(n).is_some_and(|m| m.role == Role::ToolResult && m.tool_name.as_deref() == Some("eval")))
    {
        out.push(NotReproducible {
            entry: Some(eval),
            kind: "eval-state-notice",
            reason: "the eval tool ran in this session: the running agent appends a developer notice of the eval state (`eval-state-context`) to every context it rebuilds; its text lives in the agent's memory, not in the file".to_owned(),
        });
    }
    let last_reply = ctx.path.iter().rev().find(|n| message(n).is_some_and(|m| m.role == Role::Assistant));
    if let Some(&reply) = last_reply.filter(|n| message(n).is_some_and(|m| m.reply.stop_reason.as_deref() == Some("length"))) {
        out.push(NotReproducible {
            entry: Some(reply),
            kind: "length-stop-retry",
            reason: "the last reply stopped at the output limit: when it delivered nothing and the window had room, the agent drops it and retries with a developer note about the limit (`length-stop-retry`) that is not written to the file".to_owned(),
        });
    }
    out
}
