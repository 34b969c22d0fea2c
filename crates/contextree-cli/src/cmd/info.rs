//! `contextree info`.

use serde_json::{json, Map, Value};

use crate::common::{print_session_json, CliError, SessionArgs};

pub fn run(args: &SessionArgs) -> Result<(), CliError> {
    let loaded = args.load()?;
    let s = &loaded.session;
    let id = |n: contextree_core::session::NodeId| json!(s.entry(n).id());
    let mut types = Map::new();
    let mut roles = Map::new();
    for e in s.entries() {
        // The agents count a typeless value under `String(undefined)`.
        bump(&mut types, e.kind_name().unwrap_or("undefined"));
        if let Some(m) = e.message() {
            bump(&mut roles, m.role.as_str());
        }
    }
    let tree = s.tree();
    let branch_points: Vec<Value> = (0..s.entries().len() as u32)
        .map(contextree_core::session::NodeId)
        .filter_map(|n| {
            let kids = tree.children(n).count();
            (kids > 1).then(|| json!({"id": id(n), "children": kids}))
        })
        .collect();
    let labels: Map<String, Value> = s.labels().iter().map(|(n, l)| (s.entry(*n).id.to_string(), Value::String(l.clone()))).collect();
    let leaf = s.leaf();
    let diagnostics: Vec<Value> = s
        .diagnostics()
        .iter()
        .map(|d| json!({"line": d.line, "severity": format!("{:?}", d.severity).to_lowercase(), "message": d.message}))
        .collect();
    let doc = json!({
        "file": loaded.path.display().to_string(),
        "bytes": loaded.fingerprint.len,
        "dialect": s.dialect().name(),
        "detectedDialect": s.detection().detected.name(),
        "dialectSignals": s.detection().signals,
        "valid": s.header().is_some(),
        "header": s.header().cloned().map_or(Value::Null, Value::Object),
        "title": s.header().and_then(|h| h.get("title")).cloned().unwrap_or(Value::Null),
        "titleSlot": s.title_slot().map_or(Value::Null, |t| json!({
            "title": t.title, "source": t.source, "updatedAt": t.updated_at,
            "line": 1, "bytes": t.span.len + 1,
        })),
        "version": s.version(),
        "originalVersion": s.original_version(),
        "migrated": s.original_version() < 3 && s.header().is_some(),
        "entryCount": s.entries().len(),
        "leafId": leaf.map_or(Value::Null, id),
        "leafIndex": leaf.map_or(Value::Null, |n| Value::from(n.0)),
        "types": types,
        "roles": roles,
        "roots": tree.roots().iter().map(|&n| id(n)).collect::<Vec<_>>(),
        "leaves": tree.leaves().into_iter().map(id).collect::<Vec<_>>(),
        "branchPoints": branch_points,
        "labels": labels,
        "leafPathLength": leaf.map_or(0, |n| contextree_core::context::path_to(s, n).len()),
        "diagnostics": diagnostics,
    });
    if args.json {
        print_session_json(s, &doc);
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

fn bump(map: &mut Map<String, Value>, key: &str) {
    let n = map.get(key).and_then(Value::as_u64).unwrap_or(0) + 1;
    map.insert(key.to_owned(), Value::from(n));
}
