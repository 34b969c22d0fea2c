//! `contextree branch`: the read layer's [`BranchReport`] (the branch-summary preparation
//! for moving the leaf from `--from` to `--to`), or its lines. No model is called and the
//! file is not touched.

use clap::Args;
use contextree_core::branch::{collect_entries_for_branch_summary, prepare_branch_entries, BranchEntries, PreparedBranch};
use contextree_core::branch_summary::{summary_call, BranchOptions};
use contextree_core::session::{NodeId, Session};
use contextree_host::LoadedSession;
use contextree_read::branch::{BranchCall, BranchReport};
use std::io::Write;

use crate::common::{read_back, write_ids, write_json, write_stdout_with, CliError, SessionArgs};

#[derive(Debug, Args)]
pub struct BranchArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// The navigation target.
    #[arg(long, value_name = "ID")]
    to: String,
    /// The old leaf (default: `--leaf`, else the file's leaf).
    #[arg(long, value_name = "ID")]
    from: Option<String>,
    /// Token budget of the selection; 0 = no limit (the agents pass the
    /// context window − branchSummary.reserveTokens, e.g. 128000 − 16384).
    #[arg(long, value_name = "N", default_value_t = 0)]
    budget: u64,
    /// Also show the summarizer call `generateBranchSummary` would make, for this summary model
    /// (under omp@18 its id picks the transcript format of the conversation).
    #[arg(long, value_name = "ID")]
    summary_model: Option<String>,
}

pub fn run(args: &BranchArgs) -> Result<(), CliError> {
    let a = &args.session;
    let loaded = a.load()?;
    let s = &loaded.session;
    let to = node(&loaded, a, &args.to)?;
    let from = match (&args.from, &a.leaf) {
        (Some(id), _) | (None, Some(id)) => Some(node(&loaded, a, id)?),
        (None, None) => s.leaf(),
    };
    let collected = collect_entries_for_branch_summary(s, from, to);
    let prep = prepare_branch_entries(s, &collected.entries, args.budget, &loaded.source).map_err(read_back)?;
    if !a.json {
        print_text(s, &collected, &prep);
        return Ok(());
    }
    let mut doc = BranchReport::new(s, [from, Some(to)], args.budget, &collected, &prep);
    if let Some(model) = &args.summary_model {
        let pack = a.pack(s.rules())?;
        let opts = BranchOptions { summary_model: Some(model.clone()), ..Default::default() };
        let call = summary_call(s, &prep, &loaded.source, &pack, &opts)?;
        doc.call =
            Some(BranchCall { call: call.as_ref().map(|c| c.to_json()), transcript: call.and_then(|c| c.transcript).map(|d| d.name()) });
    }
    write_json(&doc);
    Ok(())
}

fn node(loaded: &LoadedSession, a: &SessionArgs, id: &str) -> Result<NodeId, CliError> {
    loaded.session.node(id).ok_or_else(|| CliError::Input(format!("{}: no entry with id `{id}`", a.file.display())))
}

fn print_text(s: &Session, collected: &BranchEntries, prep: &PreparedBranch) {
    let ancestor = collected.common_ancestor.map_or("(none)".to_owned(), |n| s.entry(n).id.to_string());
    let files = prep.file_ops.lists();
    write_stdout_with(|out| {
        writeln!(out, "dialect {} · common ancestor {ancestor}", s.dialect())?;
        write!(out, "abandoned ({}): ", collected.entries.len())?;
        write_ids(out, s, &collected.entries)?;
        write!(out, "\nselected ({}, {} tokens): ", prep.selected.len(), prep.total_tokens)?;
        write_ids(out, s, &prep.selected)?;
        writeln!(out)?;
        if let Some(n) = prep.squeezed {
            writeln!(out, "summary {} squeezed in over the budget", s.entry(n).id)?;
        }
        writeln!(out, "read files: {}", files.read_files.join(", "))?;
        writeln!(out, "modified files: {}", files.modified_files.join(", "))
    });
}
