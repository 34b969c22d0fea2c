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

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use contextree_core::branch_summary::SuppliedBranchSummary;
use contextree_core::compaction::{CompactingHook, CompactionPlan, SuppliedCompaction};
use contextree_core::context::materialize::{agent_message, ReadBackError};
use contextree_core::context::Item;
use contextree_core::session::{NodeId, Session, Source};
use contextree_core::Dialect;
use serde_json::{json, Map, Value};

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
    pub const ALL: [HookEvent; 5] = [HookEvent::BeforeCompact, HookEvent::Compacting, HookEvent::Compact, HookEvent::BeforeTree, HookEvent::Tree];

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
    fn can_cancel(self) -> bool {
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

/// The `"hooks"` key of contextree's config file (the whole file's text).
/// A file without the key has no hooks; the rest of the file is not looked at.
/// Errors name the event and position, never a command (it could hold a secret).
pub fn parse_hooks(config_text: &str) -> Result<Hooks, String> {
    let doc: Value = serde_json::from_str(config_text).map_err(|e| format!("invalid JSON: {e}"))?;
    let Some(section) = doc.get("hooks").filter(|v| !v.is_null()) else {
        return Ok(Hooks::default());
    };
    let section = section.as_object().ok_or("\"hooks\" must be an object of event name → list of hooks")?;
    let mut hooks = Hooks::default();
    for (name, list) in section {
        let event = HookEvent::from_name(name).ok_or_else(|| {
            let known: Vec<&str> = HookEvent::ALL.iter().map(|e| e.name()).collect();
            format!("hooks: unknown event {name:?} (known: {})", known.join(", "))
        })?;
        let list = list.as_array().ok_or_else(|| format!("hooks.{name}: expected a list of hooks"))?;
        for (i, item) in list.iter().enumerate() {
            let at = format!("hooks.{name}[{i}]");
            let obj = item.as_object().ok_or_else(|| format!("{at}: expected an object with \"command\""))?;
            if let Some(key) = obj.keys().find(|k| !matches!(k.as_str(), "command" | "timeoutSecs")) {
                return Err(format!("{at}: unknown key {key:?}"));
            }
            let command: Vec<String> = obj
                .get("command")
                .and_then(Value::as_array)
                .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_owned)).collect::<Option<_>>())
                .filter(|c: &Vec<String>| c.first().is_some_and(|p| !p.is_empty()))
                .ok_or_else(|| format!("{at}.command: expected a non-empty list of strings [\"program\", \"arg\", ...]"))?;
            let timeout = match obj.get("timeoutSecs") {
                None => DEFAULT_HOOK_TIMEOUT,
                Some(v) => v
                    .as_f64()
                    .filter(|s| s.is_finite() && *s > 0.0 && *s <= 86_400.0)
                    .map(Duration::from_secs_f64)
                    .ok_or_else(|| format!("{at}.timeoutSecs: expected a number of seconds > 0"))?,
            };
            hooks.push(event, HookCommand { command, timeout });
        }
    }
    Ok(hooks)
}

/// The hooks in the config file at `path`; none when the file does not exist.
pub fn load_hooks(path: &Path) -> Result<Hooks, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse_hooks(&text).map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Hooks::default()),
        Err(e) => Err(format!("{}: cannot read: {e}", path.display())),
    }
}

/// Runs one hook with the payload bytes: its stdout, or why it failed.
pub type Runner<'a> = dyn FnMut(&HookCommand, &[u8]) -> Result<Vec<u8>, String> + 'a;

/// What a dispatch ended with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dispatch {
    /// The winning result: the cancelling one, else the last non-empty one.
    /// Always `None` for notification events.
    pub result: Option<Map<String, Value>>,
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
pub fn dispatch_with(event: HookEvent, hooks: &[HookCommand], payload: &Value, run: &mut Runner<'_>) -> Dispatch {
    let input = payload.to_string().into_bytes();
    let mut out = Dispatch::default();
    for (i, hook) in hooks.iter().enumerate() {
        let warn = |why: &str| format!("hook {} #{} ({}): {why}; ignored", event.name(), i + 1, hook.display());
        let stdout = match run(hook, &input) {
            Ok(s) => s,
            Err(why) => {
                out.warnings.push(warn(&why));
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
                out.warnings.push(warn(&format!("its output is not a JSON object: {}", excerpt(&other.to_string()))));
                continue;
            }
        };
        if let Err(why) = check_result(event, &map) {
            out.warnings.push(warn(&why));
            continue;
        }
        let cancel = event.can_cancel() && map.get("cancel") == Some(&Value::Bool(true));
        out.result = Some(map);
        if cancel {
            out.cancelled = true;
            break;
        }
    }
    out
}

/// [`dispatch_with`] running each hook as a process ([`run_command`]).
pub fn dispatch(event: HookEvent, hooks: &[HookCommand], payload: &Value) -> Dispatch {
    dispatch_with(event, hooks, payload, &mut run_command)
}

/// [`dispatch`] that stops when `stop` returns true: the running hook's
/// process group is killed and no later hook starts (each is a warning). The
/// caller checks its own flag afterwards; the dispatch does not decide what a
/// cancelled run means.
pub fn dispatch_until(event: HookEvent, hooks: &[HookCommand], payload: &Value, stop: &dyn Fn() -> bool) -> Dispatch {
    dispatch_with(event, hooks, payload, &mut |hook, input| if stop() { Err("not started: the run was cancelled".to_owned()) } else { run_command_until(hook, input, stop) })
}

/// The shape checks of a result, so that a malformed one is rejected as a
/// whole (and an earlier good result stands) rather than half used.
fn check_result(event: HookEvent, m: &Map<String, Value>) -> Result<(), String> {
    let is = |key: &str, ok: fn(&Value) -> bool, want: &str| match m.get(key) {
        Some(v) if !v.is_null() && !ok(v) => Err(format!("\"{key}\" must be {want}")),
        _ => Ok(()),
    };
    match event {
        HookEvent::BeforeCompact => {
            is("cancel", Value::is_boolean, "true or false")?;
            if let Some(c) = m.get("compaction").filter(|v| !v.is_null()) {
                supplied_compaction(c).map(drop)?;
            }
        }
        HookEvent::Compacting => {
            is("prompt", Value::is_string, "a string")?;
            is("context", |v| v.as_array().is_some_and(|a| a.iter().all(Value::is_string)), "a list of strings")?;
            is("preserveData", Value::is_object, "an object")?;
        }
        HookEvent::BeforeTree => {
            is("cancel", Value::is_boolean, "true or false")?;
            if let Some(v) = m.get("summary").filter(|v| !v.is_null()) {
                supplied_branch_summary(v).map(drop)?;
            }
            for key in ["customInstructions", "label"] {
                is(key, Value::is_string, "a string")?;
            }
            is("replaceInstructions", Value::is_boolean, "true or false")?;
        }
        HookEvent::Compact | HookEvent::Tree => {}
    }
    Ok(())
}

/// A `session_before_compact` result's `compaction` (`CompactionResult`) as a
/// supplied compaction; `summary` is required, the rest default to the plan's.
pub fn supplied_compaction(v: &Value) -> Result<SuppliedCompaction, String> {
    let m = v.as_object().ok_or("\"compaction\" must be an object")?;
    let field = |k: &str| m.get(k).filter(|v| !v.is_null());
    let string = |k: &str| match field(k) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("\"compaction.{k}\" must be a string")),
    };
    let summary = string("summary")?.ok_or("\"compaction.summary\" is missing")?;
    let tokens_before = match field("tokensBefore") {
        None => None,
        Some(v) => Some(v.as_f64().ok_or("\"compaction.tokensBefore\" must be a number")?),
    };
    let preserve_data = match field("preserveData") {
        None => None,
        Some(v) if v.is_object() => Some(v.clone()),
        Some(_) => return Err("\"compaction.preserveData\" must be an object".to_owned()),
    };
    Ok(SuppliedCompaction {
        summary,
        short_summary: string("shortSummary")?,
        first_kept_entry_id: string("firstKeptEntryId")?,
        tokens_before,
        details: field("details").cloned(),
        preserve_data,
    })
}

/// What `session_before_compact` decided.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BeforeCompact {
    /// Stop: manual compaction fails with `Compaction cancelled`.
    pub cancel: bool,
    /// Use this instead of asking a model.
    pub compaction: Option<SuppliedCompaction>,
}

/// The typed reading of a `session_before_compact` dispatch.
pub fn before_compact(d: &Dispatch) -> BeforeCompact {
    let Some(m) = &d.result else { return BeforeCompact::default() };
    BeforeCompact {
        cancel: d.cancelled,
        // Checked by `check_result` already; a failure here cannot happen.
        compaction: m.get("compaction").filter(|v| !v.is_null()).and_then(|c| supplied_compaction(c).ok()),
    }
}

/// The typed reading of a `session.compacting` dispatch.
pub fn compacting(d: &Dispatch) -> CompactingHook {
    let Some(m) = &d.result else { return CompactingHook::default() };
    CompactingHook {
        prompt: m.get("prompt").and_then(Value::as_str).map(str::to_owned),
        context: m.get("context").and_then(Value::as_array).map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()).unwrap_or_default(),
        preserve_data: m.get("preserveData").filter(|v| v.is_object()).cloned(),
    }
}

/// Runs one hook: `payload` on stdin, its stdout returned when it exits with
/// status 0 within its time limit. See [`run_command_until`].
pub fn run_command(hook: &HookCommand, payload: &[u8]) -> Result<Vec<u8>, String> {
    run_command_until(hook, payload, &|| false)
}

/// Which of a hook's output pipes.
#[derive(Debug, Clone, Copy)]
enum Pipe {
    Stdout,
    Stderr,
}

impl Pipe {
    fn name(self) -> &'static str {
        match self {
            Pipe::Stdout => "stdout",
            Pipe::Stderr => "stderr",
        }
    }

    fn cap(self) -> usize {
        match self {
            Pipe::Stdout => HOOK_STDOUT_CAP,
            Pipe::Stderr => HOOK_STDERR_CAP,
        }
    }
}

/// What a pipe's reader thread reports: all of it, or that it went over its cap.
enum Piped {
    Done(Pipe, Vec<u8>),
    Over(Pipe),
}

/// Reads `pipe` to its end on a thread of its own, keeping at most `which.cap()`
/// bytes: one byte more is [`Piped::Over`], and the thread stops reading (the
/// caller kills the hook), so a hook that prints endlessly costs at most its cap.
fn drain(pipe: impl Read + Send + 'static, which: Pipe, tx: mpsc::Sender<Piped>) {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let mut pipe = pipe.take(which.cap() as u64 + 1);
        // A read error ends the output like an end of file: what came so far counts.
        let _ = pipe.read_to_end(&mut buf);
        let _ = tx.send(if buf.len() > which.cap() { Piped::Over(which) } else { Piped::Done(which, buf) });
        // Closed only now: a hook writing on dies of SIGPIPE, and the caller must
        // see `Over` before that exit (the channel keeps the order).
        drop(pipe);
    });
}

/// Kills the hook and every process it started that stayed in its process
/// group, then reaps the hook.
fn kill_group(child: &mut Child) {
    // The hook leads a group of its own (`process_group(0)`), so its pid is the
    // group's id. `child.kill()` too, in case the group signal failed.
    let _ = rustix::process::kill_process_group(rustix::process::Pid::from_child(child), rustix::process::Signal::KILL);
    let _ = child.kill();
    let _ = child.wait();
}

/// Runs one hook: `payload` on stdin, its stdout returned when it exits with
/// status 0 within its time limit and both its output pipes are closed.
///
/// The hook runs in a process group of its own. The whole group is killed
/// (SIGKILL) when the time limit passes, when the hook prints more than
/// [`HOOK_STDOUT_CAP`] on stdout or [`HOOK_STDERR_CAP`] on stderr, or when
/// `stop` returns true (checked every few milliseconds); so a hook's own
/// children do not outlive it. A process the hook leaves behind with its
/// output redirected elsewhere (it detached on purpose) is not waited for and
/// is left alone; one still holding the hook's output is waited for until the
/// time limit (200 ms after a failing exit) and then killed with the group.
///
/// The payload is written and the output read on their own threads, so a hook
/// that never reads its stdin, or prints a lot, cannot deadlock contextree.
pub fn run_command_until(hook: &HookCommand, payload: &[u8], stop: &dyn Fn() -> bool) -> Result<Vec<u8>, String> {
    let (program, args) = hook.command.split_first().ok_or("the command is empty")?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start: {e}"))?;
    let deadline = Instant::now() + hook.timeout;
    if let Some(mut stdin) = child.stdin.take() {
        let input = payload.to_vec();
        // A hook may exit without reading: the broken pipe is not an error.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    let (tx, rx) = mpsc::channel();
    let (mut stdout, mut stderr) = (None, None);
    match child.stdout.take() {
        Some(p) => drain(p, Pipe::Stdout, tx.clone()),
        None => stdout = Some(Vec::new()),
    }
    match child.stderr.take() {
        Some(p) => drain(p, Pipe::Stderr, tx),
        None => stderr = Some(Vec::new()),
    }
    let timed_out = || format!("timed out after {}s (killed)", hook.timeout.as_secs_f64());
    // When the hook has failed, its stderr is waited for only briefly: a
    // background process may hold the pipe open.
    let mut failed_at: Option<(ExitStatus, Instant)> = None;
    let mut status = None;
    loop {
        match rx.recv_timeout(Duration::from_millis(5)) {
            Ok(Piped::Done(Pipe::Stdout, bytes)) => stdout = Some(bytes),
            Ok(Piped::Done(Pipe::Stderr, bytes)) => stderr = Some(bytes),
            Ok(Piped::Over(pipe)) => {
                kill_group(&mut child);
                return Err(format!("printed more than {} bytes on {} (killed)", pipe.cap(), pipe.name()));
            }
            Err(_) => {}
        }
        if status.is_none() {
            match child.try_wait() {
                Ok(Some(s)) if s.success() => status = Some(s),
                Ok(Some(s)) => {
                    status = Some(s);
                    failed_at = Some((s, Instant::now()));
                }
                Ok(None) => {}
                Err(e) => {
                    kill_group(&mut child);
                    return Err(format!("cannot wait for it: {e}"));
                }
            }
        }
        if let Some((s, at)) = failed_at {
            if stderr.is_some() || at.elapsed() >= Duration::from_millis(200) || Instant::now() >= deadline {
                // What is left of the group goes with it.
                kill_group(&mut child);
                let err = String::from_utf8_lossy(stderr.as_deref().unwrap_or_default());
                let detail = if err.trim().is_empty() { String::new() } else { format!(": {}", excerpt(err.trim())) };
                return Err(format!("{s}{detail}"));
            }
        }
        if status.is_some() && stderr.is_some() {
            if let Some(out) = stdout.take() {
                return Ok(out);
            }
        }
        if stop() {
            kill_group(&mut child);
            return Err("stopped: the run was cancelled (killed)".to_owned());
        }
        if Instant::now() >= deadline {
            // The hook itself, or a process it started that still holds its output.
            kill_group(&mut child);
            return Err(timed_out());
        }
    }
}

fn excerpt(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(STDERR_EXCERPT_CHARS).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

/// An entry as written in the file (the agents hand hooks their entry
/// objects); `null` when its line cannot be read back as JSON.
fn raw_entry(session: &Session, node: NodeId, source: &dyn Source) -> Value {
    let e = session.entry(node);
    let Ok(bytes) = source.bytes(e.span) else { return Value::Null };
    // Like omp's reading of a line: the first JSON value counts.
    serde_json::Deserializer::from_slice(&bytes).into_iter::<Value>().next().and_then(Result::ok).unwrap_or(Value::Null)
}

/// The `session_before_compact` payload (spec §2) with contextree's data:
/// `preparation` as prepareCompaction returns it (agent messages; the
/// settings used), `branchEntries` root → leaf as stored. `signal` has no JSON
/// form: a hook is cancelled by its time limit instead.
pub fn before_compact_payload(session: &Session, path: &[NodeId], plan: &CompactionPlan, source: &dyn Source, custom_instructions: Option<&str>) -> Result<Value, ReadBackError> {
    let messages = |nodes: &[NodeId]| -> Result<Value, ReadBackError> { Ok(Value::Array(nodes.iter().map(|&n| agent_message(session, Item::Entry(n), source)).collect::<Result<_, _>>()?)) };
    let omp = session.dialect() == Dialect::Omp;
    let mut prep = Map::new();
    if let Some(p) = plan.prepared() {
        prep.insert("firstKeptEntryId".into(), session.entry(p.first_kept).id.to_string().into());
        prep.insert("messagesToSummarize".into(), messages(&p.messages_to_summarize)?);
        prep.insert("turnPrefixMessages".into(), messages(&p.turn_prefix)?);
        if omp {
            prep.insert("recentMessages".into(), messages(&p.recent)?);
        }
        prep.insert("isSplitTurn".into(), p.is_split_turn().into());
        prep.insert(
            "fileOps".into(),
            json!({"read": p.file_ops.read.as_slice(), "written": p.file_ops.written.as_slice(), "edited": p.file_ops.edited.as_slice()}),
        );
    }
    prep.insert("tokensBefore".into(), serde_json::Number::from_f64(plan.tokens_before).map_or(Value::Null, Value::Number));
    let previous = plan.previous.map(|p| session.entry(p.node));
    if let Some(summary) = previous.and_then(|e| e.str_field("summary")) {
        prep.insert("previousSummary".into(), summary.into());
    }
    if omp {
        if let Some(data) = previous.and_then(|e| e.object()).and_then(|m| m.get("preserveData")) {
            prep.insert("previousPreserveData".into(), data.clone());
        }
    }
    let st = &plan.settings;
    prep.insert("settings".into(), json!({"enabled": st.enabled, "reserveTokens": st.reserve_tokens, "keepRecentTokens": st.keep_recent_tokens}));
    let mut payload = Map::new();
    payload.insert("type".into(), HookEvent::BeforeCompact.name().into());
    payload.insert("preparation".into(), Value::Object(prep));
    payload.insert("branchEntries".into(), path.iter().map(|&n| raw_entry(session, n, source)).collect());
    if let Some(text) = custom_instructions {
        payload.insert("customInstructions".into(), text.into());
    }
    Ok(Value::Object(payload))
}

/// omp's `session.compacting` payload: `messages = messagesToSummarize ++
/// turnPrefixMessages`.
pub fn compacting_payload(session: &Session, plan: &CompactionPlan, source: &dyn Source) -> Result<Value, ReadBackError> {
    let nodes: Vec<NodeId> = plan.prepared().map(|p| p.messages_to_summarize.iter().chain(&p.turn_prefix).copied().collect()).unwrap_or_default();
    let messages = nodes.iter().map(|&n| agent_message(session, Item::Entry(n), source)).collect::<Result<Vec<_>, _>>()?;
    let session_id = session.header().and_then(|h| h.get("id")).cloned().unwrap_or(Value::Null);
    Ok(json!({"type": HookEvent::Compacting.name(), "sessionId": session_id, "messages": messages}))
}

/// The `session_compact` payload: the entry as written and whether a hook
/// supplied it.
pub fn compact_payload(compaction_entry: &Value, from_extension: bool) -> Value {
    json!({"type": HookEvent::Compact.name(), "compactionEntry": compaction_entry, "fromExtension": from_extension})
}

/// What `navigateTree` hands `session_before_tree` as `preparation`
/// (branch-summary.md §1 step 4), by node.
#[derive(Debug, Clone, Copy)]
pub struct TreePreparation<'a> {
    /// The entry navigated to.
    pub target: NodeId,
    /// The leaf before the move (`None`: an empty session).
    pub old_leaf: Option<NodeId>,
    /// `collectEntriesForBranchSummary`'s common ancestor.
    pub common_ancestor: Option<NodeId>,
    /// The abandoned entries, chronological.
    pub entries_to_summarize: &'a [NodeId],
    /// The user asked for a summary.
    pub user_wants_summary: bool,
    /// pi only: the navigation options as given (`None` leaves the key out, as `undefined`).
    pub custom_instructions: Option<&'a str>,
    /// pi only.
    pub replace_instructions: Option<bool>,
    /// pi only.
    pub label: Option<&'a str>,
}

/// The `session_before_tree` payload: `{type, preparation: {targetId,
/// oldLeafId, commonAncestorId, entriesToSummarize, userWantsSummary, (pi)
/// customInstructions?, replaceInstructions?, label?}}`, the entries as
/// stored in the file. `signal` has no JSON form (the time limit stands in).
pub fn before_tree_payload(session: &Session, prep: &TreePreparation<'_>, source: &dyn Source) -> Value {
    let id = |n: Option<NodeId>| n.map_or(Value::Null, |n| Value::from(session.entry(n).id.to_string()));
    let mut p = Map::new();
    p.insert("targetId".into(), id(Some(prep.target)));
    p.insert("oldLeafId".into(), id(prep.old_leaf));
    p.insert("commonAncestorId".into(), id(prep.common_ancestor));
    p.insert("entriesToSummarize".into(), prep.entries_to_summarize.iter().map(|&n| raw_entry(session, n, source)).collect());
    p.insert("userWantsSummary".into(), prep.user_wants_summary.into());
    if session.dialect() == Dialect::Pi {
        if let Some(c) = prep.custom_instructions {
            p.insert("customInstructions".into(), c.into());
        }
        if let Some(r) = prep.replace_instructions {
            p.insert("replaceInstructions".into(), r.into());
        }
        if let Some(l) = prep.label {
            p.insert("label".into(), l.into());
        }
    }
    json!({"type": HookEvent::BeforeTree.name(), "preparation": p})
}

/// A `session_before_tree` result's `summary` (`{summary, details?}`).
/// `details` is kept as given, `null` included (JavaScript stores it so);
/// only a missing key leaves it out.
pub fn supplied_branch_summary(v: &Value) -> Result<SuppliedBranchSummary, String> {
    let m = v.as_object().ok_or("\"summary\" must be an object {summary, details?}")?;
    let summary = match m.get("summary") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => return Err("\"summary.summary\" is missing".to_owned()),
        Some(_) => return Err("\"summary.summary\" must be a string".to_owned()),
    };
    Ok(SuppliedBranchSummary { summary, details: m.get("details").cloned() })
}

/// What `session_before_tree` decided.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BeforeTree {
    /// Stop: navigation is cancelled and nothing is written.
    pub cancel: bool,
    /// Use this instead of the summarizer (only when the user asked for a summary).
    pub summary: Option<SuppliedBranchSummary>,
    /// pi: replaces the navigation's custom instructions.
    pub custom_instructions: Option<String>,
    /// pi: replaces `replaceInstructions`.
    pub replace_instructions: Option<bool>,
    /// pi: replaces the label.
    pub label: Option<String>,
}

/// The typed reading of a `session_before_tree` dispatch. The overrides are
/// read for both dialects; omp has none, so its caller ignores them.
pub fn before_tree(d: &Dispatch) -> BeforeTree {
    let Some(m) = &d.result else { return BeforeTree::default() };
    let text = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
    BeforeTree {
        cancel: d.cancelled,
        // Checked by `check_result` already.
        summary: m.get("summary").filter(|v| !v.is_null()).and_then(|v| supplied_branch_summary(v).ok()),
        custom_instructions: text("customInstructions"),
        replace_instructions: m.get("replaceInstructions").and_then(Value::as_bool),
        label: text("label"),
    }
}

/// The `session_tree` payload: `{type, newLeafId, oldLeafId, summaryEntry?,
/// fromExtension?}`, the last two only when a summary entry was written.
pub fn tree_payload(new_leaf_id: Option<&str>, old_leaf_id: Option<&str>, summary: Option<(&Value, bool)>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), HookEvent::Tree.name().into());
    m.insert("newLeafId".into(), new_leaf_id.map_or(Value::Null, Value::from));
    m.insert("oldLeafId".into(), old_leaf_id.map_or(Value::Null, Value::from));
    if let Some((entry, from_extension)) = summary {
        m.insert("summaryEntry".into(), entry.clone());
        m.insert("fromExtension".into(), from_extension.into());
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicU32, Ordering};

    fn hook(cmd: &str) -> HookCommand {
        HookCommand { command: vec![cmd.to_owned()], timeout: DEFAULT_HOOK_TIMEOUT }
    }

    /// A runner answering from a table keyed by the command's program name.
    fn table<'a>(answers: &'a [(&'a str, Result<&'a str, &'a str>)]) -> impl FnMut(&HookCommand, &[u8]) -> Result<Vec<u8>, String> + 'a {
        move |h, _| {
            let (_, a) = answers.iter().find(|(n, _)| *n == h.command[0]).unwrap();
            a.map(|s| s.as_bytes().to_vec()).map_err(str::to_owned)
        }
    }

    #[test]
    fn config_section_parses_and_rejects_typos() {
        let hooks = parse_hooks(r#"{"providers": [], "hooks": {"session_before_compact": [{"command": ["a", "x"], "timeoutSecs": 2.5}, {"command": ["b"]}], "session.compacting": []}}"#).unwrap();
        let list = hooks.for_event(HookEvent::BeforeCompact);
        assert_eq!(list[0], HookCommand { command: vec!["a".into(), "x".into()], timeout: Duration::from_millis(2500) });
        assert_eq!(list[1].timeout, DEFAULT_HOOK_TIMEOUT);
        assert!(hooks.for_event(HookEvent::Compact).is_empty());
        assert!(parse_hooks(r#"{"providers": []}"#).unwrap().is_empty());
        for (bad, says) in [
            (r#"{"hooks": {"session_compacting": []}}"#, "unknown event"),
            (r#"{"hooks": {"session_compact": [{"command": []}]}}"#, "hooks.session_compact[0].command"),
            (r#"{"hooks": {"session_compact": [{"command": ["a"], "timeout": 1}]}}"#, "unknown key \"timeout\""),
            (r#"{"hooks": {"session_compact": [{"command": ["a"], "timeoutSecs": 0}]}}"#, "timeoutSecs"),
            (r#"{"hooks": []}"#, "must be an object"),
        ] {
            let e = parse_hooks(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn last_non_empty_result_wins_and_cancel_stops_at_once() {
        let hooks = [hook("a"), hook("b"), hook("empty"), hook("fail"), hook("cancel"), hook("after")];
        let answers = [
            ("a", Ok(r#"{"compaction": {"summary": "A"}}"#)),
            ("b", Ok(r#"{"compaction": {"summary": "B"}}"#)),
            ("empty", Ok("  \n")),
            ("fail", Err("exit status: 3")),
            ("cancel", Ok(r#"{"cancel": true}"#)),
            ("after", Ok(r#"{"compaction": {"summary": "never"}}"#)),
        ];
        let mut ran = Vec::new();
        let mut inner = table(&answers);
        let mut run = |h: &HookCommand, p: &[u8]| {
            ran.push(h.command[0].clone());
            inner(h, p)
        };
        let d = dispatch_with(HookEvent::BeforeCompact, &hooks, &json!({}), &mut run);
        assert!(d.cancelled);
        assert_eq!(ran, ["a", "b", "empty", "fail", "cancel"], "nothing runs after a cancel");
        assert_eq!(d.warnings.len(), 1);
        assert!(d.warnings[0].contains("#4 (fail): exit status: 3"), "{:?}", d.warnings);
        assert!(before_compact(&d).cancel);

        let d = dispatch_with(HookEvent::BeforeCompact, &hooks[..3], &json!({}), &mut table(&answers));
        assert!(!d.cancelled);
        assert_eq!(before_compact(&d).compaction.unwrap().summary, "B", "the last non-empty result");
    }

    #[test]
    fn unusable_results_are_warnings_and_earlier_results_stand() {
        let hooks = [hook("good"), hook("garbage"), hook("array"), hook("badtype"), hook("nosummary")];
        let answers = [
            ("good", Ok(r#"{"prompt": "P", "context": ["c1"], "preserveData": {"k": 1}}"#)),
            ("garbage", Ok("hello")),
            ("array", Ok("[1]")),
            ("badtype", Ok(r#"{"context": "not a list"}"#)),
            ("nosummary", Ok(r#"{"prompt": 5}"#)),
        ];
        let d = dispatch_with(HookEvent::Compacting, &hooks, &json!({}), &mut table(&answers));
        assert_eq!(d.warnings.len(), 4, "{:?}", d.warnings);
        assert!(d.warnings[0].contains("not JSON"));
        assert!(d.warnings[1].contains("not a JSON object"));
        assert!(d.warnings[2].contains("\"context\" must be a list of strings"));
        let c = compacting(&d);
        assert_eq!((c.prompt.as_deref(), c.context, c.preserve_data), (Some("P"), vec!["c1".to_owned()], Some(json!({"k": 1}))));

        let d = dispatch_with(HookEvent::BeforeCompact, &[hook("x")], &json!({}), &mut table(&[("x", Ok(r#"{"compaction": {"tokensBefore": 3}}"#))]));
        assert!(d.result.is_none() && d.warnings[0].contains("compaction.summary\" is missing"), "{d:?}");
        // session.compacting cannot cancel.
        let d = dispatch_with(HookEvent::Compacting, &[hook("x"), hook("y")], &json!({}), &mut table(&[("x", Ok(r#"{"cancel": true}"#)), ("y", Ok(r#"{"prompt": "Y"}"#))]));
        assert!(!d.cancelled && compacting(&d).prompt.as_deref() == Some("Y"));
    }

    #[test]
    fn notification_results_are_ignored_but_failures_reported() {
        let hooks = [hook("a"), hook("b")];
        let d = dispatch_with(HookEvent::Compact, &hooks, &json!({}), &mut table(&[("a", Ok(r#"{"cancel": true}"#)), ("b", Err("timed out after 1s (killed)"))]));
        assert_eq!((d.result, d.cancelled), (None, false));
        assert_eq!(d.warnings.len(), 1);
    }

    #[test]
    fn tree_results_and_payloads() {
        let answers = [
            ("sum", Ok(r#"{"summary": {"summary": "S", "details": {"d": 1}}, "label": "L", "replaceInstructions": true}"#)),
            ("bad", Ok(r#"{"summary": {"details": 1}}"#)),
            ("worse", Ok(r#"{"summary": "text"}"#)),
        ];
        let d = dispatch_with(HookEvent::BeforeTree, &[hook("sum"), hook("bad"), hook("worse")], &json!({}), &mut table(&answers));
        assert_eq!(d.warnings.len(), 2, "{:?}", d.warnings);
        assert!(d.warnings[0].contains("summary.summary\" is missing"), "{:?}", d.warnings);
        let t = before_tree(&d);
        assert_eq!(t.summary, Some(SuppliedBranchSummary { summary: "S".into(), details: Some(json!({"d": 1})) }));
        assert_eq!((t.label.as_deref(), t.replace_instructions, t.cancel), (Some("L"), Some(true), false));
        let d = dispatch_with(HookEvent::BeforeTree, &[hook("c"), hook("sum")], &json!({}), &mut table(&[("c", Ok(r#"{"cancel": true}"#)), ("sum", Ok("{}"))]));
        assert!(before_tree(&d).cancel);

        assert_eq!(tree_payload(Some("n"), None, None), json!({"type": "session_tree", "newLeafId": "n", "oldLeafId": null}));
        let e = json!({"type": "branch_summary"});
        assert_eq!(tree_payload(Some("n"), Some("o"), Some((&e, true)))["fromExtension"], true);

        let bytes = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n{\"type\":\"message\",\"id\":\"u1\",\"parentId\":null,\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":1}}\n";
        for dialect in Dialect::ALL {
            let s = Session::parse(bytes, Some(contextree_core::RuleSet::oldest(dialect)));
            let u1 = s.node("u1").unwrap();
            let prep = TreePreparation { target: u1, old_leaf: Some(u1), common_ancestor: Some(u1), entries_to_summarize: &[u1], user_wants_summary: true, custom_instructions: Some("C"), replace_instructions: None, label: None };
            let p = before_tree_payload(&s, &prep, &bytes.to_vec());
            assert_eq!(p["type"], "session_before_tree");
            assert_eq!(p["preparation"]["entriesToSummarize"][0]["id"], "u1");
            assert_eq!(p["preparation"]["userWantsSummary"], true);
            let pi_only = p["preparation"].get("customInstructions").is_some();
            assert_eq!(pi_only, dialect == Dialect::Pi, "{dialect}");
            assert!(p["preparation"].get("replaceInstructions").is_none());
        }
    }

    /// A temporary folder for scripts, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new() -> TempDir {
            static N: AtomicU32 = AtomicU32::new(0);
            let dir = std::env::temp_dir().join(format!("contextree-hooks-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn sh(script: &str, timeout: Duration) -> HookCommand {
        HookCommand { command: vec!["sh".into(), "-c".into(), script.into()], timeout }
    }

    #[test]
    fn real_processes_get_the_payload_and_their_results_count() {
        let t = TempDir::new();
        let seen = t.0.join("payload.json");
        let long = Duration::from_secs(10);
        // The first hook records its stdin and supplies a summary; the second
        // prints nothing, so the first one's result stands.
        let record = sh(&format!("cat > '{}'; echo '{{\"compaction\": {{\"summary\": \"From a hook\", \"details\": {{\"x\": 1}}}}}}'", seen.display()), long);
        let payload = json!({"type": "session_before_compact", "big": "y".repeat(300_000)});
        let d = dispatch(HookEvent::BeforeCompact, &[record, sh("exit 0", long)], &payload);
        assert!(d.warnings.is_empty(), "{:?}", d.warnings);
        let supplied = before_compact(&d).compaction.unwrap();
        assert_eq!((supplied.summary.as_str(), supplied.details), ("From a hook", Some(json!({"x": 1}))));
        let got: Value = serde_json::from_slice(&std::fs::read(&seen).unwrap()).unwrap();
        assert_eq!(got, payload, "the whole payload arrives on stdin, even one larger than a pipe buffer");

        let d = dispatch(HookEvent::BeforeCompact, &[sh("echo '{\"cancel\": true}'", long), sh(&format!("touch '{}/ran'", t.0.display()), long)], &json!({}));
        assert!(d.cancelled && !t.0.join("ran").exists());

        let d = dispatch(HookEvent::Compacting, &[sh(r#"printf '{"prompt": "Mine", "context": ["a", "b"], "preserveData": {"keep": true}}'"#, long)], &json!({}));
        let c = compacting(&d);
        assert_eq!((c.prompt.as_deref(), c.context.len(), c.preserve_data), (Some("Mine"), 2, Some(json!({"keep": true}))));
    }

    #[test]
    fn failing_processes_are_warnings() {
        let long = Duration::from_secs(10);
        let started = Instant::now();
        let d = dispatch(
            HookEvent::BeforeCompact,
            &[
                sh("exec sleep 30", Duration::from_millis(300)),
                sh("echo '{not json'", long),
                sh("echo oops >&2; exit 3", long),
                HookCommand { command: vec!["/nonexistent/contextree-hook".into()], timeout: long },
                sh("echo '{\"compaction\": {\"summary\": \"survivor\"}}'", long),
            ],
            &json!({}),
        );
        assert!(started.elapsed() < Duration::from_secs(10), "the sleeping hook was killed at its limit");
        assert_eq!(d.warnings.len(), 4, "{:?}", d.warnings);
        assert!(d.warnings[0].contains("timed out after 0.3s (killed)"), "{}", d.warnings[0]);
        assert!(d.warnings[1].contains("not JSON"), "{}", d.warnings[1]);
        assert!(d.warnings[2].contains("exit status: 3: oops"), "{}", d.warnings[2]);
        assert!(d.warnings[3].contains("cannot start"), "{}", d.warnings[3]);
        assert_eq!(before_compact(&d).compaction.unwrap().summary, "survivor");
    }

    /// Whether process `pid` is gone: no /proc entry, or a zombie waiting for a
    /// reaper (in a container, pid 1 may never reap an orphan).
    fn gone(pid: u32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            // `pid (comm) S ...`: the state follows the last ')'.
            Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        }
    }

    /// Waits up to 2 s for `pid` to be gone (SIGKILL is delivered asynchronously).
    fn gone_soon(pid: u32) -> bool {
        let until = Instant::now() + Duration::from_secs(2);
        while Instant::now() < until {
            if gone(pid) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        gone(pid)
    }

    /// The resident memory of this process in KiB (`VmRSS`).
    fn rss_kib() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    fn read_pid(path: &Path) -> u32 {
        // The hook writes its pid files before sleeping; wait for them briefly.
        let until = Instant::now() + Duration::from_secs(2);
        loop {
            if let Some(pid) = std::fs::read_to_string(path).ok().and_then(|t| t.trim().parse().ok()) {
                return pid;
            }
            assert!(Instant::now() < until, "{} was never written", path.display());
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn endless_output_is_cut_at_the_cap_and_the_hook_killed() {
        let before = rss_kib();
        let started = Instant::now();
        let d = dispatch(HookEvent::BeforeCompact, &[HookCommand { command: vec!["yes".into()], timeout: Duration::from_secs(60) }], &json!({}));
        let took = started.elapsed();
        let grew_mib = rss_kib().saturating_sub(before) / 1024;
        eprintln!("yes: stopped after {took:?}, RSS grew by {grew_mib} MiB");
        assert_eq!(d.warnings.len(), 1, "{:?}", d.warnings);
        assert!(d.warnings[0].contains(&format!("(yes): printed more than {HOOK_STDOUT_CAP} bytes on stdout (killed)")), "{}", d.warnings[0]);
        assert!(took < Duration::from_secs(10), "stopped by the cap, not the time limit: {took:?}");
        // The buffer holds at most the cap (16 MiB) plus the Vec's spare room.
        assert!(grew_mib < 64, "memory stays bounded: grew by {grew_mib} MiB");

        let t = TempDir::new();
        let pid_file = t.0.join("pid");
        let d = dispatch(HookEvent::Compact, &[sh(&format!("echo $$ > '{}'; exec yes >&2", pid_file.display()), Duration::from_secs(60))], &json!({}));
        assert!(d.warnings[0].contains(&format!("printed more than {HOOK_STDERR_CAP} bytes on stderr (killed)")), "{}", d.warnings[0]);
        assert!(gone_soon(read_pid(&pid_file)));
    }

    #[test]
    fn the_time_limit_kills_the_hook_and_its_children() {
        let t = TempDir::new();
        let (hook_pid, bg_pid) = (t.0.join("hook"), t.0.join("bg"));
        let script = format!("echo $$ > '{}'; sleep 300 & echo $! > '{}'; sleep 300", hook_pid.display(), bg_pid.display());
        let started = Instant::now();
        let d = dispatch(HookEvent::BeforeCompact, &[sh(&script, Duration::from_millis(500))], &json!({}));
        let took = started.elapsed();
        assert!(d.warnings[0].contains("timed out after 0.5s (killed)"), "{:?}", d.warnings);
        assert!(took < Duration::from_secs(3), "{took:?}");
        let (hook, bg) = (read_pid(&hook_pid), read_pid(&bg_pid));
        assert!(gone_soon(hook), "the hook {hook} is gone");
        assert!(gone_soon(bg), "its background child {bg} is gone too");

        // A hook that exits at once but leaves a child holding its stdout: the
        // child is killed at the time limit too.
        let script = format!("sleep 300 & echo $! > '{}'; echo '{{}}'", bg_pid.display());
        let _ = std::fs::remove_file(&bg_pid);
        let d = dispatch(HookEvent::BeforeCompact, &[sh(&script, Duration::from_millis(300))], &json!({}));
        assert!(d.warnings[0].contains("timed out"), "{:?}", d.warnings);
        assert!(gone_soon(read_pid(&bg_pid)));

        // One that detaches on purpose (its output elsewhere) is not waited for.
        let started = Instant::now();
        let d = dispatch(HookEvent::BeforeCompact, &[sh("sleep 1 >/dev/null 2>&1 & echo '{\"cancel\": true}'", Duration::from_secs(10))], &json!({}));
        assert!(d.cancelled && d.warnings.is_empty() && started.elapsed() < Duration::from_millis(900), "{d:?}");
    }

    #[test]
    fn a_failing_hook_is_reported_at_once_and_its_children_killed() {
        let t = TempDir::new();
        let bg_pid = t.0.join("bg");
        // The child inherits stderr, so the pipe stays open after the hook exits.
        let script = format!("sleep 300 & echo $! > '{}'; echo bad >&2; exit 4", bg_pid.display());
        let started = Instant::now();
        let d = dispatch(HookEvent::BeforeCompact, &[sh(&script, Duration::from_secs(60))], &json!({}));
        assert!(started.elapsed() < Duration::from_secs(2), "not the 60 s limit: {:?}", started.elapsed());
        assert!(d.warnings[0].contains("exit status: 4"), "{:?}", d.warnings);
        assert!(gone_soon(read_pid(&bg_pid)), "the child holding stderr is killed with the group");
    }

    #[test]
    fn a_stop_kills_the_running_hook_and_starts_no_other() {
        let t = TempDir::new();
        let (hook_pid, bg_pid) = (t.0.join("hook"), t.0.join("bg"));
        let script = format!("echo $$ > '{}'; sleep 300 & echo $! > '{}'; sleep 300", hook_pid.display(), bg_pid.display());
        let started = Instant::now();
        let stop_at = started + Duration::from_millis(300);
        let d = dispatch_until(HookEvent::BeforeCompact, &[sh(&script, Duration::from_secs(60)), sh(&format!("touch '{}/ran'", t.0.display()), Duration::from_secs(60))], &json!({}), &|| Instant::now() >= stop_at);
        assert!(started.elapsed() < Duration::from_secs(3));
        assert_eq!(d.warnings.len(), 2, "{:?}", d.warnings);
        assert!(d.warnings[0].contains("cancelled (killed)") && d.warnings[1].contains("not started"), "{:?}", d.warnings);
        assert!(!t.0.join("ran").exists());
        assert!(gone_soon(read_pid(&hook_pid)) && gone_soon(read_pid(&bg_pid)));
    }
}
