//! Branch-summary generation (branch-summary.md §1, §4, §5): the summarizer
//! call `generateBranchSummary` makes, the stored summary text, and the
//! `branch_summary` entry line each agent appends when the leaf moves.
//!
//! Pure, like [`crate::compaction`]: [`crate::branch`] prepares the entries,
//! this module turns them into the call; the model's answer (asked by the
//! caller) turns into the entry; the host appends its line.

use serde_json::{Map, Value};

use crate::branch::PreparedBranch;
use crate::compaction::entry::{details_value, tagged_summary};
use crate::compaction::prompt::conversation;
use crate::compaction::FileLists;
use crate::context::llm::convert_message;
use crate::context::materialize::{agent_message, ReadBackError};
use crate::context::serialize::serialize_message_into;
use crate::context::Item;
use crate::js::stringify;
use crate::prompts::{PromptError, PromptId, PromptPack};
use crate::session::{Entry, NodeId, Role, Session, Source};
use crate::Dialect;

/// The summary both agents return, without asking a model, when no message
/// was selected; `navigateTree` stores it as the branch summary.
pub const NO_CONTENT: &str = "No content to summarize";
/// The summary when preamble, answer and file tags are all empty.
pub const NO_SUMMARY: &str = "No summary generated";
/// `maxTokens` of the branch-summary call (hard-coded in both agents).
pub const MAX_TOKENS: u64 = 2048;

/// `/tree` custom instructions (D9: each dialect's rule).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BranchOptions {
    /// The user's instructions (an empty text counts as none, as JS `||` does).
    pub custom_instructions: Option<String>,
    /// pi's `replaceInstructions`: the custom text replaces the default
    /// prompt instead of being appended as "Additional focus". omp always
    /// replaces, so it ignores this.
    pub replace_instructions: bool,
}

/// The one summarizer request of a branch summary: a system prompt and a
/// single user message holding `prompt`, `maxTokens` 2048, no reasoning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchSummaryCall {
    /// The summarization system prompt.
    pub system_prompt: String,
    /// The user message text.
    pub prompt: String,
    /// `maxTokens`.
    pub max_tokens: u64,
    /// End of the conversation in `prompt` (an offset, because the
    /// conversation may itself contain `</conversation>`).
    conversation_end: usize,
}

const CONVERSATION_OPEN: &str = "<conversation>\n";

impl BranchSummaryCall {
    /// The serialized conversation the prompt quotes (for offline summaries).
    pub fn conversation(&self) -> &str {
        &self.prompt[CONVERSATION_OPEN.len()..self.conversation_end]
    }

    /// The fixtures' shape: `{systemPrompt, prompt, maxTokens}`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("systemPrompt".into(), self.system_prompt.clone().into());
        m.insert("prompt".into(), self.prompt.clone().into());
        m.insert("maxTokens".into(), self.max_tokens.into());
        Value::Object(m)
    }
}

/// Why no call could be built.
#[derive(Debug, thiserror::Error)]
pub enum BranchSummaryError {
    /// An entry could not be read back.
    #[error(transparent)]
    ReadBack(#[from] ReadBackError),
    /// The pack lacks a text or a text does not render.
    #[error(transparent)]
    Prompt(#[from] PromptError),
}

/// The call `generateBranchSummary` makes for `prep` (§4 steps 3–5), or
/// `None` when no message was selected: then the summary is [`NO_CONTENT`]
/// and no model is asked.
pub fn summary_call(session: &Session, prep: &PreparedBranch, source: &dyn Source, pack: &PromptPack, opts: &BranchOptions) -> Result<Option<BranchSummaryCall>, BranchSummaryError> {
    if prep.selected.is_empty() {
        return Ok(None);
    }
    let conv = branch_conversation(session, &prep.selected, source, pack)?;
    let default = || pack.prompt(PromptId::BranchSummary);
    let custom = opts.custom_instructions.as_deref().filter(|c| !c.is_empty());
    let instructions = match (session.dialect(), custom) {
        (_, None) => default()?,
        // omp: `customInstructions || BRANCH_SUMMARY_PROMPT`.
        (Dialect::Omp, Some(c)) => c.to_owned(),
        (Dialect::Pi, Some(c)) if opts.replace_instructions => c.to_owned(),
        (Dialect::Pi, Some(c)) => format!("{}\n\nAdditional focus: {c}", default()?),
    };
    let prompt = format!("{CONVERSATION_OPEN}{conv}\n</conversation>\n\n{instructions}");
    Ok(Some(BranchSummaryCall {
        system_prompt: pack.prompt(PromptId::SummarizationSystem)?,
        prompt,
        max_tokens: MAX_TOKENS,
        conversation_end: CONVERSATION_OPEN.len() + conv.len(),
    }))
}

/// `serializeConversation(convertToLlm(messages))` of the selected entries,
/// each read as `getMessageFromEntry` makes it: a compaction becomes its
/// summary message (as the context's synthesized one), the rest as in the context.
fn branch_conversation(session: &Session, selected: &[NodeId], source: &dyn Source, pack: &PromptPack) -> Result<String, ReadBackError> {
    if selected.iter().all(|&n| &*session.entry(n).entry_type != "compaction") {
        return conversation(session, selected, source, pack);
    }
    let mut out = String::new();
    let mut first = true;
    for &node in selected {
        let item = if &*session.entry(node).entry_type == "compaction" { Item::CompactionSummary(node) } else { Item::Entry(node) };
        let msg = agent_message(session, item, source)?;
        if let Some(llm) = convert_message(&msg, session.rules(), pack) {
            serialize_message_into(&llm, session.rules(), &mut out, &mut first);
        }
    }
    Ok(out)
}

/// The stored summary (§4 steps 7–9): the dialect's preamble, the model's
/// answer (its text blocks joined by `\n`), the file tags; omp's preamble
/// has no trailing newline, so the answer's first line is glued to it.
pub fn summary_text(dialect: Dialect, pack: &PromptPack, answer: &str, lists: &FileLists) -> Result<String, PromptError> {
    let preamble = pack.prompt(PromptId::BranchSummaryPreamble)?;
    let summary = tagged_summary(dialect, &format!("{preamble}{answer}"), lists);
    Ok(if summary.is_empty() { NO_SUMMARY.to_owned() } else { summary })
}

/// What `generateBranchSummary` returns for `prep`: the stored text and the
/// details `navigateTree` stores with it (`{readFiles, modifiedFiles}`, empty
/// lists for the no-content literal). `answer` is the model's text (ignored
/// when `call` was `None`).
pub fn generated(dialect: Dialect, pack: &PromptPack, prep: &PreparedBranch, answer: &str) -> Result<(String, Value), PromptError> {
    if prep.selected.is_empty() {
        return Ok((NO_CONTENT.to_owned(), details_value(&FileLists::default())));
    }
    let lists = prep.file_ops.lists();
    Ok((summary_text(dialect, pack, answer, &lists)?, details_value(&lists)))
}

/// Where `navigateTree` moves the leaf for `target` (§1 step 6): the
/// target's parent for a user message or a custom message (whose text goes
/// back to the editor), else the target itself. `None` = before the first
/// entry ("root").
pub fn new_leaf(session: &Session, target: NodeId) -> Option<NodeId> {
    let e = session.entry(target);
    let to_parent = match &*e.entry_type {
        "message" => e.message().is_some_and(|m| m.role == Role::User),
        "custom_message" => true,
        _ => false,
    };
    if to_parent {
        session.tree().parent(target)
    } else {
        Some(target)
    }
}

/// Whether the target's text would go back to the editor (§1 step 6).
pub fn returns_to_editor(e: &Entry) -> bool {
    match &*e.entry_type {
        "message" => e.message().is_some_and(|m| m.role == Role::User),
        "custom_message" => true,
        _ => false,
    }
}

/// `branchWithSummary(parent, summary, details, fromExtension)`: the entry
/// as a JSON object in the agent's key order; `fromId` is the parent or
/// `"root"`; `undefined` details / flag left out.
pub fn entry_value(dialect: Dialect, id: &str, parent_id: Option<&str>, timestamp: &str, summary: &str, details: Option<&Value>, from_extension: Option<bool>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), "branch_summary".into());
    m.insert("id".into(), id.into());
    m.insert("parentId".into(), parent_id.map_or(Value::Null, Value::from));
    m.insert("timestamp".into(), timestamp.into());
    m.insert("fromId".into(), parent_id.unwrap_or("root").into());
    m.insert("summary".into(), summary.into());
    if let Some(d) = details {
        m.insert("details".into(), d.clone());
    }
    if let Some(flag) = from_extension {
        let key = match dialect {
            Dialect::Pi => "fromHook",
            Dialect::Omp => "fromExtension",
        };
        m.insert(key.into(), flag.into());
    }
    Value::Object(m)
}

/// A branch summary a `session_before_tree` hook supplied
/// (`{summary, details?}`): stored verbatim, no preamble or file tags, the
/// entry marked `fromHook` / `fromExtension` true (hooks-and-settings.md §3).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SuppliedBranchSummary {
    /// The summary text, as given.
    pub summary: String,
    /// Its `details`, stored as given; `None` leaves the key out.
    pub details: Option<Value>,
}

/// The line `navigateTree` appends for a supplied summary.
pub fn supplied_entry_line(dialect: Dialect, id: &str, parent_id: Option<&str>, timestamp: &str, supplied: &SuppliedBranchSummary) -> String {
    entry_line(dialect, id, parent_id, timestamp, &supplied.summary, supplied.details.as_ref(), Some(true))
}

/// The line the agent appends (`JSON.stringify(entry)`, no newline).
pub fn entry_line(dialect: Dialect, id: &str, parent_id: Option<&str>, timestamp: &str, summary: &str, details: Option<&Value>, from_extension: Option<bool>) -> String {
    stringify(&entry_value(dialect, id, parent_id, timestamp, summary, details, from_extension))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branch::{collect_entries_for_branch_summary, prepare_branch_entries};
    use std::path::PathBuf;

    fn synthetic(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/synthetic").join(name)
    }

    fn golden(stem: &str, dialect: Dialect) -> Value {
        let text = std::fs::read_to_string(synthetic(&format!("expected/{stem}.{}.json", dialect.name()))).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// The answer the golden's stub model gave (`## Goal\nPatch the parser.`).
    const E10_ANSWER: &str = "## Goal\nPatch the parser.";

    #[test]
    fn e10_call_summary_and_entry_line_per_dialect() {
        let bytes = std::fs::read(synthetic("E10.jsonl")).unwrap();
        for dialect in Dialect::ALL {
            let s = Session::parse(&bytes, Some(crate::RuleSet::oldest(dialect)));
            let g = golden("E10", dialect);
            let pack = PromptPack::placeholders(dialect);
            let target = s.node("a5").unwrap();
            let collected = collect_entries_for_branch_summary(&s, s.leaf(), target);
            let prep = prepare_branch_entries(&s, &collected.entries, 0, &bytes).unwrap();
            let call = summary_call(&s, &prep, &bytes, &pack, &BranchOptions::default()).unwrap().unwrap();
            assert_eq!(vec![call.to_json()], g["branch"]["calls"].as_array().unwrap().clone(), "{dialect}");
            assert!(call.conversation().starts_with("[User]: Patch the parser."));

            let (summary, details) = generated(dialect, &pack, &prep, E10_ANSWER).unwrap();
            let gen = &g["branch"]["generated"];
            assert_eq!(summary, gen["summary"].as_str().unwrap(), "{dialect}");
            assert_eq!(details["readFiles"], gen["readFiles"]);
            assert_eq!(details["modifiedFiles"], gen["modifiedFiles"]);

            let leaf = new_leaf(&s, target).map(|n| s.entry(n).id.to_string());
            assert_eq!(leaf.as_deref(), g["treeOps"]["navigate"]["newLeafId"].as_str());
            let line = entry_line(dialect, "<new-id>", leaf.as_deref(), "<now>", &summary, Some(&details), Some(false));
            assert_eq!(line, g["treeOps"]["fileTail"][0].as_str().unwrap(), "{dialect}");
        }
    }

    #[test]
    fn e10_user_target_hangs_under_its_parent() {
        let bytes = std::fs::read(synthetic("E10.jsonl")).unwrap();
        for dialect in Dialect::ALL {
            let s = Session::parse(&bytes, Some(crate::RuleSet::oldest(dialect)));
            let g = golden("E10-user", dialect);
            let target = s.node("u3").unwrap();
            assert!(returns_to_editor(s.entry(target)));
            let leaf = new_leaf(&s, target).map(|n| s.entry(n).id.to_string());
            assert_eq!(leaf.as_deref(), Some("a1"));
            // The golden's summary was given directly to branchWithSummary, without details.
            let line = entry_line(dialect, "<new-id>", leaf.as_deref(), "<now>", "Branch summary text.", None, Some(false));
            assert_eq!(line, g["treeOps"]["fileTail"][0].as_str().unwrap(), "{dialect}");
        }
        // The first entry as a user target: the summary hangs at the root.
        let s = Session::parse(&bytes, Some(crate::RuleSet::Pi073));
        assert_eq!(new_leaf(&s, s.node("u1").unwrap()), None);
        let line = entry_line(Dialect::Pi, "x", None, "t", "S", None, Some(true));
        assert_eq!(line, r#"{"type":"branch_summary","id":"x","parentId":null,"timestamp":"t","fromId":"root","summary":"S","fromHook":true}"#);
    }

    #[test]
    fn supplied_summaries_are_stored_verbatim_and_marked() {
        let sup = SuppliedBranchSummary { summary: "Mine.".into(), details: Some(serde_json::json!({"k": 1})) };
        assert_eq!(
            supplied_entry_line(Dialect::Omp, "x", Some("a5"), "t", &sup),
            r#"{"type":"branch_summary","id":"x","parentId":"a5","timestamp":"t","fromId":"a5","summary":"Mine.","details":{"k":1},"fromExtension":true}"#
        );
        let bare = SuppliedBranchSummary { summary: "Mine.".into(), details: None };
        assert_eq!(supplied_entry_line(Dialect::Pi, "x", None, "t", &bare), r#"{"type":"branch_summary","id":"x","parentId":null,"timestamp":"t","fromId":"root","summary":"Mine.","fromHook":true}"#);
    }

    #[test]
    fn e11_budget_selection_feeds_the_call() {
        // E11 (budget 25): the squeezed-in compaction is summarized as its summary message.
        let bytes = std::fs::read(synthetic("E11.jsonl")).unwrap();
        for dialect in Dialect::ALL {
            let s = Session::parse(&bytes, Some(crate::RuleSet::oldest(dialect)));
            let g = golden("E11-25", dialect);
            let to = s.node("u3").unwrap();
            let collected = collect_entries_for_branch_summary(&s, s.node("a2"), to);
            let prep = prepare_branch_entries(&s, &collected.entries, 25, &bytes).unwrap();
            let pack = PromptPack::placeholders(dialect);
            let call = summary_call(&s, &prep, &bytes, &pack, &BranchOptions::default()).unwrap().unwrap();
            let prepared = g["branch"]["prepared"].as_array().unwrap();
            assert_eq!(prep.selected.len(), prepared.len());
            let conv = call.conversation();
            assert!(conv.contains(prepared[0]["text"].as_str().unwrap()), "{dialect}: {conv}");
            assert!(conv.contains("[User]: QQQQ") && conv.contains("[Assistant]: AAAA"), "{conv}");
            let (summary, details) = generated(dialect, &pack, &prep, "Answer.").unwrap();
            assert!(summary.ends_with("Answer."), "no file tags without files: {summary:?}");
            assert_eq!(details, serde_json::json!({"readFiles": [], "modifiedFiles": []}));
        }
    }

    #[test]
    fn custom_instructions_per_dialect() {
        let bytes = std::fs::read(synthetic("E10.jsonl")).unwrap();
        let prompt = |dialect, custom: &str, replace| {
            let s = Session::parse(&bytes, Some(crate::RuleSet::oldest(dialect)));
            let entries = collect_entries_for_branch_summary(&s, s.leaf(), s.node("a5").unwrap()).entries;
            let prep = prepare_branch_entries(&s, &entries, 0, &bytes).unwrap();
            let opts = BranchOptions { custom_instructions: Some(custom.to_owned()), replace_instructions: replace };
            let call = summary_call(&s, &prep, &bytes, &PromptPack::placeholders(dialect), &opts).unwrap().unwrap();
            call.prompt.rsplit_once("</conversation>\n\n").unwrap().1.to_owned()
        };
        assert_eq!(prompt(Dialect::Omp, "Focus on tests.", false), "Focus on tests.");
        assert_eq!(prompt(Dialect::Pi, "Focus on tests.", false), "<<pi:BRANCH_SUMMARY_PROMPT>>\n\nAdditional focus: Focus on tests.");
        assert_eq!(prompt(Dialect::Pi, "Focus on tests.", true), "Focus on tests.");
        // An empty text is no instruction (`||` in JS).
        assert_eq!(prompt(Dialect::Omp, "", false), "<<omp:compaction/branch-summary.md>>");
        assert_eq!(prompt(Dialect::Pi, "", true), "<<pi:BRANCH_SUMMARY_PROMPT>>");
    }

    #[test]
    fn nothing_selected_is_the_no_content_literal() {
        let bytes = std::fs::read(synthetic("E10.jsonl")).unwrap();
        let s = Session::parse(&bytes, Some(crate::RuleSet::Omp13));
        let prep = prepare_branch_entries(&s, &[], 0, &bytes).unwrap();
        let pack = PromptPack::placeholders(Dialect::Omp);
        assert!(summary_call(&s, &prep, &bytes, &pack, &BranchOptions::default()).unwrap().is_none());
        let (summary, details) = generated(Dialect::Omp, &pack, &prep, "ignored").unwrap();
        assert_eq!(summary, NO_CONTENT);
        assert_eq!(details, serde_json::json!({"readFiles": [], "modifiedFiles": []}));
    }
}
