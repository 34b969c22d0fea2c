//! What the explorer shows, computed once here so that the CLI's text tree and the app's rows
//! cannot disagree: the flattened tree rows of a leaf, previews for a window of rows, and the
//! messages of a context with their text.
//!
//! Like pi's `/tree`, a chain of single children stays at one indentation; only branch points
//! indent, so a 100,000-entry linear session is 100,000 rows at one level, not a staircase.
//! Rows hold no message text: previews are a separate call for the rows on screen, so a
//! 200,000-entry session is never read whole to draw its tree.

use serde_json::Value;

use crate::context::build::{Context, Item};
use crate::context::llm::convert_message;
use crate::context::materialize::{context_message, llm_source, ContextTokens, ReadBackError};
use crate::context::preview::{entry_preview, message_text};
use crate::context::state::EntryState;
use crate::prompts::PromptPack;
use crate::session::{NodeId, Session, Source};
use crate::tokens::estimate::estimate_message;

/// The connector drawn just before a row's marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connector {
    /// The row continues its parent's chain (or is the only root): no connector.
    None,
    /// A child of a branch point with later siblings: `├─`.
    Tee,
    /// The last child of a branch point: `└─`.
    End,
}

impl Connector {
    /// Name used on the wire: `none`, `tee`, `end`.
    pub fn name(self) -> &'static str {
        match self {
            Connector::None => "none",
            Connector::Tee => "tee",
            Connector::End => "end",
        }
    }

    /// The text drawn for it by `contextree tree`.
    pub fn text(self) -> &'static str {
        match self {
            Connector::None => "",
            Connector::Tee => "├─ ",
            Connector::End => "└─ ",
        }
    }
}

/// One row of the flattened tree, in display order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeRow<'a> {
    /// The entry.
    pub node: NodeId,
    /// One flag per indentation column before the connector: `true` draws a vertical guide
    /// (`│`, an ancestor branch with later siblings), `false` a blank.
    pub guides: Vec<bool>,
    /// The connector after the guides.
    pub connector: Connector,
    /// Indentation level of the row's marker: the guides plus one for a connector.
    pub indent: u32,
    /// This is the selected leaf.
    pub is_leaf: bool,
    /// The entry has no children: it can be the leaf of a context.
    pub childless: bool,
    /// On the path from a root to the selected leaf.
    pub on_active_path: bool,
    /// The entry's state for the selected leaf.
    pub state: EntryState,
    /// The message role for messages, else the entry type (empty when it has none).
    pub kind: &'a str,
    /// The entry's label (`label` entries), if any.
    pub label: Option<&'a str>,
    /// The dialect's token estimate of the entry.
    pub tokens: u64,
    /// 1-based line in the file.
    pub line: u32,
}

impl TreeRow<'_> {
    /// `contextree tree`'s indentation: `│  ` or three blanks per guide, then the connector.
    pub fn prefix(&self) -> String {
        let mut out = String::with_capacity(self.guides.len() * 5 + 6);
        for &guide in &self.guides {
            out.push_str(if guide { "│  " } else { "   " });
        }
        out.push_str(self.connector.text());
        out
    }
}

/// The rows of the whole tree in display order (pre-order, siblings by time), with their
/// states for the leaf whose `states` these are. Iterative: a million-entry chain is fine.
pub fn tree_rows<'a>(session: &'a Session, states: &[EntryState], leaf: Option<NodeId>) -> Vec<TreeRow<'a>> {
    tree_rows_iter(session, states, leaf).collect()
}

/// [`tree_rows`] one row at a time, made as it is asked for: a writer of the rows holds one
/// row, not a million.
pub fn tree_rows_iter<'a, 's>(
    session: &'a Session,
    states: &'s [EntryState],
    leaf: Option<NodeId>,
) -> impl Iterator<Item = TreeRow<'a>> + use<'a, 's> {
    let tree = session.tree();
    // `Session::label` scans every label: index them once (the first label of a node wins).
    let mut labels: std::collections::HashMap<NodeId, &str> = std::collections::HashMap::new();
    for (n, l) in session.labels() {
        labels.entry(*n).or_insert(l.as_str());
    }
    // (node, guides, connector)
    let mut stack: Vec<(NodeId, Vec<bool>, Connector)> = Vec::new();
    let roots = tree.roots();
    let multi = roots.len() > 1;
    for (i, &r) in roots.iter().enumerate().rev() {
        let connector = match (multi, i + 1 == roots.len()) {
            (false, _) => Connector::None,
            (true, true) => Connector::End,
            (true, false) => Connector::Tee,
        };
        stack.push((r, Vec::new(), connector));
    }
    std::iter::from_fn(move || {
        let (node, guides, connector) = stack.pop()?;
        let e = session.entry(node);
        let kids: Vec<NodeId> = tree.children(node).collect();
        let state = states[node.index()];
        let mut child_guides = guides.clone();
        match connector {
            Connector::Tee => child_guides.push(true),
            Connector::End => child_guides.push(false),
            Connector::None => {}
        }
        if kids.len() == 1 {
            stack.push((kids[0], child_guides, Connector::None));
        } else {
            for (i, &k) in kids.iter().enumerate().rev() {
                let c = if i + 1 == kids.len() { Connector::End } else { Connector::Tee };
                stack.push((k, child_guides.clone(), c));
            }
        }
        Some(TreeRow {
            node,
            indent: guides.len() as u32 + u32::from(connector != Connector::None),
            guides,
            connector,
            is_leaf: Some(node) == leaf,
            childless: kids.is_empty(),
            on_active_path: state != EntryState::OffPath,
            state,
            kind: match e.message() {
                Some(m) => m.role.as_str(),
                None => &e.entry_type,
            },
            label: labels.get(&node).copied(),
            tokens: session.entry_tokens(node),
            line: e.line,
        })
    })
}

/// Row index of "no row": the parent of a root in [`TreeLayout::parent`].
pub const NO_ROW: u32 = u32::MAX;

/// The shape of the flattened tree, one column per field, in the display order of
/// [`tree_rows`] — without a guide vector per row. The guides of a row follow from its
/// ancestors' connectors (`guides(r) = guides(p) + [connector(p) is Tee]` for a connector,
/// nothing for a chain), so a client draws them for the rows on screen only; a deeply branched
/// session of a million entries costs a few columns, not a million-cell vector per row.
/// Independent of the leaf: states come separately.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TreeLayout {
    /// The entry of each row.
    pub nodes: Vec<NodeId>,
    /// The parent's row index ([`NO_ROW`] for a root); always smaller than the row's own.
    pub parent: Vec<u32>,
    /// The connector before each row's marker.
    pub connector: Vec<Connector>,
    /// Indentation level of each row's marker (as [`TreeRow::indent`]).
    pub indent: Vec<u32>,
    /// The row's entry has no children.
    pub childless: Vec<bool>,
}

impl TreeLayout {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// No rows.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

/// The layout of the whole tree: the rows of [`tree_rows`] in the same order, as columns.
/// Iterative and linear in the number of entries whatever the tree's shape.
pub fn tree_layout(session: &Session) -> TreeLayout {
    let tree = session.tree();
    let n = tree.len();
    let mut out = TreeLayout {
        nodes: Vec::with_capacity(n),
        parent: Vec::with_capacity(n),
        connector: Vec::with_capacity(n),
        indent: Vec::with_capacity(n),
        childless: Vec::with_capacity(n),
    };
    // (node, parent row, parent's indent, connector)
    let mut stack: Vec<(NodeId, u32, u32, Connector)> = Vec::new();
    let roots = tree.roots();
    let multi = roots.len() > 1;
    for (i, &r) in roots.iter().enumerate().rev() {
        let connector = match (multi, i + 1 == roots.len()) {
            (false, _) => Connector::None,
            (true, true) => Connector::End,
            (true, false) => Connector::Tee,
        };
        stack.push((r, NO_ROW, 0, connector));
    }
    let mut kids: Vec<NodeId> = Vec::new();
    while let Some((node, parent, base, connector)) = stack.pop() {
        let row = out.nodes.len() as u32;
        let indent = base + u32::from(connector != Connector::None);
        kids.clear();
        kids.extend(tree.children(node));
        if kids.len() == 1 {
            stack.push((kids[0], row, indent, Connector::None));
        } else {
            for (i, &k) in kids.iter().enumerate().rev() {
                let c = if i + 1 == kids.len() { Connector::End } else { Connector::Tee };
                stack.push((k, row, indent, c));
            }
        }
        out.nodes.push(node);
        out.parent.push(parent);
        out.connector.push(connector);
        out.indent.push(indent);
        out.childless.push(kids.is_empty());
    }
    out
}

/// One-line previews of `nodes` (the rows on screen), at most `max` characters each: only
/// these entries are read back through `source`.
pub fn previews(session: &Session, nodes: &[NodeId], source: &dyn Source, max: usize) -> Vec<String> {
    nodes.iter().map(|&n| entry_preview(session, n, source, max)).collect()
}

/// One message of a context, as the context panel shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextMessage {
    /// The context item (a compaction summary stands for its compaction entry).
    pub item: Item,
    /// The agent message's role (`user`, `toolResult`, `compactionSummary`, …).
    pub role: String,
    /// The dialect's estimate of the agent message.
    pub tokens: u64,
    /// The LLM message's role after `convertToLlm`; `None` when it drops the message.
    pub llm_role: Option<String>,
    /// The dialect's estimate of the LLM message (0 when dropped).
    pub llm_tokens: u64,
    /// Readable text of the LLM message (of the agent message when dropped), cut at
    /// `max_chars` characters.
    pub text: String,
    /// `text` was cut.
    pub truncated: bool,
}

/// The messages of `ctx` with their text after `convertToLlm`, one per agent message
/// (`tokens.messages`, which this zips with), reading each entry back once.
pub fn context_messages(
    session: &Session,
    ctx: &Context,
    tokens: &ContextTokens,
    pack: &PromptPack,
    source: &dyn Source,
    max_chars: usize,
) -> Result<Vec<ContextMessage>, ReadBackError> {
    let mut res = Vec::with_capacity(ctx.items.len());
    for (&item, (_, role, n)) in ctx.items.iter().zip(&tokens.messages) {
        let msg = context_message(session, ctx, item, source)?;
        let llm = convert_message(&llm_source(ctx, item, &msg), session.rules(), pack);
        let llm_role = llm.as_ref().and_then(|m| m.get("role")).and_then(Value::as_str).map(str::to_owned);
        let llm_tokens = llm.as_ref().and_then(Value::as_object).map_or(0, |m| estimate_message(m, session.rules()));
        let full = message_text(llm.as_ref().unwrap_or(&msg));
        let (text, truncated) = cut(full, max_chars);
        res.push(ContextMessage { item, role: role.to_string(), tokens: *n, llm_role, llm_tokens, text, truncated });
    }
    Ok(res)
}

/// One agent message of a context with the LLM message `convertToLlm` makes of it: what the
/// tokenizer counts, "show all" and the exports read, uncut.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextPair {
    /// The context item.
    pub item: Item,
    /// The agent message.
    pub message: Value,
    /// The LLM message; `None` when `convertToLlm` drops the agent message.
    pub llm: Option<Value>,
}

impl ContextPair {
    /// The readable text of the LLM message (of the agent message when dropped), uncut: the
    /// text [`context_messages`] cuts.
    pub fn text(&self) -> String {
        message_text(self.llm.as_ref().unwrap_or(&self.message))
    }
}

/// Every agent message of `ctx` with its LLM message, in order, reading each entry back once.
pub fn context_pairs(session: &Session, ctx: &Context, pack: &PromptPack, source: &dyn Source) -> Result<Vec<ContextPair>, ReadBackError> {
    ctx.items.iter().map(|&item| pair(session, ctx, item, pack, source)).collect()
}

/// Agent message `index` of `ctx` with its LLM message (`None` past the end): only that entry
/// is read back.
pub fn context_pair(
    session: &Session,
    ctx: &Context,
    pack: &PromptPack,
    source: &dyn Source,
    index: usize,
) -> Result<Option<ContextPair>, ReadBackError> {
    ctx.items.get(index).map(|&item| pair(session, ctx, item, pack, source)).transpose()
}

/// The message as the context sends it (omp 18: tool calls without a result stripped, as
/// `context_message` and every number of the context do), then `convertToLlm`.
fn pair(session: &Session, ctx: &Context, item: Item, pack: &PromptPack, source: &dyn Source) -> Result<ContextPair, ReadBackError> {
    let message = context_message(session, ctx, item, source)?;
    let llm = convert_message(&llm_source(ctx, item, &message), session.rules(), pack);
    Ok(ContextPair { item, message, llm })
}

fn cut(text: String, max_chars: usize) -> (String, bool) {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => (text[..at].to_owned(), true),
        None => (text, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::materialize::context_tokens;
    use crate::context::state::entry_states;
    use crate::context::{build, Leaf};

    /// Two branches from `u1`, the second with a label; `a2` is the file's last entry.
    const BRANCHED: &str = concat!(
        r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#,
        "\n",
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"first question\nsecond line","timestamp":1}}"#,
        "\n",
        r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"answer one"}],"timestamp":2}}"#,
        "\n",
        r#"{"type":"message","id":"u2","parentId":"a1","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"go on","timestamp":3}}"#,
        "\n",
        r#"{"type":"message","id":"a2","parentId":"u1","timestamp":"2025-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"answer two"}],"timestamp":4}}"#,
        "\n",
        r#"{"type":"label","id":"l1","parentId":"a2","timestamp":"2025-01-01T00:00:05.000Z","targetId":"a1","label":"first try"}"#,
        "\n",
    );

    fn rows_for(session: &Session, leaf: Leaf) -> Vec<TreeRow<'_>> {
        let ctx = build(session, leaf);
        let states = entry_states(session, &ctx);
        tree_rows(session, &states, ctx.leaf)
    }

    fn id(session: &Session, row: &TreeRow<'_>) -> String {
        session.entry(row.node).id.to_string()
    }

    #[test]
    fn chains_stay_at_one_level_and_branch_points_indent() {
        let s = Session::parse(BRANCHED.as_bytes(), None);
        let rows = rows_for(&s, Leaf::Last);
        let ids: Vec<String> = rows.iter().map(|r| id(&s, r)).collect();
        assert_eq!(ids, ["u1", "a1", "u2", "a2", "l1"]);
        let shape: Vec<(u32, &str, Vec<bool>)> = rows.iter().map(|r| (r.indent, r.connector.name(), r.guides.clone())).collect();
        assert_eq!(
            shape,
            [(0, "none", vec![]), (1, "tee", vec![]), (1, "none", vec![true]), (1, "end", vec![]), (1, "none", vec![false]),]
        );
        assert_eq!(rows[2].prefix(), "│  ");
        assert_eq!(rows[1].prefix(), "├─ ");
        assert_eq!(rows.iter().map(|r| r.childless).collect::<Vec<_>>(), [false, false, true, false, true]);
    }

    #[test]
    fn states_path_and_leaf_marker_follow_the_selected_leaf() {
        let s = Session::parse(BRANCHED.as_bytes(), None);
        let last = rows_for(&s, Leaf::Last);
        assert!(last[4].is_leaf && !last[2].is_leaf);
        assert_eq!(last.iter().map(|r| r.on_active_path).collect::<Vec<_>>(), [true, false, false, true, true]);
        assert_eq!(last[1].state, EntryState::OffPath);
        assert_eq!(last[4].state, EntryState::Metadata);

        let other = rows_for(&s, Leaf::At(s.node("u2").unwrap()));
        assert!(other[2].is_leaf && !other[4].is_leaf);
        assert_eq!(other.iter().map(|r| r.on_active_path).collect::<Vec<_>>(), [true, true, true, false, false]);
        assert_eq!(other[1].state, EntryState::Kept);
        assert_eq!(other[3].state, EntryState::OffPath);
    }

    #[test]
    fn rows_carry_kind_label_tokens_and_line() {
        let s = Session::parse(BRANCHED.as_bytes(), None);
        let rows = rows_for(&s, Leaf::Last);
        assert_eq!(rows.iter().map(|r| r.kind).collect::<Vec<_>>(), ["user", "assistant", "user", "assistant", "label"]);
        assert_eq!(rows[1].label, Some("first try"));
        assert_eq!(rows[0].label, None);
        assert_eq!(rows.iter().map(|r| r.line).collect::<Vec<_>>(), [2, 3, 4, 5, 6]);
        for r in &rows {
            assert_eq!(r.tokens, s.entry_tokens(r.node));
        }
    }

    #[test]
    fn several_roots_get_connectors() {
        let two_roots = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#,
            "\n",
            r#"{"type":"message","id":"r1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"a","timestamp":1}}"#,
            "\n",
            r#"{"type":"message","id":"c1","parentId":"r1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":"b","timestamp":2}}"#,
            "\n",
            r#"{"type":"message","id":"r2","parentId":null,"timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"c","timestamp":3}}"#,
            "\n",
        );
        let s = Session::parse(two_roots.as_bytes(), None);
        let rows = rows_for(&s, Leaf::Last);
        let shape: Vec<(String, String)> = rows.iter().map(|r| (id(&s, r), r.prefix())).collect();
        assert_eq!(shape, [("r1".into(), "├─ ".into()), ("c1".into(), "│  ".into()), ("r2".into(), "└─ ".into())]);
    }

    /// The guides of row `r` rebuilt from the layout's parents and connectors, as a client does.
    fn guides_from_layout(l: &TreeLayout, r: usize) -> Vec<bool> {
        let mut rev = Vec::new();
        let mut p = l.parent[r];
        while p != NO_ROW {
            match l.connector[p as usize] {
                Connector::Tee => rev.push(true),
                Connector::End => rev.push(false),
                Connector::None => {}
            }
            p = l.parent[p as usize];
        }
        rev.reverse();
        rev
    }

    #[test]
    fn the_layout_is_tree_rows_as_columns() {
        let two_roots = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#,
            "\n",
            r#"{"type":"message","id":"r1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"a","timestamp":1}}"#,
            "\n",
            r#"{"type":"message","id":"c1","parentId":"r1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":"b","timestamp":2}}"#,
            "\n",
            r#"{"type":"message","id":"c2","parentId":"r1","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"b","timestamp":3}}"#,
            "\n",
            r#"{"type":"message","id":"d1","parentId":"c1","timestamp":"2025-01-01T00:00:04.000Z","message":{"role":"user","content":"b","timestamp":4}}"#,
            "\n",
            r#"{"type":"message","id":"r2","parentId":null,"timestamp":"2025-01-01T00:00:05.000Z","message":{"role":"user","content":"c","timestamp":5}}"#,
            "\n",
        );
        for text in [BRANCHED, two_roots] {
            let s = Session::parse(text.as_bytes(), None);
            let rows = rows_for(&s, Leaf::Last);
            let l = tree_layout(&s);
            assert_eq!(l.len(), rows.len());
            for (i, r) in rows.iter().enumerate() {
                assert_eq!(l.nodes[i], r.node);
                assert_eq!(l.connector[i], r.connector);
                assert_eq!(l.indent[i], r.indent);
                assert_eq!(l.childless[i], r.childless);
                assert_eq!(guides_from_layout(&l, i), r.guides, "row {i}");
                let parent = s.tree().parent(r.node).map(|p| l.nodes.iter().position(|&x| x == p).unwrap() as u32);
                assert_eq!(l.parent[i], parent.unwrap_or(NO_ROW));
                assert!(l.parent[i] == NO_ROW || (l.parent[i] as usize) < i);
            }
        }
    }

    #[test]
    fn a_deep_comb_stays_linear() {
        // Every entry a branch point (one leaf child, one continuing child): the indent grows
        // with the depth, but the layout is a few numbers per row.
        let mut text = String::from(r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#);
        text.push('\n');
        let depth = 20_000;
        for i in 0..depth {
            let parent = if i == 0 { "null".to_owned() } else { format!("\"m{}\"", i - 1) };
            for (id, t) in [(format!("m{i}"), 2 * i), (format!("x{i}"), 2 * i + 1)] {
                text.push_str(&format!(
                    r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2025-01-01T00:00:00.000Z","message":{{"role":"user","content":"a","timestamp":{t}}}}}"#
                ));
                text.push('\n');
            }
        }
        let s = Session::parse(text.as_bytes(), None);
        let l = tree_layout(&s);
        assert_eq!(l.len(), 2 * depth);
        assert_eq!(l.indent.iter().max().copied(), Some(depth as u32));
    }

    #[test]
    fn previews_read_only_the_requested_rows() {
        let s = Session::parse(BRANCHED.as_bytes(), None);
        let nodes = [s.node("u1").unwrap(), s.node("l1").unwrap()];
        let src = BRANCHED.as_bytes().to_vec();
        assert_eq!(previews(&s, &nodes, &src, 60), ["first question", "label → a1"]);
        // A source that fails for every other span proves nothing else is read.
        struct Only(Vec<crate::session::Span>, &'static [u8]);
        impl Source for Only {
            fn bytes(&self, span: crate::session::Span) -> Result<std::borrow::Cow<'_, [u8]>, crate::session::SourceError> {
                if self.0.contains(&span) {
                    Source::bytes(self.1, span)
                } else {
                    Err(crate::session::SourceError::OutOfRange(span))
                }
            }
        }
        let a1 = s.node("a1").unwrap();
        let only = Only(vec![s.entry(a1).span], BRANCHED.as_bytes());
        assert_eq!(previews(&s, &[a1], &only, 5), ["answ…"]);
    }

    #[test]
    fn context_messages_zip_the_estimates_and_show_the_llm_text() {
        let s = Session::parse(BRANCHED.as_bytes(), None);
        let ctx = build(&s, Leaf::At(s.node("u2").unwrap()));
        let pack = PromptPack::own(s.dialect());
        let src = BRANCHED.as_bytes().to_vec();
        let tokens = context_tokens(&s, &ctx, &pack, &src).unwrap();
        let msgs = context_messages(&s, &ctx, &tokens, &pack, &src, 8).unwrap();
        assert_eq!(msgs.len(), tokens.messages.len());
        assert_eq!(msgs.iter().map(|m| m.role.as_str()).collect::<Vec<_>>(), ["user", "assistant", "user"]);
        assert_eq!(msgs.iter().map(|m| m.tokens).collect::<Vec<_>>(), tokens.messages.iter().map(|m| m.2).collect::<Vec<_>>());
        assert_eq!(msgs[1].llm_role.as_deref(), Some("assistant"));
        assert_eq!((msgs[1].text.as_str(), msgs[1].truncated), ("answer o", true));
        assert_eq!((msgs[2].text.as_str(), msgs[2].truncated), ("go on", false));
        assert_eq!(msgs.iter().map(|m| m.llm_tokens).sum::<u64>(), tokens.llm_tokens());
    }

    #[test]
    fn pairs_hold_the_uncut_text_and_the_llm_messages() {
        let s = Session::parse(BRANCHED.as_bytes(), None);
        let ctx = build(&s, Leaf::At(s.node("u2").unwrap()));
        let pack = PromptPack::own(s.dialect());
        let src = BRANCHED.as_bytes().to_vec();
        let pairs = context_pairs(&s, &ctx, &pack, &src).unwrap();
        let llm: Vec<Value> = pairs.iter().filter_map(|p| p.llm.clone()).collect();
        assert_eq!(llm, crate::context::materialize::llm_messages(&s, &ctx, &pack, &src).unwrap());
        assert_eq!(pairs[1].text(), "answer one");
        assert_eq!(pairs[0].text(), "first question\nsecond line");
        assert_eq!(context_pair(&s, &ctx, &pack, &src, 1).unwrap().as_ref(), Some(&pairs[1]));
        assert_eq!(context_pair(&s, &ctx, &pack, &src, 3).unwrap(), None);
    }
}
