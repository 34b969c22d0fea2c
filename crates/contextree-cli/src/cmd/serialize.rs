//! `contextree serialize`.

use contextree_core::context::materialize::serialize_context;
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::common::{print_session_json, read_back, CliError, SessionArgs};

pub fn run(args: &SessionArgs) -> Result<(), CliError> {
    let loaded = args.load()?;
    let ctx = args.context(&loaded)?;
    let pack = args.pack(loaded.session.rules())?;
    let text = serialize_context(&loaded.session, &ctx, &pack, &loaded.source).map_err(read_back)?;
    if args.json {
        let sha = Sha256::digest(text.as_bytes());
        let hex: String = sha.iter().map(|b| format!("{b:02x}")).collect();
        print_session_json(&loaded.session, &json!({"text": text, "length": contextree_core::js::utf16_len(&text), "sha256": hex}));
        return Ok(());
    }
    out!("{text}");
    Ok(())
}
