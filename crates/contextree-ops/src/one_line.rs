//! What editing a compaction's summary and undoing a compaction share: both point at a
//! compaction of a file with entry ids, and both append one line.

use contextree_core::session::{Entry, NodeId};
use contextree_host::write::{append_to_loaded, Appended};
use contextree_host::LoadedSession;

use crate::error::{require_entry_ids, write_error};
use crate::OpsError;

/// What an edit or an undo wrote: one line.
#[derive(Debug)]
pub struct OneLine {
    /// The new entry's id.
    pub id: String,
    /// Its parent.
    pub parent_id: String,
    /// The appended line.
    pub line: String,
    /// Where it went.
    pub appended: Appended,
    /// Everything worth telling.
    pub warnings: Vec<String>,
}

/// The entry of `node`, which must be a compaction in a file whose entries have ids.
pub(crate) fn compaction(loaded: &LoadedSession, node: NodeId) -> Result<&Entry, OpsError> {
    let e = loaded.session.entry(node);
    if &*e.entry_type != "compaction" {
        return Err(OpsError::Input(format!("entry {} is a {}, not a compaction", e.id, e.entry_type)));
    }
    require_entry_ids(loaded)?;
    Ok(e)
}

/// Appends `line`, the entry `id` under `parent_id`. `hint` follows a `Changed` error; `what`
/// names the entry in the warning about another process appending at the same time.
pub(crate) fn append(
    loaded: &LoadedSession,
    id: String,
    parent_id: String,
    line: String,
    hint: &'static str,
    what: &str,
) -> Result<OneLine, OpsError> {
    let appended = append_to_loaded(loaded, std::slice::from_ref(&line)).map_err(|e| write_error(e, hint))?;
    let mut warnings = Vec::new();
    if appended.raced {
        warnings.push(format!("another process appended to the file during the write: both lines are whole, but {what} follows its lines"));
    }
    warnings.extend(appended.sync_warning());
    Ok(OneLine { id, parent_id, line, appended, warnings })
}
