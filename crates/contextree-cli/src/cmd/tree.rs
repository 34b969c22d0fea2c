//! `contextree tree`.

use contextree_core::context::{entry_preview, entry_states};
use contextree_core::render;
use serde::Serialize;

use crate::common::{print_session_doc, write_stdout_with, CliError, SessionArgs, Streamed};

/// `tree --json` (after `dialect` and `ruleSet`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TreeDoc<R> {
    leaf_id: Option<String>,
    /// [`Row`]s in display order, [`Streamed`]: written one at a time.
    rows: R,
}

/// One entry of the tree.
#[derive(Serialize)]
struct Row<'a> {
    id: Option<&'a str>,
    depth: u32,
    #[serde(rename = "type")]
    kind: Option<&'a str>,
    role: Option<&'a str>,
    state: &'static str,
    tokens: u64,
    label: Option<&'a str>,
}

pub fn run(args: &SessionArgs) -> Result<(), CliError> {
    let loaded = args.load()?;
    let s = &loaded.session;
    let ctx = args.context(&loaded)?;
    let states = entry_states(s, &ctx);
    if args.json {
        // Written row by row: a million-entry tree must not be held as JSON values.
        let rows = s.tree().preorder().into_iter().map(|(n, depth)| {
            let e = s.entry(n);
            Row {
                id: e.id(),
                depth,
                kind: e.kind_name(),
                role: e.message().map(|m| m.role.as_str()),
                state: states[n.index()].name(),
                tokens: s.entry_tokens(n),
                label: s.label(n),
            }
        });
        let leaf_id = ctx.leaf.map(|n| s.entry(n).id.to_string());
        print_session_doc(s, &TreeDoc { leaf_id, rows: Streamed::new(rows) });
        return Ok(());
    }
    write_stdout_with(|out| render::write_tree(out, s, &states, ctx.leaf, &|n| entry_preview(s, n, &loaded.source, 60)));
    Ok(())
}
