//! `contextree serve`: the app's UI over HTTP (`contextree-serve`); prints the URL to open.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use contextree_serve::Config;

use crate::common::CliError;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Where to listen. Anything but a loopback address needs --token.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:7777")]
    pub bind: SocketAddr,
    /// A sessions folder the browser may read (repeatable; default: the library's folders).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// The token every request must carry (at least 16 characters; default: a random one).
    #[arg(long, value_name = "T")]
    pub token: Option<String>,
    /// Let the browser write: compact, prune, navigate, edit a summary, undo, save settings.
    #[arg(long)]
    pub allow_writes: bool,
    /// The entry to select when FILE opens.
    #[arg(long, value_name = "ID", requires = "file")]
    pub leaf: Option<String>,
    /// The session to open first (default: the demo, with the library offered).
    pub file: Option<PathBuf>,
}

pub fn run(args: &ServeArgs) -> Result<(), CliError> {
    let config = Config {
        bind: args.bind,
        roots: args.roots.clone(),
        token: args.token.clone(),
        allow_writes: args.allow_writes,
        leaf: args.leaf.clone(),
        file: args.file.clone(),
    };
    let env = contextree_host::HostEnv::from_process();
    let ready = |url: &str| {
        let writes = if args.allow_writes { "writes allowed" } else { "read only: --allow-writes to write" };
        outln!("contextree serve: open {url}\n({writes}; Ctrl+C stops it)");
    };
    contextree_serve::run(&config, env, ready).map_err(|e| match e {
        contextree_serve::BindError::Config(e) => CliError::Input(e.to_string()),
        other => CliError::Input(other.to_string()),
    })
}
