//! `contextree drops`: the user requests a compaction summarizes, checked against its summary
//! for the paths, identifiers and quoted text they name, then the share of the summarized
//! part's file paths, shell commands and numbers the summary keeps: the read layer's
//! [`DropsReport`].

use clap::Args;
use contextree_read::{DropsReport, FactShare, KeptFacts, Summarized};
use std::io::Write;

use crate::common::{read_back, write_json, write_stdout_with, CliError, SessionArgs};

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
    let of = match &args.compaction {
        Some(id) => {
            let c = s
                .node(id)
                .filter(|&n| &*s.entry(n).entry_type == "compaction")
                .ok_or_else(|| CliError::Input(format!("{}: no compaction with id `{id}`", a.file.display())))?;
            Summarized::compaction(s, c)
        }
        None => Summarized::plan(s, &a.context(&loaded)?, &loaded.source).map_err(read_back)?,
    };
    let report = DropsReport::new(s, &of, &loaded.source).map_err(read_back)?;
    if a.json {
        write_json(&report);
        return report.finish().map_err(read_back);
    }
    outln!("{}: {} user requests summarized, {} may be lost", report.what, report.count, report.may_be_lost);
    let facts = report.facts.clone();
    let failed = report.finish_with(|rows| {
        write_stdout_with(|out| {
            for r in rows {
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
        })
    });
    failed.map_err(read_back)?;
    for line in share_lines(&facts) {
        outln!("{line}");
    }
    Ok(())
}

/// `paths kept: 3 of 10 (30.0 %)`, one line per kind; without a summary `paths: 10 (no
/// summary yet)`.
pub(crate) fn share_lines(f: &KeptFacts) -> Vec<String> {
    let line = |name: &str, s: &FactShare| match (s.kept, s.share) {
        (Some(k), Some(share)) => format!("{name} kept: {k} of {} ({:.1} %)", s.total, share * 100.0),
        (Some(_), None) => format!("{name} kept: none to keep"),
        (None, _) => format!("{name}: {} (no summary yet)", s.total),
    };
    vec![line("paths", &f.paths), line("commands", &f.commands), line("numbers", &f.numbers)]
}
