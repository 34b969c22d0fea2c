//! What the check found, as one report type every rule set fills in: the CLI,
//! the app and the dry run print the same fields whichever agent's steps ran.

use super::method::MethodChoice;
use crate::session::NodeId;
use crate::{Dialect, RuleSet};

/// What the agent would start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoDecision {
    /// No automatic compaction.
    None,
    /// `runAutoCompaction("threshold", willRetry false)`.
    Threshold,
    /// `runAutoCompaction("overflow", willRetry true)`.
    Overflow,
    /// omp 18: a `length` stop of the current model — recovery compaction,
    /// reason `incomplete`, then a retry.
    Incomplete,
}

impl AutoDecision {
    /// The name used in JSON (`none`, `threshold`, `overflow`).
    pub fn name(self) -> &'static str {
        match self {
            AutoDecision::None => "none",
            AutoDecision::Threshold => "threshold",
            AutoDecision::Overflow => "overflow",
            AutoDecision::Incomplete => "incomplete",
        }
    }
}

/// Why the check stopped before comparing with the threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// No assistant message in the context: the agents run no check.
    NoAssistant,
    /// `A.stopReason == "aborted"` (post-run check only).
    Aborted,
    /// `compaction.enabled` is false.
    Disabled,
    /// omp `compaction.strategy == "off"`.
    StrategyOff,
    /// pi: A is not newer than the latest compaction on the path.
    Stale,
    /// omp: an `error` message that is not an overflow.
    ErrorWithoutOverflow,
    /// pi, error message: no message with usable usage in the context.
    NoUsage,
    /// pi, error message: the usage used predates the latest compaction.
    StaleUsage,
    /// pi: a second overflow before a new user message or a successful reply.
    RecoveryAlreadyAttempted,
    /// omp 18: `methodOrder` names no method.
    NoMethod,
    /// omp 18: an HTTP 413-style payload rejection with local headroom: the
    /// agent shows a notice and blocks automatic continuation, no compaction.
    PayloadRejected,
    /// omp 18: an overflow, and no method in `methodOrder` is usable for it.
    NoUsableMethod,
    /// omp ≥ 18.3: a `length` stop that delivered output (a tool call, an image or text) with
    /// the window below the threshold: the truncated turn is kept, with a warning.
    LengthKept,
    /// omp ≥ 18.3: a `length` stop that delivered nothing with the window below the
    /// threshold: the turn is dropped and retried without compacting.
    LengthRetry,
}

impl Skip {
    /// The name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Skip::NoAssistant => "noAssistant",
            Skip::Aborted => "aborted",
            Skip::Disabled => "disabled",
            Skip::StrategyOff => "strategyOff",
            Skip::Stale => "stale",
            Skip::ErrorWithoutOverflow => "errorWithoutOverflow",
            Skip::NoUsage => "noUsage",
            Skip::StaleUsage => "staleUsage",
            Skip::RecoveryAlreadyAttempted => "recoveryAlreadyAttempted",
            Skip::NoMethod => "noMethod",
            Skip::PayloadRejected => "payloadRejected",
            Skip::NoUsableMethod => "noUsableMethod",
            Skip::LengthKept => "lengthKept",
            Skip::LengthRetry => "lengthRetry",
        }
    }
}

/// Why `isContextOverflow` is true.
#[derive(Debug, Clone, PartialEq)]
pub enum Overflow {
    /// `stopReason "error"` and the error message matches a provider pattern
    /// (the JS source of the first matching pattern).
    ErrorMessage {
        /// e.g. `/prompt is too long/i`.
        pattern: &'static str,
    },
    /// omp 18: the message's `errorId` carries the `ContextOverflow` flag.
    ErrorId {
        /// The `errorId`.
        error_id: u64,
    },
    /// The usage says the input did not fit (silent overflow).
    Usage {
        /// The input tokens compared (omp: input + cacheRead + cacheWrite;
        /// pi: input + cacheRead).
        input_tokens: f64,
        /// The rule, as the agent's code writes it.
        rule: &'static str,
    },
}

impl Overflow {
    /// One line for reports.
    pub fn describe(&self, window: u64) -> String {
        match self {
            Overflow::ErrorMessage { pattern } => format!("error message matches {pattern}"),
            Overflow::ErrorId { error_id } => format!("errorId {error_id:#x} has the ContextOverflow flag"),
            Overflow::Usage { input_tokens, rule } => format!("usage {input_tokens} vs window {window} ({rule})"),
        }
    }
}

/// The result of the automatic check.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoCheck {
    /// Dialect whose rules were applied.
    pub dialect: Dialect,
    /// The assistant message checked (the last one of the context).
    pub assistant: Option<NodeId>,
    /// Its `stopReason`.
    pub stop_reason: Option<String>,
    /// What the agent would start.
    pub decision: AutoDecision,
    /// Where the check stopped early, if it did.
    pub skipped: Option<Skip>,
    /// One sentence for people.
    pub reason: String,
    /// A's provider and model equal the current model.
    pub same_model: bool,
    /// No current model was given: A's own model was assumed.
    pub model_assumed: bool,
    /// A predates the latest compaction on the path (omp `<`, pi `≤`).
    pub stale: bool,
    /// `isContextOverflow(A, window)` (evaluated whatever the other gates).
    pub overflow: Option<Overflow>,
    /// `calculateContextTokens(A.usage)` (pi error path: the estimate).
    pub usage_tokens: Option<f64>,
    /// omp: `tokensSaved` of the pruning run before the threshold test.
    pub pruning_savings: u64,
    /// omp: results pruned by that run.
    pub pruned_count: usize,
    /// The number compared with the threshold (after pruning).
    pub context_tokens: Option<f64>,
    /// The threshold (None: the rule never fires).
    pub threshold: Option<f64>,
    /// The context window used.
    pub window: u64,
    /// `willRetry` of the auto-compaction (true only for overflow).
    pub will_retry: bool,
    /// omp: context promotion is tried first (a configured larger model
    /// would be used instead of compacting).
    pub context_promotion: bool,
    /// Things the file cannot tell or that change the outcome.
    pub notes: Vec<String>,
    /// The rule set whose check ran.
    pub rules: RuleSet,
    /// omp 18: results the per-turn stale pass prunes before the gate.
    pub stale_pruned_count: usize,
    /// omp 18: that pass's `tokensSaved` (not subtracted from the input).
    pub stale_savings: u64,
    /// omp 18: the stored estimate compared besides the usage (the context's
    /// messages after both pruning passes, encrypted reasoning left out;
    /// the system prompt and tool definitions are not in the file).
    pub stored_estimate: Option<u64>,
    /// omp 18: the method the compaction would use (`methodOrder`, §5.2).
    pub method: Option<MethodChoice>,
}

/// What the check is given besides the file and the settings: the facts
/// about the current model and time the file does not hold.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CheckInputs {
    /// The current time (ms); None: the last message's time (the post-run
    /// check runs right after the reply, the provider cache is warm).
    pub now_ms: Option<f64>,
    /// omp 18: the model's thinking is prefix-bound (`thinking.prefixBinding`).
    pub prefix_bound: bool,
    /// omp 18: the model accepts image input (snapcompact); None: unknown.
    pub accepts_images: Option<bool>,
    /// omp 18: the model supports provider-native compaction (OpenAI
    /// Responses compact, Anthropic compaction beta); None: unknown.
    pub native_compaction: Option<bool>,
    /// pi 1.6: the model's output limit (`maxTokens`), which makes a `length`
    /// stop below it recoverable; None: unknown.
    pub max_output_tokens: Option<u64>,
}

impl AutoCheck {
    pub(super) fn stop(mut self, skip: Skip, reason: impl Into<String>) -> AutoCheck {
        self.skipped = Some(skip);
        self.decision = AutoDecision::None;
        self.reason = reason.into();
        self
    }

    pub(super) fn overflow_text(&self) -> String {
        self.overflow.as_ref().map_or_else(String::new, |o| o.describe(self.window))
    }
}
