//! `contextree tree`.

use contextree_core::context::preview::entry_preview;
use contextree_core::context::state::entry_states;
use contextree_core::render;
use serde_json::json;

use crate::common::{print_session_json_streamed, write_stdout_with, CliError, SessionArgs};

pub fn run(args: &SessionArgs) -> Result<(), CliError> {
    let loaded = args.load()?;
    let s = &loaded.session;
    let ctx = args.context(&loaded)?;
    let states = entry_states(s, &ctx);
    if args.json {
        // Written row by row: a million-entry tree must not be held as JSON values.
        let rows = s.tree().preorder().into_iter().map(|(n, depth)| {
            let e = s.entry(n);
            json!({"id": e.id(), "depth": depth, "type": e.kind_name(), "role": e.message().map(|m| m.role.as_str()), "state": states[n.index()].name(), "tokens": s.entry_tokens(n), "label": s.label(n)})
        });
        let mut head = serde_json::Map::new();
        head.insert("leafId".into(), ctx.leaf.map(|n| s.entry(n).id.to_string()).into());
        print_session_json_streamed(s, head, vec![("rows", Box::new(rows))]);
        return Ok(());
    }
    write_stdout_with(|out| render::write_tree(out, s, &states, ctx.leaf, &|n| entry_preview(s, n, &loaded.source, 60)));
    Ok(())
}
