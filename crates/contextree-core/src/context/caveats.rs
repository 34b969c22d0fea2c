//! What the request the agent really sends depends on that the file cannot tell
//! (docs/decisions.md D17, D23), under each rule set: one list for every face.

use super::omp18::{self, NotReproducible};
use super::Context;
use crate::session::Session;

/// What the context of `ctx` cannot reproduce under the session's rules; `None` where the rule
/// set names nothing (pi 0.73, omp 13). `model` is the session's current model
/// (`provider/id`), whose tokenizer decides whether omp 18's counts are its own.
pub fn not_reproducible(session: &Session, ctx: &Context, model: Option<&str>) -> Option<Vec<NotReproducible>> {
    let rules = session.rules();
    if rules.counts_utf8_fragments() {
        return Some(omp18::not_reproducible(session, ctx, model));
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
