//! [`LlmError`], the one error type of the client.
//!
//! Display texts are sentence fragments without a final period, written to read well after
//! the caller's prefix (`Compaction failed: `, `Auto-compaction failed: `, ...).
//! Where the spec quotes the agents' wording (compaction.md §1.1, §1.3, §6.5) the text
//! mirrors it: `no available model`, `no API key for <provider>`,
//! `Remote compaction failed (<status> <statusText>)`,
//! `Remote compaction response missing summary`.
//!
//! No variant ever holds an API key: response bodies are redacted before they are stored
//! (see [`redact`]) and transport errors are stored without their URL's query.

use std::fmt;
use std::time::Duration;

/// How many characters of an error response body an error keeps.
pub const BODY_EXCERPT_CHARS: usize = 500;

/// Everything that can go wrong while asking a provider for a summary.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// The provider answered with a non-2xx status.
    #[error("HTTP {status}{}: {}", reason_suffix(*.status), body_or_none(.body))]
    Status {
        /// The HTTP status code.
        status: u16,
        /// The start of the response body ([`BODY_EXCERPT_CHARS`] characters), keys redacted.
        body: String,
        /// The provider's `retry-after` / `retry-after-ms` hint, if any.
        retry_after: Option<Duration>,
    },
    /// The remote summarization endpoint answered with a non-2xx status (compaction.md §6.5).
    #[error("Remote compaction failed ({status} {status_text})")]
    RemoteStatus {
        /// The HTTP status code.
        status: u16,
        /// The canonical reason phrase (`Service Unavailable`), empty when unknown.
        status_text: String,
        /// The provider's retry hint, if any.
        retry_after: Option<Duration>,
    },
    /// The remote endpoint's JSON body had no string `summary` (compaction.md §6.5).
    #[error("Remote compaction response missing summary")]
    RemoteMissingSummary,
    /// Nothing arrived for the configured time (connecting, waiting for the response
    /// headers, or between two pieces of a streamed body).
    #[error("request timed out: nothing received for {}", fmt_duration(*.after))]
    Timeout {
        /// The idle timeout that elapsed.
        after: Duration,
    },
    /// The connection could not be made or broke (refused, reset, closed early).
    #[error("connection failed: {message}")]
    Transport {
        /// What failed, with its causes; never contains the request URL's query or a key.
        message: String,
    },
    /// The response stream ended before the provider said it was complete.
    #[error("stream ended before the response was complete (after {bytes} bytes)")]
    Truncated {
        /// How many body bytes had arrived.
        bytes: u64,
    },
    /// A server-sent event could not be read.
    #[error("malformed stream event at byte {offset}: {reason}")]
    MalformedStream {
        /// Offset of the offending line (or byte) from the start of the response body.
        offset: u64,
        /// What was wrong with it.
        reason: String,
    },
    /// A non-streamed response body could not be read.
    #[error("malformed response: {reason}")]
    MalformedResponse {
        /// What was wrong with it.
        reason: String,
    },
    /// The provider reported an error inside a successful (2xx) stream, such as Anthropic's
    /// `event: error` with `overloaded_error`.
    #[error("provider error ({kind}): {message}")]
    Provider {
        /// The provider's error type (`overloaded_error`, `api_error`, ...).
        kind: String,
        /// The provider's message, keys redacted.
        message: String,
    },
    /// The request could not be built (bad URL, invalid header value).
    #[error("invalid request: {reason}")]
    InvalidRequest {
        /// What was wrong.
        reason: String,
    },
    /// The call's total deadline ([`crate::Candidates::deadline`]) passed, or would pass before
    /// the next retry, before any candidate answered.
    #[error("no summary within the deadline of {} (summaryDeadlineSecs in contextree's config){}", fmt_duration(*.after), last_suffix(.last.as_deref()))]
    Deadline {
        /// The deadline.
        after: Duration,
        /// The error that was about to be retried, if the deadline ended a retry wait.
        last: Option<Box<LlmError>>,
    },
    /// The caller cancelled the request.
    #[error("cancelled")]
    Cancelled,
    /// No candidate model is configured.
    #[error("no available model (no provider is configured)")]
    NoProvider,
    /// A provider that needs an API key has none.
    #[error("no API key for {provider} (set {env} or `apiKey` in the contextree config)")]
    MissingApiKey {
        /// The provider's label.
        provider: String,
        /// The environment variable that was looked up.
        env: String,
    },
    /// The contextree config file could not be read or is invalid.
    #[error("invalid config {path}: {reason}")]
    Config {
        /// The file, or `<text>` when parsing a string.
        path: String,
        /// What was wrong.
        reason: String,
    },
    /// Every candidate failed (more than one was tried); listed in the order tried.
    #[error("all {} candidate models failed: {}", .0.len(), Failures(.0))]
    AllFailed(Vec<CandidateFailure>),
}

/// One candidate's final error inside [`LlmError::AllFailed`].
#[derive(Debug)]
pub struct CandidateFailure {
    /// The provider's label ([`crate::ProviderConfig::label`]).
    pub provider: String,
    /// The model asked for (empty for a remote endpoint).
    pub model: String,
    /// Why it failed (after any retries).
    pub error: LlmError,
}

impl LlmError {
    /// Whether trying the same request again may succeed: HTTP 408, 429 and 5xx, timeouts,
    /// broken connections and the provider's own overload / server errors.
    /// Never 400, 401, 403, 404, malformed data, configuration problems or cancellation.
    pub fn is_retryable(&self) -> bool {
        match self {
            LlmError::Status { status, .. } | LlmError::RemoteStatus { status, .. } => {
                matches!(*status, 408 | 429 | 500..=599)
            }
            LlmError::Timeout { .. } | LlmError::Transport { .. } | LlmError::Truncated { .. } => true,
            LlmError::Provider { kind, .. } => {
                matches!(kind.as_str(), "overloaded_error" | "api_error" | "rate_limit_error" | "timeout_error")
            }
            LlmError::RemoteMissingSummary
            | LlmError::MalformedStream { .. }
            | LlmError::MalformedResponse { .. }
            | LlmError::InvalidRequest { .. }
            | LlmError::Deadline { .. }
            | LlmError::Cancelled
            | LlmError::NoProvider
            | LlmError::MissingApiKey { .. }
            | LlmError::Config { .. }
            | LlmError::AllFailed(_) => false,
        }
    }

    /// The provider's requested minimum delay before a retry, if it sent one.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            LlmError::Status { retry_after, .. } | LlmError::RemoteStatus { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// `error` with `secret` removed from every text that came from the server.
pub(crate) fn redact_error(error: LlmError, secret: Option<&str>) -> LlmError {
    let Some(secret) = secret.filter(|s| !s.is_empty()) else {
        return error;
    };
    let clean = |text: String| redact(&text, Some(secret));
    match error {
        LlmError::Status { status, body, retry_after } => LlmError::Status { status, body: clean(body), retry_after },
        LlmError::Transport { message } => LlmError::Transport { message: clean(message) },
        LlmError::MalformedStream { offset, reason } => LlmError::MalformedStream { offset, reason: clean(reason) },
        LlmError::MalformedResponse { reason } => LlmError::MalformedResponse { reason: clean(reason) },
        LlmError::Provider { kind, message } => LlmError::Provider { kind: clean(kind), message: clean(message) },
        LlmError::InvalidRequest { reason } => LlmError::InvalidRequest { reason: clean(reason) },
        other => other,
    }
}

/// A run of the key's first characters this long (or the whole key, if shorter) is redacted
/// even when the rest is missing: a server that echoes a truncated key must not show most of
/// it. 16 characters reach past the public prefixes (`sk-ant-api03-` is 13), so ordinary
/// text never matches.
pub const REDACT_PREFIX_CHARS: usize = 16;

/// Replaces every occurrence of `secret` in `text` with `[redacted]`, in whatever form a
/// server may echo it.
///
/// Used on everything a server sends back before it goes into an error: some servers echo
/// the key they rejected, and not always verbatim. A match is found character by character,
/// each key character in any of these forms (they may be mixed):
/// - itself, in either ASCII case (a server may lower-case what it echoes);
/// - JSON / JavaScript escapes: `\/` (or any punctuation after a backslash), `\u002f`,
///   `\x2f`, with any number of backslashes (JSON inside a JSON string);
/// - percent-encoding `%2F` / `%2f`, also encoded twice (`%252F`);
/// - HTML character references `&#47;` / `&#x2f;`.
///
/// A run that matches at least the key's first [`REDACT_PREFIX_CHARS`] characters is
/// redacted as far as it goes on matching the key, so a truncated echo goes too.
/// Not recognised: base64 and other re-encodings of the key as a whole.
pub fn redact(text: &str, secret: Option<&str>) -> String {
    let Some(secret) = secret.filter(|s| !s.is_empty()) else {
        return text.to_owned();
    };
    let key: Vec<char> = secret.chars().collect();
    let need = key.len().min(REDACT_PREFIX_CHARS);
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut at) = (0, 0);
    while at < bytes.len() {
        // Matches start only at character boundaries.
        if !text.is_char_boundary(at) {
            at += 1;
            continue;
        }
        let (mut end, mut matched) = (at, 0);
        while matched < key.len() {
            match key_char_at(text, end, key[matched]) {
                Some(len) => {
                    end += len;
                    matched += 1;
                }
                None => break,
            }
        }
        if matched >= need {
            out.push_str(&text[copied..at]);
            out.push_str("[redacted]");
            copied = end;
            at = end;
        } else {
            at += 1;
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// The length in bytes of one encoding of `want` at byte `at` of `text`, if there is one.
fn key_char_at(text: &str, at: usize, want: char) -> Option<usize> {
    let rest = text.get(at..)?;
    let first = rest.chars().next()?;
    if first == want || (want.is_ascii() && first.eq_ignore_ascii_case(&want)) {
        return Some(first.len_utf8());
    }
    let b = rest.as_bytes();
    match first {
        '\\' => {
            let slashes = b.iter().take_while(|&&c| c == b'\\').count();
            let after = &rest[slashes..];
            let next = after.chars().next()?;
            // `\/`, `\"`: a backslash before punctuation (not `\n` for an `n`).
            if next == want && !want.is_alphanumeric() {
                return Some(slashes + next.len_utf8());
            }
            let digits = match next {
                'u' | 'U' => 4,
                'x' | 'X' => 2,
                _ => return None,
            };
            same(hex(after.get(1..1 + digits))?, want).then_some(slashes + 1 + digits)
        }
        '%' if want.is_ascii() => {
            // `%` itself may be encoded again (`%252F`), any number of times.
            let mut i = 1;
            loop {
                let value = hex(rest.get(i..i + 2))?;
                if same(value, want) {
                    return Some(i + 2);
                }
                if value != u32::from(b'%') {
                    return None;
                }
                i += 2;
            }
        }
        '&' if b.get(1) == Some(&b'#') => {
            let (hexadecimal, from) = if matches!(b.get(2), Some(b'x' | b'X')) { (true, 3) } else { (false, 2) };
            let len = b[from..].iter().take_while(|c| if hexadecimal { c.is_ascii_hexdigit() } else { c.is_ascii_digit() }).count();
            if len == 0 || len > 8 || b.get(from + len) != Some(&b';') {
                return None;
            }
            let digits = &rest[from..from + len];
            let value = if hexadecimal { u32::from_str_radix(digits, 16) } else { digits.parse() };
            same(value.ok()?, want).then_some(from + len + 1)
        }
        _ => None,
    }
}

/// Whether the character `value` is `want`, ASCII case ignored.
fn same(value: u32, want: char) -> bool {
    char::from_u32(value).is_some_and(|c| c == want || (want.is_ascii() && c.eq_ignore_ascii_case(&want)))
}

/// `digits` as a hexadecimal number, if there are some and all are hex digits.
fn hex(digits: Option<&str>) -> Option<u32> {
    let digits = digits.filter(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_hexdigit()))?;
    u32::from_str_radix(digits, 16).ok()
}

/// The first [`BODY_EXCERPT_CHARS`] characters of a response body, trimmed, keys redacted.
pub fn body_excerpt(body: &str, secret: Option<&str>) -> String {
    let body = redact(body, secret);
    let body = body.trim();
    match body.char_indices().nth(BODY_EXCERPT_CHARS) {
        Some((idx, _)) => format!("{}…", &body[..idx]),
        None => body.to_owned(),
    }
}

fn last_suffix(last: Option<&LlmError>) -> String {
    last.map_or_else(String::new, |e| format!("; last error: {e}"))
}

fn reason_suffix(status: u16) -> String {
    match reason_phrase(status) {
        "" => String::new(),
        reason => format!(" {reason}"),
    }
}

fn body_or_none(body: &str) -> &str {
    if body.is_empty() {
        "(no body)"
    } else {
        body
    }
}

/// The canonical reason phrase of a status code, empty when there is none.
pub(crate) fn reason_phrase(status: u16) -> &'static str {
    reqwest::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or("")
}

fn fmt_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

struct Failures<'a>(&'a [CandidateFailure]);

impl fmt::Display for Failures<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (idx, failure) in self.0.iter().enumerate() {
            if idx > 0 {
                f.write_str("; ")?;
            }
            write!(f, "[{}] {}", idx + 1, failure.provider)?;
            if !failure.model.is_empty() {
                write!(f, " {}", failure.model)?;
            }
            write!(f, ": {}", failure.error)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_transient_errors_are_retryable() {
        let status = |status| LlmError::Status { status, body: String::new(), retry_after: None };
        for code in [408, 429, 500, 502, 503, 504, 529] {
            assert!(status(code).is_retryable(), "{code}");
        }
        for code in [400, 401, 403, 404, 413, 422] {
            assert!(!status(code).is_retryable(), "{code}");
        }
        assert!(LlmError::Timeout { after: Duration::from_secs(1) }.is_retryable());
        assert!(LlmError::Transport { message: "reset".into() }.is_retryable());
        assert!(!LlmError::Cancelled.is_retryable());
        assert!(!LlmError::MalformedStream { offset: 3, reason: "x".into() }.is_retryable());
        let provider = |kind: &str| LlmError::Provider { kind: kind.into(), message: String::new() };
        assert!(provider("overloaded_error").is_retryable());
        assert!(!provider("invalid_request_error").is_retryable());
    }

    #[test]
    fn display_texts_fit_after_the_callers_prefix() {
        let err = LlmError::Status { status: 503, body: String::new(), retry_after: None };
        assert_eq!(err.to_string(), "HTTP 503 Service Unavailable: (no body)");
        let err = LlmError::RemoteStatus { status: 502, status_text: "Bad Gateway".into(), retry_after: None };
        assert_eq!(err.to_string(), "Remote compaction failed (502 Bad Gateway)");
        assert_eq!(LlmError::RemoteMissingSummary.to_string(), "Remote compaction response missing summary");
        assert_eq!(LlmError::Timeout { after: Duration::from_millis(250) }.to_string(), "request timed out: nothing received for 250ms");
        let all = LlmError::AllFailed(vec![
            CandidateFailure {
                provider: "local".into(),
                model: "qwen".into(),
                error: LlmError::Status { status: 400, body: "bad".into(), retry_after: None },
            },
            CandidateFailure { provider: "remote".into(), model: String::new(), error: LlmError::RemoteMissingSummary },
        ]);
        assert_eq!(
            all.to_string(),
            "all 2 candidate models failed: [1] local qwen: HTTP 400 Bad Request: bad; \
             [2] remote: Remote compaction response missing summary"
        );
        let late = LlmError::Deadline {
            after: Duration::from_secs(300),
            last: Some(Box::new(LlmError::Timeout { after: Duration::from_secs(120) })),
        };
        assert_eq!(
            late.to_string(),
            "no summary within the deadline of 300s (summaryDeadlineSecs in contextree's config); \
             last error: request timed out: nothing received for 120s"
        );
    }

    #[test]
    fn body_excerpts_are_cut_and_redacted() {
        let long = "é".repeat(BODY_EXCERPT_CHARS + 10);
        let excerpt = body_excerpt(&long, None);
        assert_eq!(excerpt.chars().count(), BODY_EXCERPT_CHARS + 1);
        assert_eq!(body_excerpt(" invalid key sk-secret-1 ", Some("sk-secret-1")), "invalid key [redacted]");
    }

    #[test]
    fn every_echoed_form_of_a_key_is_redacted() {
        let key = "sk-Test_9/ab+cd=EF.gh-XYZ123";
        let r = |text: &str| redact(text, Some(key));
        for (echo, why) in [
            ("sk-Test_9/ab+cd=EF.gh-XYZ123", "verbatim"),
            ("sk-test_9/ab+cd=ef.gh-xyz123", "lower-cased"),
            ("SK-TEST_9/AB+CD=EF.GH-XYZ123", "upper-cased"),
            (r"sk-Test_9\/ab+cd=EF.gh-XYZ123", "JSON \\/"),
            (r"sk-Test_9\\\/ab+cd=EF.gh-XYZ123", "JSON in a JSON string"),
            (r"\u0073\u006B-Test_9\u002fab\u002Bcd\u003dEF.gh-XYZ123", "JSON \\u escapes"),
            (r"sk-Test_9\x2fab\x2bcd=EF.gh-XYZ123", "\\x escapes"),
            ("sk-Test_9%2Fab%2bcd%3DEF.gh-XYZ123", "percent-encoded"),
            ("%73%6b%2d%54%65%73%74%5f%39%2f%61%62%2b%63%64%3d%45%46%2e%67%68%2d%58%59%5a%31%32%33", "percent-encoded throughout"),
            ("sk-Test_9%252Fab%252Bcd%253DEF.gh-XYZ123", "percent-encoded twice"),
            ("sk-Test_9&#47;ab&#x2B;cd&#61;EF.gh-XYZ123", "HTML references"),
            ("sk-Test_9/ab+cd=EF", "a truncated echo (18 of 27 characters)"),
        ] {
            let got = r(&format!("{{\"error\": \"bad key '{echo}' here\"}}"));
            assert_eq!(got, "{\"error\": \"bad key '[redacted]' here\"}", "{why}: {echo}");
        }
        // Too short a prefix is ordinary text; other text is untouched; two echoes both go.
        assert_eq!(r("keys start with sk-Test_9/ab"), "keys start with sk-Test_9/ab");
        assert_eq!(r("a sk-Test_9/ab+cd=EF.gh-XYZ123 b sk-test_9%2fab+cd=ef.gh-xyz123 c é"), "a [redacted] b [redacted] c é");
        // `\n` is a newline, not an `n`; a short key needs all of it.
        assert_eq!(redact(r"k\ney", Some("kney")), r"k\ney");
        assert_eq!(redact("x KNEY y kne", Some("kney")), "x [redacted] y kne");
        assert_eq!(redact("a clé b", Some("CLÉ")), "a clé b", "non-ASCII keeps its case");
        assert_eq!(redact("a CLÉ b \\u0063L\\u00c9", Some("CLÉ")), "a [redacted] b [redacted]");
    }
}
