//! omp's subagents as the parent file records them, and what a subagent's own file says about
//! itself (docs/subagents.md).
//!
//! A `task` tool result's `details` names every agent the call started: `results[]` for the
//! ones that finished inside the call (each with the usage omp summed from the child's replies),
//! `progress[]` for background ones still running when the result was written. The child's
//! transcript is `<parent without .jsonl>/<id>.jsonl`; the host finds it, this module only
//! reads the parent's and the child's lines.

use serde::Serialize;
use serde_json::Value;

use super::Amounts;
use crate::session::Session;

/// One agent a `task` call started, as the parent's tool result records it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Spawn {
    /// The tool result entry holding the record (the spend is attributed to its branches).
    pub entry_id: String,
    /// Its position in the file.
    pub index: u32,
    /// The tool call's id.
    pub tool_call_id: String,
    /// The agent's id, which is also the child transcript's file stem.
    pub agent_id: String,
    /// The agent definition (`task`, `scout`, …) when recorded.
    pub agent: Option<String>,
    /// The model role it ran under when recorded.
    pub role: Option<String>,
    /// `provider/model` as resolved when recorded.
    pub model: Option<String>,
    /// The usage omp recorded in the parent (`results[].usage`); none for a background agent
    /// whose result came later.
    pub recorded: Option<Amounts>,
}

/// The spawns of one `task` tool result message (`message` is its `message` object).
pub(super) fn spawns_of(message: &Value, entry_id: &str, index: u32) -> Vec<Spawn> {
    let tool_call_id = message.get("toolCallId").and_then(Value::as_str).unwrap_or_default();
    let Some(details) = message.get("details").filter(|d| d.is_object()) else { return Vec::new() };
    let list = |k: &str| details.get(k).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    let mut out: Vec<Spawn> = Vec::new();
    // A finished agent is in `results` (with its usage); a background one only in `progress`,
    // and a finished one may be in both: `results` first, each id once.
    for (item, finished) in list("results").iter().map(|r| (r, true)).chain(list("progress").iter().map(|p| (p, false))) {
        let Some(agent_id) = text(item, "id") else { continue };
        if out.iter().any(|s| s.agent_id == agent_id) {
            continue;
        }
        out.push(Spawn {
            entry_id: entry_id.to_owned(),
            index,
            tool_call_id: tool_call_id.to_owned(),
            agent_id,
            agent: text(item, "agent"),
            role: text(item, "modelRole"),
            model: text(item, "resolvedModel").or_else(|| text(item, "resolvedModelIdentity")),
            recorded: if finished { item.get("usage").filter(|u| u.is_object()).map(super::amounts_of) } else { None },
        });
    }
    out
}

/// What a child transcript says about its agent: omp's `session_init` entry (`agent`,
/// `modelRole`, `resolvedModel`); an advisor's transcript has none.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChildInit {
    /// The agent definition.
    pub agent: Option<String>,
    /// The model role.
    pub role: Option<String>,
    /// `provider/model` as resolved when it started.
    pub model: Option<String>,
}

/// The last `session_init` of `s` (a revived subagent records it again).
pub fn child_init(s: &Session) -> ChildInit {
    let Some(init) = s.entries().iter().rev().find(|e| &*e.entry_type == "session_init") else {
        return ChildInit::default();
    };
    let text = |k: &str| init.str_field(k).filter(|v| !v.is_empty()).map(str::to_owned);
    ChildInit { agent: text("agent"), role: text("modelRole"), model: text("resolvedModel") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_carry_usage_and_progress_adds_background_agents_once() {
        let msg = json!({
            "role": "toolResult", "toolCallId": "call_1", "toolName": "task",
            "details": {
                "results": [{"id": "Anna", "agent": "task", "modelRole": "task", "resolvedModel": "p/m",
                             "usage": {"input": 10, "output": 5, "cacheRead": 2, "cacheWrite": 1, "totalTokens": 18, "cost": {"total": 0.5}}}],
                "progress": [{"id": "Anna", "agent": "task"}, {"id": "Bob", "agent": "scout"}]
            }
        });
        let s = spawns_of(&msg, "e1", 3);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].agent_id.as_str(), s[0].tool_call_id.as_str(), s[0].index), ("Anna", "call_1", 3));
        assert_eq!(s[0].recorded.map(|a| (a.input, a.output, a.cost)), Some((10.0, 5.0, 0.5)));
        assert_eq!((s[1].agent_id.as_str(), s[1].agent.as_deref(), s[1].recorded), ("Bob", Some("scout"), None));
    }

    #[test]
    fn a_result_without_details_starts_nothing() {
        assert!(spawns_of(&json!({"role": "toolResult", "toolName": "task"}), "e", 0).is_empty());
    }
}
