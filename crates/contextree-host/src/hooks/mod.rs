//! Hooks: the agents' extension events (hooks-and-settings.md), run as
//! external commands the user lists in contextree's config file
//! (`~/.config/contextree/config.json`, key `"hooks"`; see docs/hooks.md).
//!
//! Each hook gets the event's payload as JSON on stdin and may print a result
//! as JSON on stdout. [`dispatch_with`] applies the agents' dispatch rules
//! (spec §1) to any runner, so the rules are tested without processes;
//! [`run_command`] is the runner that spawns the command with a time limit.
//!
//! A hook can never break a compaction: a hook that cannot start, exits
//! non-zero, times out or prints something that is not a valid result is
//! reported as a warning and ignored, as the agents report a throwing
//! handler and carry on.

//!
//! - `config.rs` — the `"hooks"` section of the config file ([`HookConfigError`]);
//! - `run.rs` — one hook as a process in a group of its own ([`HookRunError`]);
//! - `replies.rs` — the shape of a hook's result and its typed reading ([`ReplyError`]);
//! - `payloads.rs` — what each event hands its hooks.

mod config;
mod payloads;
mod replies;
mod run;

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

pub use config::{load_hooks, parse_hooks, HookConfigError};
pub use payloads::{
    before_compact_payload, before_tree_payload, compact_payload, compacting_payload, tree_payload, BeforeCompactPayload,
    BeforeTreePayload, CompactPayload, CompactPreparation, CompactingPayload, PayloadFileOps, PayloadSettings, TreePayload,
    TreePreparation, TreePreparationPayload,
};
pub use replies::{before_compact, before_tree, compacting, BeforeCompact, BeforeTree, Reply, ReplyError};
pub use run::{run_command, run_command_until, HookRunError};

/// The time limit of a hook that names none.
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(10);

/// The most a hook may print on stdout (a result is one JSON object; 16 MiB is
/// far more than any summary). One byte more and the hook is killed, so a hook
/// that prints endlessly cannot fill contextree's memory.
pub const HOOK_STDOUT_CAP: usize = 16 << 20;

/// The most a hook may print on stderr (only its first lines are ever quoted;
/// 1 MiB leaves room for a chatty log). One byte more and the hook is killed.
pub const HOOK_STDERR_CAP: usize = 1 << 20;

/// How much of a failing hook's stderr goes into its warning.
const STDERR_EXCERPT_CHARS: usize = 300;

/// The events contextree emits, by the agents' names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum HookEvent {
    /// `session_before_compact` (both): may cancel or supply the compaction.
    BeforeCompact,
    /// `session.compacting` (omp): prompt, context lines, preserveData.
    Compacting,
    /// `session_compact` (both): notification after the entry is written.
    Compact,
    /// `session_before_tree` (both): may cancel navigation or supply the branch summary.
    BeforeTree,
    /// `session_tree` (both): notification after navigation.
    Tree,
}

impl HookEvent {
    /// Every event, in the order of a compaction / navigation.
    pub const ALL: [HookEvent; 5] =
        [HookEvent::BeforeCompact, HookEvent::Compacting, HookEvent::Compact, HookEvent::BeforeTree, HookEvent::Tree];

    /// The event's name in the config file and in the payload's `type`.
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::BeforeCompact => "session_before_compact",
            HookEvent::Compacting => "session.compacting",
            HookEvent::Compact => "session_compact",
            HookEvent::BeforeTree => "session_before_tree",
            HookEvent::Tree => "session_tree",
        }
    }

    /// The event named `name`, if contextree emits it.
    pub fn from_name(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Notification events ignore what their hooks print (spec §1).
    pub fn is_notification(self) -> bool {
        matches!(self, HookEvent::Compact | HookEvent::Tree)
    }

    /// `session_before_*` results may cancel, which stops dispatch at once.
    pub(crate) fn can_cancel(self) -> bool {
        matches!(self, HookEvent::BeforeCompact | HookEvent::BeforeTree)
    }
}

/// One configured hook: the program and its arguments (no shell involved) and
/// its time limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookCommand {
    /// `["prog", "arg", ...]`; never empty.
    pub command: Vec<String>,
    /// Killed when it runs longer.
    pub timeout: Duration,
}

impl HookCommand {
    /// The command as one line, for messages.
    pub fn display(&self) -> String {
        self.command.join(" ")
    }
}

/// The configured hooks per event, in the order they run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hooks {
    events: BTreeMap<HookEvent, Vec<HookCommand>>,
}

impl Hooks {
    /// The hooks of `event` (empty when none is configured).
    pub fn for_event(&self, event: HookEvent) -> &[HookCommand] {
        self.events.get(&event).map_or(&[], Vec::as_slice)
    }

    /// No hook configured at all.
    pub fn is_empty(&self) -> bool {
        self.events.values().all(Vec::is_empty)
    }

    /// Adds a hook at the end of `event`'s list (for programmatic use and tests).
    pub fn push(&mut self, event: HookEvent, hook: HookCommand) {
        self.events.entry(event).or_default().push(hook);
    }
}

/// Runs one hook with the payload bytes: its stdout, or why it failed.
pub type Runner<'a> = dyn FnMut(&HookCommand, &[u8]) -> Result<Vec<u8>, HookRunError> + 'a;

/// What a dispatch ended with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dispatch {
    /// The winning result, read: the cancelling one, else the last non-empty one.
    /// Always `None` for notification events.
    pub result: Option<Reply>,
    /// A hook returned `cancel: true` (the hooks after it did not run).
    pub cancelled: bool,
    /// One line per hook that failed or printed something unusable.
    pub warnings: Vec<String>,
}

/// Runs `hooks` for `event` with `payload` through `run` (which returns the
/// hook's stdout or why it failed), applying spec §1: sequential, in order;
/// the last non-empty result wins; `cancel: true` on a `session_before_*`
/// event stops at once; failures and unusable output are warnings; results of
/// notification events are ignored.
///
/// Empty output, `null` and `{}` are "no result", so a hook that has nothing
/// to say does not undo an earlier hook's result.
pub fn dispatch_with(event: HookEvent, hooks: &[HookCommand], payload: &impl Serialize, run: &mut Runner<'_>) -> Dispatch {
    // A payload that cannot be serialized (a map with non-string keys) has no JSON form: the
    // hooks get `null`, as they would from the agents' `JSON.stringify` of nothing.
    let input = serde_json::to_vec(payload).unwrap_or_else(|_| b"null".to_vec());
    let mut out = Dispatch::default();
    for (i, hook) in hooks.iter().enumerate() {
        let warn = |why: &str| format!("hook {} #{} ({}): {why}; ignored", event.name(), i + 1, hook.display());
        let stdout = match run(hook, &input) {
            Ok(s) => s,
            Err(why) => {
                out.warnings.push(warn(&why.to_string()));
                continue;
            }
        };
        if event.is_notification() {
            continue;
        }
        let text = String::from_utf8_lossy(&stdout);
        if text.trim().is_empty() {
            continue;
        }
        let value: Value = match serde_json::from_str(text.trim()) {
            Ok(v) => v,
            Err(e) => {
                out.warnings.push(warn(&format!("its output is not JSON ({e})")));
                continue;
            }
        };
        let map = match value {
            Value::Null => continue,
            Value::Object(m) if m.is_empty() => continue,
            Value::Object(m) => m,
            other => {
                out.warnings.push(warn(&format!("its output is not a JSON object: {}", run::excerpt(&other.to_string()))));
                continue;
            }
        };
        let reply = match replies::read_result(event, &map) {
            Ok(Some(reply)) => reply,
            Ok(None) => continue,
            Err(why) => {
                out.warnings.push(warn(&why.to_string()));
                continue;
            }
        };
        let cancel = event.can_cancel() && map.get("cancel") == Some(&Value::Bool(true));
        out.result = Some(reply);
        if cancel {
            out.cancelled = true;
            break;
        }
    }
    out
}

/// [`dispatch_with`] running each hook as a process ([`run_command`]).
pub fn dispatch(event: HookEvent, hooks: &[HookCommand], payload: &impl Serialize) -> Dispatch {
    dispatch_with(event, hooks, payload, &mut run_command)
}

/// [`dispatch`] that stops when `stop` returns true: the running hook's
/// process group is killed and no later hook starts (each is a warning). The
/// caller checks its own flag afterwards; the dispatch does not decide what a
/// cancelled run means.
pub fn dispatch_until(event: HookEvent, hooks: &[HookCommand], payload: &impl Serialize, stop: &dyn Fn() -> bool) -> Dispatch {
    dispatch_with(event, hooks, payload, &mut |hook, input| {
        if stop() {
            Err(HookRunError::NotStarted)
        } else {
            run_command_until(hook, input, stop)
        }
    })
}

#[cfg(test)]
mod tests;
