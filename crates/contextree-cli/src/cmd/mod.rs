//! Subcommands.

mod assets;
mod bench;
mod branch;
mod budget;
mod compact;
mod compare;
mod context;
mod cut;
mod drops;
mod entry;
mod info;
mod navigate;
mod prune;
mod search;
mod serialize;
mod serve;
mod sessions;
mod tokens;
mod tree;
mod usage;
mod weight;

use std::sync::LazyLock;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use contextree_core::RuleSet;

use crate::common::{CliError, SessionArgs};

/// Explore pi / oh-my-pi session files: tree, exact LLM context, tokens.
#[derive(Debug, Parser)]
#[command(name = "contextree", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// What one run was asked for: a command people use, or the hidden one packaging runs.
pub enum Invocation {
    // Boxed: the parsed arguments are hundreds of bytes, the hidden command's a path.
    Cli(Box<Cli>),
    Assets(assets::AssetsArgs),
}

/// `--version`'s text after the name: the release and every rule set this build reproduces,
/// read from core's table so a new set shows up without touching the CLI.
static LONG_VERSION: LazyLock<String> = LazyLock::new(|| {
    let sets: Vec<&str> = RuleSet::ALL.iter().map(|r| r.name()).collect();
    format!("{} (rule sets: {})", env!("CARGO_PKG_VERSION"), sets.join(", "))
});

/// The command line as people see it (help, man pages, completions): every public command,
/// `--version` naming the rule sets. `-V` stays the bare release.
pub fn command() -> clap::Command {
    Cli::command().long_version(LONG_VERSION.as_str())
}

/// Parses the process's arguments; exits as clap does on `--help`, `--version` or bad usage.
pub fn parse() -> Invocation {
    // `generate-assets` is added here rather than to `Command`: clap_complete does not skip
    // hidden subcommands, and the completions are generated from `command()`.
    let hidden = assets::AssetsArgs::augment_args(clap::Command::new(assets::NAME)).hide(true);
    let matches = command().subcommand(hidden).get_matches();
    let parsed = match matches.subcommand() {
        Some((assets::NAME, sub)) => assets::AssetsArgs::from_arg_matches(sub).map(Invocation::Assets),
        _ => Cli::from_arg_matches(&matches).map(|cli| Invocation::Cli(Box::new(cli))),
    };
    parsed.unwrap_or_else(|e| e.format(&mut command()).exit())
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Dialect, version, entries, roots, leaves, labels and diagnostics.
    Info(SessionArgs),
    /// The tree with connectors, the active path and each entry's state.
    Tree(SessionArgs),
    /// The LLM-visible context of the leaf, with the dialect's token estimates.
    Context(context::ContextArgs),
    /// Two leaves' contexts side by side: the common ancestor, the shared prefix, where they diverge, the tokens.
    Compare(compare::CompareArgs),
    /// How full the leaf's context is against the window; would the agent auto-compact now.
    Budget(budget::BudgetArgs),
    /// One entry's line as the file has it, and the problems on its line.
    Entry(entry::EntryArgs),
    /// The exact `serializeConversation` text of the leaf's context.
    Serialize(serialize::SerializeArgs),
    /// The dialect's token estimate of every entry.
    Tokens(SessionArgs),
    /// What compaction would do now: cut, messages to summarize, file lists.
    Cut(cut::CutArgs),
    /// Which tool outputs oh-my-pi's pruning replaces by a notice (--dry-run), or apply it (--yes: rewrite with a backup).
    Prune(prune::PruneArgs),
    /// The branch-summary preparation for moving the leaf to another entry.
    Branch(branch::BranchArgs),
    /// Compact now: plan, summarize, append a compaction entry (--dry-run: plan and prompts only).
    Compact(compact::CompactArgs),
    /// Move the file's leaf to an entry (appends a branch summary with --summarize, else a contextree-continue marker).
    Navigate(navigate::NavigateArgs),
    /// Time each phase of opening sessions (open, tree, context, estimate).
    Bench(bench::BenchArgs),
    /// Every pi / omp session on this machine, grouped by project, newest first.
    Sessions(sessions::SessionsArgs),
    /// Find entries in every session (full-text index), each with its state for its session's leaf.
    Search(search::SearchArgs),
    /// Bring the search index up to date with the library's folders (--rebuild: from scratch).
    Index(search::IndexArgs),
    /// The app's UI in a browser over HTTP (for sessions on a machine without a desktop).
    Serve(serve::ServeArgs),
    /// What the session cost: recorded token usage and cost per session, branch and model.
    Usage(SessionArgs),
    /// The user requests a compaction summarizes, checked against its summary (may be lost).
    Drops(drops::DropsArgs),
    /// What made the context grow: its size after each turn, its largest messages, repeated reads.
    Weight(weight::WeightArgs),
}

pub fn run(invocation: Invocation) -> Result<(), CliError> {
    let cli = match invocation {
        Invocation::Cli(cli) => *cli,
        Invocation::Assets(args) => return assets::run(&args),
    };
    match cli.command {
        Command::Info(args) => info::run(&args),
        Command::Tree(args) => tree::run(&args),
        Command::Context(args) => context::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Budget(args) => budget::run(&args),
        Command::Entry(args) => entry::run(&args),
        Command::Serialize(args) => serialize::run(&args),
        Command::Tokens(args) => tokens::run(&args),
        Command::Cut(args) => cut::run(&args),
        Command::Prune(args) => prune::run(&args),
        Command::Branch(args) => branch::run(&args),
        Command::Compact(args) => compact::run(&args),
        Command::Navigate(args) => navigate::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Sessions(args) => sessions::run(&args),
        Command::Search(args) => search::run_search(&args),
        Command::Index(args) => search::run_index(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Usage(args) => usage::run(&args),
        Command::Drops(args) => drops::run(&args),
        Command::Weight(args) => weight::run(&args),
    }
}
