//! What every subcommand shares: options, loading, the prompt pack, errors.

use std::fmt;
use std::path::PathBuf;

use clap::Args;
use contextree_core::context::{self, Context, Leaf};
use contextree_core::prompts::PromptPack;
use contextree_core::{Dialect, RuleRequest, RuleSet};
use contextree_host::LoadedSession;

/// A failure, with the exit code it maps to.
#[derive(Debug)]
pub enum CliError {
    /// Bad input: a missing file, an unknown id, a bad flag value (exit 2).
    Input(String),
    /// Anything else (exit 1).
    Failed(String),
}

impl CliError {
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) => 2,
            CliError::Failed(_) => 1,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Input(m) | CliError::Failed(m) => f.write_str(m),
        }
    }
}

impl From<contextree_ops::OpsError> for CliError {
    fn from(e: contextree_ops::OpsError) -> Self {
        // A hook's cancel is all the caller sees: its warnings go to stderr first.
        for w in e.warnings() {
            eprintln!("contextree: warning: {w}");
        }
        match e.exit_code() {
            2 => CliError::Input(e.to_string()),
            _ => CliError::Failed(e.to_string()),
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
    /// `omp@18` (default: detected from the file).
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
        contextree_host::load_session(&self.file, self.dialect).map_err(|e| CliError::Input(e.to_string()))
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
            self.pack(rules).map_err(|e| match e {
                CliError::Input(m) => contextree_ops::OpsError::Input(m),
                CliError::Failed(m) => contextree_ops::OpsError::Failed(m),
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
            "auto" => Ok(contextree_host::agent::default_pack(rules)),
            dir => {
                contextree_host::agent::load_pack_from_dir(dialect, std::path::Path::new(dir)).map_err(|e| CliError::Input(e.to_string()))
            }
        }
    }
}

/// Prints a JSON document on one line.
pub fn print_json(value: &serde_json::Value) {
    outln!("{value}");
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
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(141);
        }
        eprintln!("contextree: cannot write the output: {e}");
        std::process::exit(1);
    }
}

/// `"dialect"` (the agent) and `"ruleSet": {"name", "why"}` (docs/decisions.md
/// D22), the fields every document about a session starts with.
pub fn rule_set_json(s: &contextree_core::session::Session) -> serde_json::Value {
    let choice = s.rule_choice();
    serde_json::json!({"name": choice.rules.name(), "reference": choice.rules.reference(), "why": choice.why()})
}

/// Prints a document about session `s`, led by its dialect and rule set.
pub fn print_session_json(s: &contextree_core::session::Session, value: &serde_json::Value) {
    let head = value.as_object().cloned().unwrap_or_default();
    print_session_json_streamed(s, head, Vec::new());
}

/// A large array of a document, written one element at a time.
pub type Stream<'a> = (&'static str, Box<dyn Iterator<Item = serde_json::Value> + 'a>);

/// [`print_session_json`] for a document with large arrays: `head`'s fields in order, each of
/// `arrays` built and written element by element where `head` holds a field of its name (a
/// placeholder, e.g. `null`), else after `head`'s fields; so memory does not grow with the
/// session (a million-message context stays a few megabytes of output buffer).
pub fn print_session_json_streamed(
    s: &contextree_core::session::Session,
    head: serde_json::Map<String, serde_json::Value>,
    mut arrays: Vec<Stream<'_>>,
) {
    use std::io::Write;
    fn array(out: &mut impl Write, items: Box<dyn Iterator<Item = serde_json::Value> + '_>) -> std::io::Result<()> {
        out.write_all(b"[")?;
        for (i, item) in items.enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut *out, &item)?;
        }
        out.write_all(b"]")
    }
    write_stdout_with(|out| {
        write_session_json_start(out, s)?;
        for (k, v) in head.iter().filter(|(k, _)| *k != "dialect" && *k != "ruleSet") {
            out.write_all(b",")?;
            serde_json::to_writer(&mut *out, k)?;
            out.write_all(b":")?;
            match arrays.iter().position(|(name, _)| name == k) {
                Some(i) => array(out, arrays.remove(i).1)?,
                None => serde_json::to_writer(&mut *out, v)?,
            }
        }
        for (name, items) in arrays.drain(..) {
            out.write_all(b",")?;
            serde_json::to_writer(&mut *out, name)?;
            out.write_all(b":")?;
            array(out, items)?;
        }
        out.write_all(b"}\n")
    });
}

/// The ids of `nodes` as a stream of a JSON document.
pub fn id_stream<'a>(
    s: &'a contextree_core::session::Session,
    nodes: &'a [contextree_core::session::NodeId],
) -> Box<dyn Iterator<Item = serde_json::Value> + 'a> {
    Box::new(nodes.iter().map(|&n| s.entry(n).id.to_string().into()))
}

/// Writes the ids of `nodes` separated by blanks (a list of `contextree branch`, `cut`, …).
pub fn write_ids(
    out: &mut impl std::io::Write,
    s: &contextree_core::session::Session,
    nodes: &[contextree_core::session::NodeId],
) -> std::io::Result<()> {
    for (i, &n) in nodes.iter().enumerate() {
        if i > 0 {
            out.write_all(b" ")?;
        }
        out.write_all(s.entry(n).id.as_bytes())?;
    }
    Ok(())
}

/// The start of a document about session `s`: `{"dialect":…,"ruleSet":…` (no closing brace).
pub fn write_session_json_start(out: &mut impl std::io::Write, s: &contextree_core::session::Session) -> std::io::Result<()> {
    out.write_all(b"{\"dialect\":")?;
    serde_json::to_writer(&mut *out, s.dialect().name())?;
    out.write_all(b",\"ruleSet\":")?;
    serde_json::to_writer(&mut *out, &rule_set_json(s))?;
    Ok(())
}

/// Writes to stdout through one buffer (a large output is not flushed line by line), with
/// [`write_stdout`]'s handling of a closed pipe or another failure.
pub fn write_stdout_with(write: impl FnOnce(&mut std::io::BufWriter<std::io::StdoutLock<'static>>) -> std::io::Result<()>) {
    use std::io::Write;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    if let Err(e) = write(&mut out).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(141);
        }
        eprintln!("contextree: cannot write the output: {e}");
        std::process::exit(1);
    }
}

/// Turns a read-back failure (file changed under us, IO) into an error.
pub fn read_back(e: contextree_core::context::materialize::ReadBackError) -> CliError {
    CliError::Failed(e.to_string())
}

/// File operations as JSON: the raw sets sorted (as the oracle prints them)
/// and the agents' own `readFiles` / `modifiedFiles` lists.
pub fn file_ops_json(ops: &contextree_core::compaction::FileOps) -> serde_json::Value {
    let sorted = |set: &contextree_core::compaction::file_ops::PathSet| {
        let mut v = set.as_slice().to_vec();
        v.sort_by(|a, b| contextree_core::js::cmp_utf16(a, b));
        v
    };
    let lists = ops.lists();
    serde_json::json!({
        "read": sorted(&ops.read),
        "written": sorted(&ops.written),
        "edited": sorted(&ops.edited),
        "readFiles": lists.read_files,
        "modifiedFiles": lists.modified_files,
    })
}
