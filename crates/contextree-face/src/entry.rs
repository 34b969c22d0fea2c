//! The entry panel: one entry's line as written in the file (the read layer's `EntryReport`,
//! as `contextree entry --json` prints it).

use contextree_read::EntryReport;

use crate::state::OpenSession;
use crate::{node, CommandError};

/// The raw JSON line of entry `id`, pretty-printed, and the diagnostics on its line.
pub fn detail(open: &OpenSession, id: &str) -> Result<EntryReport, CommandError> {
    Ok(EntryReport::new(&open.loaded.session, node(open, id)?, &open.loaded.source)?)
}
