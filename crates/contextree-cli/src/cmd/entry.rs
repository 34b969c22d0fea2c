//! `contextree entry`: the read layer's [`EntryReport`], the app's entry panel: one entry's
//! line as the file has it, pretty-printed, with the diagnostics on its line.

use clap::Args;
use contextree_read::EntryReport;

use crate::common::{read_back, write_json, CliError, SessionArgs};

#[derive(Debug, Args)]
pub struct EntryArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// The entry's id.
    id: String,
}

pub fn run(args: &EntryArgs) -> Result<(), CliError> {
    let a = &args.session;
    let loaded = a.load()?;
    let s = &loaded.session;
    let node = s.node(&args.id).ok_or_else(|| CliError::Input(format!("{}: no entry with id `{}`", a.file.display(), args.id)))?;
    let r = EntryReport::new(s, node, &loaded.source).map_err(read_back)?;
    if a.json {
        write_json(&r);
        return Ok(());
    }
    let migrated = if r.migrated { " (migrated: the agents read it otherwise)" } else { "" };
    outln!("{} · {} · line {}{migrated}", r.entry_type, r.id, r.line);
    for d in &r.diagnostics {
        outln!("{d}");
    }
    outln!("{}", r.json);
    Ok(())
}
