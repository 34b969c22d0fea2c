//! The transcripts omp writes beside a session (docs/subagents.md): a `task` subagent's at
//! `<session without .jsonl>/<id>.jsonl`, its own subagents one folder deeper
//! (`<session>/<id>/<id>.<child>.jsonl`), advisors at `<session>/__advisor.jsonl` or
//! `__advisor.<slug>.jsonl`. Each is read with the usual loader and summed with core's spend.

use std::path::Path;

use contextree_core::dialect::Dialect;
use contextree_core::spend::{child_init, spend_report, ChildInit, Totals};

use crate::{load_session, HostEnv};

/// How deep nested subagents are followed (omp's trace view stops at the same depth).
const MAX_DEPTH: u32 = 8;

/// One transcript found beside a session.
#[derive(Debug, Clone)]
pub struct ChildFile {
    /// Its path under the session's folder, `/`-separated (`Anna.jsonl`, `Anna/Anna.Bob.jsonl`).
    pub rel: String,
    /// Its stem: the agent id (`Anna`, `Anna.Bob`, `__advisor`).
    pub id: String,
    /// The stem of the top-level transcript it sits under (itself at the top): the id the
    /// session's `task` result names.
    pub top: String,
    /// 0 at the top, 1 for a subagent's subagent, …
    pub depth: u32,
    /// An advisor's transcript.
    pub advisor: bool,
    /// Its spend, or why it could not be read.
    pub spend: Result<ChildSpend, String>,
}

/// What a child transcript cost and which agent wrote it.
#[derive(Debug, Clone)]
pub struct ChildSpend {
    /// Every usage record of the file.
    pub totals: Totals,
    /// Its `session_init` facts.
    pub init: ChildInit,
    /// The model of its most expensive records (when the file names one).
    pub main_model: Option<String>,
}

/// The transcripts beside the omp session at `path`, sorted by path; none for pi (pi writes
/// no subagent files) or when the folder does not exist.
pub fn child_files(env: &HostEnv, path: &Path, dialect: Dialect) -> Vec<ChildFile> {
    let mut out = Vec::new();
    if dialect != Dialect::Omp {
        return out;
    }
    let Some(dir) = path.to_str().and_then(|p| p.strip_suffix(".jsonl")) else { return out };
    walk(env, Path::new(dir), "", None, 0, &mut out);
    out
}

fn walk(env: &HostEnv, dir: &Path, prefix: &str, top: Option<&str>, depth: u32, out: &mut Vec<ChildFile>) {
    let Ok(read) = std::fs::read_dir(dir) else { return };
    let mut names: Vec<String> = read
        .filter_map(Result::ok)
        .filter(|d| d.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|d| d.file_name().into_string().ok())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    names.sort();
    for name in names {
        let id = name.trim_end_matches(".jsonl").to_owned();
        let file = dir.join(&name);
        let top = top.unwrap_or(&id).to_owned();
        let advisor = id == "__advisor" || id.starts_with("__advisor.");
        out.push(ChildFile {
            rel: format!("{prefix}{name}"),
            id: id.clone(),
            top: top.clone(),
            depth,
            advisor,
            spend: spend_of(env, &file),
        });
        // A subagent's own children sit in its folder, named by its stem.
        if !advisor && depth + 1 < MAX_DEPTH {
            walk(env, &dir.join(&id), &format!("{prefix}{id}/"), Some(&top), depth + 1, out);
        }
    }
}

fn spend_of(env: &HostEnv, file: &Path) -> Result<ChildSpend, String> {
    let loaded = load_session(env, file, None).map_err(|e| e.to_string())?;
    let s = &loaded.session;
    let sums = spend_report(s, &loaded.source).map_err(|e| e.to_string())?;
    let main_model = sums.by_model.iter().find(|m| m.model != "unknown").map(|m| m.model.clone());
    Ok(ChildSpend { totals: sums.totals, init: child_init(s), main_model })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(v: serde_json::Value) -> String {
        format!("{v}\n")
    }

    #[test]
    fn finds_nested_and_advisor_transcripts_and_skips_pi() {
        let tmp = tempfile::tempdir().unwrap();
        let parent = tmp.path().join("s.jsonl");
        std::fs::write(&parent, "").unwrap();
        let dir = tmp.path().join("s");
        std::fs::create_dir_all(dir.join("Anna")).unwrap();
        let header = line(serde_json::json!({"type": "session", "version": 3, "id": "c", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/"}));
        let reply = line(serde_json::json!({"type": "message", "id": "a1", "parentId": null, "timestamp": "2026-01-01T00:00:01Z",
            "message": {"role": "assistant", "content": [], "provider": "p", "model": "m", "timestamp": 1,
                        "usage": {"input": 3, "output": 4, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 7, "cost": {"total": 0.25}}}}));
        std::fs::write(dir.join("Anna.jsonl"), format!("{header}{reply}")).unwrap();
        std::fs::write(dir.join("Anna").join("Anna.Bob.jsonl"), format!("{header}{reply}")).unwrap();
        std::fs::write(dir.join("__advisor.jsonl"), format!("{header}{reply}")).unwrap();
        std::fs::write(dir.join("Anna.md"), "output").unwrap();
        let env = HostEnv::isolated(tmp.path());
        let found = child_files(&env, &parent, Dialect::Omp);
        let rows: Vec<_> = found.iter().map(|c| (c.rel.as_str(), c.top.as_str(), c.depth, c.advisor)).collect();
        assert_eq!(
            rows,
            [("Anna.jsonl", "Anna", 0, false), ("Anna/Anna.Bob.jsonl", "Anna", 1, false), ("__advisor.jsonl", "__advisor", 0, true)]
        );
        let spend = found[1].spend.as_ref().unwrap();
        assert_eq!((spend.totals.records, spend.totals.sum.cost, spend.main_model.as_deref()), (1, 0.25, Some("p/m")));
        assert!(child_files(&env, &parent, Dialect::Pi).is_empty());
    }
}
