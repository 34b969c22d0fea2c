//! The provider error patterns of each agent's pi-ai, transcribed from the
//! JS sources into one table file so a new agent version's list is diffed
//! against a single place (tests/golden-overflow checks them).

use std::sync::OnceLock;

use regex::Regex;

/// The JS patterns: `(source as printed by JS, equivalent Rust pattern on the
/// ASCII-lowercased text)`.
pub(super) type Patterns = Vec<(&'static str, Regex)>;

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
pub(super) fn pi_patterns() -> &'static Patterns {
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
pub(super) fn pi_non_overflow() -> &'static Patterns {
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
pub(super) fn pi16_patterns() -> &'static Patterns {
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
pub(super) fn pi16_cerebras() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        compile(&[("/^4(?:00|13)\\s*(?:status code)?\\s*\\(no body\\)/i", r"^4(?:00|13){WS}*(?:status code)?{WS}*\(no body\)")])
    })
}

/// omp 13.19 `OVERFLOW_PATTERNS` (pi-ai `src/utils/overflow.ts`), in order,
/// then the inline 400/413 no-body test.
pub(super) fn omp_patterns() -> &'static Patterns {
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
pub(super) fn omp18_patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let mut list = omp18_evidence_list();
        list.push(("/exceeds the limit of \\d+/i", "exceeds the limit of [0-9]+"));
        list.push(("/\\b4(00|13)\\s*(status code)?\\s*\\(no body\\)/i", r"{WB}4(00|13){WS}*(status code)?{WS}*\(no body\)"));
        compile(&list)
    })
}

/// omp 18 `CONTEXT_OVERFLOW_EVIDENCE_PATTERNS` (token wording only).
pub(super) fn omp18_evidence() -> &'static Patterns {
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
pub(super) fn omp18_payload_patterns() -> &'static Patterns {
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
