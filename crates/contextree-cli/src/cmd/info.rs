//! `contextree info`: the read layer's [`SessionReport`], printed as it is (`--json`) or as a
//! few lines.

use contextree_read::SessionReport;
use serde_json::Value;

use crate::common::{write_json, CliError, SessionArgs};

pub fn run(args: &SessionArgs) -> Result<(), CliError> {
    let loaded = args.load()?;
    let s = &loaded.session;
    let report = SessionReport::new(&loaded.path, loaded.fingerprint.len, s, args.dialect);
    if args.json {
        write_json(&report);
        return Ok(());
    }
    let r = &report;
    outln!("{}", r.file);
    outln!("  dialect    {} (detected {}; {})", r.dialect, r.detected_dialect, r.dialect_signals.join(", "));
    outln!("  rules      {} = {} ({})", s.rules(), s.rules().reference(), r.rule_set.why());
    outln!("  version    {} (file says {})", r.version, r.original_version);
    if let Some(title) = r.title.as_ref().and_then(Value::as_str) {
        let slot = if r.title_slot.is_some() { " (title line)" } else { "" };
        outln!("  title      {title}{slot}");
    }
    outln!("  entries    {} in {} lines, {} roots, {} leaves", r.entry_count, r.lines, r.roots.len(), r.leaves.len());
    if let Some(leaf) = &r.leaf_id {
        outln!("  leaf       {leaf} (path of {} entries)", r.leaf_path_length);
    }
    for (id, label) in r.labels.iter() {
        outln!("  label      {id} = {label}");
    }
    for d in &r.diagnostics {
        outln!("  {d}");
    }
    Ok(())
}
