//! The line omp writes for a pruned entry, byte for byte: a pruned file must
//! read back in the agent exactly as if omp had pruned it.

use serde_json::{Map, Value};

use crate::js;

/// A pruned line could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum PrunedLineError {
    /// The line is not JSON that JavaScript and serde_json read alike.
    #[error("the entry is not valid JSON: {0}")]
    Json(String),
    /// The entry has no `message` object to prune.
    #[error("the entry has no message object")]
    NoMessage,
}

/// The line omp 13.19 writes for a tool-result entry it pruned: the entry
/// parsed, its message's `content` replaced by one text block with the notice,
/// `prunedAt` set (a new key, so last in the message), then the persistence
/// transform of every omp rewrite ([`persist_transform`]) and `JSON.stringify`
/// (JS key order: integer-like keys first; numbers and escapes normalised).
/// Without the trailing newline.
pub fn pruned_line(original_line: &str, notice: &str, pruned_at_ms: u64) -> Result<String, PrunedLineError> {
    let mut entry: Value = serde_json::from_str(original_line).map_err(|e| PrunedLineError::Json(e.to_string()))?;
    let msg = entry.get_mut("message").and_then(Value::as_object_mut).ok_or(PrunedLineError::NoMessage)?;
    let mut block = Map::new();
    block.insert("type".into(), "text".into());
    block.insert("text".into(), notice.into());
    // Assigning to existing keys keeps their position, as JS property assignment does.
    msg.insert("content".into(), Value::Array(vec![Value::Object(block)]));
    msg.insert("prunedAt".into(), pruned_at_ms.into());
    persist_transform(&mut entry, None);
    Ok(js::stringify(&entry))
}

/// Strings longer than this many UTF-16 units are cut when omp persists.
const MAX_PERSIST_CHARS: usize = 500_000;
/// Appended to a cut string.
pub(super) const TRUNCATION_NOTICE: &str = "\n\n[Session persistence truncated large content]";
/// Keys whose oversized values are cleared rather than cut (a cut signature is invalid).
const SIGNATURE_KEYS: [&str; 3] = ["thinkingSignature", "thoughtSignature", "textSignature"];

/// The pure part of omp's `truncateForPersistence` (session-format.md §9.2),
/// applied to every entry of a rewrite; returns whether anything changed.
///
/// Not done here: moving inline images (base64 ≥ 1024 chars under a `content`
/// array, `image_url` data URLs) to the blob store, which needs IO; such
/// values are left inline.
pub fn persist_transform(v: &mut Value, key: Option<&str>) -> bool {
    match v {
        Value::String(s) if js::utf16_len(s) > MAX_PERSIST_CHARS => {
            *s = if key.is_some_and(|k| SIGNATURE_KEYS.contains(&k)) { String::new() } else { cut_for_persistence(s) };
            true
        }
        // Items inherit the array's key, as in omp.
        Value::Array(items) => items.iter_mut().fold(false, |changed, item| persist_transform(item, key) | changed),
        Value::Object(map) => persist_object(map),
        _ => false,
    }
}

fn persist_object(map: &mut Map<String, Value>) -> bool {
    // Streaming leftovers omp never persists.
    let mut changed = map.shift_remove("partialJson").is_some() | map.shift_remove("jsonlEvents").is_some();
    for (k, child) in map.iter_mut() {
        changed |= persist_transform(child, Some(k));
    }
    if changed {
        if let (Some(Value::String(content)), Some(Value::Number(_))) = (map.get("content"), map.get("lineCount")) {
            let lines = content.split('\n').count();
            map.insert("lineCount".into(), lines.into());
        }
    }
    changed
}

/// `truncateString(s, 500000 - notice) + notice`: whole UTF-16 units, never
/// ending on half a surrogate pair (omp drops a trailing high surrogate).
fn cut_for_persistence(s: &str) -> String {
    let limit = MAX_PERSIST_CHARS - js::utf16_len(TRUNCATION_NOTICE);
    let mut units = 0;
    let mut end = 0;
    for (i, c) in s.char_indices() {
        if units + c.len_utf16() > limit {
            break;
        }
        units += c.len_utf16();
        end = i + c.len_utf8();
    }
    format!("{}{TRUNCATION_NOTICE}", &s[..end])
}
