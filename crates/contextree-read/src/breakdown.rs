//! What fills a context: its messages' estimate split by category (`contextree context
//! --breakdown`, the context panel's bar).
//!
//! The rows sum exactly to the report's `messageTokens`, because each message's own estimate is
//! split, never re-measured: the parts the rule set's estimate counts (core's
//! `message_parts`: characters, or omp ≥ 18's per-fragment tokens) are its weights; each part
//! gets `floor(estimate × weight / total weight)`, and what the flooring leaves (less than one
//! token per part) goes to the message's heaviest part, the first of equals. A message counts
//! once, in the row of that same heaviest part (a message with nothing counted: the row of its
//! role), so the rows' `messages` sum to the message count.
//!
//! Only the agent messages are broken down: the system prompt and the tool definitions are rows
//! only where the rule set counts them among the messages (pi ≥ 0.87's system messages, by
//! section); elsewhere the agent's estimate has no number for them and neither has this.

use std::collections::BTreeMap;

use contextree_core::context::{context_message, Context, ReadBackError};
use contextree_core::session::{Session, Source};
use contextree_core::tokens::{message_parts, PartKind};
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

/// What a part of the context is. The order is the rows' order.
#[derive(Serialize, TS, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "camelCase")]
pub enum Category {
    /// pi ≥ 0.87: a system message's content and prompt sections.
    SystemPrompt,
    /// pi ≥ 0.87: the tool declarations a system message adds.
    ToolDefinitions,
    /// What the user typed.
    User,
    /// An assistant's reply text.
    AssistantText,
    /// An assistant's thinking.
    Thinking,
    /// An assistant's tool calls (name and arguments), by tool.
    ToolCall,
    /// Tools' results, by tool.
    ToolResult,
    /// A user's shell command and its output (`!cmd`).
    BashExecution,
    /// The summary a compaction opens the context with.
    CompactionSummary,
    /// A branch summary.
    BranchSummary,
    /// Extension and developer messages (pi's `custom`, omp's `hookMessage` and `developer`).
    Custom,
    /// Images (omp ≥ 18: a summary's snapcompact frames too).
    Image,
    /// A role the estimate counts that fits none of the above.
    Other,
}

impl Category {
    /// Its name as the JSON has it.
    pub fn name(self) -> &'static str {
        match self {
            Category::SystemPrompt => "systemPrompt",
            Category::ToolDefinitions => "toolDefinitions",
            Category::User => "user",
            Category::AssistantText => "assistantText",
            Category::Thinking => "thinking",
            Category::ToolCall => "toolCall",
            Category::ToolResult => "toolResult",
            Category::BashExecution => "bashExecution",
            Category::CompactionSummary => "compactionSummary",
            Category::BranchSummary => "branchSummary",
            Category::Custom => "custom",
            Category::Image => "image",
            Category::Other => "other",
        }
    }
}

/// One row of the breakdown.
#[derive(Serialize, TS, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct BreakdownRow {
    /// What it is.
    pub category: Category,
    /// The tool, for tool calls and results (and a tool result's images).
    pub tool: Option<String>,
    /// The system prompt's section (`None`: its content).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub section: Option<String>,
    /// Its share of the messages' estimate.
    pub tokens: u64,
    /// Messages counted here (each message once, in the row of its largest part).
    pub messages: usize,
}

type Key = (Category, Option<String>, Option<String>);

/// The breakdown of a context, and which rows each message has a part in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breakdown {
    /// The rows.
    pub rows: Vec<BreakdownRow>,
    /// Per message, in order: the indices of the rows it has tokens in (or counts in).
    pub of_message: Vec<Vec<u32>>,
}

/// The breakdown of `ctx`'s messages, given each message's estimate (`estimates[i]` for
/// `ctx.items[i]`, as the report counts it). Every message is read back once.
pub fn breakdown(s: &Session, ctx: &Context, estimates: &[u64], source: &dyn Source) -> Result<Breakdown, ReadBackError> {
    let mut rows: BTreeMap<Key, (u64, usize)> = BTreeMap::new();
    let mut keys_of: Vec<Vec<Key>> = Vec::with_capacity(ctx.items.len());
    for (&item, &estimate) in ctx.items.iter().zip(estimates) {
        let msg = context_message(s, ctx, item, source)?;
        let (parts, home) = split(&msg, s.rules(), estimate);
        let mut keys = Vec::new();
        for (key, tokens) in parts {
            rows.entry(key.clone()).or_default().0 += tokens;
            if tokens > 0 {
                keys.push(key);
            }
        }
        rows.entry(home.clone()).or_default().1 += 1;
        if !keys.contains(&home) {
            keys.push(home);
        }
        keys_of.push(keys);
    }
    // A part counted with nothing in it (an empty text) makes no row.
    rows.retain(|_, (tokens, messages)| *tokens > 0 || *messages > 0);
    let index: BTreeMap<&Key, u32> = rows.keys().enumerate().map(|(i, k)| (k, i as u32)).collect();
    let of_message = keys_of.iter().map(|keys| keys.iter().filter_map(|k| index.get(k).copied()).collect()).collect();
    let rows = rows
        .iter()
        .map(|((category, tool, section), &(tokens, messages))| BreakdownRow {
            category: *category,
            tool: tool.clone(),
            section: section.clone(),
            tokens,
            messages,
        })
        .collect();
    Ok(Breakdown { rows, of_message })
}

/// One message's `estimate` split over its parts, and the row it counts in.
fn split(msg: &Value, rules: contextree_core::RuleSet, estimate: u64) -> (Vec<(Key, u64)>, Key) {
    let role = msg.get("role").and_then(Value::as_str).unwrap_or("");
    let tool_name = msg.get("toolName").and_then(Value::as_str).map(str::to_owned);
    let mut weights: Vec<(Key, u64)> = Vec::new();
    if let Some(m) = msg.as_object() {
        message_parts(m, rules, &mut |kind, w| {
            let key = key_of(role, kind, &tool_name);
            match weights.iter_mut().find(|(k, _)| *k == key) {
                Some((_, sum)) => *sum += w,
                None => weights.push((key, w)),
            }
        });
    }
    let total: u64 = weights.iter().map(|(_, w)| w).sum();
    // The heaviest part, the first of equals: it takes the remainder and counts the message.
    let heaviest = weights.iter().enumerate().fold(None::<(usize, u64)>, |best, (i, &(_, w))| match best {
        Some((_, bw)) if bw >= w => best,
        _ => Some((i, w)),
    });
    let Some((top, _)) = heaviest.filter(|_| total > 0) else {
        let home = key_of(role, PartKind::Text, &tool_name);
        return (vec![(home.clone(), estimate)], home);
    };
    let mut shares: Vec<(Key, u64)> =
        weights.iter().map(|(k, w)| (k.clone(), (u128::from(estimate) * u128::from(*w) / u128::from(total)) as u64)).collect();
    let given: u64 = shares.iter().map(|(_, t)| t).sum();
    shares[top].1 += estimate - given;
    let home = shares[top].0.clone();
    (shares, home)
}

/// The row of a part of a message of `role`.
fn key_of(role: &str, kind: PartKind<'_>, tool: &Option<String>) -> Key {
    let plain = |c: Category| (c, None, None);
    match (role, kind) {
        ("system", PartKind::Section(name)) => (Category::SystemPrompt, None, Some(name.to_owned())),
        ("system", PartKind::ToolDefinitions) => plain(Category::ToolDefinitions),
        ("system", PartKind::Image) => plain(Category::Image),
        ("system", _) => plain(Category::SystemPrompt),
        ("toolResult", PartKind::Image) => (Category::Image, tool.clone(), None),
        ("toolResult", _) => (Category::ToolResult, tool.clone(), None),
        (_, PartKind::Image) => plain(Category::Image),
        ("assistant", PartKind::Thinking) => plain(Category::Thinking),
        ("assistant", PartKind::ToolCall(name)) => (Category::ToolCall, name.map(str::to_owned), None),
        ("assistant", _) => plain(Category::AssistantText),
        ("user", _) => plain(Category::User),
        ("bashExecution", _) => plain(Category::BashExecution),
        ("compactionSummary", _) => plain(Category::CompactionSummary),
        ("branchSummary", _) => plain(Category::BranchSummary),
        ("custom" | "hookMessage" | "developer", _) => plain(Category::Custom),
        _ => plain(Category::Other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contextree_core::RuleSet;
    use serde_json::json;

    fn row(c: Category) -> Key {
        (c, None, None)
    }

    #[test]
    fn a_mixed_assistant_splits_by_characters_and_the_remainder_goes_to_the_largest_part() {
        // 14 characters of thinking, 5 of text, a call of 4 + 16 ("bash" + {"command":"ls"}):
        // 39 characters, pi's estimate ceil(39 / 4) = 10.
        let msg = json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "User wants ls."},
            {"type": "text", "text": "Sure."},
            {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}}]});
        let (parts, home) = split(&msg, RuleSet::Pi073, 10);
        // floor(10·14/39) = 3, floor(10·5/39) = 1, floor(10·20/39) = 5; the 1 left goes to the call.
        let call = (Category::ToolCall, Some("bash".to_owned()), None);
        assert_eq!(parts, vec![(row(Category::Thinking), 3), (row(Category::AssistantText), 1), (call.clone(), 6)]);
        assert_eq!(home, call);
    }

    #[test]
    fn omp18_parts_are_its_rounded_fragments() {
        // (14 + 3) >> 2 = 4 and (5 + 3) >> 2 = 2: the parts are the estimate itself.
        let msg = json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "User wants ls."}, {"type": "text", "text": "Sure."}]});
        let (parts, _) = split(&msg, RuleSet::Omp18, 6);
        assert_eq!(parts, vec![(row(Category::Thinking), 4), (row(Category::AssistantText), 2)]);
    }

    #[test]
    fn tool_results_and_their_images_are_by_tool() {
        let msg = json!({"role": "toolResult", "toolName": "read", "content": [
            {"type": "text", "text": "abcd"}, {"type": "image", "data": "x", "mimeType": "image/png"}]});
        // 4 + 4800 characters: ceil(4804 / 4) = 1201.
        let (parts, home) = split(&msg, RuleSet::Pi073, 1201);
        let read = Some("read".to_owned());
        assert_eq!(parts, vec![((Category::ToolResult, read.clone(), None), 1), ((Category::Image, read.clone(), None), 1200)]);
        assert_eq!(home, (Category::Image, read, None));
    }

    #[test]
    fn names_are_the_json_names() {
        for c in [Category::SystemPrompt, Category::ToolCall, Category::BashExecution, Category::Other] {
            assert_eq!(serde_json::to_value(c).unwrap(), c.name());
        }
    }

    #[test]
    fn a_message_with_nothing_counted_counts_in_its_roles_row() {
        let msg = json!({"role": "user", "content": []});
        assert_eq!(split(&msg, RuleSet::Pi073, 0), (vec![(row(Category::User), 0)], row(Category::User)));
    }
}
