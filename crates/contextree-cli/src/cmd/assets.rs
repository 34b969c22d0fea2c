//! `contextree generate-assets DIR` (hidden): the man pages and shell completions the packages
//! install, generated from the same clap definition that parses the arguments, so they cannot
//! drift from the commands. `scripts/package.sh` runs it after the release build.
//!
//! DIR receives each file under the name it is installed as:
//! `man1/contextree.1` and one `man1/contextree-COMMAND.1` per command (the main page's
//! COMMANDS section refers to them), `bash/contextree`, `zsh/_contextree`, `fish/contextree.fish`.

use std::path::{Path, PathBuf};

use clap::Args;
use clap_complete::Shell;
use clap_mangen::Man;

use crate::common::CliError;

/// The hidden subcommand's name.
pub const NAME: &str = "generate-assets";

#[derive(Debug, Args)]
pub struct AssetsArgs {
    /// The folder to write into (created if missing).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

pub fn run(args: &AssetsArgs) -> Result<(), CliError> {
    for (path, bytes) in assets() {
        let path = args.dir.join(path);
        write(&path, &bytes)?;
        outln!("{}", path.display());
    }
    Ok(())
}

/// Every file, as (path under DIR, contents).
fn assets() -> Vec<(String, Vec<u8>)> {
    let mut files = man_pages();
    for (shell, name) in [(Shell::Bash, "bash/contextree"), (Shell::Zsh, "zsh/_contextree"), (Shell::Fish, "fish/contextree.fish")] {
        let mut bytes = Vec::new();
        clap_complete::generate(shell, &mut super::command(), "contextree", &mut bytes);
        files.push((name.to_owned(), bytes));
    }
    files
}

/// The main page and one per public command, as `clap_mangen::generate_to` would name them.
/// Rendered here rather than by `generate_to` so every page's footer names the release (a
/// subcommand has no version of its own).
fn man_pages() -> Vec<(String, Vec<u8>)> {
    // `help` is clap's own; a page for it would only say "print help".
    let mut cmd = super::command().disable_help_subcommand(true);
    cmd.build();
    let source = format!("contextree {}", env!("CARGO_PKG_VERSION"));
    let mut pages = Vec::new();
    let mut todo = vec![cmd];
    while let Some(cmd) = todo.pop() {
        todo.extend(cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
        let man = Man::new(cmd).source(source.clone()).manual("contextree manual");
        let mut bytes = Vec::new();
        man.render(&mut bytes).expect("rendering into memory cannot fail");
        pages.push((format!("man1/{}", man.get_filename()), bytes));
    }
    pages.sort();
    pages
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let fail = |source| CliError::Write { path: path.to_owned(), source };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    std::fs::write(path, bytes).map_err(fail)
}
