//! `contextree info`.

use contextree_core::session::{Diagnostic, NodeId};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::common::{print_session_doc, CliError, Ordered, SessionArgs};

/// `info --json` (after `dialect` and `ruleSet`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InfoDoc<'a> {
    file: String,
    bytes: u64,
    detected_dialect: &'static str,
    dialect_signals: &'a [String],
    valid: bool,
    header: Option<&'a Map<String, Value>>,
    title: Option<&'a Value>,
    title_slot: Option<TitleSlotDoc<'a>>,
    version: u32,
    original_version: u32,
    migrated: bool,
    entry_count: usize,
    leaf_id: Option<&'a str>,
    leaf_index: Option<u32>,
    /// Entries per `type` and messages per role, in first-seen order.
    types: Ordered<u64>,
    roles: Ordered<u64>,
    roots: Vec<Option<&'a str>>,
    leaves: Vec<Option<&'a str>>,
    branch_points: Vec<BranchPoint<'a>>,
    /// Label per entry id.
    labels: Ordered<&'a str>,
    leaf_path_length: usize,
    diagnostics: &'a [Diagnostic],
}

/// omp 18's title line.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TitleSlotDoc<'a> {
    title: &'a str,
    source: Option<&'a str>,
    updated_at: &'a str,
    line: u32,
    bytes: u32,
}

#[derive(Serialize)]
struct BranchPoint<'a> {
    id: Option<&'a str>,
    children: usize,
}

pub fn run(args: &SessionArgs) -> Result<(), CliError> {
    let loaded = args.load()?;
    let s = &loaded.session;
    let id = |n: NodeId| s.entry(n).id();
    let mut types = Ordered::default();
    let mut roles = Ordered::default();
    for e in s.entries() {
        // The agents count a typeless value under `String(undefined)`.
        *types.entry(e.kind_name().unwrap_or("undefined")) += 1;
        if let Some(m) = e.message() {
            *roles.entry(m.role.as_str()) += 1;
        }
    }
    let tree = s.tree();
    let branch_points = (0..s.entries().len() as u32)
        .map(NodeId)
        .filter_map(|n| {
            let kids = tree.children(n).count();
            (kids > 1).then(|| BranchPoint { id: id(n), children: kids })
        })
        .collect();
    let mut labels = Ordered::default();
    for (n, l) in s.labels() {
        labels.set(&s.entry(*n).id, l.as_str());
    }
    let leaf = s.leaf();
    let doc = InfoDoc {
        file: loaded.path.display().to_string(),
        bytes: loaded.fingerprint.len,
        detected_dialect: s.detection().detected.name(),
        dialect_signals: &s.detection().signals,
        valid: s.header().is_some(),
        header: s.header(),
        title: s.header().and_then(|h| h.get("title")),
        title_slot: s.title_slot().map(|t| TitleSlotDoc {
            title: &t.title,
            source: t.source.as_deref(),
            updated_at: &t.updated_at,
            line: 1,
            bytes: t.span.len + 1,
        }),
        version: s.version(),
        original_version: s.original_version(),
        migrated: s.original_version() < 3 && s.header().is_some(),
        entry_count: s.entries().len(),
        leaf_id: leaf.and_then(id),
        leaf_index: leaf.map(|n| n.0),
        types,
        roles,
        roots: tree.roots().iter().map(|&n| id(n)).collect(),
        leaves: tree.leaves().into_iter().map(id).collect(),
        branch_points,
        labels,
        leaf_path_length: leaf.map_or(0, |n| contextree_core::context::path_to(s, n).len()),
        diagnostics: s.diagnostics(),
    };
    if args.json {
        print_session_doc(s, &doc);
        return Ok(());
    }
    outln!("{}", loaded.path.display());
    outln!("  dialect    {} (detected {}; {})", s.dialect(), s.detection().detected, s.detection().signals.join(", "));
    outln!("  rules      {} = {} ({})", s.rules(), s.rules().reference(), s.rule_choice().why());
    outln!("  version    {} (file says {})", s.version(), s.original_version());
    if let Some(title) = s.header().and_then(|h| h.get("title")).and_then(Value::as_str) {
        let slot = if s.title_slot().is_some() { " (title line)" } else { "" };
        outln!("  title      {title}{slot}");
    }
    outln!("  entries    {} in {} lines, {} roots, {} leaves", s.entries().len(), s.n_lines(), tree.roots().len(), tree.leaves().len());
    if let Some(l) = leaf {
        outln!("  leaf       {} (path of {} entries)", s.entry(l).id, tree.path_to(l).len());
    }
    for (n, label) in s.labels() {
        outln!("  label      {} = {label}", s.entry(*n).id);
    }
    for d in s.diagnostics() {
        outln!("  {d}");
    }
    Ok(())
}
