//! `contextree drops`: the user requests a compaction summarizes, checked against its summary
//! for the paths, identifiers and quoted text they name (core `drops`).

use clap::Args;
use contextree_core::compaction::{plan, CompactionSettings};
use contextree_core::drops::{is_request, requests};
use contextree_core::session::NodeId;
use serde::Serialize;
use std::io::Write;

use crate::common::{print_session_doc, read_back, write_stdout_with, CliError, SessionArgs, Streamed};

/// `drops --json` (after `dialect` and `ruleSet`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DropsDoc<'a, R> {
    what: &'a str,
    has_summary: bool,
    /// Core's `Request`s, [`Streamed`]: checked and written one at a time.
    requests: R,
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
    // One request at a time (a million-message history is not held): without a summary none
    // may be lost; with one, a first pass counts them.
    let summary = summary.as_deref();
    let count = nodes.iter().filter(|&&n| is_request(s, n)).count();
    let mut lost = 0;
    if summary.is_some() {
        for r in requests(s, &nodes, summary, &loaded.source) {
            lost += usize::from(r.map_err(read_back)?.may_be_lost);
        }
    }
    // A read-back failure while writing (the file changed) ends the list there and the command
    // with the error.
    let failed = std::cell::RefCell::new(None);
    let each = || requests(s, &nodes, summary, &loaded.source).map_while(|r| r.map_err(|e| *failed.borrow_mut() = Some(e)).ok());
    if a.json {
        print_session_doc(s, &DropsDoc { what: &what, has_summary: summary.is_some(), requests: Streamed::new(each()), may_be_lost: lost });
    } else {
        outln!("{what}: {count} user requests summarized, {lost} may be lost");
        write_stdout_with(|out| {
            for r in each() {
                let terms: Vec<String> = r
                    .terms
                    .iter()
                    .map(|t| match t.found {
                        Some(true) => format!("✓ {}", t.text),
                        Some(false) => format!("✗ {}", t.text),
                        None => t.text.clone(),
                    })
                    .collect();
                writeln!(out, "{} {:<10} {}  [{}]", if r.may_be_lost { "⚠" } else { " " }, r.entry_id, r.preview, terms.join(", "))?;
            }
            Ok(())
        });
    }
    match failed.into_inner() {
        Some(e) => Err(read_back(e)),
        None => Ok(()),
    }
}
