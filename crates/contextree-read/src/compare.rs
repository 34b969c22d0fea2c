//! Two leaves of one session side by side: `contextree compare` and the app's compare dialog,
//! from one [`CompareReport`]: the common ancestor, each leaf's totals and notes (as the
//! [`ContextReport`](crate::ContextReport) has them), and the two contexts aligned row by row —
//! the shared prefix, then where they diverge.

mod align;

use contextree_core::context::{
    entry_states, estimate_context_tokens_of, estimate_projected_context_tokens_of, item_role, item_tokens, Context, ContextEstimate,
    EntryState, ReadBackError,
};
use contextree_core::dialect::RuleChoiceWire;
use contextree_core::prompts::PromptPack;
use contextree_core::session::{Name, Session, Source};
use contextree_core::view::context_pair;
use contextree_core::RuleChoice;
use serde::Serialize;
use ts_rs::TS;

use self::align::{Alignment, Cell, Cursor, Op, Row};
use crate::context::{
    default_role_model, model_of, not_reproducible_of, token_count, ModelReport, NotReproducible, PromptsReport, TokenCount,
};
use crate::rows::{Ordered, ReadBackSlot, Rows};

/// What a face asks of the comparison besides the numbers.
#[derive(Debug, Clone, Copy, Default)]
pub struct CompareOptions {
    /// Show each sent message's text, cut at this many characters (the app's dialog). `None`:
    /// numbers only (the CLI).
    pub text_chars: Option<usize>,
}

/// Two leaves' contexts side by side (`contextree compare --json`, the app's `compare_view`).
/// Its rows are made while it is written: write it once, then [`CompareReport::finish`] says
/// whether every message could be read back. Tokens of rows and cells are the dialect's
/// estimate of the LLM messages (after `convertToLlm`), as the sides' `llmTokens`.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompareReport<'a> {
    /// The agent whose rules ran (`pi`, `omp`).
    pub dialect: &'static str,
    /// The rule set that ran and why (one for the session, so for both leaves).
    #[ts(as = "RuleChoiceWire")]
    pub rule_set: &'a RuleChoice,
    /// Whose wording wraps the summaries (docs/decisions.md D8).
    pub prompts: PromptsReport,
    /// The deepest entry on both leaves' paths (`None`: they start at different roots).
    pub common_ancestor_id: Option<String>,
    /// That entry's number in the file.
    pub common_ancestor_index: Option<u32>,
    /// Leaf A's context.
    pub a: CompareSide<'a>,
    /// Leaf B's context.
    pub b: CompareSide<'a>,
    /// B's totals minus A's.
    pub difference: TokenDifference,
    /// Rows in all.
    pub row_count: usize,
    /// The shared prefix: the leading `same` rows, the messages both contexts start with alike.
    pub shared_count: usize,
    /// Their tokens.
    pub shared_tokens: u64,
    /// The first row that is not `same` (= `sharedCount`); `None`: the two contexts are alike.
    pub diverge_at: Option<usize>,
    /// `same` rows anywhere (the shared prefix and any after it).
    pub same_count: usize,
    /// Their tokens.
    pub same_tokens: u64,
    /// `changed` rows: an entry on both paths that the two leaves send differently, or only one
    /// of them sends (the other summarized it, an edit hid it, …).
    pub changed_count: usize,
    /// `diverged` rows: messages of entries past the common ancestor, the two branches' side by
    /// side.
    pub diverged_count: usize,
    /// The rows, in order: every message of each context on exactly one row of its side.
    #[ts(type = "Array<CompareRow>")]
    pub rows: Rows<Box<dyn Iterator<Item = CompareRow<'a>> + 'a>>,
    #[serde(skip)]
    #[ts(skip)]
    failed: ReadBackSlot,
}

/// One leaf's context: its totals and notes as [`ContextReport`](crate::ContextReport) has
/// them, and what it sends that the other leaf does not.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompareSide<'a> {
    /// The leaf.
    pub leaf_id: Option<String>,
    /// The leaf's entry number in the file.
    pub leaf_index: Option<u32>,
    /// Entries on the path from the root to the leaf.
    pub path_length: usize,
    /// The model: pi's `{provider, modelId}`, omp's default role's.
    pub model: ModelReport<'a>,
    /// omp: role → model.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(type = "Record<string, string>", optional)]
    pub models: Option<Ordered<&'a str>>,
    /// omp's mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mode: Option<&'a str>,
    /// Agent messages of the context.
    pub message_count: usize,
    /// Their estimate.
    pub message_tokens: u64,
    /// Messages after `convertToLlm`.
    pub llm_count: usize,
    /// Their estimate.
    pub llm_tokens: u64,
    /// The agent's `estimateContextTokens`.
    pub estimate_context_tokens: ContextEstimate,
    /// What the agent shows (pi ≥ 0.87: `estimateProjectedContextTokens`, pi-1.6.md §3.4).
    pub estimate_projected_context_tokens: ContextEstimate,
    /// omp: the kept messages are the provider's native replacement history.
    pub provider_replay: bool,
    /// omp 18: whose counting the numbers are.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub token_count: Option<TokenCount<'a>>,
    /// What the request depends on that the file cannot tell (docs/decisions.md D23), for the
    /// rule sets that name something (pi ≥ 0.86, omp ≥ 18).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub not_reproducible: Option<Vec<NotReproducible>>,
    /// Messages this leaf sends that the other does not send alike (its cells of the
    /// `changed` and `diverged` rows).
    pub only_count: usize,
    /// Their tokens.
    pub only_tokens: u64,
    /// Of them, those of entries past the common ancestor (its cells of the `diverged` rows).
    pub branch_count: usize,
    /// Their tokens.
    pub branch_tokens: u64,
}

/// B's totals minus A's.
#[derive(Serialize, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct TokenDifference {
    /// Of the agent messages' estimate.
    pub message_tokens: i64,
    /// Of the LLM messages' estimate.
    pub llm_tokens: i64,
    /// Of what the agent shows (`estimateProjectedContextTokens`); `None` when either side's
    /// is unknown after a compaction.
    pub estimate: Option<i64>,
}

/// One row: what each leaf holds at it.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompareRow<'a> {
    /// Its place among the rows.
    pub i: usize,
    /// `same` (both send this message alike), `changed` (an entry on both paths the leaves
    /// treat differently) or `diverged` (past the common ancestor: each cell an entry only its
    /// own leaf's path has).
    pub op: &'static str,
    /// A's side (`None`: nothing of A at this row).
    pub a: Option<CompareCell<'a>>,
    /// B's side.
    pub b: Option<CompareCell<'a>>,
}

/// One side of a row: an entry, its state for the side's leaf, and the message sent, if any.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompareCell<'a> {
    /// The entry (a compaction's summary stands for the compaction entry).
    pub entry_id: Option<&'a str>,
    /// Its number in the file.
    pub entry_index: u32,
    /// Its state for this side's leaf (`kept`, `pruned`, `summarized`, `compaction`,
    /// `hidden`, …, as `contextree tree` shows it).
    pub state: &'static str,
    /// The message this side sends of it; `None`: nothing (the other side sends it).
    pub message: Option<CellMessage<'a>>,
}

/// A message one side sends.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CellMessage<'a> {
    /// Its place in the side's context (the context report's `messages[i]`).
    pub i: usize,
    /// Its role (`user`, `toolResult`, `compactionSummary`, …).
    pub role: &'a str,
    /// The dialect's estimate of the agent message.
    pub tokens: u64,
    /// The dialect's estimate of the LLM messages `convertToLlm` makes of it (0: not sent).
    pub llm_tokens: u64,
    /// With text asked: the LLM message's readable text (the agent message's when it is not
    /// sent), cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub text: Option<String>,
    /// `text` was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub truncated: Option<bool>,
}

/// Per message of one side: the agent message's estimate and its LLM messages'.
type ItemTokens = Vec<(u64, u64)>;

impl<'a> CompareReport<'a> {
    /// Leaves `a` and `b` of `s` (their contexts), whose messages read back through `source`,
    /// with the summaries wrapped in `pack`'s words. Each message's two estimates are kept (16
    /// bytes a message a side) and where it stands (8 bytes); the rows are made while written.
    pub fn new(
        s: &'a Session,
        a: &'a Context,
        b: &'a Context,
        pack: &'a PromptPack,
        source: &'a dyn Source,
        options: CompareOptions,
    ) -> Result<Self, ReadBackError> {
        let (a_tokens, mut a_side) = side(s, a, pack, source)?;
        let (b_tokens, mut b_side) = side(s, b, pack, source)?;
        let alignment = Alignment::new(a, b, entry_states(s, a), entry_states(s, b));
        let ancestor = a.path.iter().rev().copied().find(|n| alignment.b_states[n.index()] != EntryState::OffPath);

        // One walk for the numbers; the rows walk again while they are written.
        let mut tally = Tally::default();
        let mut at = Cursor::default();
        while let Some(row) = alignment.next(&mut at) {
            tally.add(row, &a_tokens, &b_tokens, &mut a_side, &mut b_side);
        }
        let difference = TokenDifference {
            message_tokens: b_side.message_tokens as i64 - a_side.message_tokens as i64,
            llm_tokens: b_side.llm_tokens as i64 - a_side.llm_tokens as i64,
            estimate: match (&a_side.estimate_projected_context_tokens, &b_side.estimate_projected_context_tokens) {
                (x, y) if x.unknown_after_compaction || y.unknown_after_compaction => None,
                (x, y) => Some(y.tokens as i64 - x.tokens as i64),
            },
        };
        let failed = ReadBackSlot::default();
        let cells = Cells { s, pack, source, text_chars: options.text_chars, a_tokens, b_tokens };
        let mut at = Cursor::default();
        let rows = std::iter::from_fn(move || alignment.next(&mut at).map(|row| (row, cells.row(&alignment, row))))
            .enumerate()
            .map(|(i, (row, cells))| cells.map(|(a, b)| CompareRow { i, op: row.op.name(), a, b }));
        let rows = failed.until_error(rows);
        Ok(CompareReport {
            dialect: s.dialect().name(),
            rule_set: s.rule_choice(),
            prompts: pack.origin().into(),
            common_ancestor_id: ancestor.and_then(|n| s.entry(n).id().map(str::to_owned)),
            common_ancestor_index: ancestor.map(|n| n.0),
            a: a_side,
            b: b_side,
            difference,
            row_count: tally.rows,
            shared_count: tally.shared,
            shared_tokens: tally.shared_tokens,
            diverge_at: tally.diverge_at,
            same_count: tally.same,
            same_tokens: tally.same_tokens,
            changed_count: tally.changed,
            diverged_count: tally.diverged,
            rows: Rows::new(Box::new(rows)),
            failed,
        })
    }

    /// After the report was written: the first message that could not be read back while
    /// its rows were made (the file changed); the rows ended there.
    pub fn finish(self) -> Result<(), ReadBackError> {
        self.failed.finish()
    }
}

/// One leaf's numbers: each message's estimates, and its side of the report (the counts of
/// what it alone sends come with the rows).
fn side<'a>(
    s: &'a Session,
    ctx: &'a Context,
    pack: &PromptPack,
    source: &dyn Source,
) -> Result<(ItemTokens, CompareSide<'a>), ReadBackError> {
    let mut tokens: ItemTokens = Vec::with_capacity(ctx.items.len());
    let mut llm: Vec<(Name, u64)> = Vec::new();
    let mut llm_count = 0;
    for &item in &ctx.items {
        let n = item_tokens(s, ctx, item, pack, source, &mut llm)?;
        llm_count += llm.len();
        tokens.push((n, llm.iter().map(|r| r.1).sum()));
    }
    let estimate = |i: usize| tokens[i].0;
    let est = estimate_context_tokens_of(s, ctx, &estimate);
    let projected = estimate_projected_context_tokens_of(s, ctx, &estimate, source)?;
    let (model, models, mode) = model_of(s, ctx);
    let default_model = default_role_model(ctx);
    let side = CompareSide {
        leaf_id: ctx.leaf.and_then(|n| s.entry(n).id().map(str::to_owned)),
        leaf_index: ctx.leaf.map(|n| n.0),
        path_length: ctx.path.len(),
        model,
        models,
        mode,
        message_count: ctx.items.len(),
        message_tokens: tokens.iter().map(|t| t.0).sum(),
        llm_count,
        llm_tokens: tokens.iter().map(|t| t.1).sum(),
        estimate_context_tokens: est,
        estimate_projected_context_tokens: projected,
        provider_replay: ctx.provider_replay,
        token_count: s.rules().counts_utf8_fragments().then(|| token_count(default_model)),
        not_reproducible: not_reproducible_of(s, ctx, default_model),
        only_count: 0,
        only_tokens: 0,
        branch_count: 0,
        branch_tokens: 0,
    };
    Ok((tokens, side))
}

/// The report's counts, summed over the rows.
#[derive(Default)]
struct Tally {
    rows: usize,
    shared: usize,
    shared_tokens: u64,
    diverge_at: Option<usize>,
    same: usize,
    same_tokens: u64,
    changed: usize,
    diverged: usize,
}

impl Tally {
    fn add<'a>(&mut self, row: Row, a_tokens: &ItemTokens, b_tokens: &ItemTokens, a: &mut CompareSide<'a>, b: &mut CompareSide<'a>) {
        let i = self.rows;
        self.rows += 1;
        if row.op == Op::Same {
            let n = match row.a {
                Some(Cell::Sent(k)) => a_tokens[k].1,
                _ => 0,
            };
            self.same += 1;
            self.same_tokens += n;
            if self.diverge_at.is_none() {
                self.shared += 1;
                self.shared_tokens += n;
            }
            return;
        }
        self.diverge_at.get_or_insert(i);
        match row.op {
            Op::Changed => self.changed += 1,
            _ => self.diverged += 1,
        }
        for (cell, tokens, side) in [(row.a, a_tokens, a), (row.b, b_tokens, b)] {
            if let Some(Cell::Sent(k)) = cell {
                side.only_count += 1;
                side.only_tokens += tokens[k].1;
                if row.op == Op::Diverged {
                    side.branch_count += 1;
                    side.branch_tokens += tokens[k].1;
                }
            }
        }
    }
}

/// What a row's cells are made from.
struct Cells<'a> {
    s: &'a Session,
    pack: &'a PromptPack,
    source: &'a dyn Source,
    text_chars: Option<usize>,
    a_tokens: ItemTokens,
    b_tokens: ItemTokens,
}

type CellPair<'a> = (Option<CompareCell<'a>>, Option<CompareCell<'a>>);

impl<'a> Cells<'a> {
    fn row(&self, al: &Alignment<'a>, row: Row) -> Result<CellPair<'a>, ReadBackError> {
        let a = row.a.map(|c| self.cell(al.a, &al.a_states, &self.a_tokens, c)).transpose()?;
        let b = row.b.map(|c| self.cell(al.b, &al.b_states, &self.b_tokens, c)).transpose()?;
        Ok((a, b))
    }

    fn cell(&self, ctx: &'a Context, states: &[EntryState], tokens: &ItemTokens, cell: Cell) -> Result<CompareCell<'a>, ReadBackError> {
        let s = self.s;
        let (node, message) = match cell {
            Cell::Unsent(n) => (n, None),
            Cell::Sent(i) => {
                let item = ctx.items[i];
                let (text, truncated) = match self.text_chars {
                    Some(max) => match context_pair(s, ctx, self.pack, self.source, i)? {
                        Some(pair) => {
                            let (text, truncated) = cut(pair.text(), max);
                            (Some(text), Some(truncated))
                        }
                        None => (None, None),
                    },
                    None => (None, None),
                };
                let (tokens, llm_tokens) = tokens[i];
                (item.node(), Some(CellMessage { i, role: item_role(s, item), tokens, llm_tokens, text, truncated }))
            }
        };
        Ok(CompareCell { entry_id: s.entry(node).id(), entry_index: node.0, state: states[node.index()].name(), message })
    }
}

/// `text` cut at `max` characters, and whether it was.
fn cut(text: String, max: usize) -> (String, bool) {
    match text.char_indices().nth(max) {
        Some((at, _)) => (text[..at].to_owned(), true),
        None => (text, false),
    }
}
