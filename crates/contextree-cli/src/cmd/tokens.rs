//! `contextree tokens`: the read layer's [`TokensReport`], printed as it is (`--json`) or as a
//! table.

use contextree_read::TokensReport;

use crate::common::{read_back, write_json, CliError, SessionArgs};

pub fn run(args: &SessionArgs) -> Result<(), CliError> {
    let loaded = args.load()?;
    let s = &loaded.session;
    let report = TokensReport::new(s, &loaded.source).map_err(read_back)?;
    if args.json {
        write_json(&report);
        return Ok(());
    }
    let total = report.total_tokens;
    for r in report.entries.into_inner() {
        let tokens = r.tokens.map_or("-".to_owned(), |n| n.to_string());
        outln!("{:>8}  {:<12} {:<22} {}", tokens, r.id.unwrap_or(""), r.kind.unwrap_or(""), r.role.as_deref().unwrap_or(""));
    }
    outln!("total {total}");
    Ok(())
}
