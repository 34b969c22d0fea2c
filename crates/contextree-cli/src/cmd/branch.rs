//! `contextree branch`: the branch-summary preparation for moving the leaf
//! from `--from` to `--to` (spec branch-summary.md §2–3, cli-contract.md).
//! No model is called and the file is not touched.

use clap::Args;
use contextree_core::branch::{
    collect_entries_for_branch_summary, message_role_under, prepare_branch_entries, BranchEntries, PreparedBranch,
};
use contextree_core::branch_summary::{summary_call, BranchOptions};
use contextree_core::context::{entry_estimate, Item};
use contextree_core::session::{NodeId, Session};
use contextree_host::LoadedSession;
use serde::Serialize;
use serde_json::Value;
use std::io::Write;

use crate::common::{print_session_doc, read_back, write_ids, write_stdout_with, CliError, FileOpsDoc, Ids, SessionArgs, Streamed};

/// `branch --json` (after `dialect` and `ruleSet`); its lists are written one element at a
/// time (a million abandoned entries are not held as strings or values).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BranchDoc<'a, M> {
    from_id: Option<String>,
    to_id: Option<String>,
    budget: u64,
    common_ancestor_id: Option<String>,
    entry_ids: Ids<'a>,
    selected_ids: Ids<'a>,
    /// [`Message`]s, [`Streamed`].
    messages: M,
    total_tokens: u64,
    squeezed_id: Option<String>,
    stopped_at_id: Option<String>,
    file_ops: FileOpsDoc,
    /// With `--summary-model`: the summarizer call and its transcript format.
    #[serde(flatten)]
    call: Option<CallDoc>,
}

#[derive(Serialize)]
struct CallDoc {
    call: Option<Value>,
    transcript: Option<&'static str>,
}

/// A selected message with the role and estimate the summarizer sees.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Message<'a> {
    entry_id: String,
    role: Option<&'a str>,
    tokens: u64,
    /// pi 1.6: the context_edit whose replacement it reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    edited_by: Option<String>,
}

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
    let mut doc = document(s, [from, Some(to)], args.budget, &collected, &prep);
    if let Some(model) = &args.summary_model {
        let pack = a.pack(s.rules())?;
        let opts = BranchOptions { summary_model: Some(model.clone()), ..Default::default() };
        let call = summary_call(s, &prep, &loaded.source, &pack, &opts)?;
        doc.call =
            Some(CallDoc { call: call.as_ref().map(|c| c.to_json()), transcript: call.and_then(|c| c.transcript).map(|d| d.name()) });
    }
    print_session_doc(s, &doc);
    Ok(())
}

fn node(loaded: &LoadedSession, a: &SessionArgs, id: &str) -> Result<NodeId, CliError> {
    loaded.session.node(id).ok_or_else(|| CliError::Input(format!("{}: no entry with id `{id}`", a.file.display())))
}

fn document<'a>(
    s: &'a Session,
    [from, to]: [Option<NodeId>; 2],
    budget: u64,
    collected: &'a BranchEntries,
    prep: &'a PreparedBranch,
) -> BranchDoc<'a, Streamed<impl Iterator<Item = Message<'a>> + 'a>> {
    let id = |n: NodeId| s.entry(n).id.to_string();
    let ids = |nodes: &'a [NodeId]| Ids(s, nodes);
    BranchDoc {
        from_id: from.map(id),
        to_id: to.map(id),
        budget,
        common_ancestor_id: collected.common_ancestor.map(id),
        entry_ids: ids(&collected.entries),
        selected_ids: ids(&prep.selected),
        messages: Streamed::new(messages(s, prep)),
        total_tokens: prep.total_tokens,
        squeezed_id: prep.squeezed.map(id),
        stopped_at_id: prep.stopped_at.map(id),
        file_ops: FileOpsDoc::new(&prep.file_ops),
        call: None,
    }
}

/// The selected messages with the role and estimate the summarizer sees
/// (pi 1.6: `editedBy` names the context_edit whose replacement it reads).
fn messages<'a>(s: &'a Session, prep: &'a PreparedBranch) -> impl Iterator<Item = Message<'a>> + 'a {
    let row = |((&n, item), &tokens): ((&NodeId, &Item), &u64)| {
        let e = s.entry(n);
        // The message's own estimate; a replaced one (pi 1.6) is measured on its replacement.
        // (The selection's budget may count less: omp 18 counts tool results cut to 2000 units.)
        let tokens = if matches!(item, Item::Replaced { .. }) { tokens } else { entry_estimate(e, s.rules()) };
        let edited_by = match item {
            Item::Replaced { edit, .. } => Some(s.entry(*edit).id.to_string()),
            _ => None,
        };
        Message { entry_id: e.id.to_string(), role: message_role_under(e, s.rules()), tokens, edited_by }
    };
    prep.selected.iter().zip(&prep.items).zip(&prep.tokens).map(row)
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
