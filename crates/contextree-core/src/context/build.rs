//! `buildSessionContext` (context.md §1): the messages a leaf's path sends, and
//! the state (thinking level, model) read off that path.

use serde_json::{Map, Value};

use crate::js;
use crate::session::{Entry, EntryKind, Name, NodeId, Role, Session};
use crate::tokens::estimate::estimate_message;
use crate::{Dialect, RuleSet};

/// Which leaf to build the context for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaf {
    /// The agents' default: the file's last entry.
    Last,
    /// A given entry.
    At(NodeId),
    /// Before the first entry (`resetLeaf`): an empty context.
    Reset,
}

impl Leaf {
    /// The entry this leaf is in `session` (`None`: before the first entry, or no entries).
    pub fn node(self, session: &Session) -> Option<NodeId> {
        match self {
            Leaf::Last => session.leaf(),
            Leaf::At(n) => Some(n),
            Leaf::Reset => None,
        }
    }
}

/// One message of the context, before `convertToLlm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// The message an entry emits (`message`, `custom_message`, `branch_summary`).
    Entry(NodeId),
    /// The summary message synthesized from the active compaction entry.
    CompactionSummary(NodeId),
    /// pi ≥ 0.86: the system checkpoint (`systemMessage`) of the active compaction.
    SystemCheckpoint(NodeId),
    /// pi ≥ 0.87: an entry's message with its content replaced by a
    /// `context_edit` entry (`edit`).
    Replaced {
        /// The entry whose message it is.
        node: NodeId,
        /// The `context_edit` entry that replaced its content.
        edit: NodeId,
    },
}

impl Item {
    /// The entry behind the message (the compaction entry for a summary).
    pub fn node(self) -> NodeId {
        match self {
            Item::Entry(n) | Item::CompactionSummary(n) | Item::SystemCheckpoint(n) | Item::Replaced { node: n, .. } => n,
        }
    }
}

/// pi ≥ 0.87: one entry of `buildContextEntries`, with the messages it
/// projects to (`ctx.items[items]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projected {
    /// The selected entry.
    pub node: NodeId,
    /// Its messages in the context's items.
    pub items: std::ops::Range<usize>,
}

/// pi ≥ 0.87: a `context_edit` entry among the selected entries and what it did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditEffect {
    /// The `context_edit` entry.
    pub edit: NodeId,
    /// Its `targetId` (as written; may name no entry).
    pub target_id: String,
    /// The entry it names, when one exists.
    pub target: Option<NodeId>,
    /// `replacement: null`: the target's messages are left out.
    pub omit: bool,
    /// It is the last edit of its target among the selected entries, and the
    /// target is selected too.
    pub effective: bool,
}

/// The model state on the path (docs/decisions.md D16: pi and omp read it differently).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelState {
    /// pi: `{provider, modelId}` of the last `model_change` or assistant message
    /// (`None` inside when the entry lacks the field).
    pub pi: Option<(Option<String>, Option<String>)>,
    /// omp: role → `provider/modelId`, in first-set order.
    pub omp: Vec<(String, String)>,
}

/// omp's extra path state (context.md §1 step 3).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OmpState {
    /// Last `service_tier_change` (`None` = unset).
    pub service_tier: Option<String>,
    /// TTSR rules injected on the path, first-seen order.
    pub injected_rules: Vec<String>,
    /// Last MCP tool selection.
    pub selected_tools: Option<Vec<String>>,
    /// Last mode (`"none"` by default).
    pub mode: String,
    /// Data of the last mode change.
    pub mode_data: Option<Value>,
    /// omp ≥ 18: `configured` of the last thinking-level change (`"auto"` or
    /// a level), else its level.
    pub configured_thinking_level: Option<String>,
    /// omp ≥ 14: an explicit `default` model change was seen on the path.
    pub explicit_default_model: bool,
}

/// The context of one leaf.
#[derive(Debug, Clone, PartialEq)]
pub struct Context {
    /// Dialect whose rules were applied.
    pub dialect: Dialect,
    /// The leaf (None: empty session or reset leaf).
    pub leaf: Option<NodeId>,
    /// Root → leaf.
    pub path: Vec<NodeId>,
    /// The messages, in order.
    pub items: Vec<Item>,
    /// The compaction whose summary opens the context.
    pub compaction: Option<NodeId>,
    /// Path index of the compaction's first kept entry, when it is on the path
    /// before the compaction.
    pub kept_from: Option<usize>,
    /// The compaction replaced its kept messages by an OpenAI-native history
    /// (docs/decisions.md D17): the context cannot be fully recomputed offline.
    pub provider_replay: bool,
    /// Thinking level (pi keeps a stored `null` as null).
    pub thinking_level: Value,
    /// Model state.
    pub model: ModelState,
    /// omp-only state.
    pub omp: OmpState,
    /// The rule set that built it.
    pub rules: RuleSet,
    /// pi ≥ 0.87: the selected entries and their messages (empty otherwise).
    pub projected: Vec<Projected>,
    /// pi ≥ 0.87: the context edits among the selected entries, in order.
    pub edits: Vec<EditEffect>,
    /// pi ≥ 0.87: selected entries whose messages an edit left out.
    pub omitted: Vec<NodeId>,
    /// omp ≥ 18: the last `reset_boundary` on the path, when it is in force
    /// (after the compaction, or before it with the compaction winning).
    pub reset_boundary: Option<NodeId>,
    /// omp ≥ 18: the compaction's `providerReplayThroughEntryId`, when it
    /// names an entry on the path before the compaction.
    pub replay_through: Option<NodeId>,
    /// omp ≥ 18: assistants whose tool calls without a result are stripped,
    /// with the mask of the `toolCall` blocks that go (bit k = the k-th).
    pub stripped: Vec<(NodeId, u64)>,
    /// omp ≥ 18: assistants followed by their `interrupted-thinking` note; `convertToLlm`
    /// leaves their trailing unsigned thinking out of the LLM message ([`llm_source`]).
    ///
    /// [`llm_source`]: super::materialize::llm_source
    pub interrupted: Vec<NodeId>,
}

impl Context {
    /// The mask of stripped tool calls of an item's assistant, if any (omp ≥ 18).
    pub fn stripped_calls(&self, item: Item) -> Option<u64> {
        match item {
            Item::Entry(n) => self.stripped.iter().find(|(s, _)| *s == n).map(|(_, m)| *m),
            _ => None,
        }
    }
}

/// `buildSessionContext` for `leaf`.
pub fn build(session: &Session, leaf: Leaf) -> Context {
    let dialect = session.dialect();
    let leaf = leaf.node(session);
    let path = leaf.map(|l| path_to(session, l)).unwrap_or_default();
    let mut ctx = Context {
        dialect,
        rules: session.rules(),
        projected: Vec::new(),
        edits: Vec::new(),
        omitted: Vec::new(),
        reset_boundary: None,
        replay_through: None,
        stripped: Vec::new(),
        interrupted: Vec::new(),
        leaf,
        items: Vec::new(),
        compaction: None,
        kept_from: None,
        provider_replay: false,
        thinking_level: Value::String("off".into()),
        model: ModelState::default(),
        omp: OmpState { mode: "none".into(), ..OmpState::default() },
        path: Vec::new(),
    };
    let mut compaction_at = None;
    for (k, &node) in path.iter().enumerate() {
        scan_state(&mut ctx, session.entry(node), session.rules());
        if session.entry(node).entry_type == "compaction" {
            compaction_at = Some(k);
        }
    }
    if ctx.rules.projects_context_edits() {
        super::projection::project(session, &mut ctx, &path, compaction_at);
        ctx.path = path;
        return ctx;
    }
    if ctx.rules.honours_reset_boundary() {
        super::omp18::emit(session, &mut ctx, &path, compaction_at);
        ctx.path = path;
        return ctx;
    }
    let emits = |n: &NodeId| emits_message(session.entry(*n));
    match compaction_at {
        None => ctx.items.extend(path.iter().filter(|n| emits(n)).map(|&n| Item::Entry(n))),
        Some(k) => {
            let c = path[k];
            ctx.compaction = Some(c);
            ctx.items.push(Item::CompactionSummary(c));
            ctx.provider_replay = dialect == Dialect::Omp && has_openai_replay(session.entry(c));
            let first_kept = session.entry(c).str_field("firstKeptEntryId");
            ctx.kept_from = first_kept.and_then(|kept| path[..k].iter().position(|&n| session.entry(n).id == kept));
            if let (Some(start), false) = (ctx.kept_from, ctx.provider_replay) {
                ctx.items.extend(path[start..k].iter().filter(|n| emits(n)).map(|&n| Item::Entry(n)));
            }
            ctx.items.extend(path[k + 1..].iter().filter(|n| emits(n)).map(|&n| Item::Entry(n)));
        }
    }
    ctx.path = path;
    ctx
}

/// Root → `leaf` as the rule set walks it: through the tree (which cuts
/// parent cycles and self-links, showing such entries as roots), or under
/// omp ≥ 18 up the stored parent ids until an id repeats (omp-18.md §2.1),
/// through the tree too when that meets the same entries (an id lookup and a
/// hashed id per step cost half of an omp 18 leaf change otherwise).
pub fn path_to(session: &Session, leaf: NodeId) -> Vec<NodeId> {
    if !session.rules().honours_reset_boundary() || session.parent_ids_follow_tree() {
        return session.tree().path_to(leaf);
    }
    let mut path = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut current = Some(leaf);
    while let Some(n) = current {
        let e = session.entry(n);
        if !seen.insert(&*e.id) {
            break;
        }
        path.push(n);
        current = e.parent_id.as_deref().filter(|p| !p.is_empty()).and_then(|p| session.node(p));
    }
    path.reverse();
    path
}

fn scan_state(ctx: &mut Context, e: &Entry, rules: RuleSet) {
    let dialect = rules.dialect();
    match &e.kind {
        EntryKind::Message(m) if m.role == Role::Assistant => {
            let names = m.reply.model.as_deref().map_or((None, None), |(p, m)| (Some(p), Some(m)));
            let text = |name: Option<&Name>| name.map(|n| n.as_str().to_owned());
            match dialect {
                // Nearly every assistant names the model the one before it named: compared as
                // bytes first, the two strings are made only when it changes.
                Dialect::Pi if ctx.model.pi.as_ref().is_some_and(|(p, m)| same(p, names.0) && same(m, names.1)) => {}
                Dialect::Pi => ctx.model.pi = Some((text(names.0), text(names.1))),
                // omp ≥ 14: only until an explicit default model was recorded.
                Dialect::Omp if rules.keeps_explicit_default_model() && ctx.omp.explicit_default_model => {}
                Dialect::Omp => {
                    let (provider, model) = (text(names.0).unwrap_or_default(), text(names.1).unwrap_or_default());
                    set_model(&mut ctx.model.omp, "default", format!("{provider}/{model}"))
                }
            }
        }
        EntryKind::Message(_) => {}
        EntryKind::Other(map) => {
            let s = |k: &str| map.get(k).and_then(Value::as_str).map(str::to_owned);
            // The type's bytes: every entry of the path passes here, and `&str` costs a UTF-8 check.
            match (e.entry_type.as_bytes(), dialect) {
                (b"thinking_level_change", Dialect::Pi) => ctx.thinking_level = map.get("thinkingLevel").cloned().unwrap_or(Value::Null),
                (b"thinking_level_change", Dialect::Omp) => {
                    ctx.thinking_level = Value::String(s("thinkingLevel").unwrap_or_else(|| "off".into()));
                    ctx.omp.configured_thinking_level = s("configured").or_else(|| s("thinkingLevel"));
                }
                (b"model_change", Dialect::Pi) => ctx.model.pi = Some((s("provider"), s("modelId"))),
                (b"model_change", Dialect::Omp) => {
                    if let Some(model) = s("model").filter(|m| !m.is_empty()) {
                        let role = s("role").unwrap_or_else(|| "default".into());
                        ctx.omp.explicit_default_model |= role == "default";
                        set_model(&mut ctx.model.omp, &role, model);
                    }
                }
                (b"service_tier_change", Dialect::Omp) => ctx.omp.service_tier = s("serviceTier"),
                (b"ttsr_injection", Dialect::Omp) => {
                    for rule in map.get("injectedRules").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
                        if !ctx.omp.injected_rules.iter().any(|r| r == rule) {
                            ctx.omp.injected_rules.push(rule.to_owned());
                        }
                    }
                }
                // omp 18 removed MCP tool selection (omp-18.md §1.3).
                (b"mcp_tool_selection", Dialect::Omp) if !rules.keeps_explicit_default_model() => {
                    let tools = map.get("selectedToolNames").and_then(Value::as_array);
                    ctx.omp.selected_tools = Some(tools.into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect());
                }
                (b"mode_change", Dialect::Omp) => {
                    ctx.omp.mode = s("mode").unwrap_or_else(|| "none".into());
                    ctx.omp.mode_data = map.get("data").cloned();
                }
                _ => {}
            }
        }
    }
}

/// Whether a kept model name is `name`, by bytes.
fn same(kept: &Option<String>, name: Option<&Name>) -> bool {
    kept.as_deref().map(str::as_bytes) == name.map(Name::as_bytes)
}

fn set_model(models: &mut Vec<(String, String)>, role: &str, model: String) {
    match models.iter_mut().find(|(r, _)| r == role) {
        Some(slot) => slot.1 = model,
        None => models.push((role.to_owned(), model)),
    }
}

/// Whether `emit` produces a message for this entry.
pub(crate) fn emits_message(e: &Entry) -> bool {
    match e.entry_type.as_bytes() {
        b"message" => e.message().is_some(),
        b"custom_message" => true,
        b"branch_summary" => e.str_field("summary").is_some_and(|s| !s.is_empty()),
        _ => false,
    }
}

/// omp's OpenAI-native compaction payload (context.md §1.1).
pub(crate) fn has_openai_replay(c: &Entry) -> bool {
    let Some(replay) = c.object().and_then(|m| m.get("preserveData")).and_then(|p| p.get("openaiRemoteCompaction")) else {
        return false;
    };
    replay.get("provider").and_then(Value::as_str).is_some_and(|p| !p.is_empty())
        && replay.get("replacementHistory").is_some_and(Value::is_array)
}

/// The rule set's estimate of the message an entry emits when it is in a
/// context (a compaction entry: its summary message).
pub fn entry_estimate(e: &Entry, rules: RuleSet) -> u64 {
    match &e.kind {
        EntryKind::Message(m) => m.estimate(rules),
        EntryKind::Other(map) => {
            let summary_len = || map.get("summary").and_then(Value::as_str).map_or(0, |s| js::utf16_len(s) as u64);
            match e.entry_type.as_bytes() {
                b"custom_message" => {
                    // Measured as the `custom` message it becomes (rare: a clone is fine).
                    let mut msg = Map::new();
                    msg.insert("role".into(), "custom".into());
                    msg.insert("content".into(), map.get("content").cloned().unwrap_or(Value::Null));
                    estimate_message(&msg, rules)
                }
                // omp ≥ 18: `(UTF-8 bytes + 3) >> 2` of the summary (snapcompact
                // frames, which the file stores apart, are not counted here).
                b"branch_summary" | b"compaction" if rules.counts_utf8_fragments() => {
                    map.get("summary").and_then(Value::as_str).map_or(0, |s| crate::tokens::estimate::utf8_fragment_tokens(s.len() as u64))
                }
                b"branch_summary" | b"compaction" => summary_len().div_ceil(4),
                _ => 0,
            }
        }
    }
}
