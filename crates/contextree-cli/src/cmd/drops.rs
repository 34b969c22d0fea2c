//! `contextree drops`: the user requests a compaction summarizes, checked against its summary
//! for the paths, identifiers and quoted text they name (core `drops`).

use clap::Args;
use contextree_core::compaction::{plan, CompactionSettings};
use contextree_core::drops::{check_requests, Request};
use contextree_core::session::NodeId;
use serde::Serialize;

use crate::common::{print_session_doc, read_back, CliError, SessionArgs};

/// `drops --json` (after `dialect` and `ruleSet`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DropsDoc<'a> {
    what: &'a str,
    has_summary: bool,
    requests: &'a [Request],
    may_be_lost: usize,
}

#[derive(Debug, Args)]
pub struct DropsArgs {
    #[command(flatten)]
    session: SessionArgs,
    /// An existing compaction entry to check (default: what compacting the leaf now would
    /// summarize, with no summary yet: the terms the summary should keep).
    #[arg(long, value_name = "ID")]
    compaction: Option<String>,
}

pub fn run(args: &DropsArgs) -> Result<(), CliError> {
    let a = &args.session;
    let loaded = a.load()?;
    let s = &loaded.session;
    let (nodes, summary, what): (Vec<NodeId>, Option<String>, String) = match &args.compaction {
        Some(id) => {
            let c = s
                .node(id)
                .filter(|&n| &*s.entry(n).entry_type == "compaction")
                .ok_or_else(|| CliError::Input(format!("{}: no compaction with id `{id}`", a.file.display())))?;
            (contextree_core::drops::summarized_by(s, c), s.entry(c).str_field("summary").map(str::to_owned), format!("compaction {id}"))
        }
        None => {
            let ctx = a.context(&loaded)?;
            let p = plan(s, &ctx, &CompactionSettings::default(), &loaded.source).map_err(read_back)?;
            let nodes =
                p.prepared().map(|pr| pr.messages_to_summarize.iter().chain(&pr.turn_prefix).copied().collect()).unwrap_or_default();
            (nodes, None, "a compaction of the leaf now (no summary yet)".to_owned())
        }
    };
    let requests = check_requests(s, &nodes, summary.as_deref(), &loaded.source).map_err(read_back)?;
    let lost = requests.iter().filter(|r| r.may_be_lost).count();
    if a.json {
        print_session_doc(s, &DropsDoc { what: &what, has_summary: summary.is_some(), requests: &requests, may_be_lost: lost });
        return Ok(());
    }
    outln!("{what}: {} user requests summarized, {lost} may be lost", requests.len());
    for r in &requests {
        let terms: Vec<String> = r
            .terms
            .iter()
            .map(|t| match t.found {
                Some(true) => format!("✓ {}", t.text),
                Some(false) => format!("✗ {}", t.text),
                None => t.text.clone(),
            })
            .collect();
        outln!("{} {:<10} {}  [{}]", if r.may_be_lost { "⚠" } else { " " }, r.entry_id, r.preview, terms.join(", "));
    }
    Ok(())
}
