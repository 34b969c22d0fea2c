//! The automatic compaction check (compaction.md §1.2): would the agent
//! auto-compact after its last run, and what would the overflow path do?
//!
//! Follows omp 13.19's `#checkCompaction` and pi 0.73.1's `_checkCompaction`
//! step by step for the last assistant message `A` of the leaf's context (the
//! agents' in-memory messages), in the post-run variant (aborted messages are
//! skipped; the check before the next prompt would not skip them).
//!
//! `isContextOverflow` ([`context_overflow`]) reproduces both agents'
//! pi-ai patterns exactly: the JS regexes (`/…/i`, no `u` flag) are applied
//! to the ASCII-lowercased message with their JS meaning of `.` (no line
//! terminators), `\d`, `\s` and `\b` spelled out (tests/golden-overflow).
//!
//! What a file cannot tell, and the report says so: the user's current model
//! (`current_model`; assumed to be A's own model when not given), the model
//! config behind omp's context promotion, and pi's in-memory "one overflow
//! recovery per prompt" flag (inferred from the path).

use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use std::collections::HashMap;

use super::settings::{should_compact_under, threshold_tokens_under, CompactionSettings, Method, Strategy};
use crate::context::materialize::{agent_message, context_message, item_estimate, message_tokens, ReadBackError};
use crate::context::usage::{estimate_context_tokens, estimate_projected_context_tokens};
use crate::context::{entry_estimate, Context, Item};
use crate::prune::{plan_prune_after, plan_prune_in, plan_stale_reachable, PruneConfig, StaleConfig, CACHE_WARM_SUFFIX_TOKENS};
use crate::session::{MessageMeta, NodeId, Role, Session, Source, Usage};
use crate::tokens::estimate::omp18_message_tokens;
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

/// Whether a method is usable for the reason on the current model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Usable {
    /// Usable.
    Yes,
    /// Not usable, and why.
    No(&'static str),
    /// Depends on a fact about the model the file does not hold.
    Unknown(&'static str),
}

/// omp 18's `isCompactionMethodUsable` walked over `methodOrder`.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodChoice {
    /// `threshold`, `overflow` or `incomplete`.
    pub reason: &'static str,
    /// The methods looked at, in order, up to the first surely usable one.
    pub steps: Vec<(Method, Usable)>,
    /// The first surely usable method (None: none is).
    pub method: Option<Method>,
}

impl MethodChoice {
    fn walk(reason: &'static str, settings: &CompactionSettings, inputs: &CheckInputs, exclude_media: bool) -> MethodChoice {
        let mut steps = Vec::new();
        let mut method = None;
        for m in settings.method_order.methods() {
            let usable = match m {
                Method::Remote if settings.remote_endpoint => Usable::Yes,
                Method::Remote => match inputs.native_compaction {
                    Some(true) => Usable::Yes,
                    Some(false) => Usable::No("no remote endpoint and no provider-native compaction"),
                    None => Usable::Unknown("if the model supports provider-native compaction (OpenAI Responses compact, Anthropic Opus/Sonnet ≥ 4.6 compaction beta)"),
                },
                Method::Snapcompact if exclude_media => Usable::No("a payload rejection excludes media methods"),
                Method::Snapcompact => match inputs.accepts_images {
                    Some(true) => Usable::Yes,
                    Some(false) => Usable::No("the model does not accept images"),
                    None => Usable::Unknown("if the model accepts images"),
                },
                Method::Handoff if reason == "overflow" => Usable::No("not for an overflow"),
                Method::Handoff | Method::Shake | Method::Soft => Usable::Yes,
            };
            steps.push((m, usable));
            if usable == Usable::Yes {
                method = Some(m);
                break;
            }
        }
        MethodChoice { reason, steps, method }
    }

    /// Whether some method is usable, or may be (`hasUsableCompactionMethod`).
    fn available(&self) -> bool {
        self.method.is_some() || self.steps.iter().any(|(_, u)| matches!(u, Usable::Unknown(_)))
    }

    /// One sentence: what omp 18 would run, and what contextree writes.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (m, u) in &self.steps {
            if let Usable::Unknown(cond) = u {
                parts.push(format!("{} {cond}", m.name()));
            }
        }
        let last = self.method.map_or_else(|| "no method".to_owned(), |m| m.name().to_owned());
        let pick = if parts.is_empty() { last } else { format!("{}, else {last}", parts.join(", else ")) };
        format!(
            "omp 18 would compact with {pick} (methodOrder; reason {}); contextree writes a `soft` summary (an LLM summary in place)",
            self.reason
        )
    }
}

/// The JS patterns: `(source as printed by JS, equivalent Rust pattern on the
/// ASCII-lowercased text)`.
type Patterns = Vec<(&'static str, Regex)>;

/// JS `.` without the `s` flag: anything but a line terminator.
const DOT: &str = r"[^\n\r\x{2028}\x{2029}]";
/// JS `\s`.
const WS: &str = r"[\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]";
/// JS `\b` (ASCII word characters).
const WB: &str = r"(?-u:\b)";

fn compile(list: &[(&'static str, &str)]) -> Patterns {
    list.iter()
        .map(|(js, rust)| {
            let rust = rust.replace("{DOT}", DOT).replace("{WS}", WS).replace("{WB}", WB);
            (*js, Regex::new(&rust).unwrap_or_else(|e| panic!("{js}: {e}")))
        })
        .collect()
}

/// pi 0.73.1 `OVERFLOW_PATTERNS` (pi-ai `utils/overflow.js`), in order.
fn pi_patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        compile(&[
            ("/prompt is too long/i", "prompt is too long"),
            ("/request_too_large/i", "request_too_large"),
            ("/input is too long for requested model/i", "input is too long for requested model"),
            ("/exceeds the context window/i", "exceeds the context window"),
            ("/input token count.*exceeds the maximum/i", "input token count{DOT}*exceeds the maximum"),
            ("/maximum prompt length is \\d+/i", "maximum prompt length is [0-9]+"),
            ("/reduce the length of the messages/i", "reduce the length of the messages"),
            ("/maximum context length is \\d+ tokens/i", "maximum context length is [0-9]+ tokens"),
            ("/exceeds the limit of \\d+/i", "exceeds the limit of [0-9]+"),
            ("/exceeds the available context size/i", "exceeds the available context size"),
            ("/greater than the context length/i", "greater than the context length"),
            ("/context window exceeds limit/i", "context window exceeds limit"),
            ("/exceeded model token limit/i", "exceeded model token limit"),
            ("/too large for model with \\d+ maximum context length/i", "too large for model with [0-9]+ maximum context length"),
            ("/model_context_window_exceeded/i", "model_context_window_exceeded"),
            ("/prompt too long; exceeded (?:max )?context length/i", "prompt too long; exceeded (?:max )?context length"),
            ("/context[_ ]length[_ ]exceeded/i", "context[_ ]length[_ ]exceeded"),
            ("/too many tokens/i", "too many tokens"),
            ("/token limit exceeded/i", "token limit exceeded"),
            ("/^4(?:00|13)\\s*(?:status code)?\\s*\\(no body\\)/i", r"^4(?:00|13){WS}*(?:status code)?{WS}*\(no body\)"),
        ])
    })
}

/// pi 0.73.1 `NON_OVERFLOW_PATTERNS`: throttling and rate limits.
fn pi_non_overflow() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        compile(&[
            ("/^(Throttling error|Service unavailable):/i", "^(throttling error|service unavailable):"),
            ("/rate limit/i", "rate limit"),
            ("/too many requests/i", "too many requests"),
        ])
    })
}

/// pi 1.6.0 `OVERFLOW_PATTERNS` (`@earendil-works/pi-ai` `dist/utils/overflow.js`), in order.
fn pi16_patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        compile(&[
            ("/prompt (?:is )?too long/i", "prompt (?:is )?too long"),
            ("/prompt exceeds max length/i", "prompt exceeds max length"),
            ("/request_too_large/i", "request_too_large"),
            ("/input is too long for requested model/i", "input is too long for requested model"),
            ("/exceeds the context window/i", "exceeds the context window"),
            (
                "/exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\\d,]+ tokens?|\\s*\\([\\d,]+\\))/i",
                r"exceeds (?:the )?(?:model'?s )?maximum context length(?: of [0-9,]+ tokens?|{WS}*\([0-9,]+\))",
            ),
            ("/context window exceeded/i", "context window exceeded"),
            ("/input token count.*exceeds the maximum/i", "input token count{DOT}*exceeds the maximum"),
            ("/maximum prompt length is \\d+/i", "maximum prompt length is [0-9]+"),
            ("/reduce the length of the messages/i", "reduce the length of the messages"),
            ("/maximum context length is \\d+ tokens/i", "maximum context length is [0-9]+ tokens"),
            (
                "/exceeds (?:the )?maximum allowed input length of [\\d,]+ tokens?/i",
                "exceeds (?:the )?maximum allowed input length of [0-9,]+ tokens?",
            ),
            (
                "/input \\(\\d+ tokens\\) is longer than the model'?s context length \\(\\d+ tokens\\)/i",
                r"input \([0-9]+ tokens\) is longer than the model'?s context length \([0-9]+ tokens\)",
            ),
            ("/exceeds the limit of \\d+/i", "exceeds the limit of [0-9]+"),
            ("/exceeds the available context size/i", "exceeds the available context size"),
            ("/greater than the context length/i", "greater than the context length"),
            ("/context window exceeds limit/i", "context window exceeds limit"),
            ("/exceeded model token limit/i", "exceeded model token limit"),
            ("/too large for model with \\d+ maximum context length/i", "too large for model with [0-9]+ maximum context length"),
            (
                "/prompt has [\\d,]+ tokens?, but the configured context size is [\\d,]+ tokens?/i",
                "prompt has [0-9,]+ tokens?, but the configured context size is [0-9,]+ tokens?",
            ),
            ("/model_context_window_exceeded/i", "model_context_window_exceeded"),
            ("/prompt too long; exceeded (?:max )?context length/i", "prompt too long; exceeded (?:max )?context length"),
            ("/range of input length should be/i", "range of input length should be"),
            ("/context[_ ]length[_ ]exceeded/i", "context[_ ]length[_ ]exceeded"),
            ("/too many tokens/i", "too many tokens"),
            ("/token limit exceeded/i", "token limit exceeded"),
            ("/^(?:[\\w -]+ API error \\(413\\):|413(?:\\s|:|$))/i", r"^(?:[a-z0-9_ -]+ api error \(413\):|413(?:{WS}|:|$))"),
        ])
    })
}

/// pi 1.6.0's `CEREBRAS_BODYLESS_OVERFLOW_PATTERN` (provider `cerebras` only).
fn pi16_cerebras() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        compile(&[("/^4(?:00|13)\\s*(?:status code)?\\s*\\(no body\\)/i", r"^4(?:00|13){WS}*(?:status code)?{WS}*\(no body\)")])
    })
}

/// The error-message half of pi 1.6.0's `isContextOverflow` (`provider`: the
/// message's, for the Cerebras pattern).
pub fn pi16_overflow_pattern(error_message: &str, provider: Option<&str>) -> Option<&'static str> {
    if error_message.is_empty() {
        return None;
    }
    let text = error_message.to_ascii_lowercase();
    if pi_non_overflow().iter().any(|(_, r)| r.is_match(&text)) {
        return None;
    }
    let first = |ps: &'static Patterns| ps.iter().find(|(_, r)| r.is_match(&text)).map(|(js, _)| *js);
    first(pi16_patterns()).or_else(|| first(pi16_cerebras()).filter(|_| provider == Some("cerebras")))
}

/// omp 13.19 `OVERFLOW_PATTERNS` (pi-ai `src/utils/overflow.ts`), in order,
/// then the inline 400/413 no-body test.
fn omp_patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        compile(&[
            ("/prompt is too long/i", "prompt is too long"),
            ("/input is too long for requested model/i", "input is too long for requested model"),
            ("/exceeds the context window/i", "exceeds the context window"),
            ("/input token count.*exceeds the maximum/i", "input token count{DOT}*exceeds the maximum"),
            ("/maximum prompt length is \\d+/i", "maximum prompt length is [0-9]+"),
            ("/reduce the length of the messages/i", "reduce the length of the messages"),
            ("/maximum context length is \\d+ tokens/i", "maximum context length is [0-9]+ tokens"),
            ("/exceeds the limit of \\d+/i", "exceeds the limit of [0-9]+"),
            ("/exceeds the available context size/i", "exceeds the available context size"),
            (
                "/requested tokens?.*exceed.*context (window|length|size)/i",
                "requested tokens?{DOT}*exceed{DOT}*context (window|length|size)",
            ),
            (
                "/context (window|length|size).*(exceeded|overflow|too small)/i",
                "context (window|length|size){DOT}*(exceeded|overflow|too small)",
            ),
            ("/(prompt|input).*(too long|too large).*(context|n_ctx)/i", "(prompt|input){DOT}*(too long|too large){DOT}*(context|n_ctx)"),
            (
                "/requested tokens?.*(exceeds?|greater than).*(n_ctx|context)/i",
                "requested tokens?{DOT}*(exceeds?|greater than){DOT}*(n_ctx|context)",
            ),
            ("/greater than the context length/i", "greater than the context length"),
            ("/context window exceeds limit/i", "context window exceeds limit"),
            ("/exceeded model token limit/i", "exceeded model token limit"),
            ("/context[_ ]length[_ ]exceeded/i", "context[_ ]length[_ ]exceeded"),
            ("/too many tokens/i", "too many tokens"),
            ("/token limit exceeded/i", "token limit exceeded"),
            ("/request_too_large/i", "request_too_large"),
            ("/request exceeds the maximum size/i", "request exceeds the maximum size"),
            ("/payload too large/i", "payload too large"),
            ("/entity too large/i", "entity too large"),
            (
                "/\\b413\\b.*\\b(request|payload|entity)\\b.*\\btoo large\\b/i",
                "{WB}413{WB}{DOT}*{WB}(request|payload|entity){WB}{DOT}*{WB}too large{WB}",
            ),
            ("/^4(00|13)\\s*(status code)?\\s*\\(no body\\)/i", r"^4(00|13){WS}*(status code)?{WS}*\(no body\)"),
        ])
    })
}

/// omp 18 pi-ai `OVERFLOW_PATTERNS` (`error/flags.ts`: the token-context
/// evidence, then the generic numeric limit), then `OVERFLOW_NO_BODY_PATTERN`.
fn omp18_patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let mut list = omp18_evidence_list();
        list.push(("/exceeds the limit of \\d+/i", "exceeds the limit of [0-9]+"));
        list.push(("/\\b4(00|13)\\s*(status code)?\\s*\\(no body\\)/i", r"{WB}4(00|13){WS}*(status code)?{WS}*\(no body\)"));
        compile(&list)
    })
}

/// omp 18 `CONTEXT_OVERFLOW_EVIDENCE_PATTERNS` (token wording only).
fn omp18_evidence() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| compile(&omp18_evidence_list()))
}

fn omp18_evidence_list() -> Vec<(&'static str, &'static str)> {
    vec![
        ("/prompt is too long/i", "prompt is too long"),
        ("/input is too long for requested model/i", "input is too long for requested model"),
        ("/exceeds the context window/i", "exceeds the context window"),
        ("/input token count.*exceeds the maximum/i", "input token count{DOT}*exceeds the maximum"),
        ("/maximum prompt length is \\d+/i", "maximum prompt length is [0-9]+"),
        ("/reduce the length of the messages/i", "reduce the length of the messages"),
        ("/maximum context length is \\d+ tokens/i", "maximum context length is [0-9]+ tokens"),
        ("/exceeds the available context size/i", "exceeds the available context size"),
        ("/requested tokens?.*exceed.*context (window|length|size)/i", "requested tokens?{DOT}*exceed{DOT}*context (window|length|size)"),
        (
            "/context (window|length|size).*(exceeded|overflow|too small)/i",
            "context (window|length|size){DOT}*(exceeded|overflow|too small)",
        ),
        ("/(prompt|input).*(too long|too large).*(context|n_ctx)/i", "(prompt|input){DOT}*(too long|too large){DOT}*(context|n_ctx)"),
        (
            "/requested tokens?.*(exceeds?|greater than).*(n_ctx|context)/i",
            "requested tokens?{DOT}*(exceeds?|greater than){DOT}*(n_ctx|context)",
        ),
        ("/greater than the context length/i", "greater than the context length"),
        ("/context window exceeds limit/i", "context window exceeds limit"),
        ("/exceeded model token limit/i", "exceeded model token limit"),
        ("/context[_ ]length[_ ]exceeded/i", "context[_ ]length[_ ]exceeded"),
        ("/too many tokens/i", "too many tokens"),
        ("/token limit exceeded/i", "token limit exceeded"),
        ("/request_too_large[^\\n]*\\btokens?\\b/i", r"request_too_large[^\n]*{WB}tokens?{WB}"),
        ("/\\btokens?\\b[^\\n]*request_too_large/i", r"{WB}tokens?{WB}[^\n]*request_too_large"),
        ("/model_context_window_exceeded/i", "model_context_window_exceeded"),
        ("/prompt filled the context window/i", "prompt filled the context window"),
        ("/exceeds the limit of \\d+ tokens?\\b/i", "exceeds the limit of [0-9]+ tokens?{WB}"),
        ("/chat history exceeds the \\d+-message limit/i", "chat history exceeds the [0-9]+-message limit"),
    ]
}

/// omp 18 `PAYLOAD_REJECTION_PATTERNS` (HTTP 413 byte/media rejections).
fn omp18_payload_patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        compile(&[
            ("/\\b413\\s*(?:status code\\s*)?\\(no body\\)/i", r"{WB}413{WS}*(?:status code{WS}*)?\(no body\)"),
            (
                "/\\b413\\b[^.\\n]{0,120}\\b(?:request|payload|entity|body)\\b[^.\\n]{0,60}\\b(?:exceed|too large|limit)/i",
                r"{WB}413{WB}[^.\n]{0,120}{WB}(?:request|payload|entity|body){WB}[^.\n]{0,60}{WB}(?:exceed|too large|limit)",
            ),
            ("/request_too_large/i", "request_too_large"),
            ("/(?:payload|entity) too large/i", "(?:payload|entity) too large"),
            ("/request exceeds the maximum (?:size|number of bytes)/i", "request exceeds the maximum (?:size|number of bytes)"),
        ])
    })
}

/// omp 18 pi-ai `errorId` flags.
const FLAG_CONTEXT_OVERFLOW: u64 = 0x0080_0000;
const FLAG_PAYLOAD_REJECTED: u64 = 0x8000_0000;

/// omp 18's `matchesOverflowText`: the JS source of the first matching pattern.
pub fn omp18_overflow_pattern(error_message: &str) -> Option<&'static str> {
    let text = error_message.to_ascii_lowercase();
    omp18_patterns().iter().find(|(_, r)| r.is_match(&text)).map(|(js, _)| *js)
}

/// omp 18's `matchesPayloadRejectionText`: a 413-style pattern without
/// token-context wording.
pub fn omp18_payload_pattern(error_message: &str) -> Option<&'static str> {
    let text = error_message.to_ascii_lowercase();
    let hit = omp18_payload_patterns().iter().find(|(_, r)| r.is_match(&text)).map(|(js, _)| *js)?;
    (!omp18_evidence().iter().any(|(_, r)| r.is_match(&text))).then_some(hit)
}

/// omp 18's `AIError.isContextOverflow(A, window)`: the `errorId` flag, a
/// usage above the window (input + cacheRead + cacheWrite, any stop
/// reason), or an `error` whose message matches.
pub fn omp18_overflow(
    stop_reason: Option<&str>,
    error_message: Option<&str>,
    error_id: Option<u64>,
    usage: Option<Usage>,
    window: u64,
) -> Option<Overflow> {
    if let Some(id) = error_id.filter(|id| id & FLAG_CONTEXT_OVERFLOW != 0) {
        return Some(Overflow::ErrorId { error_id: id });
    }
    if let Some(u) = usage.filter(|_| window > 0) {
        let input = u.input + u.cache_read + u.cache_write;
        if input > window as f64 {
            return Some(Overflow::Usage { input_tokens: input, rule: "input + cacheRead + cacheWrite > contextWindow" });
        }
    }
    let message = error_message.filter(|m| !m.is_empty() && stop_reason == Some("error"))?;
    omp18_overflow_pattern(message).map(|pattern| Overflow::ErrorMessage { pattern })
}

/// omp 18's `AIError.isPayloadRejection(A)`.
fn omp18_payload_rejection(a: &Assistant) -> Option<String> {
    if let Some(id) = a.error_id.filter(|id| id & FLAG_PAYLOAD_REJECTED != 0) {
        return Some(format!("errorId {id:#x} has the PayloadRejected flag"));
    }
    let message = a.error_message.as_deref().filter(|m| !m.is_empty() && a.meta.reply.stop_reason.as_deref() == Some("error"))?;
    omp18_payload_pattern(message).map(|p| format!("error message matches {p}"))
}

/// The error-message half of `isContextOverflow`: the JS source of the first
/// matching pattern, or None (pi: also None for throttling / rate limits).
pub fn overflow_pattern(dialect: Dialect, error_message: &str) -> Option<&'static str> {
    if error_message.is_empty() {
        return None;
    }
    let text = error_message.to_ascii_lowercase();
    let first = |ps: &'static Patterns| ps.iter().find(|(_, r)| r.is_match(&text)).map(|(js, _)| *js);
    match dialect {
        Dialect::Pi if first(pi_non_overflow()).is_some() => None,
        Dialect::Pi => first(pi_patterns()),
        Dialect::Omp => first(omp_patterns()),
    }
}

/// `isContextOverflow(A, window)` of the dialect's pi-ai.
pub fn context_overflow(
    dialect: Dialect,
    stop_reason: Option<&str>,
    error_message: Option<&str>,
    usage: Option<Usage>,
    window: u64,
) -> Option<Overflow> {
    if stop_reason == Some("error") {
        if let Some(pattern) = error_message.and_then(|m| overflow_pattern(dialect, m)) {
            return Some(Overflow::ErrorMessage { pattern });
        }
    }
    // `contextWindow &&`: a zero window disables the usage rules. A missing
    // usage would throw in JS; the agents always write one.
    let u = usage.filter(|_| window > 0)?;
    let w = window as f64;
    match dialect {
        Dialect::Omp => {
            let input = u.input + u.cache_read + u.cache_write;
            (input > w).then_some(Overflow::Usage { input_tokens: input, rule: "input + cacheRead + cacheWrite > contextWindow" })
        }
        Dialect::Pi => {
            let input = u.input + u.cache_read;
            match stop_reason {
                Some("stop") if input > w => {
                    Some(Overflow::Usage { input_tokens: input, rule: "stopReason stop and input + cacheRead > contextWindow" })
                }
                Some("length") if u.output == 0.0 && input >= w * 0.99 => Some(Overflow::Usage {
                    input_tokens: input,
                    rule: "stopReason length, output 0 and input + cacheRead >= 99% of contextWindow",
                }),
                _ => None,
            }
        }
    }
}

/// The facts of one assistant message the check reads (some read back).
struct Assistant<'a> {
    node: NodeId,
    meta: &'a MessageMeta,
    error_message: Option<String>,
    timestamp: Option<f64>,
    /// omp 18: `errorId` (the error classification flags).
    error_id: Option<u64>,
    /// The stored `usage` object.
    usage: Option<Value>,
}

fn read_assistant<'a>(session: &'a Session, node: NodeId, source: &dyn Source) -> Result<Assistant<'a>, ReadBackError> {
    let meta = session.entry(node).message().expect("an assistant message entry");
    let value = agent_message(session, Item::Entry(node), source)?;
    // `errorMessage` is tested for truthiness, then as a string.
    let error_message = match value.get("errorMessage") {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    let timestamp = value.get("timestamp").and_then(Value::as_f64);
    let error_id = value.get("errorId").and_then(Value::as_f64).filter(|n| n.fract() == 0.0 && *n >= 0.0).map(|n| n as u64);
    let usage = value.get("usage").cloned();
    Ok(Assistant { node, meta, error_message, timestamp, error_id, usage })
}

/// The automatic check for the leaf of `ctx` (post-run variant).
///
/// `current_model` is `(provider, modelId)` of the model the agent runs now;
/// None assumes A's own model. `source` gives the entry bytes (A's
/// `errorMessage` and `timestamp` are not in the index).
pub fn auto_check(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    window: u64,
    current_model: Option<(&str, &str)>,
    source: &dyn Source,
) -> Result<AutoCheck, ReadBackError> {
    auto_check_with(session, ctx, settings, window, current_model, &CheckInputs::default(), source)
}

/// [`auto_check`] with the facts about the current model and time that the
/// file does not hold (they matter under omp 18: the stale pass's clock and
/// prefix binding, the method's model capabilities).
pub fn auto_check_with(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    window: u64,
    current_model: Option<(&str, &str)>,
    inputs: &CheckInputs,
    source: &dyn Source,
) -> Result<AutoCheck, ReadBackError> {
    let dialect = session.dialect();
    let rules = session.rules();
    let mut out = AutoCheck {
        dialect,
        assistant: None,
        stop_reason: None,
        decision: AutoDecision::None,
        skipped: None,
        reason: String::new(),
        same_model: false,
        model_assumed: current_model.is_none(),
        stale: false,
        overflow: None,
        usage_tokens: None,
        pruning_savings: 0,
        pruned_count: 0,
        context_tokens: None,
        threshold: threshold_tokens_under(window, settings, rules),
        window,
        will_retry: false,
        context_promotion: false,
        notes: Vec::new(),
        rules,
        stale_pruned_count: 0,
        stale_savings: 0,
        stored_estimate: None,
        method: None,
    };
    let is_assistant = |i: &Item| matches!(i, Item::Entry(n) if session.entry(*n).message().is_some_and(|m| m.role == Role::Assistant));
    // omp 18 rebuilds its context without error and aborted replies (omp-18.md §2.4), but checks
    // the reply the run just produced: the last assistant entry on the path.
    let a_node = if rules.floors_threshold_with_estimate() {
        ctx.path.iter().rev().copied().find(|&n| is_assistant(&Item::Entry(n)))
    } else {
        ctx.items.iter().rposition(is_assistant).map(|i| ctx.items[i].node())
    };
    let Some(a_node) = a_node else {
        return Ok(out.stop(Skip::NoAssistant, "no assistant message in the context: the agent runs no check"));
    };
    let a = read_assistant(session, a_node, source)?;
    out.assistant = Some(a.node);
    out.stop_reason = a.meta.reply.stop_reason.as_deref().map(str::to_owned);
    let a_model = a.meta.reply.model.as_deref().map(|(p, m)| (&**p, &**m));
    out.same_model = match current_model {
        Some(cur) => a_model == Some(cur),
        None => true,
    };
    if current_model.is_none() {
        out.notes.push("no current model given: assumed to be the assistant message's own model".into());
    }
    let compaction_ms = latest_compaction(session, ctx).map(|c| session.entry(c).timestamp_ms.get().unwrap_or(f64::NAN));
    if rules.floors_threshold_with_estimate() {
        out.overflow =
            omp18_overflow(a.meta.reply.stop_reason.as_deref(), a.error_message.as_deref(), a.error_id, a.meta.reply.usage, window);
        return omp18_check(session, ctx, settings, &a, compaction_ms, inputs, source, out);
    }
    out.overflow = context_overflow(dialect, a.meta.reply.stop_reason.as_deref(), a.error_message.as_deref(), a.meta.reply.usage, window);
    if rules.recovers_length_stops() {
        out.overflow = pi16_overflow(a.meta, a.error_message.as_deref(), window);
        // `assistantUsageMatchesProjection`: a context edit after the reply makes its usage
        // describe another context, so only an error message still counts.
        let after = ctx.path.iter().position(|&n| n == a.node).map_or(&[][..], |i| &ctx.path[i + 1..]);
        if after.iter().any(|&n| &*session.entry(n).entry_type == "context_edit") && matches!(out.overflow, Some(Overflow::Usage { .. })) {
            out.overflow = None;
            out.notes.push(
                "the reply's usage exceeds the window, but a context edit follows it: pi 1.6 does not take its usage as an overflow".into(),
            );
        }
    }
    match dialect {
        Dialect::Omp => omp_check(session, ctx, settings, &a, compaction_ms, out),
        Dialect::Pi => pi_check(session, ctx, settings, &a, compaction_ms, inputs, source, out),
    }
}

/// `getLatestCompactionEntry(getBranch())`.
fn latest_compaction(session: &Session, ctx: &Context) -> Option<NodeId> {
    ctx.path.iter().rev().copied().find(|&n| &*session.entry(n).entry_type == "compaction")
}

/// JS `a < b` / `a <= b` with undefined / NaN operands false.
fn before(ts: Option<f64>, compaction_ms: Option<f64>, or_equal: bool) -> bool {
    match (ts, compaction_ms) {
        (Some(t), Some(c)) => t < c || (or_equal && t == c),
        _ => false,
    }
}

impl AutoCheck {
    fn stop(mut self, skip: Skip, reason: impl Into<String>) -> AutoCheck {
        self.skipped = Some(skip);
        self.decision = AutoDecision::None;
        self.reason = reason.into();
        self
    }

    fn overflow_text(&self) -> String {
        self.overflow.as_ref().map_or_else(String::new, |o| o.describe(self.window))
    }

    /// The threshold comparison shared by both dialects.
    fn threshold_test(mut self, tokens: f64, settings: &CompactionSettings, what: &str) -> AutoCheck {
        self.context_tokens = Some(tokens);
        let threshold = self.threshold.map_or_else(|| "none".to_owned(), |t| t.to_string());
        if should_compact_under(tokens, self.window, settings, self.rules) {
            self.decision = AutoDecision::Threshold;
            self.reason = format!(
                "{what} {tokens} > threshold {threshold} (window {}): auto-compaction, reason threshold, willRetry false",
                self.window
            );
        } else {
            self.reason = format!("{what} {tokens} ≤ threshold {threshold} (window {}): no compaction", self.window);
        }
        self
    }
}

fn omp_check(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    a: &Assistant,
    compaction_ms: Option<f64>,
    mut out: AutoCheck,
) -> Result<AutoCheck, ReadBackError> {
    const PROMOTION: &str = "would try context promotion first if a larger model is configured (contextPromotion.enabled, default true)";
    // 1. Aborted messages are skipped after a run.
    if a.meta.reply.stop_reason.as_deref() == Some("aborted") {
        return Ok(out.stop(
            Skip::Aborted,
            "the last assistant message was aborted: skipped after the run (the check before the next prompt does not skip it)",
        ));
    }
    // 2–3. Overflow path.
    out.stale = before(a.timestamp, compaction_ms, false);
    let off = !settings.enabled || settings.strategy == Strategy::Off;
    if out.same_model && !out.stale && out.overflow.is_some() {
        out.context_promotion = true;
        let what = out.overflow_text();
        if off {
            let (skip, why) = if settings.enabled { (Skip::StrategyOff, "strategy off") } else { (Skip::Disabled, "compaction disabled") };
            return Ok(out.stop(skip, format!("context overflow ({what}); {PROMOTION}; otherwise nothing ({why})")));
        }
        out.decision = AutoDecision::Overflow;
        out.will_retry = true;
        out.reason = format!("context overflow ({what}); {PROMOTION}; otherwise auto-compaction, reason overflow, willRetry true");
        return Ok(out);
    }
    if out.overflow.is_some() {
        let why = if out.same_model { "it predates the latest compaction" } else { "it came from another model" };
        out.notes.push(format!("isContextOverflow is true but the overflow path is not taken: {why}"));
    }
    // 4. Gates.
    if !settings.enabled {
        return Ok(out.stop(Skip::Disabled, "compaction disabled"));
    }
    if settings.strategy == Strategy::Off {
        return Ok(out.stop(Skip::StrategyOff, "compaction strategy off"));
    }
    if a.meta.reply.stop_reason.as_deref() == Some("error") {
        return Ok(out.stop(
            Skip::ErrorWithoutOverflow,
            "the last assistant message is an error that is not a context overflow: no threshold check",
        ));
    }
    // 5. Pruning, then the threshold.
    let prune = plan_prune_in(session, ctx, &PruneConfig::default());
    out.pruning_savings = prune.tokens_saved();
    out.pruned_count = prune.pruned_count();
    let usage = a.meta.reply.usage.map_or(0.0, |u| u.context_tokens());
    out.usage_tokens = Some(usage);
    let tokens = (usage - out.pruning_savings as f64).max(0.0);
    let what = if out.pruning_savings > 0 {
        format!("context tokens {usage} − pruning savings {} =", out.pruning_savings)
    } else {
        "context tokens".to_owned()
    };
    let mut out = out.threshold_test(tokens, settings, &what);
    if out.decision == AutoDecision::Threshold {
        out.context_promotion = true;
        out.reason = format!("{}; {PROMOTION}", out.reason);
        if settings.strategy == Strategy::Handoff {
            out.notes.push("strategy handoff: a handoff document and a new session instead of a summary".into());
        }
    }
    if out.pruned_count > 0 {
        out.notes.push(format!(
            "omp prunes {} tool outputs (rewriting the file) before this test, whether or not it compacts",
            out.pruned_count
        ));
    }
    Ok(out)
}

/// omp 18's `calculateContextTokens(usage)` on the stored object:
/// `contextTokens` when present, else `totalTokens || Σ components` minus the
/// orchestration's input + output + cacheRead, at least 0.
fn omp18_context_tokens(usage: Option<&Value>) -> f64 {
    let Some(u) = usage else { return 0.0 };
    let n = |v: Option<&Value>| v.and_then(Value::as_f64).unwrap_or(0.0);
    if let Some(c) = u.get("contextTokens").filter(|v| !v.is_null()) {
        return c.as_f64().unwrap_or(0.0).max(0.0);
    }
    let o = u.get("orchestration").filter(|v| v.is_object());
    let orchestration = o.map_or(0.0, |o| n(o.get("input")) + n(o.get("output")) + n(o.get("cacheRead")));
    let total = n(u.get("totalTokens"));
    let raw = if total != 0.0 && !total.is_nan() {
        total
    } else {
        n(u.get("input")) + n(u.get("output")) + n(u.get("cacheRead")) + n(u.get("cacheWrite"))
    };
    (raw - orchestration).max(0.0)
}

/// omp 18's `#estimateStoredContextTokens` without the system prompt and
/// tool definitions (not in the file): the context's messages counted with
/// `excludeEncryptedReasoning` (no thinking signatures, redacted thinking or
/// server-tool blocks), the results in `pruned` at their notices' counts.
fn omp18_stored_estimate(
    session: &Session,
    ctx: &Context,
    pruned: &HashMap<NodeId, u64>,
    source: &dyn Source,
) -> Result<u64, ReadBackError> {
    let mut total = 0;
    for &item in &ctx.items {
        let node = item.node();
        let is_entry = matches!(item, Item::Entry(_));
        let role = session.entry(node).message().filter(|_| is_entry).map(|m| m.role.clone());
        total += match (pruned.get(&node).filter(|_| is_entry), role) {
            (Some(&t), _) => t,
            // Without encrypted reasoning (and unchanged by the context) the index's count stands;
            // the bytes are looked at, not parsed.
            (None, Some(Role::Assistant)) if ctx.stripped_calls(item).is_none() && !has_encrypted_reasoning(session, node, source)? => {
                item_estimate(session, item, source)?
            }
            (None, Some(Role::Assistant)) => {
                // The message as the context emits it (omp 18 strips dangling tool calls).
                let mut msg = context_message(session, ctx, item, source)?;
                if let Some(blocks) = msg.get_mut("content").and_then(Value::as_array_mut) {
                    blocks.retain(|b| !matches!(b.get("type").and_then(Value::as_str), Some("redactedThinking" | "anthropicServerTool")));
                    for b in blocks.iter_mut().filter_map(Value::as_object_mut) {
                        b.remove("thinkingSignature");
                    }
                }
                msg.as_object().map_or(0, omp18_message_tokens)
            }
            (None, _) => item_estimate(session, item, source)?,
        };
    }
    Ok(total)
}

/// Whether an entry's line names a field `excludeEncryptedReasoning` leaves out.
fn has_encrypted_reasoning(session: &Session, node: NodeId, source: &dyn Source) -> Result<bool, ReadBackError> {
    let e = session.entry(node);
    let bytes = source.bytes(e.span).map_err(|x| ReadBackError::at(e.line, x))?;
    let has = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    // A JSON escape inside a key (`\u0074hinkingSignature`) is read back to be sure.
    Ok(has(b"hinkingSignature") || has(b"edactedThinking") || has(b"nthropicServerTool") || has(b"\\u"))
}

/// omp 18's `checkCompaction` after a run (omp-18.md §5.1–5.2, §6), step by
/// step: payload rejection, overflow, `length` recovery, the per-turn stale
/// pass, the gates, overflow pruning, then the threshold on
/// `max(usage, stored estimate)` — pruning savings not subtracted.
#[allow(clippy::too_many_arguments)]
fn omp18_check(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    a: &Assistant,
    compaction_ms: Option<f64>,
    inputs: &CheckInputs,
    source: &dyn Source,
    mut out: AutoCheck,
) -> Result<AutoCheck, ReadBackError> {
    const PROMOTION: &str = "would try context promotion first if a larger model is configured (contextPromotion.enabled)";
    out.notes.push("omp 18 also adds the system prompt and the tool definitions to the stored estimate; the file holds neither, so the estimate here counts the messages only".into());
    // 1. Aborted messages are skipped after a run.
    if a.meta.reply.stop_reason.as_deref() == Some("aborted") {
        return Ok(out.stop(
            Skip::Aborted,
            "the last assistant message was aborted: skipped after the run (the check before the next prompt does not skip it)",
        ));
    }
    let stop = a.meta.reply.stop_reason.as_deref();
    out.stale = before(a.timestamp, compaction_ms, false);
    let window = out.window;
    let fresh = out.same_model && !out.stale;
    // 2. Payload rejection (HTTP 413 bytes/media): with local headroom, a notice and no compaction.
    let payload = omp18_payload_rejection(a).filter(|_| fresh);
    let usage = a.meta.reply.usage.unwrap_or_default();
    let reported_input = usage.input + usage.cache_read + usage.cache_write;
    let usage_backed = window > 0 && reported_input > window as f64;
    let mut exclude_media = false;
    if let Some(why) = &payload {
        let stored = omp18_stored_estimate(session, ctx, &HashMap::new(), source)?;
        out.stored_estimate = Some(stored);
        let trusted = window > 0 && reported_input <= window as f64 && (stored as f64) < window as f64 * 0.9;
        exclude_media = !usage_backed;
        out.notes.push(format!(
            "payload rejection ({why}); the agent also withholds it when the error names a media limit, which is not modelled here"
        ));
        if trusted {
            return Ok(out.stop(
                Skip::PayloadRejected,
                format!("payload rejection ({why}) with local headroom (stored estimate {stored} < 90 % of {window}): the agent shows a notice, blocks automatic continuation and does not compact"),
            ));
        }
    }
    // 3. Overflow (or an untrusted payload rejection): promotion, then recovery compaction.
    if (fresh && out.overflow.is_some()) || payload.is_some() {
        out.context_promotion = true;
        let what = if out.overflow.is_some() { out.overflow_text() } else { payload.clone().unwrap_or_default() };
        let choice = MethodChoice::walk("overflow", settings, inputs, exclude_media);
        let available = settings.enabled && choice.available();
        out.method = Some(choice);
        if !available {
            let (skip, why) = if settings.enabled {
                (Skip::NoUsableMethod, "no method of methodOrder is usable for an overflow")
            } else {
                (Skip::Disabled, "compaction disabled")
            };
            return Ok(out.stop(skip, format!("context overflow ({what}); {PROMOTION}; otherwise nothing ({why})")));
        }
        out.decision = AutoDecision::Overflow;
        out.will_retry = true;
        out.reason = format!("context overflow ({what}); {PROMOTION}; otherwise recovery compaction, reason overflow, then a retry");
        return Ok(out);
    }
    if out.overflow.is_some() {
        let why = if out.same_model { "it predates the latest compaction" } else { "it came from another model" };
        out.notes.push(format!("isContextOverflow is true but the overflow path is not taken: {why}"));
    }
    // 4. A `length` stop: the model spent its output budget; recovery like an overflow.
    if fresh && stop == Some("length") {
        out.context_promotion = true;
        if !settings.enabled || settings.method_order.is_empty() {
            return Ok(out.stop(
                Skip::NoMethod,
                format!("length stop (response incomplete); {PROMOTION}; otherwise nothing (compaction disabled or no method)"),
            ));
        }
        out.method = Some(MethodChoice::walk("incomplete", settings, inputs, false));
        out.decision = AutoDecision::Incomplete;
        out.will_retry = true;
        out.reason = format!("length stop (response incomplete); {PROMOTION}; otherwise recovery compaction, reason incomplete, then a retry (at most 3 in a row without output)");
        return Ok(out);
    }
    // 5. The per-turn stale pass, before any gate.
    let now = inputs.now_ms.or_else(|| last_message_ms(session, ctx, source).ok().flatten()).unwrap_or(0.0);
    let stale_config = StaleConfig {
        supersede_reads: settings.supersede_reads,
        drop_useless: settings.drop_useless,
        ..StaleConfig::agent(inputs.prefix_bound, now)
    };
    let stale = plan_stale_reachable(session, ctx, &stale_config, source)?;
    out.stale_pruned_count = stale.pruned_count();
    out.stale_savings = stale.tokens_saved();
    if inputs.now_ms.is_none() {
        out.notes.push("no current time given: the stale pass runs as right after the reply (warm cache)".into());
    }
    if out.stale_pruned_count > 0 {
        out.notes.push(format!("the per-turn stale pass prunes {} tool results (superseded reads, useless results; rewriting the file) before any gate, saving {}", out.stale_pruned_count, out.stale_savings));
    }
    // 6. Gates.
    if !settings.enabled {
        return Ok(out.stop(Skip::Disabled, "compaction disabled"));
    }
    if settings.method_order.is_empty() {
        return Ok(out.stop(Skip::NoMethod, "compaction.methodOrder names no method"));
    }
    if stop == Some("error") {
        return Ok(out.stop(
            Skip::ErrorWithoutOverflow,
            "the last assistant message is an error that is not a context overflow: no threshold check",
        ));
    }
    // 7. Overflow pruning on what the stale pass left, then the threshold.
    let mut pruned = stale.after();
    let config = PruneConfig {
        prune_useless: settings.drop_useless,
        cache_warm_suffix_tokens: Some(if inputs.prefix_bound { 0 } else { CACHE_WARM_SUFFIX_TOKENS }),
        ..PruneConfig::agent(session.rules())
    };
    let prune = plan_prune_after(session, ctx, &config, &pruned);
    out.pruning_savings = prune.tokens_saved();
    out.pruned_count = prune.pruned_count();
    for r in prune.pruned() {
        pruned.insert(r.node, crate::tokens::estimate::utf8_fragment_tokens(r.notice().len() as u64));
    }
    let usage_tokens = if out.stale { 0.0 } else { omp18_context_tokens(a.usage.as_ref()) };
    out.usage_tokens = Some(usage_tokens);
    let stored = omp18_stored_estimate(session, ctx, &pruned, source)?;
    out.stored_estimate = Some(stored);
    let tokens = usage_tokens.max(stored as f64);
    let what = format!(
        "max(context tokens {usage_tokens}{}, stored estimate {stored}) =",
        if out.stale { " (the reply predates the latest compaction)" } else { "" }
    );
    let mut out = out.threshold_test(tokens, settings, &what);
    if out.pruned_count > 0 {
        out.notes.push(format!(
            "omp prunes {} tool outputs (rewriting the file) before this test, whether or not it compacts; the savings are not subtracted",
            out.pruned_count
        ));
    }
    if out.decision == AutoDecision::Threshold {
        out.context_promotion = true;
        let choice = MethodChoice::walk("threshold", settings, inputs, false);
        out.reason = format!("{}; {PROMOTION}; {}", out.reason, choice.describe());
        out.method = Some(choice);
    }
    Ok(out)
}

/// The last `message` entry's message timestamp on the path.
fn last_message_ms(session: &Session, ctx: &Context, source: &dyn Source) -> Result<Option<f64>, ReadBackError> {
    let Some(&last) = ctx.path.iter().rev().find(|&&n| session.entry(n).message().is_some()) else { return Ok(None) };
    Ok(agent_message(session, Item::Entry(last), source)?.get("timestamp").and_then(Value::as_f64))
}

/// pi 1.6's `isContextOverflow(A, window)`: its own pattern list (and the
/// Cerebras no-body pattern), the usage rules of 0.73.
fn pi16_overflow(meta: &MessageMeta, error_message: Option<&str>, window: u64) -> Option<Overflow> {
    let stop = meta.reply.stop_reason.as_deref();
    let provider = meta.reply.model.as_deref().map(|(p, _)| &**p);
    let by_text = error_message
        .filter(|_| stop == Some("error"))
        .and_then(|m| pi16_overflow_pattern(m, provider))
        .map(|pattern| Overflow::ErrorMessage { pattern });
    by_text.or_else(|| context_overflow(Dialect::Pi, stop, None, meta.reply.usage, window))
}

/// pi 1.6's `isRecoverableLength(A, model.maxTokens)`: a `length` stop whose
/// output stayed below the model's output limit (None: the limit is unknown).
fn pi16_recoverable_length(meta: &MessageMeta, max_output: Option<u64>) -> Option<bool> {
    if meta.reply.stop_reason.as_deref() != Some("length") {
        return Some(false);
    }
    let output = meta.reply.usage.map_or(0.0, |u| u.output);
    max_output.map(|m| m > 0 && output < m as f64)
}

#[allow(clippy::too_many_arguments)]
fn pi_check(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    a: &Assistant,
    compaction_ms: Option<f64>,
    inputs: &CheckInputs,
    source: &dyn Source,
    out: AutoCheck,
) -> Result<AutoCheck, ReadBackError> {
    // 1. Disabled: no overflow path either.
    if !settings.enabled {
        return Ok(out.stop(Skip::Disabled, "compaction disabled (pi: the overflow path too)"));
    }
    // 2. Aborted.
    if a.meta.reply.stop_reason.as_deref() == Some("aborted") {
        return Ok(out.stop(
            Skip::Aborted,
            "the last assistant message was aborted: skipped after the run (the check before the next prompt does not skip it)",
        ));
    }
    // 3. Stale.
    let mut out = out;
    out.stale = before(a.timestamp, compaction_ms, true);
    if out.stale {
        return Ok(out.stop(Skip::Stale, "the last assistant message is not newer than the latest compaction: stale, no check"));
    }
    // 4. Overflow; pi 1.6 also a recoverable `length` stop, and an overflow of a successful
    //    (`stop`) reply compacts without a retry.
    let pi16 = session.rules().recovers_length_stops();
    let length = if pi16 && out.same_model { pi16_recoverable_length(a.meta, inputs.max_output_tokens) } else { Some(false) };
    if length.is_none() {
        out.notes.push("a `length` stop: pi 1.6 compacts and retries when the output stayed below the model's output limit (maxTokens), which the file does not hold; not assumed here".into());
    }
    let recoverable_length = length == Some(true);
    if out.same_model && (out.overflow.is_some() || recoverable_length) {
        let what = if out.overflow.is_some() { out.overflow_text() } else { "length stop below the model's output limit".to_owned() };
        if pi16 && a.meta.reply.stop_reason.as_deref() == Some("stop") {
            out.decision = AutoDecision::Overflow;
            out.reason = format!("context overflow of a successful reply ({what}): auto-compaction, reason overflow, willRetry false (a completed reply cannot be continued)");
            return Ok(out);
        }
        if recovery_attempted(session, ctx, a, out.window, inputs.max_output_tokens, source)? {
            out.notes.push("inferred from the path: an overflow recovery already ran since the last user message or successful reply (pi keeps this flag in memory)".into());
            return Ok(out.stop(
                Skip::RecoveryAlreadyAttempted,
                format!("context overflow ({what}) again: \"Context overflow recovery failed after one compact-and-retry attempt.\", no compaction"),
            ));
        }
        out.decision = AutoDecision::Overflow;
        out.will_retry = true;
        out.reason = format!("context overflow ({what}): auto-compaction, reason overflow, willRetry true (one recovery per user prompt)");
        if recoverable_length && out.overflow.is_none() {
            out.reason = format!("{what} (recoverable): auto-compaction, reason overflow, willRetry true (one recovery per user prompt)");
        }
        return Ok(out);
    }
    if out.overflow.is_some() {
        out.notes.push("isContextOverflow is true but the message came from another model".into());
    }
    // 5. Threshold.
    if session.rules().thresholds_projected_context() {
        return pi16_threshold(session, ctx, settings, a, compaction_ms, source, out);
    }
    if a.meta.reply.stop_reason.as_deref() == Some("error") {
        out.notes
            .push("pi retries retryable errors (overloaded, rate limit, 5xx, network...) before this check when retry is enabled".into());
        let Some((tokens, usage_node)) = pi_estimate(session, &ctx.items[..]) else {
            return Ok(out.stop(Skip::NoUsage, "error message and no usable usage in the context: no check"));
        };
        let usage_ts = read_assistant(session, usage_node, source)?.timestamp;
        if compaction_ms.is_some() && before(usage_ts, compaction_ms, true) {
            return Ok(out.stop(Skip::StaleUsage, "error message and the last usable usage predates the latest compaction: no check"));
        }
        out.usage_tokens = Some(tokens);
        return Ok(out.threshold_test(tokens, settings, "estimated context tokens (error message)"));
    }
    let usage = a.meta.reply.usage.map_or(0.0, |u| u.context_tokens());
    out.usage_tokens = Some(usage);
    Ok(out.threshold_test(usage, settings, "context tokens"))
}

/// pi ≥ 0.87's threshold input (pi-1.6.md §4.1): a context with a
/// `context_edit` is measured by `estimateProjectedContextTokens`; an error
/// or an all-zero usage by `estimateContextTokens` of the context (usage
/// older than the latest compaction stops the check; no usage at all is the
/// plain estimate); otherwise A's usage.
fn pi16_threshold(
    session: &Session,
    ctx: &Context,
    settings: &CompactionSettings,
    a: &Assistant,
    compaction_ms: Option<f64>,
    source: &dyn Source,
    mut out: AutoCheck,
) -> Result<AutoCheck, ReadBackError> {
    let has_edits = ctx.projected.iter().any(|p| &*session.entry(p.node).entry_type == "context_edit");
    let direct = a.meta.reply.usage.map_or(0.0, |u| u.context_tokens());
    let error = a.meta.reply.stop_reason.as_deref() == Some("error");
    if !has_edits && !error && direct != 0.0 {
        out.usage_tokens = Some(direct);
        return Ok(out.threshold_test(direct, settings, "context tokens"));
    }
    let tokens = message_tokens(session, ctx, source)?;
    if has_edits {
        let est = estimate_projected_context_tokens(session, ctx, &tokens, source)?.tokens as f64;
        out.usage_tokens = Some(est);
        return Ok(out.threshold_test(est, settings, "projected context estimate (the context has context edits)"));
    }
    if error {
        out.notes
            .push("pi retries retryable errors (overloaded, rate limit, 5xx, network...) before this check when retry is enabled".into());
    }
    let est = estimate_context_tokens(session, ctx, &tokens);
    if let Some(i) = est.last_usage_index {
        let usage_ts = read_assistant(session, ctx.items[i].node(), source)?.timestamp;
        if compaction_ms.is_some() && before(usage_ts, compaction_ms, true) {
            return Ok(out.stop(Skip::StaleUsage, "the last usable usage predates the latest compaction: no check"));
        }
    }
    let what = if error { "estimated context tokens (error message)" } else { "estimated context tokens (usage all zero)" };
    out.usage_tokens = Some(est.tokens as f64);
    Ok(out.threshold_test(est.tokens as f64, settings, what))
}

/// pi's `estimateContextTokens(messages)`: the tokens and the message whose
/// usage was used; None when no message has usable usage.
fn pi_estimate(session: &Session, items: &[Item]) -> Option<(f64, NodeId)> {
    let usage_of = |item: &Item| match item {
        Item::Entry(n) | Item::Replaced { node: n, .. } => session.entry(*n).message().and_then(|m| m.usable_usage_under(session.rules())),
        Item::CompactionSummary(_) | Item::SystemCheckpoint(_) => None,
    };
    let last = items.iter().rposition(|i| usage_of(i).is_some())?;
    let trailing: u64 = items[last + 1..].iter().map(|i| entry_estimate(session.entry(i.node()), session.rules())).sum();
    Some((usage_of(&items[last]).map_or(0.0, |u| u.context_tokens()) + trailing as f64, items[last].node()))
}

/// pi's `_overflowRecoveryAttempted`, replayed over the path up to A: set by
/// an earlier overflow that took the recovery path, cleared by a user
/// message and by a non-error assistant message.
///
/// pi 1.6: a recoverable `length` stop takes the recovery path too, a `length`
/// reply does not clear the flag, and an overflow of a `stop` reply compacts
/// without setting it.
fn recovery_attempted(
    session: &Session,
    ctx: &Context,
    a: &Assistant,
    window: u64,
    max_output: Option<u64>,
    source: &dyn Source,
) -> Result<bool, ReadBackError> {
    let pi16 = session.rules().recovers_length_stops();
    let mut attempted = false;
    let mut compaction_ms = None;
    for &n in &ctx.path {
        if n == a.node {
            break;
        }
        let e = session.entry(n);
        if &*e.entry_type == "compaction" {
            compaction_ms = Some(e.timestamp_ms.get().unwrap_or(f64::NAN));
            continue;
        }
        let Some(m) = e.message() else { continue };
        match m.role {
            Role::User => attempted = false,
            Role::Assistant if pi16 && !matches!(m.reply.stop_reason.as_deref(), Some("error" | "length")) => attempted = false,
            Role::Assistant if !pi16 && m.reply.stop_reason.as_deref() != Some("error") => attempted = false,
            Role::Assistant => {
                let prior = read_assistant(session, n, source)?;
                let same = m.reply.model == a.meta.reply.model;
                let overflow = if pi16 {
                    pi16_overflow(m, prior.error_message.as_deref(), window).is_some()
                        || pi16_recoverable_length(m, max_output) == Some(true)
                } else {
                    context_overflow(Dialect::Pi, m.reply.stop_reason.as_deref(), prior.error_message.as_deref(), m.reply.usage, window)
                        .is_some()
                };
                if same && overflow && !before(prior.timestamp, compaction_ms, true) {
                    attempted = true;
                }
            }
            _ => {}
        }
    }
    Ok(attempted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{build, Leaf};
    use crate::RuleSet;
    use serde_json::json;

    const T0: u64 = 1_767_225_600_000;
    const MODEL: (&str, &str) = ("anthropic", "claude-sonnet-4-5");

    /// A hand-made session: one line per entry, each a second after the last.
    struct B {
        lines: Vec<String>,
        last: Option<String>,
        second: u64,
    }

    fn iso(ms: u64) -> String {
        let s = (ms - T0) / 1000;
        format!("2026-01-01T{:02}:{:02}:{:02}.000Z", s / 3600, s / 60 % 60, s % 60)
    }

    impl B {
        fn new() -> B {
            let header = json!({"type":"session","version":3,"id":"s","timestamp":iso(T0),"cwd":"/p"});
            B { lines: vec![header.to_string()], last: None, second: 0 }
        }
        fn push(&mut self, id: &str, mut v: Value) -> u64 {
            self.second += 10;
            let ms = T0 + self.second * 1000;
            v["id"] = id.into();
            v["parentId"] = self.last.clone().map_or(Value::Null, Value::from);
            v["timestamp"] = iso(ms).into();
            self.lines.push(v.to_string());
            self.last = Some(id.into());
            ms
        }
        fn user(mut self, id: &str) -> B {
            let ms = T0 + (self.second + 10) * 1000;
            self.push(id, json!({"type":"message","message":{"role":"user","content":"go","timestamp":ms}}));
            self
        }
        /// An assistant message; `ts_shift` moves its message timestamp
        /// (ms) relative to its entry timestamp.
        fn asst_at(mut self, id: &str, stop: &str, usage: [u64; 4], total: u64, error: Option<&str>, ts_shift: i64) -> B {
            let ms = (T0 + (self.second + 10) * 1000) as i64 + ts_shift;
            let mut m = json!({"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":MODEL.0,"model":MODEL.1,"stopReason":stop,
                "usage":{"input":usage[0],"output":usage[1],"cacheRead":usage[2],"cacheWrite":usage[3],"totalTokens":total},"timestamp":ms});
            if let Some(e) = error {
                m["errorMessage"] = e.into();
            }
            self.push(id, json!({"type":"message","message":m}));
            self
        }
        fn asst(self, id: &str, stop: &str, total: u64) -> B {
            self.asst_at(id, stop, [total, 0, 0, 0], total, None, 0)
        }
        fn error(self, id: &str, message: &str) -> B {
            self.asst_at(id, "error", [0; 4], 0, Some(message), 0)
        }
        fn tool(mut self, id: &str, name: &str, chars: usize) -> B {
            let ms = T0 + (self.second + 10) * 1000;
            self.push(id, json!({"type":"message","message":{"role":"toolResult","toolCallId":id,"toolName":name,"content":[{"type":"text","text":"x".repeat(chars)}],"isError":false,"timestamp":ms}}));
            self
        }
        fn compaction(mut self, id: &str, first_kept: &str) -> B {
            self.push(id, json!({"type":"compaction","summary":"s","firstKeptEntryId":first_kept,"tokensBefore":1}));
            self
        }
        fn bytes(&self) -> Vec<u8> {
            (self.lines.join("\n") + "\n").into_bytes()
        }
    }

    fn check_with(b: &B, dialect: Dialect, settings: &CompactionSettings, window: u64, model: Option<(&str, &str)>) -> AutoCheck {
        let bytes = b.bytes();
        let session = Session::parse(&bytes, Some(crate::RuleSet::oldest(dialect)));
        let ctx = build(&session, Leaf::Last);
        auto_check(&session, &ctx, settings, window, model, &bytes).unwrap()
    }

    fn check(b: &B, dialect: Dialect) -> AutoCheck {
        check_with(b, dialect, &CompactionSettings::default(), 200_000, Some(MODEL))
    }

    const OVERFLOW: &str = "prompt is too long: 213462 tokens > 200000 maximum";

    #[test]
    fn golden_overflow_patterns() {
        let file = contextree_testkit::repo().join("tests/golden-overflow/overflow.json");
        let rows: Vec<Value> = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        assert!(rows.len() > 50);
        for row in rows {
            let m = row["message"].as_str().unwrap();
            assert_eq!(overflow_pattern(Dialect::Pi, m).is_some(), row["pi"].as_bool().unwrap(), "pi: {m:?}");
            assert_eq!(overflow_pattern(Dialect::Omp, m).is_some(), row["omp"].as_bool().unwrap(), "omp: {m:?}");
        }
    }

    fn check16(b: &B, inputs: &CheckInputs) -> AutoCheck {
        let bytes = b.bytes();
        let session = Session::parse(&bytes, Some(RuleSet::Pi16));
        let ctx = build(&session, Leaf::Last);
        auto_check_with(&session, &ctx, &CompactionSettings::default(), 200_000, Some(MODEL), inputs, &bytes).unwrap()
    }

    #[test]
    fn pi16_stop_overflow_and_recoverable_length() {
        let none = CheckInputs::default();
        // A successful reply whose usage overflowed: compact, no retry (0.73: retry).
        let b = B::new().user("u1").asst_at("a1", "stop", [150_000, 10, 60_000, 0], 0, None, 0);
        let c = check16(&b, &none);
        assert_eq!((c.decision, c.will_retry), (AutoDecision::Overflow, false));
        assert!(check(&b, Dialect::Pi).will_retry);
        // A second one right after is not blocked by the one-recovery flag.
        let c = check16(&b.asst_at("a2", "stop", [150_000, 10, 60_000, 0], 0, None, 0), &none);
        assert_eq!((c.decision, c.will_retry), (AutoDecision::Overflow, false));
        // A length stop below the model's output limit: compact and retry, once.
        let len = B::new().user("u1").asst_at("a1", "length", [1000, 500, 0, 0], 1500, None, 0);
        let limit = CheckInputs { max_output_tokens: Some(32_000), ..none };
        let c = check16(&len, &limit);
        assert_eq!((c.decision, c.will_retry), (AutoDecision::Overflow, true));
        let len2 = B::new().user("u1").asst_at("a1", "length", [1000, 500, 0, 0], 1500, None, 0);
        let again = len2.compaction("c1", "u1").asst_at("a2", "length", [1000, 500, 0, 0], 1500, None, 0);
        assert_eq!(check16(&again, &limit).skipped, Some(Skip::RecoveryAlreadyAttempted));
        // At the limit, or with the limit unknown: the threshold path.
        let c = check16(&B::new().user("u1").asst_at("a1", "length", [1000, 32_000, 0, 0], 33_000, None, 0), &limit);
        assert_eq!((c.decision, c.skipped), (AutoDecision::None, None));
        let c = check16(&len, &none);
        assert_eq!(c.decision, AutoDecision::None);
        assert!(c.notes.iter().any(|n| n.contains("maxTokens")));
        // A context edit after an overflowed reply: its usage no longer counts.
        let mut b = B::new().user("u1").asst_at("a1", "stop", [150_000, 10, 60_000, 0], 0, None, 0);
        b.push("e1", json!({"type":"context_edit","targetId":"u1","replacement":{"content":"hello"}}));
        let c = check16(&b, &none);
        assert!(c.overflow.is_none() && c.decision != AutoDecision::Overflow);
        // pi 1.6's own patterns.
        let c = check16(&B::new().user("u1").asst("a0", "stop", 10).error("a1", "Prompt exceeds max length"), &none);
        assert_eq!(c.decision, AutoDecision::Overflow);
    }

    #[test]
    fn golden_overflow_patterns_pi16() {
        let file = contextree_testkit::repo().join("tests/golden-overflow/overflow.json");
        let rows: Vec<Value> = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        for row in rows {
            let m = row["message"].as_str().unwrap();
            assert_eq!(pi16_overflow_pattern(m, None).is_some(), row["pi16"].as_bool().unwrap(), "pi16: {m:?}");
        }
        assert!(pi16_overflow_pattern("413 status code (no body)", Some("cerebras")).is_some());
        assert!(pi16_overflow_pattern("400 status code (no body)", Some("openai")).is_none());
    }

    #[test]
    fn usage_overflow_rules() {
        let u = |input: f64, output: f64, cache_read: f64, cache_write: f64| {
            Some(Usage { input, output, cache_read, cache_write, total_tokens: 0.0 })
        };
        // omp: input + cacheRead + cacheWrite, any stop reason.
        assert!(context_overflow(Dialect::Omp, Some("toolUse"), None, u(100.0, 0.0, 50.0, 51.0), 200).is_some());
        assert!(context_overflow(Dialect::Omp, Some("stop"), None, u(100.0, 0.0, 50.0, 50.0), 200).is_none());
        assert!(context_overflow(Dialect::Omp, Some("stop"), None, u(1e9, 0.0, 0.0, 0.0), 0).is_none());
        // pi: input + cacheRead for `stop`; cacheWrite ignored; not for toolUse.
        assert!(context_overflow(Dialect::Pi, Some("stop"), None, u(150.0, 0.0, 51.0, 0.0), 200).is_some());
        assert!(context_overflow(Dialect::Pi, Some("stop"), None, u(150.0, 0.0, 0.0, 500.0), 200).is_none());
        assert!(context_overflow(Dialect::Pi, Some("toolUse"), None, u(500.0, 0.0, 0.0, 0.0), 200).is_none());
        // pi: `length` with zero output at ≥ 99 % of the window.
        assert!(context_overflow(Dialect::Pi, Some("length"), None, u(198.0, 0.0, 0.0, 0.0), 200).is_some());
        assert!(context_overflow(Dialect::Pi, Some("length"), None, u(197.0, 0.0, 0.0, 0.0), 200).is_none());
        assert!(context_overflow(Dialect::Pi, Some("length"), None, u(200.0, 1.0, 0.0, 0.0), 200).is_none());
        // Error patterns only for `error`.
        assert!(context_overflow(Dialect::Pi, Some("stop"), Some(OVERFLOW), u(0.0, 0.0, 0.0, 0.0), 200).is_none());
        assert_eq!(
            context_overflow(Dialect::Omp, Some("error"), Some(OVERFLOW), None, 0),
            Some(Overflow::ErrorMessage { pattern: "/prompt is too long/i" })
        );
    }

    #[test]
    fn no_assistant_and_aborted() {
        for d in [Dialect::Pi, Dialect::Omp] {
            let c = check(&B::new().user("u1"), d);
            assert_eq!((c.decision, c.skipped), (AutoDecision::None, Some(Skip::NoAssistant)));
            let c = check(&B::new().user("u1").asst("a1", "aborted", 199_000), d);
            assert_eq!(c.skipped, Some(Skip::Aborted), "{d}");
        }
    }

    #[test]
    fn pi_threshold() {
        let c = check(&B::new().user("u1").asst("a1", "stop", 183_617), Dialect::Pi);
        assert_eq!(
            (c.decision, c.skipped, c.context_tokens, c.threshold),
            (AutoDecision::Threshold, None, Some(183_617.0), Some(183_616.0))
        );
        assert!(!c.will_retry);
        let c = check(&B::new().user("u1").asst("a1", "stop", 183_616), Dialect::Pi);
        assert_eq!((c.decision, c.skipped), (AutoDecision::None, None));
    }

    #[test]
    fn pi16_threshold_inputs() {
        let pi16 = |b: &B| {
            let bytes = b.bytes();
            let session = Session::parse(&bytes, Some(crate::RuleSet::Pi16));
            let ctx = build(&session, Leaf::Last);
            auto_check(&session, &ctx, &CompactionSettings::default(), 200_000, Some(MODEL), &bytes).unwrap()
        };
        // The assistant's own usage, as in pi 0.73.
        let c = pi16(&B::new().user("u1").asst("a1", "stop", 183_617));
        assert_eq!((c.decision, c.context_tokens), (AutoDecision::Threshold, Some(183_617.0)));
        // A context edit: the projected estimate, which distrusts that usage (§3.3).
        let mut b = B::new().user("u1").asst("a1", "stop", 183_617);
        b.push("e1", json!({"type":"context_edit","targetId":"u1","replacement":{"content":"hello"}}));
        let c = pi16(&b);
        assert_eq!((c.decision, c.context_tokens), (AutoDecision::None, Some(3.0)));
        // All-zero usage: the estimate (pi 0.73 compared 0); no usage anywhere is not a skip.
        let c = pi16(&B::new().user("u1").asst("a1", "stop", 0));
        assert_eq!((c.decision, c.skipped, c.context_tokens), (AutoDecision::None, None, Some(2.0)));
        let c = check(&B::new().user("u1").asst("a1", "stop", 0), Dialect::Pi);
        assert_eq!(c.context_tokens, Some(0.0));
    }

    #[test]
    fn pi_disabled_stops_overflow_too() {
        let s = CompactionSettings { enabled: false, ..Default::default() };
        let c = check_with(&B::new().user("u1").error("a1", OVERFLOW), Dialect::Pi, &s, 200_000, Some(MODEL));
        assert_eq!((c.decision, c.skipped), (AutoDecision::None, Some(Skip::Disabled)));
        assert!(c.overflow.is_some());
    }

    #[test]
    fn pi_overflow_and_one_recovery() {
        let b = B::new().user("u1").asst("a0", "stop", 1000).error("a1", OVERFLOW);
        let c = check(&b, Dialect::Pi);
        assert_eq!((c.decision, c.will_retry), (AutoDecision::Overflow, true));
        // Compacted, retried, overflowed again: recovery already attempted.
        let b = b.compaction("c1", "a1").error("a2", OVERFLOW);
        let c = check(&b, Dialect::Pi);
        assert_eq!((c.decision, c.skipped), (AutoDecision::None, Some(Skip::RecoveryAlreadyAttempted)));
        // A new user prompt resets it.
        let c = check(&b.user("u2").error("a3", OVERFLOW), Dialect::Pi);
        assert_eq!(c.decision, AutoDecision::Overflow);
    }

    #[test]
    fn pi_silent_overflow() {
        let c = check(&B::new().user("u1").asst_at("a1", "stop", [150_000, 10, 60_000, 0], 0, None, 0), Dialect::Pi);
        assert_eq!(c.decision, AutoDecision::Overflow);
        assert!(matches!(c.overflow, Some(Overflow::Usage { input_tokens, .. }) if input_tokens == 210_000.0));
    }

    #[test]
    fn pi_other_model_error_goes_to_threshold() {
        // Another model's overflow: the error branch estimates from the last usable usage.
        let b = B::new().user("u1").asst("a0", "stop", 190_000).error("a1", OVERFLOW);
        let c = check_with(&b, Dialect::Pi, &CompactionSettings::default(), 200_000, Some(("openai", "gpt-5")));
        assert!(!c.same_model && c.overflow.is_some());
        assert_eq!(c.decision, AutoDecision::Threshold);
        // 190000 + the error message's own estimate ("ok" → 1 token).
        assert_eq!(c.context_tokens, Some(190_001.0));
    }

    #[test]
    fn pi_error_without_overflow() {
        // Throttling is excluded from overflow by pi.
        let b = B::new().user("u1").asst("a0", "stop", 1000).error("a1", "Rate limit reached: too many tokens per minute");
        let c = check(&b, Dialect::Pi);
        assert!(c.overflow.is_none());
        assert_eq!((c.decision, c.skipped, c.context_tokens), (AutoDecision::None, None, Some(1001.0)));
        // No usable usage at all.
        let c = check(&B::new().user("u1").error("a1", "overloaded_error"), Dialect::Pi);
        assert_eq!(c.skipped, Some(Skip::NoUsage));
        // The usable usage predates the latest compaction.
        let b = B::new().user("u1").asst("a0", "stop", 190_000).compaction("c1", "u1").error("a1", "overloaded_error");
        let c = check(&b, Dialect::Pi);
        assert_eq!(c.skipped, Some(Skip::StaleUsage));
    }

    #[test]
    fn stale_rules_differ() {
        // A's message timestamp equals the compaction's: pi stale (≤), omp not (<).
        let b = B::new().user("u1").asst("a0", "stop", 100).compaction("c1", "u1");
        let b = b.asst_at("a1", "error", [0; 4], 0, Some(OVERFLOW), -10_000);
        let c = check(&b, Dialect::Pi);
        assert_eq!((c.stale, c.skipped), (true, Some(Skip::Stale)));
        let c = check(&b, Dialect::Omp);
        assert_eq!((c.stale, c.decision), (false, AutoDecision::Overflow));
        // One ms earlier: stale for omp too; an error, so no threshold test.
        let b = B::new().user("u1").asst("a0", "stop", 100).compaction("c1", "u1");
        let b = b.asst_at("a1", "error", [0; 4], 0, Some(OVERFLOW), -10_001);
        let c = check(&b, Dialect::Omp);
        assert_eq!((c.stale, c.skipped), (true, Some(Skip::ErrorWithoutOverflow)));
    }

    #[test]
    fn omp_overflow_paths() {
        let b = B::new().user("u1").error("a1", "413 Request Entity Too Large");
        let c = check(&b, Dialect::Omp);
        assert_eq!((c.decision, c.will_retry, c.context_promotion), (AutoDecision::Overflow, true, true));
        // pi does not know this pattern: an error without usage.
        assert_eq!(check(&b, Dialect::Pi).skipped, Some(Skip::NoUsage));
        let off = CompactionSettings { strategy: Strategy::Off, ..Default::default() };
        let c = check_with(&b, Dialect::Omp, &off, 200_000, Some(MODEL));
        assert_eq!((c.decision, c.skipped, c.context_promotion), (AutoDecision::None, Some(Skip::StrategyOff), true));
        let disabled = CompactionSettings { enabled: false, ..Default::default() };
        let c = check_with(&b, Dialect::Omp, &disabled, 200_000, Some(MODEL));
        assert_eq!(c.skipped, Some(Skip::Disabled));
        // Usage overflow counts cacheWrite, whatever the stop reason.
        let b = B::new().user("u1").asst_at("a1", "toolUse", [100_000, 5, 50_000, 50_001], 0, None, 0);
        assert_eq!(check(&b, Dialect::Omp).decision, AutoDecision::Overflow);
        assert_eq!(check(&b, Dialect::Pi).decision, AutoDecision::Threshold);
        // No model given: A's own model assumed.
        let c = check_with(&b, Dialect::Omp, &CompactionSettings::default(), 200_000, None);
        assert!(c.model_assumed && c.same_model);
    }

    #[test]
    fn omp_error_and_gates() {
        let b = B::new().user("u1").asst("a0", "stop", 199_000).error("a1", "overloaded_error");
        let c = check(&b, Dialect::Omp);
        assert_eq!(c.skipped, Some(Skip::ErrorWithoutOverflow));
        let b = B::new().user("u1").asst("a1", "stop", 199_000);
        let off = CompactionSettings { strategy: Strategy::Off, ..Default::default() };
        assert_eq!(check_with(&b, Dialect::Omp, &off, 200_000, Some(MODEL)).skipped, Some(Skip::StrategyOff));
        let disabled = CompactionSettings { enabled: false, ..Default::default() };
        assert_eq!(check_with(&b, Dialect::Omp, &disabled, 200_000, Some(MODEL)).skipped, Some(Skip::Disabled));
    }

    fn check18(b: &B, settings: &CompactionSettings, window: u64, inputs: &CheckInputs) -> AutoCheck {
        let bytes = b.bytes();
        let session = Session::parse(&bytes, Some(RuleSet::Omp18));
        let ctx = build(&session, Leaf::Last);
        auto_check_with(&session, &ctx, settings, window, Some(MODEL), inputs, &bytes).unwrap()
    }

    #[test]
    fn omp18_threshold_floors_usage_with_the_stored_estimate() {
        let s = CompactionSettings::default();
        let none = CheckInputs::default();
        // The usage decides; pruning savings are not subtracted (omp 13 subtracted 24991).
        let base = || B::new().user("u1").tool("t1", "bash", 100_000).tool("t2", "bash", 200_000);
        let c = check18(&base().asst("a1", "stop", 180_000), &s, 200_000, &none);
        assert_eq!(
            (c.decision, c.usage_tokens, c.context_tokens, c.threshold),
            (AutoDecision::Threshold, Some(180_000.0), Some(180_000.0), Some(170_000.0))
        );
        assert_eq!(c.rules, RuleSet::Omp18);
        assert!(c.reason.contains("contextree writes a `soft` summary"), "{}", c.reason);
        let m = c.method.as_ref().unwrap();
        assert_eq!(m.method, Some(Method::Handoff));
        assert!(
            matches!(m.steps[0], (Method::Remote, Usable::Unknown(_))) && matches!(m.steps[1], (Method::Snapcompact, Usable::Unknown(_)))
        );
        // A vision model without native compaction: snapcompact, not an LLM summary.
        let vision = CheckInputs { accepts_images: Some(true), native_compaction: Some(false), ..none };
        let c = check18(&base().asst("a1", "stop", 180_000), &s, 200_000, &vision);
        assert_eq!(c.method.unwrap().method, Some(Method::Snapcompact));
        // A tiny usage: the stored estimate (75,000 tokens of output + the rest) decides.
        let c = check18(&base().asst("a1", "stop", 10), &s, 80_000, &none);
        assert_eq!(c.stored_estimate, Some(75_002));
        assert_eq!((c.decision, c.context_tokens, c.threshold), (AutoDecision::Threshold, Some(75_002.0), Some(63_616.0)));
        // A reply older than the latest compaction counts 0 usage.
        let b = B::new().user("u1").asst("a0", "stop", 100).compaction("c1", "u1");
        let c = check18(&b.asst_at("a1", "stop", [190_000, 0, 0, 0], 190_000, None, -10_001), &s, 200_000, &none);
        assert!(c.stale);
        assert_eq!((c.usage_tokens, c.decision), (Some(0.0), AutoDecision::None));
        // A small window with the default reserve: 15 % of it instead (omp 13: threshold 0).
        let c = check18(&B::new().user("u1").asst("a1", "stop", 13_601), &s, 16_000, &none);
        assert_eq!((c.threshold, c.decision), (Some(13_600.0), AutoDecision::Threshold));
        // No method configured: no check.
        let empty = CompactionSettings { method_order: super::super::MethodOrder::resolve([]), ..s };
        assert_eq!(check18(&base().asst("a1", "stop", 180_000), &empty, 200_000, &none).skipped, Some(Skip::NoMethod));
    }

    #[test]
    fn omp18_overflow_length_and_payload() {
        let s = CompactionSettings::default();
        let none = CheckInputs::default();
        // A pattern omp 18 added.
        let b = B::new().user("u1").error("a1", "chat history exceeds the 100-message limit");
        let c = check18(&b, &s, 200_000, &none);
        assert_eq!((c.decision, c.will_retry), (AutoDecision::Overflow, true), "{c:?}");
        let m = c.method.unwrap();
        assert_eq!(m.method, Some(Method::Shake));
        assert_eq!(m.steps[2], (Method::Handoff, Usable::No("not for an overflow")));
        assert_eq!(check(&b, Dialect::Omp).skipped, Some(Skip::ErrorWithoutOverflow));
        // A `length` stop: recovery compaction, reason incomplete.
        let c = check18(&B::new().user("u1").asst("a1", "length", 1000), &s, 200_000, &none);
        assert_eq!((c.decision, c.will_retry), (AutoDecision::Incomplete, true));
        // A payload rejection with headroom: notice, no compaction.
        let c = check18(&B::new().user("u1").error("a1", "Request exceeds the maximum number of bytes"), &s, 200_000, &none);
        assert_eq!(c.skipped, Some(Skip::PayloadRejected));
        // Without a window it is not trusted: recovery, media methods excluded.
        let c = check18(&B::new().user("u1").error("a1", "Request exceeds the maximum number of bytes"), &s, 0, &none);
        assert_eq!(c.decision, AutoDecision::Overflow);
        assert_eq!(c.method.unwrap().steps[1].1, Usable::No("a payload rejection excludes media methods"));
        // The errorId flag alone.
        assert!(omp18_overflow(Some("error"), Some("boom"), Some(0x0080_1000), None, 0).is_some());
        assert!(omp18_overflow(Some("error"), Some("boom"), Some(0x8000_1000), None, 0).is_none());
    }

    #[test]
    fn golden_overflow_patterns_omp18() {
        let file = contextree_testkit::repo().join("tests/golden-overflow/overflow.json");
        let rows: Vec<Value> = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        for row in rows {
            let m = row["message"].as_str().unwrap();
            let overflow = !m.is_empty() && omp18_overflow_pattern(m).is_some();
            assert_eq!(overflow, row["omp18"].as_bool().unwrap(), "omp18: {m:?}");
            assert_eq!(
                !m.is_empty() && omp18_payload_pattern(m).is_some(),
                row["omp18PayloadRejection"].as_bool().unwrap(),
                "omp18 payload: {m:?}"
            );
        }
    }

    #[test]
    fn omp_threshold_after_pruning() {
        // An old 25000-token bash output behind 50000 newer tokens is pruned:
        // saving 25000 − 9 (the notice) = 24991.
        let base = || B::new().user("u1").tool("t1", "bash", 100_000).tool("t2", "bash", 200_000);
        let c = check(&base().asst("a1", "stop", 180_000), Dialect::Omp);
        assert_eq!((c.pruning_savings, c.pruned_count), (24_991, 1));
        assert_eq!((c.usage_tokens, c.context_tokens, c.threshold), (Some(180_000.0), Some(155_009.0), Some(170_000.0)));
        assert_eq!(c.decision, AutoDecision::None);
        let c = check(&base().asst("a1", "stop", 195_000), Dialect::Omp);
        assert_eq!((c.decision, c.context_tokens, c.context_promotion), (AutoDecision::Threshold, Some(170_009.0), true));
        // pi never prunes: its own threshold on the raw usage.
        let c = check(&base().asst("a1", "stop", 185_000), Dialect::Pi);
        assert_eq!((c.decision, c.pruning_savings), (AutoDecision::Threshold, 0));
        // Savings never push below 0.
        let c = check(&base().asst("a1", "stop", 10_000), Dialect::Omp);
        assert_eq!(c.context_tokens, Some(0.0));
    }
}
