//! One hook as a process: the payload on stdin, its stdout back, in a process
//! group of its own that is killed as a whole.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{HookCommand, HOOK_STDERR_CAP, HOOK_STDOUT_CAP, STDERR_EXCERPT_CHARS};

/// Why a hook gave no output to use. Each becomes a warning of the dispatch.
#[derive(Debug, thiserror::Error)]
pub enum HookRunError {
    /// The hook's `command` has no program.
    #[error("the command is empty")]
    EmptyCommand,
    /// The program could not be spawned (not found, not executable, …).
    #[error("cannot start: {0}")]
    Start(#[source] std::io::Error),
    /// Asking the OS whether the hook has exited failed; the hook was killed.
    #[error("cannot wait for it: {0}")]
    Wait(#[source] std::io::Error),
    /// The hook printed more than its cap on a pipe and was killed with its group.
    #[error("printed more than {cap} bytes on {pipe} (killed)")]
    OutputCap {
        /// `stdout` or `stderr`.
        pipe: &'static str,
        /// The pipe's cap in bytes ([`HOOK_STDOUT_CAP`] or [`HOOK_STDERR_CAP`]).
        cap: usize,
    },
    /// A failing exit; `stderr` is the start of what it printed there.
    #[error("{status}{}", if stderr.is_empty() { String::new() } else { format!(": {stderr}") })]
    Failed {
        /// The exit status (a non-zero code or a signal).
        status: ExitStatus,
        /// The trimmed start of its stderr (at most 300 characters, `…` after a cut); may be
        /// empty.
        stderr: String,
    },
    /// The hook (or a process still holding its output) outlived its time limit and was
    /// killed with its group.
    #[error("timed out after {secs}s (killed)")]
    TimedOut {
        /// The hook's time limit, in seconds.
        secs: f64,
    },
    /// The run was cancelled while the hook ran; it was killed with its group.
    #[error("stopped: the run was cancelled (killed)")]
    Stopped,
    /// The run was cancelled before the hook's turn; it never ran.
    #[error("not started: the run was cancelled")]
    NotStarted,
}

/// Runs one hook: `payload` on stdin, its stdout returned when it exits with
/// status 0 within its time limit. See [`run_command_until`].
pub fn run_command(hook: &HookCommand, payload: &[u8]) -> Result<Vec<u8>, HookRunError> {
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
pub fn run_command_until(hook: &HookCommand, payload: &[u8], stop: &dyn Fn() -> bool) -> Result<Vec<u8>, HookRunError> {
    let (program, args) = hook.command.split_first().ok_or(HookRunError::EmptyCommand)?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(HookRunError::Start)?;
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
                return Err(HookRunError::OutputCap { pipe: pipe.name(), cap: pipe.cap() });
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
                    return Err(HookRunError::Wait(e));
                }
            }
        }
        if let Some((s, at)) = failed_at {
            if stderr.is_some() || at.elapsed() >= Duration::from_millis(200) || Instant::now() >= deadline {
                // What is left of the group goes with it.
                kill_group(&mut child);
                let err = String::from_utf8_lossy(stderr.as_deref().unwrap_or_default());
                return Err(HookRunError::Failed { status: s, stderr: excerpt(err.trim()) });
            }
        }
        if status.is_some() && stderr.is_some() {
            if let Some(out) = stdout.take() {
                return Ok(out);
            }
        }
        if stop() {
            kill_group(&mut child);
            return Err(HookRunError::Stopped);
        }
        if Instant::now() >= deadline {
            // The hook itself, or a process it started that still holds its output.
            kill_group(&mut child);
            return Err(HookRunError::TimedOut { secs: hook.timeout.as_secs_f64() });
        }
    }
}

pub(super) fn excerpt(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(STDERR_EXCERPT_CHARS).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}
