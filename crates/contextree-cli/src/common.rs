//! What every subcommand shares: options, loading, the prompt pack, errors.

use std::fmt;
use std::path::PathBuf;

use clap::Args;
use contextree_core::context::{self, Context, Leaf};
use contextree_core::prompts::PromptPack;
use contextree_core::{Dialect, RuleRequest, RuleSet};
use contextree_host::{ErrorKind, HostEnv, LoadedSession};
use serde::Serialize;

/// A failure; its [`ErrorKind`] gives the exit code (2 for bad input, else 1: README, docs/reliability.md).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad input: a missing file, an unknown id, a bad flag value (exit 2).
    #[error("{0}")]
    Input(String),
    /// The session file cannot be read as one (exit 2, as any input the command cannot take).
    #[error(transparent)]
    Load(#[from] contextree_host::LoadError),
    /// `--prompts DIR` is not an agent's package that loads (exit 2).
    #[error(transparent)]
    Pack(#[from] contextree_host::agent::AgentLoadError),
    /// The file could not be read back where an entry is (it changed, or IO failed).
    #[error(transparent)]
    ReadBack(#[from] contextree_core::context::ReadBackError),
    /// A branch summary's request could not be built.
    #[error(transparent)]
    BranchRequest(#[from] contextree_core::branch_summary::BranchSummaryError),
    /// A document or an entry just written that is not the JSON it should be.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A flow of contextree-ops failed; its kind says how.
    #[error(transparent)]
    Ops(#[from] contextree_ops::OpsError),
    /// A file contextree writes itself (`generate-assets`) could not be written.
    #[error("{}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

impl CliError {
    /// What kind of failure it is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            CliError::Input(_) | CliError::Load(_) | CliError::Pack(_) => ErrorKind::Input,
            CliError::ReadBack(_) | CliError::BranchRequest(_) | CliError::Json(_) | CliError::Write { .. } => ErrorKind::Io,
            CliError::Ops(e) => e.kind(),
        }
    }

    /// The exit code of `contextree` for it: its kind's.
    pub fn exit_code(&self) -> u8 {
        self.kind().exit_code()
    }

    /// Warnings that came with it (a hook's cancel: the hooks that ran), for stderr.
    pub fn warnings(&self) -> &[String] {
        match self {
            CliError::Ops(e) => e.warnings(),
            _ => &[],
        }
    }
}

/// Where `compact` and `navigate` get a summary from (flattened into both).
#[derive(Debug, Clone, Args)]
pub struct ProviderArgs {
    /// Write contextree's offline extractive summary; no model is asked.
    #[arg(long, conflicts_with_all = ["provider", "model", "base_url"])]
    pub offline: bool,
    /// Ask this provider (`openai-compatible`, `anthropic`, `remote`) instead of the config file's candidates.
    #[arg(long, value_name = "KIND")]
    pub provider: Option<String>,
    /// The model for `--provider`.
    #[arg(long, value_name = "ID")]
    pub model: Option<String>,
    /// Base URL for `--provider` (default: the provider's public API).
    #[arg(long, value_name = "URL", requires = "provider")]
    pub base_url: Option<String>,
}

impl ProviderArgs {
    pub fn flags(&self) -> contextree_ops::summarizer::ProviderFlags {
        contextree_ops::summarizer::ProviderFlags {
            offline: self.offline,
            provider: self.provider.clone(),
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            candidate: None,
        }
    }
}

/// Prints a flow's progress on stderr (stdout is the result): attempts, retries, fallbacks.
pub fn print_progress(quiet: bool) -> impl FnMut(contextree_ops::Progress) + Send {
    use contextree_ops::Progress;
    move |p| {
        if quiet {
            return;
        }
        match p {
            Progress::Attempt { call, provider, model, attempt, deadline_ms } => {
                let left = deadline_ms.map_or(String::new(), |ms| format!(", {}s left of the deadline", ms.div_ceil(1000)));
                eprintln!("{} summary: asking {provider} {model} (attempt {}{left})", call.name(), attempt + 1);
            }
            Progress::Retry { call, error, delay_ms } => {
                eprintln!("{} summary: {error}; retrying in {:.1}s", call.name(), delay_ms as f64 / 1000.0)
            }
            Progress::Fallback { call, provider, error } => {
                eprintln!("{} summary: {provider} failed ({error}); trying the next candidate", call.name())
            }
            _ => {}
        }
    }
}

/// Options shared by the subcommands that read a session.
#[derive(Debug, Args)]
pub struct SessionArgs {
    /// The session file (JSONL).
    pub file: PathBuf,
    /// Whose rules apply: `pi`, `omp` (that agent, its rule set chosen as
    /// docs/decisions.md D22 says), or one rule set: `pi@0.73`, `pi@1.6`, `omp@13`,
    /// `omp@18`, `omp@18.3` (default: detected from the file).
    #[arg(long)]
    pub dialect: Option<RuleRequest>,
    /// The leaf to look from (default: the file's last entry).
    #[arg(long)]
    pub leaf: Option<String>,
    /// Print one JSON document.
    #[arg(long)]
    pub json: bool,
    /// Prompt pack for the texts wrapped around summaries: `auto` (the installed
    /// agent's own, else contextree's), `own`, or a package directory.
    #[arg(long, default_value = "auto")]
    pub prompts: String,
    /// The machine as this run sees it (home, variables, config file): read once, when the
    /// arguments are, and handed to everything below instead of the process environment.
    #[arg(skip = HostEnv::from_process())]
    pub env: HostEnv,
}

impl SessionArgs {
    pub fn load(&self) -> Result<LoadedSession, CliError> {
        let path = self.file.display();
        match std::fs::metadata(&self.file) {
            Ok(meta) if meta.is_file() => {}
            Ok(meta) if meta.is_dir() => return Err(CliError::Input(format!("{path}: is a directory, not a session file"))),
            Ok(_) => return Err(CliError::Input(format!("{path}: is not a regular file (a FIFO, socket or device); give a session file"))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(CliError::Input(format!("{path}: no such file"))),
            Err(e) => return Err(CliError::Input(format!("{path}: {e}"))),
        }
        Ok(contextree_host::load_session(&self.env, &self.file, self.dialect)?)
    }

    /// The leaf named by `--leaf` (an unknown id is an input error, unlike the
    /// agents, which silently fall back to the last entry).
    pub fn leaf(&self, loaded: &LoadedSession) -> Result<Leaf, CliError> {
        match &self.leaf {
            None => Ok(Leaf::Last),
            Some(id) => loaded
                .session
                .node(id)
                .map(Leaf::At)
                .ok_or_else(|| CliError::Input(format!("{}: no entry with id `{id}`", self.file.display()))),
        }
    }

    pub fn context(&self, loaded: &LoadedSession) -> Result<Context, CliError> {
        Ok(context::build(&loaded.session, self.leaf(loaded)?))
    }

    /// [`SessionArgs::pack`] for the loaded session's rule set, as the flows
    /// of contextree-ops ask for it (they name the session's agent).
    pub fn pack_fn(&self, rules: RuleSet) -> impl Fn(Dialect) -> Result<PromptPack, contextree_ops::OpsError> + '_ {
        move |dialect| {
            let rules = if rules.dialect() == dialect { rules } else { RuleSet::oldest(dialect) };
            // `pack` fails only for a `--prompts` folder that is not an agent's package.
            self.pack(rules).map_err(|e| match e {
                CliError::Ops(e) => e,
                e => contextree_ops::OpsError::Input(e.to_string()),
            })
        }
    }

    /// The prompt pack of `--prompts` for a session under `rules`: `auto`
    /// takes the installed agent release that fits `rules` (else any
    /// installed release of the agent, else contextree's own wording for
    /// `rules`).
    pub fn pack(&self, rules: RuleSet) -> Result<PromptPack, CliError> {
        let dialect = rules.dialect();
        match self.prompts.as_str() {
            "own" => Ok(PromptPack::own_for(rules)),
            "auto" => Ok(contextree_host::agent::default_pack(&self.env, rules)),
            dir => Ok(contextree_host::agent::load_pack_from_dir(dialect, std::path::Path::new(dir))?),
        }
    }
}

/// Prints a JSON document on one line.
pub fn print_json<T: Serialize + ?Sized>(value: &T) {
    write_json(value);
}

/// Writes to stdout, or ends the process if stdout is gone: a closed pipe
/// (`contextree … | head`) ends it quietly with 141, the status a shell shows for a
/// process a SIGPIPE ended (Rust ignores SIGPIPE, so `println!` would panic instead);
/// another failure (a full disk) is said on stderr, exit 1.
pub fn write_stdout(args: fmt::Arguments<'_>, newline: bool) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    // Flushed here, so a failure is seen here: at exit it would go unnoticed.
    let done = out.write_fmt(args).and_then(|()| if newline { out.write_all(b"\n") } else { Ok(()) }).and_then(|()| out.flush());
    if let Err(e) = done {
        output_failed(e);
    }
}

/// Ends the process on a failed write to stdout (see [`write_stdout`]).
fn output_failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(141);
    }
    eprintln!("contextree: cannot write the output: {e}");
    std::process::exit(1);
}

/// Writes `value` as one line of JSON, serialized straight into a buffered stdout: the
/// The read layer's `Rows` in it are written element by element as they are made.
pub fn write_json<T: Serialize + ?Sized>(value: &T) {
    use std::io::Write;
    write_stdout_with(|out| serde_json::to_writer(&mut *out, value).map_err(std::io::Error::from).and_then(|()| out.write_all(b"\n")));
}

/// Writes to stdout through one buffer (a large output is not flushed line by line), with
/// [`write_stdout`]'s handling of a closed pipe or another failure.
pub fn write_stdout_with(write: impl FnOnce(&mut std::io::BufWriter<std::io::StdoutLock<'static>>) -> std::io::Result<()>) {
    use std::io::Write;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    if let Err(e) = write(&mut out).and_then(|()| out.flush()) {
        output_failed(e);
    }
}

/// Writes the ids of `nodes` separated by blanks (a list of `contextree branch`, `cut`, …).
pub fn write_ids(
    out: &mut impl std::io::Write,
    s: &contextree_core::session::Session,
    nodes: &[contextree_core::session::NodeId],
) -> std::io::Result<()> {
    write_words(out, nodes.iter().map(|&n| &*s.entry(n).id))
}

/// Writes `words` separated by blanks, without joining them into one string first.
pub fn write_words<'a>(out: &mut impl std::io::Write, words: impl IntoIterator<Item = &'a str>) -> std::io::Result<()> {
    for (i, w) in words.into_iter().enumerate() {
        if i > 0 {
            out.write_all(b" ")?;
        }
        out.write_all(w.as_bytes())?;
    }
    Ok(())
}

/// The start of a document about session `s` written by hand (`{"dialect":…,"ruleSet":…`, no
/// closing brace): for a field that cannot be a `Rows` list, such as a text written in
/// parts whose length and digest follow it.
pub fn write_session_json_start(out: &mut impl std::io::Write, s: &contextree_core::session::Session) -> std::io::Result<()> {
    out.write_all(b"{\"dialect\":")?;
    serde_json::to_writer(&mut *out, s.dialect().name())?;
    out.write_all(b",\"ruleSet\":")?;
    serde_json::to_writer(&mut *out, s.rule_choice())?;
    Ok(())
}

/// A document about a session: `"dialect"` (the agent) and `"ruleSet"` (`{name, reference,
/// why}`, docs/decisions.md D22) first, then the fields of `body`.
#[derive(Serialize)]
struct SessionDoc<'a, T: ?Sized> {
    dialect: &'static str,
    #[serde(rename = "ruleSet")]
    rule_set: &'a contextree_core::RuleChoice,
    #[serde(flatten)]
    body: &'a T,
}

/// Prints a document about session `s`, led by its dialect and rule set; `body` is a struct
/// (or map) without those two fields. Its `Rows` lists are written element by element,
/// so memory does not grow with the session (a million-message context stays a few megabytes
/// of output buffer).
pub fn print_session_doc<T: Serialize + ?Sized>(s: &contextree_core::session::Session, body: &T) {
    write_json(&SessionDoc { dialect: s.dialect().name(), rule_set: s.rule_choice(), body });
}

/// [`print_session_doc`] for a document built as a JSON object: its own `"dialect"` and
/// `"ruleSet"` fields, if any, give way to the session's.
pub fn print_session_json(s: &contextree_core::session::Session, value: &serde_json::Value) {
    struct WithoutHead<'a>(&'a serde_json::Value);
    impl Serialize for WithoutHead<'_> {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let fields = self.0.as_object().into_iter().flatten();
            serializer.collect_map(fields.filter(|(k, _)| *k != "dialect" && *k != "ruleSet"))
        }
    }
    print_session_doc(s, &WithoutHead(value));
}

/// Turns a read-back failure (file changed under us, IO) into an error.
pub fn read_back(e: contextree_core::context::ReadBackError) -> CliError {
    CliError::ReadBack(e)
}
