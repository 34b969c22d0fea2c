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
use crate::compaction::transcript::{preferred_dialect, serialize_for_summary, SummaryDialect};
use crate::compaction::FileLists;
use crate::context::llm::convert_message;
use crate::context::materialize::{agent_message, ReadBackError};
use crate::context::serialize::serialize_message_into;
use crate::context::Item;
use crate::js::stringify;
use crate::prompts::{PromptError, PromptId, PromptPack};
use crate::session::{Entry, NodeId, Role, Session, Source};
use crate::{Dialect, RawJson, RuleSet};

/// The summary both agents return, without asking a model, when no message
/// was selected; `navigateTree` stores it as the branch summary.
pub const NO_CONTENT: &str = "No content to summarize";
/// The summary when preamble, answer and file tags are all empty.
pub const NO_SUMMARY: &str = "No summary generated";
/// `maxTokens` of the branch-summary call (hard-coded in pi 0.73 and omp;
/// pi ≥ 1.4 sends none).
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
    /// pi ≥ 1.5: the `reasoning` option, the session's thinking level when
    /// the summarizing model reasons (see
    /// [`crate::compaction::prompt::pi_reasoning`]). Ignored by the older
    /// rule sets, which send none.
    pub reasoning: Option<String>,
    /// omp@18: the id of the model that writes the summary; it picks the transcript format of
    /// the conversation (`preferredDialect`, omp-18.md §7). `None`: the fallback format.
    pub summary_model: Option<String>,
}

/// The one summarizer request of a branch summary: a system prompt and a
/// single user message holding `prompt`; `maxTokens` 2048 and no reasoning
/// (pi 0.73, omp), or no `maxTokens` and the session's thinking level (pi 1.6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchSummaryCall {
    /// The summarization system prompt.
    pub system_prompt: String,
    /// The user message text.
    pub prompt: String,
    /// `maxTokens` ([`MAX_TOKENS`]; for pi 1.6, which sends none, the
    /// notional budget a preview may count with).
    pub max_tokens: u64,
    /// Whether the request carries `maxTokens` (not under pi@1.6).
    pub max_tokens_sent: bool,
    /// The `reasoning` option (pi 1.6 only).
    pub reasoning: Option<String>,
    /// omp@18: the transcript format of the conversation.
    pub transcript: Option<SummaryDialect>,
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

    /// The `maxTokens` the request carries, if any.
    pub fn sent_max_tokens(&self) -> Option<u64> {
        self.max_tokens_sent.then_some(self.max_tokens)
    }

    /// The fixtures' shape: `{systemPrompt, prompt, maxTokens?, reasoning?}`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("systemPrompt".into(), self.system_prompt.clone().into());
        m.insert("prompt".into(), self.prompt.clone().into());
        if self.max_tokens_sent {
            m.insert("maxTokens".into(), self.max_tokens.into());
        }
        if let Some(r) = &self.reasoning {
            m.insert("reasoning".into(), r.clone().into());
        }
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
pub fn summary_call(
    session: &Session,
    prep: &PreparedBranch,
    source: &dyn Source,
    pack: &PromptPack,
    opts: &BranchOptions,
) -> Result<Option<BranchSummaryCall>, BranchSummaryError> {
    if prep.selected.is_empty() {
        return Ok(None);
    }
    let format = session
        .rules()
        .summarizes_with_model_transcript()
        .then(|| opts.summary_model.as_deref().map_or(SummaryDialect::Xml, preferred_dialect));
    let conv = branch_conversation(session, prep, source, pack, format)?;
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
    let pi16 = session.rules().at_least(RuleSet::Pi16);
    Ok(Some(BranchSummaryCall {
        system_prompt: pack.prompt(PromptId::SummarizationSystem)?,
        prompt,
        max_tokens: MAX_TOKENS,
        max_tokens_sent: !pi16,
        reasoning: opts.reasoning.clone().filter(|_| pi16),
        transcript: format,
        conversation_end: CONVERSATION_OPEN.len() + conv.len(),
    }))
}

/// `serializeConversation(convertToLlm(messages))` of the selected entries,
/// each read as `getMessageFromEntry` makes it: a compaction becomes its
/// summary message (as the context's synthesized one, without pi 1.6's
/// system checkpoint), an edited message (pi 1.6) carries its replacement,
/// the rest as in the context.
/// With `format` (omp@18), `serializeConversationForSummary` in that transcript format.
fn branch_conversation(
    session: &Session,
    prep: &PreparedBranch,
    source: &dyn Source,
    pack: &PromptPack,
    format: Option<SummaryDialect>,
) -> Result<String, ReadBackError> {
    let plain = prep.items.iter().all(|item| matches!(item, Item::Entry(n) if &*session.entry(*n).entry_type != "compaction"));
    if plain && format.is_none() {
        return conversation(session, &prep.selected, source, pack);
    }
    let mut out = String::new();
    let mut first = true;
    let mut llm_all = Vec::new();
    for &item in &prep.items {
        let item = match item {
            Item::Entry(node) if &*session.entry(node).entry_type == "compaction" => Item::CompactionSummary(node),
            other => other,
        };
        let msg = agent_message(session, item, source)?;
        if let Some(llm) = convert_message(&msg, session.rules(), pack) {
            if format.is_some() {
                llm_all.push(llm);
            } else {
                serialize_message_into(&llm, session.rules(), &mut out, &mut first);
            }
        }
    }
    Ok(match format {
        Some(f) => serialize_for_summary(&llm_all, f),
        None => out,
    })
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

/// What the `branch_summary` entry says besides its text: the rule set whose
/// layout it follows, the leaf that was left and the summary calls' usage.
#[derive(Debug, Clone, Copy)]
pub struct EntryMeta<'a> {
    /// Whose layout: pi 1.6 writes `fromId` = the old leaf and `usage`.
    pub rules: RuleSet,
    /// The leaf the user left (`None`: there was none, `"root"`).
    pub old_leaf: Option<&'a str>,
    /// The summarizer's usage (pi 1.6; `None` leaves the key out).
    pub usage: Option<&'a Value>,
}

impl EntryMeta<'_> {
    /// The older rule sets' meta: `fromId` is the parent, no usage.
    pub fn of(rules: RuleSet) -> EntryMeta<'static> {
        EntryMeta { rules, old_leaf: None, usage: None }
    }
}

/// `branchWithSummary(parent, summary, details, fromExtension[, usage])`:
/// the entry as a JSON object in the agent's key order. `fromId` is the
/// parent or `"root"` (pi 0.73, omp), the leaf that was left or `"root"`
/// (pi ≥ 0.84.3, pi-1.6.md §5); `undefined` details / usage / flag left out.
pub fn entry_value(
    meta: EntryMeta<'_>,
    id: &str,
    parent_id: Option<&str>,
    timestamp: &str,
    summary: &str,
    details: Option<&Value>,
    from_extension: Option<bool>,
) -> Value {
    let dialect = meta.rules.dialect();
    let pi16 = meta.rules.at_least(RuleSet::Pi16);
    let mut m = Map::new();
    m.insert("type".into(), "branch_summary".into());
    m.insert("id".into(), id.into());
    m.insert("parentId".into(), parent_id.map_or(Value::Null, Value::from));
    m.insert("timestamp".into(), timestamp.into());
    let from_id = if pi16 { meta.old_leaf } else { parent_id };
    m.insert("fromId".into(), from_id.unwrap_or("root").into());
    m.insert("summary".into(), summary.into());
    if let Some(d) = details {
        m.insert("details".into(), d.clone());
    }
    if let Some(u) = meta.usage.filter(|_| pi16) {
        m.insert("usage".into(), u.clone());
    }
    if let Some(flag) = from_extension {
        m.insert(dialect.extension_flag().into(), flag.into());
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
    pub details: Option<RawJson>,
}

/// The line `navigateTree` appends for a supplied summary; fails only for `details` nested
/// deeper than JSON is read ([`RawJson::to_value`]).
pub fn supplied_entry_line(
    meta: EntryMeta<'_>,
    id: &str,
    parent_id: Option<&str>,
    timestamp: &str,
    supplied: &SuppliedBranchSummary,
) -> Result<String, serde_json::Error> {
    let details = supplied.details.as_ref().map(RawJson::to_value).transpose()?;
    Ok(entry_line(meta, id, parent_id, timestamp, &supplied.summary, details.as_ref(), Some(true)))
}

/// The line the agent appends (`JSON.stringify(entry)`, no newline).
pub fn entry_line(
    meta: EntryMeta<'_>,
    id: &str,
    parent_id: Option<&str>,
    timestamp: &str,
    summary: &str,
    details: Option<&Value>,
    from_extension: Option<bool>,
) -> String {
    stringify(&entry_value(meta, id, parent_id, timestamp, summary, details, from_extension))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branch::{collect_entries_for_branch_summary, prepare_branch_entries};
    use std::path::PathBuf;

    fn synthetic(name: &str) -> PathBuf {
        contextree_testkit::fixture(&format!("synthetic/{name}"))
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
            let line = entry_line(
                EntryMeta::of(RuleSet::oldest(dialect)),
                "<new-id>",
                leaf.as_deref(),
                "<now>",
                &summary,
                Some(&details),
                Some(false),
            );
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
            let line = entry_line(
                EntryMeta::of(RuleSet::oldest(dialect)),
                "<new-id>",
                leaf.as_deref(),
                "<now>",
                "Branch summary text.",
                None,
                Some(false),
            );
            assert_eq!(line, g["treeOps"]["fileTail"][0].as_str().unwrap(), "{dialect}");
        }
        // The first entry as a user target: the summary hangs at the root.
        let s = Session::parse(&bytes, Some(crate::RuleSet::Pi073));
        assert_eq!(new_leaf(&s, s.node("u1").unwrap()), None);
        let line = entry_line(EntryMeta::of(RuleSet::Pi073), "x", None, "t", "S", None, Some(true));
        assert_eq!(
            line,
            r#"{"type":"branch_summary","id":"x","parentId":null,"timestamp":"t","fromId":"root","summary":"S","fromHook":true}"#
        );
    }

    #[test]
    fn supplied_summaries_are_stored_verbatim_and_marked() {
        let sup = SuppliedBranchSummary {
            summary: "Mine.".into(),
            details: Some(RawJson::from_serialize(&serde_json::json!({"k": 1})).unwrap()),
        };
        assert_eq!(
            supplied_entry_line(EntryMeta::of(RuleSet::Omp13), "x", Some("a5"), "t", &sup).unwrap(),
            r#"{"type":"branch_summary","id":"x","parentId":"a5","timestamp":"t","fromId":"a5","summary":"Mine.","details":{"k":1},"fromExtension":true}"#
        );
        let bare = SuppliedBranchSummary { summary: "Mine.".into(), details: None };
        assert_eq!(
            supplied_entry_line(EntryMeta::of(RuleSet::Pi073), "x", None, "t", &bare).unwrap(),
            r#"{"type":"branch_summary","id":"x","parentId":null,"timestamp":"t","fromId":"root","summary":"Mine.","fromHook":true}"#
        );
        // pi 1.6: fromId is the leaf that was left, usage after details.
        let usage = serde_json::json!({"input": 5, "output": 2});
        let meta = EntryMeta { rules: RuleSet::Pi16, old_leaf: Some("a9"), usage: Some(&usage) };
        assert_eq!(
            entry_line(meta, "x", Some("a5"), "t", "S", Some(&serde_json::json!({"readFiles": []})), Some(false)),
            r#"{"type":"branch_summary","id":"x","parentId":"a5","timestamp":"t","fromId":"a9","summary":"S","details":{"readFiles":[]},"usage":{"input":5,"output":2},"fromHook":false}"#
        );
        let meta = EntryMeta { rules: RuleSet::Pi16, old_leaf: None, usage: None };
        assert_eq!(
            supplied_entry_line(meta, "x", Some("a5"), "t", &bare).unwrap(),
            r#"{"type":"branch_summary","id":"x","parentId":"a5","timestamp":"t","fromId":"root","summary":"Mine.","fromHook":true}"#
        );
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
            let opts = BranchOptions {
                custom_instructions: Some(custom.to_owned()),
                replace_instructions: replace,
                reasoning: None,
                summary_model: None,
            };
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
