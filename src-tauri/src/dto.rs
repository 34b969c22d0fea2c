//! Wire types returned by the commands: camelCase JSON, converted from core values here.
//!
//! A value the CLI's `--json` prints too serializes itself in core or host, and both faces
//! use it (`RuleChoice`, `Diagnostic`; the library's `RootStatus`); the app's own shapes are
//! converted here.

use contextree_core::context::materialize::ContextTokens;
use contextree_core::context::usage::ContextEstimate;
use contextree_core::prompts::PackOrigin;
use contextree_core::session::{Diagnostic, Session};
use contextree_core::view::ContextMessage;
use contextree_core::{Dialect, RuleChoice};
use serde::Serialize;

use crate::state::OpenSession;

/// An opened session, as `open_session` returns it (and `session-changed` carries it).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    /// Absolute path of the file that was opened.
    pub path: String,
    /// Its file name, for the title bar.
    pub file_name: String,
    /// The agent dialect whose rules apply (`pi`, `omp`).
    pub dialect: &'static str,
    /// The dialect the file itself says; differs from `dialect` when it was forced.
    pub detected_dialect: &'static str,
    /// The rule set that ran and why (docs/decisions.md D22).
    pub rule_set: RuleChoice,
    /// What the user forced (`pi`, `omp@18`, …), `None` when detected.
    pub requested: Option<String>,
    /// Number of entries.
    pub entry_count: usize,
    /// Sum of the entries' token estimates.
    pub total_tokens: u64,
    /// The file's own leaf (its last entry), the leaf shown first.
    pub leaf_id: Option<String>,
    /// Problems found while reading the file.
    pub diagnostics: Vec<Diagnostic>,
}

impl SessionView {
    /// Summarizes an open session.
    pub fn new(open: &OpenSession) -> Self {
        let loaded = &open.loaded;
        let s = &loaded.session;
        let n = s.entries().len();
        Self {
            path: loaded.path.display().to_string(),
            file_name: loaded.path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default(),
            dialect: s.dialect().name(),
            detected_dialect: s.detection().detected.name(),
            rule_set: s.rule_choice().clone(),
            requested: open.request.map(|r| r.to_string()),
            entry_count: n,
            total_tokens: (0..n as u32).map(|i| s.entry_tokens(contextree_core::session::NodeId(i))).sum(),
            leaf_id: s.leaf().map(|n| s.entry(n).id.to_string()),
            diagnostics: s.diagnostics().to_vec(),
        }
    }
}

/// The preview of one row, as `row_previews` returns it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreviewView {
    /// Entry id.
    pub id: String,
    /// First line of its text (empty for unknown ids).
    pub text: String,
}

/// The context of a leaf, as `context_view` returns it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextView {
    /// The leaf.
    pub leaf_id: Option<String>,
    /// `pi` or `omp`.
    pub dialect: &'static str,
    /// Number of agent messages.
    pub message_count: usize,
    /// Estimate of the agent messages.
    pub message_tokens: u64,
    /// Number of LLM messages after `convertToLlm`.
    pub llm_count: usize,
    /// Estimate of the LLM messages.
    pub llm_tokens: u64,
    /// The agent's `estimateContextTokens`.
    pub estimate: EstimateView,
    /// Which prompt pack produced the wrapper text around summaries.
    pub prompts: PromptsView,
    /// One per agent message, in order.
    pub messages: Vec<MessageView>,
    /// The rule set that built it and why.
    pub rule_set: RuleChoice,
    /// pi ≥ 0.86: the system prompt and tools the request leads with, as the file
    /// determines them (the system messages replayed); `None` when there are none.
    pub system: Option<SystemView>,
    /// pi ≥ 0.87: the context edits among the leaf's context entries.
    pub edits: Vec<EditView>,
    /// What the request depends on that the file cannot tell (docs/decisions.md D23).
    pub not_reproducible: Vec<String>,
}

/// The replayed system message of a context (pi-1.6.md §2.5).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemView {
    /// pi's estimate of the whole system message.
    pub tokens: u64,
    /// Its content text (cut at the panel's limit).
    pub content: String,
    /// Prompt sections in order.
    pub sections: Vec<SystemSectionView>,
    /// Declared tools in order.
    pub tools: Vec<SystemToolView>,
    /// System messages in the context (the first, or a compaction's checkpoint, and patches).
    pub messages: usize,
}

/// One prompt section.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemSectionView {
    /// Its name (`preamble`, `tools`, …).
    pub name: String,
    /// `ceil(chars / 4)` of its text: its share of the estimate.
    pub tokens: u64,
    /// The text, cut at the panel's limit.
    pub text: String,
    /// `text` was cut.
    pub truncated: bool,
}

/// One declared tool.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemToolView {
    /// The tool's name.
    pub name: String,
    /// Length of its declaration (name, description, parameter schema) as JSON.
    pub schema_chars: u64,
    /// `ceil(schema_chars / 4)`: its share of the estimate.
    pub tokens: u64,
}

/// A `context_edit` entry and what it does to the selected leaf's context.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditView {
    /// The `context_edit` entry.
    pub edit_id: String,
    /// The entry it names.
    pub target_id: String,
    /// `omit` or `replace`.
    pub action: &'static str,
    /// The last edit of a target that is in the context: this one applies.
    pub effective: bool,
}

/// The agents' context-size estimate.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EstimateView {
    /// Usage plus trailing estimate.
    pub tokens: u64,
    /// Last reported usage.
    pub usage_tokens: u64,
    /// Estimate of the messages after it.
    pub trailing_tokens: u64,
    /// The agents show the size as unknown.
    pub unknown_after_compaction: bool,
}

/// The prompt pack of a context.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptsView {
    /// `agent`, `own` or `custom`.
    pub source: &'static str,
    /// Short name: `pi 0.73.1`, `contextree's own wording`.
    pub name: String,
    /// The full description (package path, verification).
    pub detail: String,
}

impl From<&PackOrigin> for PromptsView {
    fn from(origin: &PackOrigin) -> Self {
        let (source, name) = match origin {
            PackOrigin::Own => ("own", "contextree's own wording".to_owned()),
            PackOrigin::Agent { dialect, version, .. } => {
                let agent = match dialect {
                    Dialect::Pi => "pi",
                    Dialect::Omp => "oh-my-pi",
                };
                ("agent", format!("{agent} {version}"))
            }
            PackOrigin::Custom(what) => ("custom", what.clone()),
        };
        Self { source, name, detail: origin.to_string() }
    }
}

/// One message of the context.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    /// Position in the context.
    pub i: usize,
    /// The agent message's role.
    pub role: String,
    /// The entry behind it (the compaction entry for a compaction summary).
    pub entry_id: String,
    /// Dialect estimate of the agent message.
    pub tokens: u64,
    /// Role after `convertToLlm`; `None` when it is not sent.
    pub llm_role: Option<String>,
    /// Dialect estimate of the LLM message.
    pub llm_tokens: u64,
    /// Text of the LLM message.
    pub text: String,
    /// `text` was cut.
    pub truncated: bool,
    /// pi ≥ 0.87: the `context_edit` entry whose content this message carries.
    pub edited_by: Option<String>,
}

impl ContextView {
    /// Converts a computed context.
    pub fn new(
        s: &Session,
        leaf: Option<contextree_core::session::NodeId>,
        tokens: &ContextTokens,
        estimate: &ContextEstimate,
        origin: &PackOrigin,
        messages: Vec<ContextMessage>,
    ) -> Self {
        Self {
            leaf_id: leaf.map(|n| s.entry(n).id.to_string()),
            dialect: s.dialect().name(),
            message_count: tokens.messages.len(),
            message_tokens: tokens.message_tokens(),
            llm_count: tokens.llm.len(),
            llm_tokens: tokens.llm_tokens(),
            estimate: EstimateView {
                tokens: estimate.tokens,
                usage_tokens: estimate.usage_tokens,
                trailing_tokens: estimate.trailing_tokens,
                unknown_after_compaction: estimate.unknown_after_compaction,
            },
            prompts: origin.into(),
            messages: messages
                .into_iter()
                .enumerate()
                .map(|(i, m)| MessageView {
                    i,
                    role: m.role,
                    entry_id: s.entry(m.item.node()).id.to_string(),
                    tokens: m.tokens,
                    llm_role: m.llm_role,
                    llm_tokens: m.llm_tokens,
                    text: m.text,
                    truncated: m.truncated,
                    edited_by: match m.item {
                        contextree_core::context::Item::Replaced { edit, .. } => Some(s.entry(edit).id.to_string()),
                        _ => None,
                    },
                })
                .collect(),
            rule_set: s.rule_choice().clone(),
            system: None,
            edits: Vec::new(),
            not_reproducible: Vec::new(),
        }
    }

    /// Adds what pi ≥ 0.86 files determine beyond the messages: the replayed system
    /// message, the context edits, and what the file cannot tell (D23).
    pub fn with_request(
        mut self,
        s: &Session,
        ctx: &contextree_core::context::Context,
        system: Option<&serde_json::Value>,
        max_chars: usize,
    ) -> Self {
        use contextree_core::context::system::parts;
        let cut = |t: &str| -> (String, bool) {
            match t.char_indices().nth(max_chars) {
                Some((i, _)) => (t[..i].to_owned(), true),
                None => (t.to_owned(), false),
            }
        };
        self.system = system.map(|msg| {
            let p = parts(msg);
            SystemView {
                tokens: p.tokens,
                content: cut(&p.content).0,
                sections: p
                    .sections
                    .iter()
                    .map(|(name, text)| {
                        let (text_cut, truncated) = cut(text);
                        SystemSectionView {
                            name: name.clone(),
                            tokens: (contextree_core::js::utf16_len(text) as u64).div_ceil(4),
                            text: text_cut,
                            truncated,
                        }
                    })
                    .collect(),
                tools: p
                    .tools
                    .iter()
                    .map(|(name, chars)| SystemToolView { name: name.clone(), schema_chars: *chars, tokens: chars.div_ceil(4) })
                    .collect(),
                messages: ctx.items.iter().filter(|&&i| contextree_core::context::system::is_system_item(s, i)).count(),
            }
        });
        self.edits = ctx
            .edits
            .iter()
            .map(|e| EditView {
                edit_id: s.entry(e.edit).id.to_string(),
                target_id: e.target_id.clone(),
                action: if e.omit { "omit" } else { "replace" },
                effective: e.effective,
            })
            .collect();
        if s.rules().projects_context_edits() {
            self.not_reproducible = vec![
                "extensions' context hooks (`context`, `context_with_system` handlers) may change the messages before they are sent".into(),
                "the provider decides whether later system messages stay in place or are folded into the first (per model); the panel shows the replayed prompt first".into(),
            ];
        }
        self
    }
}

/// Tokenizer counts of a context, as `token_counts` returns them.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenCountsView {
    /// The leaf.
    pub leaf_id: Option<String>,
    /// `o200k_base` or `cl100k_base`.
    pub tokenizer: &'static str,
    /// One per agent message of the context: the LLM message's count, `None` when not sent.
    pub messages: Vec<Option<u64>>,
    /// Sum of the counts.
    pub total: u64,
}

/// The whole text of one context message, as `message_text` returns it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageTextView {
    /// Position in the context.
    pub i: usize,
    /// The text, uncut.
    pub text: String,
}

/// One entry's raw line, as `entry_detail` returns it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryDetailView {
    /// Entry id.
    pub id: String,
    /// 1-based line.
    pub line: u32,
    /// The entry's `type`.
    pub entry_type: String,
    /// The line's JSON, pretty-printed (key order kept); the raw text if it does not parse.
    pub json: String,
    /// Migration changed the entry: the agents see it differently from the file's bytes.
    pub migrated: bool,
    /// Diagnostics on this line.
    pub diagnostics: Vec<Diagnostic>,
}

/// The budget bar of a leaf, as `budget` returns it (see `contextree_core::budget::Budget`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetView {
    /// The leaf.
    pub leaf_id: Option<String>,
    /// Context window.
    pub window: u64,
    /// `override`, `model` or `default`.
    pub window_source: &'static str,
    /// The path's model (`provider/id`).
    pub model: Option<String>,
    /// The agent's estimate of the context.
    pub used: u64,
    /// The agents show the size as unknown.
    pub unknown_after_compaction: bool,
    /// Reserve tokens.
    pub reserve: u64,
    /// Auto-compaction threshold (`None`: never).
    pub threshold: Option<f64>,
    /// `keepRecentTokens`.
    pub keep_recent: u64,
    /// Where the kept-recent region starts.
    pub keep_recent_from: u64,
    /// Over the threshold.
    pub over_threshold: bool,
    /// The agent would auto-compact now.
    pub would_compact: bool,
    /// `none`, `threshold` or `overflow`.
    pub decision: &'static str,
    /// Why, in one sentence.
    pub reason: String,
    /// The agent's number misleads (D24): the estimate beside it, and why.
    pub misleading: Option<MisleadingView>,
}

/// An agent's number shown as the agent's, with the estimate beside it (docs/decisions.md D24).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MisleadingView {
    /// The estimate without the agent's mistake.
    pub estimate: u64,
    /// Why the agent's number is off.
    pub note: String,
}

impl BudgetView {
    /// Converts the core's budget.
    pub fn new(s: &Session, leaf: Option<contextree_core::session::NodeId>, b: contextree_core::budget::Budget) -> Self {
        Self {
            leaf_id: leaf.map(|n| s.entry(n).id.to_string()),
            window: b.window,
            window_source: b.window_source.name(),
            model: b.model,
            used: b.used,
            unknown_after_compaction: b.unknown_after_compaction,
            reserve: b.reserve,
            threshold: b.threshold,
            keep_recent: b.keep_recent,
            keep_recent_from: b.keep_recent_from,
            over_threshold: b.over_threshold,
            would_compact: b.would_compact,
            decision: b.decision,
            reason: b.reason,
            misleading: b.misleading.map(|m| MisleadingView { estimate: m.estimate, note: m.note }),
        }
    }
}

/// One summarizer call of a compaction preview, exactly as it would be sent.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummarizerCallView {
    /// `history`, `turnPrefix` or `short` (omp's short summary).
    pub kind: &'static str,
    pub system_prompt: String,
    pub prompt: String,
    pub max_tokens: u64,
    /// The `reasoning` option, when one is sent.
    pub reasoning: Option<String>,
}

/// What `compaction_preview` returns: the plan of a compaction, or why there is none.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionPreviewView {
    pub dialect: &'static str,
    /// The leaf whose path would be compacted.
    pub leaf_id: Option<String>,
    /// True when the agent would not compact; `reason` says why (the agent's own text).
    pub nothing_to_compact: bool,
    pub reason: Option<String>,
    /// The prompt pack the calls are written with.
    pub prompt_pack: Option<String>,
    pub first_kept_entry_id: Option<String>,
    pub is_split_turn: bool,
    /// `tokensBefore` as the dialect computes it.
    pub tokens_before: f64,
    pub keep_recent_tokens_used: u64,
    pub kept_tokens: u64,
    pub summary_budget: u64,
    /// At most this many tokens after the compaction (kept + summary budget).
    pub estimated_tokens_after: Option<u64>,
    /// Entries whose messages the history summary covers.
    pub summarized_ids: Vec<String>,
    /// The split turn's entries before the cut (summarized separately).
    pub turn_prefix_ids: Vec<String>,
    /// Entries kept verbatim after the summary.
    pub kept_ids: Vec<String>,
    /// omp: entries the previous compaction kept that this one drops.
    pub dropped_ids: Vec<String>,
    /// omp's history step without a call (`No prior history.`, a reused summary).
    pub history_literal: Option<String>,
    pub warnings: Vec<String>,
    pub calls: Vec<SummarizerCallView>,
    /// The user's requests it would summarize, with the paths, identifiers and quoted text
    /// they name (what the summary should keep; core `drops`).
    pub requests: Vec<contextree_core::drops::Request>,
}

impl CompactionPreviewView {
    /// contextree-ops' preview of a compaction, as the plan panel shows it; `requests` are the
    /// user requests it would summarize.
    pub fn new(pv: contextree_ops::compact::PlanPreview, requests: Vec<contextree_core::drops::Request>) -> Self {
        let mut v = Self {
            dialect: pv.dialect.name(),
            leaf_id: pv.leaf_id,
            nothing_to_compact: true,
            reason: None,
            prompt_pack: None,
            first_kept_entry_id: None,
            is_split_turn: false,
            tokens_before: pv.tokens_before,
            keep_recent_tokens_used: pv.keep_recent_tokens_used,
            kept_tokens: 0,
            summary_budget: 0,
            estimated_tokens_after: None,
            summarized_ids: vec![],
            turn_prefix_ids: vec![],
            kept_ids: vec![],
            dropped_ids: vec![],
            history_literal: None,
            warnings: pv.warnings,
            calls: vec![],
            requests,
        };
        let p = match pv.planned {
            Err(reason) => {
                v.reason = Some(reason.to_string());
                return v;
            }
            Ok(p) => p,
        };
        v.nothing_to_compact = false;
        v.prompt_pack = Some(p.prompt_pack);
        v.first_kept_entry_id = Some(p.first_kept_entry_id);
        v.is_split_turn = p.is_split_turn;
        v.tokens_before = p.preview.tokens_before.0;
        v.kept_tokens = p.preview.kept_tokens;
        v.summary_budget = p.preview.summary_budget;
        v.estimated_tokens_after = Some(p.preview.estimated_tokens_after);
        v.summarized_ids = p.messages_to_summarize_ids.to_vec();
        v.turn_prefix_ids = p.turn_prefix_ids.to_vec();
        v.kept_ids = p.recent_messages_ids.to_vec();
        v.dropped_ids = p.dropped_ids.to_vec();
        v.history_literal = p.history_literal;
        v.calls = p
            .calls
            .into_iter()
            .map(|c| SummarizerCallView {
                kind: c.kind.unwrap_or_default(),
                system_prompt: c.system_prompt,
                prompt: c.prompt,
                max_tokens: c.budget_tokens,
                reasoning: c.reasoning,
            })
            .collect();
        v
    }
}
