//! What pruning a leaf's tool output would do: `contextree prune` (its document, whose
//! `--yes` adds what the rewrite did) and the app's prune preview. The passes are
//! contextree-ops' (`prune::preview_turn`: oh-my-pi 18's stale pass, then overflow pruning).

use contextree_core::dialect::RuleChoiceWire;
use contextree_core::js::JsNumber;
use contextree_core::prune::{PrunePlan, StaleCandidate, StalePlan, ToolResult, SKILL_READ_MATCHER};
use contextree_core::session::Session;
use contextree_core::RuleChoice;
use contextree_ops::prune::TurnPreview;
use serde::Serialize;
use ts_rs::TS;

/// The pruning of a leaf: the overflow pass's fields (or, without it, the leaf), the passes,
/// the stale pass, the totals, the context and the file before and after, what a rewrite did.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PruneReport<'a> {
    /// The agent whose rules ran.
    pub dialect: &'static str,
    /// The rule set that ran and why.
    #[ts(as = "RuleChoiceWire")]
    pub rule_set: &'a RuleChoice,
    /// The overflow pass's document, or the leaf alone when it did not run.
    #[serde(flatten)]
    pub head: Head,
    /// The passes that ran: `stale`, `overflow`.
    pub passes: Vec<&'static str>,
    /// omp 18's stale pass, when it ran.
    pub stale: Option<StaleDoc>,
    /// Both passes together.
    pub total: Totals,
    /// The leaf's context before and after.
    pub context: ContextSizes,
    /// Nothing is written (a preview).
    pub dry_run: bool,
    /// What the rewrite did (after `--yes`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    #[ts(skip)]
    pub applied: Option<Applied>,
    /// Every entry either pass prunes, in order (the app outlines them).
    pub pruned_ids: Vec<String>,
    /// The file's size now and after the rewrite.
    pub bytes: ByteSizes,
    /// Both passes' notes (pi never prunes by itself, docs/decisions.md D20; …).
    pub notes: Vec<String>,
    /// Why nothing would be pruned, when nothing would.
    pub reason: Option<String>,
}

/// The overflow pass's document, or only the leaf when it did not run.
#[derive(Serialize, TS)]
#[serde(untagged)]
pub enum Head {
    /// The overflow pass ran.
    Overflow(Box<OverflowDoc>),
    /// Only the stale pass ran.
    #[serde(rename_all = "camelCase")]
    Stale {
        /// The leaf.
        leaf_id: Option<String>,
    },
}

/// The file's size before and after the rewrite.
#[derive(Serialize, TS)]
pub struct ByteSizes {
    /// Now.
    pub before: u64,
    /// After.
    pub after: u64,
}

impl<'a> PruneReport<'a> {
    /// The report of `pv` for `s`; `passes` are the passes asked for.
    pub fn new(s: &'a Session, pv: &TurnPreview, passes: Vec<&'static str>, dry_run: bool) -> Self {
        let head = match &pv.overflow {
            Some(plan) => Head::Overflow(Box::new(overflow_document(s, plan))),
            None => Head::Stale { leaf_id: pv.stale.as_ref().and_then(|p| p.leaf).and_then(|n| s.entry(n).id().map(str::to_owned)) },
        };
        let (count, saved) = pv.totals();
        let pruned_ids: Vec<String> = pv.targets().iter().map(|(n, _)| s.entry(*n).id.to_string()).collect();
        let mut notes: Vec<String> = pv.stale.iter().flat_map(|p| p.notes()).collect();
        notes.extend(pv.overflow.iter().flat_map(|p| p.notes()));
        let reason = pruned_ids.is_empty().then(|| {
            match pv.overflow.as_ref().and_then(|p| p.below_minimum_savings().map(|b| (b, p.config.minimum_savings))) {
                Some(((n, saved), minimum)) if n > 0 => {
                    format!("{n} outputs could be pruned, but they would save only {saved} tokens, below the minimum of {minimum}")
                }
                _ => "Nothing to prune: no tool output is old enough".to_owned(),
            }
        });
        Self {
            dialect: s.dialect().name(),
            rule_set: s.rule_choice(),
            head,
            passes,
            stale: pv.stale.as_ref().map(|p| stale_document(s, p)),
            total: Totals { pruned_count: count, tokens_saved: saved },
            context: ContextSizes {
                before: Sizes { message_tokens: pv.message_tokens_before, llm_tokens: pv.llm_tokens_before },
                after: Sizes { message_tokens: pv.message_tokens_after, llm_tokens: pv.llm_tokens_after },
            },
            dry_run,
            applied: None,
            pruned_ids,
            bytes: ByteSizes { before: pv.bytes_before, after: pv.bytes_after },
            notes,
            reason,
        }
    }
}

/// Results pruned and tokens saved.
#[derive(Serialize, TS)]
#[ts(rename = "PruneTotals")]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    /// Results whose output becomes a notice.
    pub pruned_count: usize,
    /// The agents' estimated saving.
    pub tokens_saved: u64,
}

/// The leaf's context before and after pruning.
#[derive(Serialize, TS)]
pub struct ContextSizes {
    /// Before.
    pub before: Sizes,
    /// After both passes.
    pub after: Sizes,
}

/// A context's size in the rule set's estimate.
#[derive(Serialize, TS)]
#[ts(rename = "ContextSize")]
#[serde(rename_all = "camelCase")]
pub struct Sizes {
    /// Agent messages.
    pub message_tokens: u64,
    /// Messages after `convertToLlm`.
    pub llm_tokens: u64,
}

/// What the rewrite did.
#[derive(Serialize, TS)]
#[ts(rename = "PruneApplied")]
#[serde(rename_all = "camelCase")]
pub struct Applied {
    /// `None`: nothing to prune, the file was not touched.
    pub backup: Option<String>,
    /// When the notices were written (ms since the epoch).
    pub pruned_at: Option<u64>,
    /// Bytes an agent appended during the rewrite, copied over.
    pub recovered_bytes: u64,
    /// What went wrong after the rename (the folder fsync), as warnings.
    pub warnings: Vec<String>,
}

/// omp 18's stale pass: its configuration as the agent calls it, the clock, and every candidate with what the pass does with it.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StaleDoc {
    /// The configuration.
    pub config: StaleConfigDoc,
    /// Entries on the path.
    pub path_length: usize,
    /// The last message's time (ms), which decides a cold cache.
    pub last_message_timestamp: Option<JsNumber>,
    /// The cache is cold: no suffix limit.
    pub idle: bool,
    /// Results it prunes.
    pub pruned_count: usize,
    /// Their estimated saving.
    pub tokens_saved: u64,
    /// The results it prunes.
    pub pruned: Vec<StaleRow>,
    /// Every candidate, with its decision.
    pub candidates: Vec<StaleRow>,
    /// Its notes, joined.
    pub note: Option<String>,
}

/// The stale pass's configuration (`pruneSupersededToolResults`' options).
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StaleConfigDoc {
    /// A newer read of the same file supersedes an older one.
    pub supersede_reads: bool,
    /// Useless results (empty, errors the agent marks) go.
    pub drop_useless: bool,
    /// Tools whose results are kept.
    pub protected_tools: [&'static str; 2],
    /// The entry before which nothing is pruned (the cache boundary).
    pub keep_boundary_id: Option<String>,
    /// Idle time after which the cache counts as cold.
    pub idle_flush_ms: u64,
    /// Tokens after a result below which it is kept while the cache is warm.
    pub suffix_token_limit: u64,
    /// The clock the pass ran with (ms).
    pub now: JsNumber,
}

/// A candidate of the stale pass.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StaleRow {
    /// The tool result.
    pub entry_id: String,
    /// Its tool.
    pub tool_name: Option<String>,
    /// Why it is a candidate (`supersededRead`, `useless`).
    pub reason: &'static str,
    /// The file a superseded read read.
    pub read_path: Option<String>,
    /// Its estimate now.
    pub tokens: u64,
    /// Its estimate with the notice.
    pub tokens_after: u64,
    /// The notice that replaces it.
    pub notice: &'static str,
    /// Tokens after it on the path.
    pub suffix_tokens: u64,
    /// It is in the leaf's context (not behind a compaction).
    pub in_context: bool,
    /// What the pass does with it.
    pub decision: &'static str,
}

fn stale_document(s: &Session, p: &StalePlan) -> StaleDoc {
    let c = &p.config;
    let row = |x: &StaleCandidate| StaleRow {
        entry_id: s.entry(x.node).id.to_string(),
        tool_name: x.tool_name.clone(),
        reason: x.reason.name(),
        read_path: x.read_path.clone(),
        tokens: x.tokens,
        tokens_after: x.tokens_after(),
        notice: x.notice(),
        suffix_tokens: x.suffix_tokens,
        in_context: x.in_context,
        decision: x.decision.name(),
    };
    let notes = p.notes();
    StaleDoc {
        config: StaleConfigDoc {
            supersede_reads: c.supersede_reads,
            drop_useless: c.drop_useless,
            protected_tools: ["skill", SKILL_READ_MATCHER],
            keep_boundary_id: p.keep_boundary_id.clone(),
            idle_flush_ms: c.idle_flush_ms,
            suffix_token_limit: c.suffix_token_limit,
            now: JsNumber(c.now_ms),
        },
        path_length: p.path_len,
        last_message_timestamp: p.last_message_ms.map(JsNumber),
        idle: p.idle,
        pruned_count: p.pruned_count(),
        tokens_saved: p.tokens_saved(),
        pruned: p.pruned().into_iter().map(row).collect(),
        candidates: p.candidates.iter().map(row).collect(),
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    }
}

/// The overflow pass: the contract's fields, the oracle's `belowMinimumSavings`, and what the
/// explorer shows besides (already-pruned results, hidden results).
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OverflowDoc {
    /// The leaf.
    pub leaf_id: Option<String>,
    /// The configuration.
    pub config: ConfigDoc,
    /// The configuration is the agent's own.
    pub agent_default_config: bool,
    /// The agent prunes by itself (pi never does, D20).
    pub agent_prunes: bool,
    /// Entries on the path.
    pub path_length: usize,
    /// Tool results on the path.
    pub tool_result_count: usize,
    /// Their estimate.
    pub tool_result_tokens: u64,
    /// Results it prunes.
    pub pruned_count: usize,
    /// Their estimated saving.
    pub tokens_saved: u64,
    /// The results it prunes.
    pub pruned: Vec<Row>,
    /// Results pruned before.
    pub already_pruned: Vec<Row>,
    /// The oracle's `belowMinimumSavings`: what it would prune, saving too little.
    pub below_minimum_savings: Option<BelowMinimum>,
    /// Its notes, joined.
    pub note: Option<String>,
}

/// The pass's configuration; omp 18's additions named as in its PruneConfig.
#[derive(Serialize, TS)]
#[ts(rename = "PruneConfigDoc")]
#[serde(rename_all = "camelCase")]
pub struct ConfigDoc {
    /// The newest tool output kept whole (tokens).
    pub protect_tokens: u64,
    /// The least saving worth a rewrite.
    pub minimum_savings: u64,
    /// Tools whose results are never pruned.
    pub protected_tools: Vec<String>,
    /// omp 18's guards. ts-rs cannot flatten an Option: they are left out of the UI's type (no
    /// UI module reads the configuration; the CLI's JSON has them).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    #[ts(skip)]
    pub omp18: Option<Omp18Config>,
}

/// omp 18's additions to the overflow pass's configuration, named as in its PruneConfig.
#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Omp18Config {
    /// Useless results go first.
    pub prune_useless: bool,
    /// The threshold path never sets a supersede key.
    pub supersede: bool,
    /// The entry before which nothing is pruned (the cache boundary).
    pub keep_boundary_id: Option<String>,
    /// Tokens kept after the boundary while the cache is warm.
    pub cache_warm_suffix_tokens: Option<u64>,
}

/// What the overflow pass would prune if the saving reached its minimum.
#[derive(Serialize, TS)]
#[ts(rename = "PruneBelowMinimum")]
pub struct BelowMinimum {
    /// What it would prune and save.
    pub result: Totals,
    /// The results it would prune.
    pub candidates: Vec<Row>,
}

/// A tool result of the overflow pass.
#[derive(Serialize, TS)]
#[ts(rename = "PruneRow")]
#[serde(rename_all = "camelCase")]
pub struct Row {
    /// The tool result.
    pub entry_id: String,
    /// Its tool.
    pub tool_name: Option<String>,
    /// Its estimate.
    pub tokens: u64,
    /// The notice that replaces it.
    pub notice: String,
    /// Tool output tokens after it.
    pub newer_tokens: u64,
    /// It is in the leaf's context (not behind a compaction).
    pub in_context: bool,
}

fn overflow_document(s: &Session, plan: &PrunePlan) -> OverflowDoc {
    let rows = |rs: Vec<&ToolResult>| rs.into_iter().map(|r| row(s, r)).collect::<Vec<_>>();
    let c = &plan.config;
    let notes = plan.notes();
    OverflowDoc {
        leaf_id: plan.leaf.and_then(|n| s.entry(n).id().map(str::to_owned)),
        config: ConfigDoc {
            protect_tokens: c.protect_tokens,
            minimum_savings: c.minimum_savings,
            protected_tools: c.protected_tools.clone(),
            omp18: c.omp18_guards.then(|| Omp18Config {
                prune_useless: c.prune_useless,
                supersede: false,
                keep_boundary_id: plan.keep_boundary_id.clone(),
                cache_warm_suffix_tokens: c.cache_warm_suffix_tokens,
            }),
        },
        agent_default_config: c.is_agent_default(),
        agent_prunes: plan.agent_prunes(),
        path_length: plan.path_len,
        tool_result_count: plan.tool_results.len(),
        tool_result_tokens: plan.tool_results.iter().map(|r| r.tokens).sum(),
        pruned_count: plan.pruned_count(),
        tokens_saved: plan.tokens_saved(),
        pruned: rows(plan.pruned()),
        already_pruned: rows(plan.already_pruned().collect()),
        below_minimum_savings: plan.below_minimum_savings().map(|(count, saved)| BelowMinimum {
            result: Totals { pruned_count: count, tokens_saved: saved },
            candidates: rows(plan.candidates().collect()),
        }),
        note: (!notes.is_empty()).then(|| notes.join(" ")),
    }
}

fn row(s: &Session, r: &ToolResult) -> Row {
    Row {
        entry_id: s.entry(r.node).id.to_string(),
        tool_name: r.tool_name.clone(),
        tokens: r.tokens,
        notice: r.notice(),
        newer_tokens: r.newer_tokens,
        in_context: r.in_context,
    }
}
