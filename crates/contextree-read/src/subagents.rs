//! The usage report's subagent part: omp's `task` spawns recorded in the session joined with
//! the transcripts found beside it (host's `child_files`), each agent's spend attributed to
//! the session and to the branches whose path holds the result that started it
//! (docs/subagents.md).

use contextree_core::spend::{Amounts, Spawn, SpendReport, Totals};
use contextree_host::subagents::ChildFile;
use serde::Serialize;
use ts_rs::TS;

/// What kind of transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum ChildKind {
    /// A `task` subagent (or a subagent's subagent).
    Subagent,
    /// An advisor: it reviews the whole session, so no branch started it.
    Advisor,
}

/// Whether the transcript was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum ChildStatus {
    /// Read; its totals are the file's.
    Read,
    /// A `task` result names it but there is no file.
    Missing,
    /// The file is there but could not be read (`error` says why).
    Unreadable,
}

/// Which numbers the session's sums take for an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum Counted {
    /// Its transcript's usage records.
    File,
    /// No readable transcript: the usage omp recorded in the `task` result (one record).
    Recorded,
    /// Nothing is known of its spend.
    Nothing,
}

/// The `task` result that started an agent.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SpawnedBy {
    /// The tool result entry.
    pub entry_id: String,
    /// Its position in the file.
    pub index: u32,
    /// The tool call's id.
    pub tool_call_id: String,
}

/// One subagent or advisor of the session.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SubagentRow {
    /// Its transcript under the session's folder (`Anna.jsonl`, `Anna/Anna.Bob.jsonl`).
    pub file: String,
    /// The agent's id (the file's stem).
    pub agent_id: String,
    /// Subagent or advisor.
    pub kind: ChildKind,
    /// The agent definition (`task`, `scout`, …), from the `task` result, else the file.
    pub agent: Option<String>,
    /// The model role it ran under.
    pub role: Option<String>,
    /// `provider/model`: as resolved when it started, else its costliest records'.
    pub model: Option<String>,
    /// 0 for an agent the session started, 1 for one a subagent started, …
    pub depth: u32,
    /// Read, missing or unreadable.
    pub status: ChildStatus,
    /// Why an unreadable file could not be read.
    pub error: Option<String>,
    /// The `task` result that started it (for a nested agent, its top-level ancestor's);
    /// none for an advisor or a transcript no result names.
    pub spawned_by: Option<SpawnedBy>,
    /// Its transcript's usage records (none when not read).
    pub totals: Totals,
    /// The usage omp recorded for it in the `task` result, when it finished inside the call.
    pub recorded: Option<Amounts>,
    /// Which of the two the session's sums count.
    pub counted: Counted,
}

/// One branch's subagent spend.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BranchSubagents {
    /// The leaf (as in the report's `branches`, same order).
    pub leaf_id: String,
    /// The agents started on its path (nested ones included).
    pub subagents: Totals,
    /// The branch's own records and its subagents'.
    pub with_subagents: Totals,
}

/// The subagent part of a usage report.
pub(crate) struct SubagentSums {
    pub rows: Vec<SubagentRow>,
    pub totals: Totals,
    pub with_subagents: Totals,
    pub branches: Vec<BranchSubagents>,
}

impl SubagentRow {
    /// What the session's sums take for this agent.
    fn counted_totals(&self) -> Totals {
        match (self.counted, self.recorded) {
            (Counted::File, _) => self.totals,
            (Counted::Recorded, Some(a)) => {
                let mut t = Totals::default();
                t.add(&a);
                t
            }
            _ => Totals::default(),
        }
    }
}

pub(crate) fn subagent_sums(sums: &SpendReport, children: &[ChildFile]) -> SubagentSums {
    let mut rows = Vec::new();
    // The spawn each row is attributed to (a position in `sums.spawns`).
    let mut row_spawn: Vec<Option<usize>> = Vec::new();
    let mut used = vec![false; children.len()];
    for (k, spawn) in sums.spawns.iter().enumerate() {
        let top = children.iter().position(|c| c.depth == 0 && !c.advisor && c.id == spawn.agent_id);
        match top {
            Some(j) => {
                for (i, c) in children.iter().enumerate() {
                    if i == j || (c.depth > 0 && c.top == spawn.agent_id) {
                        used[i] = true;
                        rows.push(row(c, Some(spawn), i == j));
                        row_spawn.push(Some(k));
                    }
                }
            }
            None => {
                rows.push(missing(spawn));
                row_spawn.push(Some(k));
            }
        }
    }
    for (c, _) in children.iter().zip(&used).filter(|(_, u)| !**u) {
        rows.push(row(c, None, false));
        row_spawn.push(None);
    }

    let mut totals = Totals::default();
    for r in &rows {
        totals.merge(&r.counted_totals());
    }
    let mut with_subagents = sums.totals;
    with_subagents.merge(&totals);
    let branches = sums
        .branches
        .iter()
        .map(|b| {
            let mut t = Totals::default();
            for (r, k) in rows.iter().zip(&row_spawn) {
                if k.is_some_and(|k| b.spawns.contains(&k)) {
                    t.merge(&r.counted_totals());
                }
            }
            let mut with = b.totals;
            with.merge(&t);
            BranchSubagents { leaf_id: b.leaf_id.clone(), subagents: t, with_subagents: with }
        })
        .collect();
    SubagentSums { rows, totals, with_subagents, branches }
}

/// The row of a transcript found on disk; `direct` when `spawn` names this very file (its
/// recorded usage is this agent's, not a nested one's).
fn row(c: &ChildFile, spawn: Option<&Spawn>, direct: bool) -> SubagentRow {
    let direct_spawn = spawn.filter(|_| direct);
    let recorded = direct_spawn.and_then(|s| s.recorded);
    let (status, error, totals, init, main_model) = match &c.spend {
        Ok(s) => (ChildStatus::Read, None, s.totals, s.init.clone(), s.main_model.clone()),
        Err(e) => (ChildStatus::Unreadable, Some(e.clone()), Totals::default(), Default::default(), None),
    };
    let counted = match (status, recorded) {
        (ChildStatus::Read, _) => Counted::File,
        (_, Some(_)) => Counted::Recorded,
        _ => Counted::Nothing,
    };
    SubagentRow {
        file: c.rel.clone(),
        agent_id: c.id.clone(),
        kind: if c.advisor { ChildKind::Advisor } else { ChildKind::Subagent },
        agent: direct_spawn.and_then(|s| s.agent.clone()).or(init.agent),
        role: direct_spawn.and_then(|s| s.role.clone()).or(init.role),
        model: direct_spawn.and_then(|s| s.model.clone()).or(init.model).or(main_model),
        depth: c.depth,
        status,
        error,
        spawned_by: spawn.map(spawned_by),
        totals,
        recorded,
        counted,
    }
}

fn missing(spawn: &Spawn) -> SubagentRow {
    SubagentRow {
        file: format!("{}.jsonl", spawn.agent_id),
        agent_id: spawn.agent_id.clone(),
        kind: ChildKind::Subagent,
        agent: spawn.agent.clone(),
        role: spawn.role.clone(),
        model: spawn.model.clone(),
        depth: 0,
        status: ChildStatus::Missing,
        error: None,
        spawned_by: Some(spawned_by(spawn)),
        totals: Totals::default(),
        recorded: spawn.recorded,
        counted: if spawn.recorded.is_some() { Counted::Recorded } else { Counted::Nothing },
    }
}

fn spawned_by(s: &Spawn) -> SpawnedBy {
    SpawnedBy { entry_id: s.entry_id.clone(), index: s.index, tool_call_id: s.tool_call_id.clone() }
}
