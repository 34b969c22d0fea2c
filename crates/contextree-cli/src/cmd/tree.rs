//! `contextree tree`: the read layer's [`TreeReport`] (`--json`), or the tree drawn as text with
//! connectors and previews (core's `render`).

use contextree_core::context::{entry_preview, entry_states};
use contextree_core::render;
use contextree_read::TreeReport;

use crate::common::{write_json, write_stdout_with, CliError, SessionArgs};

pub fn run(args: &SessionArgs) -> Result<(), CliError> {
    let loaded = args.load()?;
    let s = &loaded.session;
    let ctx = args.context(&loaded)?;
    if args.json {
        write_json(&TreeReport::new(s, &ctx));
        return Ok(());
    }
    let states = entry_states(s, &ctx);
    write_stdout_with(|out| render::write_tree(out, s, &states, ctx.leaf, &|n| entry_preview(s, n, &loaded.source, 60)));
    Ok(())
}
