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
use serde_json::{json, Map, Value};

use crate::common::{file_ops_json, print_session_json, read_back, CliError, SessionArgs};

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
    let mut doc = document(s, [from, Some(to)], args.budget, &collected, &prep);
    if let Some(model) = &args.summary_model {
        let pack = a.pack(s.rules())?;
        let opts = BranchOptions { summary_model: Some(model.clone()), ..Default::default() };
        let call = summary_call(s, &prep, &loaded.source, &pack, &opts).map_err(|e| CliError::Failed(e.to_string()))?;
        doc["call"] = call.as_ref().map_or(Value::Null, |c| c.to_json());
        doc["transcript"] = call.and_then(|c| c.transcript).map_or(Value::Null, |d| d.name().into());
    }
    if a.json {
        print_session_json(s, &doc);
    } else {
        print_text(s, &collected, &prep);
    }
    Ok(())
}

fn node(loaded: &LoadedSession, a: &SessionArgs, id: &str) -> Result<NodeId, CliError> {
    loaded.session.node(id).ok_or_else(|| CliError::Input(format!("{}: no entry with id `{id}`", a.file.display())))
}

fn document(s: &Session, [from, to]: [Option<NodeId>; 2], budget: u64, collected: &BranchEntries, prep: &PreparedBranch) -> Value {
    let id = |n: NodeId| Value::from(s.entry(n).id.to_string());
    let opt = |n: Option<NodeId>| n.map_or(Value::Null, id);
    let ids = |nodes: &[NodeId]| Value::Array(nodes.iter().map(|&n| id(n)).collect());
    let mut doc = Map::new();
    doc.insert("dialect".into(), s.dialect().name().into());
    doc.insert("fromId".into(), opt(from));
    doc.insert("toId".into(), opt(to));
    doc.insert("budget".into(), budget.into());
    doc.insert("commonAncestorId".into(), opt(collected.common_ancestor));
    doc.insert("entryIds".into(), ids(&collected.entries));
    doc.insert("selectedIds".into(), ids(&prep.selected));
    doc.insert("messages".into(), messages(s, prep));
    doc.insert("totalTokens".into(), prep.total_tokens.into());
    doc.insert("squeezedId".into(), opt(prep.squeezed));
    doc.insert("stoppedAtId".into(), opt(prep.stopped_at));
    doc.insert("fileOps".into(), file_ops_json(&prep.file_ops));
    Value::Object(doc)
}

/// The selected messages with the role and estimate the summarizer sees
/// (pi 1.6: `editedBy` names the context_edit whose replacement it reads).
fn messages(s: &Session, prep: &PreparedBranch) -> Value {
    let row = |((&n, item), &tokens): ((&NodeId, &Item), &u64)| {
        let e = s.entry(n);
        // The message's own estimate; a replaced one (pi 1.6) is measured on its replacement.
        // (The selection's budget may count less: omp 18 counts tool results cut to 2000 units.)
        let tokens = if matches!(item, Item::Replaced { .. }) { tokens } else { entry_estimate(e, s.rules()) };
        let mut m = json!({"entryId": e.id.to_string(), "role": message_role_under(e, s.rules()), "tokens": tokens});
        if let Item::Replaced { edit, .. } = item {
            m["editedBy"] = s.entry(*edit).id.to_string().into();
        }
        m
    };
    Value::Array(prep.selected.iter().zip(&prep.items).zip(&prep.tokens).map(row).collect())
}

fn print_text(s: &Session, collected: &BranchEntries, prep: &PreparedBranch) {
    let list = |nodes: &[NodeId]| nodes.iter().map(|&n| s.entry(n).id.to_string()).collect::<Vec<_>>().join(" ");
    let ancestor = collected.common_ancestor.map_or("(none)".to_owned(), |n| s.entry(n).id.to_string());
    outln!("dialect {} · common ancestor {ancestor}", s.dialect());
    outln!("abandoned ({}): {}", collected.entries.len(), list(&collected.entries));
    outln!("selected ({}, {} tokens): {}", prep.selected.len(), prep.total_tokens, list(&prep.selected));
    if let Some(n) = prep.squeezed {
        outln!("summary {} squeezed in over the budget", s.entry(n).id);
    }
    let files = prep.file_ops.lists();
    outln!("read files: {}", files.read_files.join(", "));
    outln!("modified files: {}", files.modified_files.join(", "));
}
