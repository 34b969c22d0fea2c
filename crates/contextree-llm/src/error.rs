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
            LlmError::Timeout { .. } | LlmError::Transport { .. } | LlmError::Truncated { .. } => {
                true
            }
            LlmError::Provider { kind, .. } => matches!(
                kind.as_str(),
                "overloaded_error" | "api_error" | "rate_limit_error" | "timeout_error"
            ),
            LlmError::RemoteMissingSummary
            | LlmError::MalformedStream { .. }
            | LlmError::MalformedResponse { .. }
            | LlmError::InvalidRequest { .. }
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
            LlmError::Status { retry_after, .. } | LlmError::RemoteStatus { retry_after, .. } => {
                *retry_after
            }
            _ => None,
        }
    }
}

/// `error` with `secret` removed from every text that came from the server.
pub(crate) fn redact_error(error: LlmError, secret: Option<&str>) -> LlmError {
    let Some(secret) = secret.filter(|s| !s.is_empty()) else {
        return error;
    };
    let clean = |text: String| {
        if text.contains(secret) {
            text.replace(secret, "[redacted]")
        } else {
            text
        }
    };
    match error {
        LlmError::Status {
            status,
            body,
            retry_after,
        } => LlmError::Status {
            status,
            body: clean(body),
            retry_after,
        },
        LlmError::Transport { message } => LlmError::Transport {
            message: clean(message),
        },
        LlmError::MalformedStream { offset, reason } => LlmError::MalformedStream {
            offset,
            reason: clean(reason),
        },
        LlmError::MalformedResponse { reason } => LlmError::MalformedResponse {
            reason: clean(reason),
        },
        LlmError::Provider { kind, message } => LlmError::Provider {
            kind: clean(kind),
            message: clean(message),
        },
        LlmError::InvalidRequest { reason } => LlmError::InvalidRequest {
            reason: clean(reason),
        },
        other => other,
    }
}

/// Replaces every occurrence of `secret` in `text` with `[redacted]`.
///
/// Used on everything a server sends back before it goes into an error: some servers echo
/// the key they rejected.
pub fn redact(text: &str, secret: Option<&str>) -> String {
    match secret {
        Some(secret) if !secret.is_empty() => text.replace(secret, "[redacted]"),
        _ => text.to_owned(),
    }
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
    reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("")
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
        let status = |status| LlmError::Status {
            status,
            body: String::new(),
            retry_after: None,
        };
        for code in [408, 429, 500, 502, 503, 504, 529] {
            assert!(status(code).is_retryable(), "{code}");
        }
        for code in [400, 401, 403, 404, 413, 422] {
            assert!(!status(code).is_retryable(), "{code}");
        }
        assert!(LlmError::Timeout {
            after: Duration::from_secs(1)
        }
        .is_retryable());
        assert!(LlmError::Transport {
            message: "reset".into()
        }
        .is_retryable());
        assert!(!LlmError::Cancelled.is_retryable());
        assert!(!LlmError::MalformedStream {
            offset: 3,
            reason: "x".into()
        }
        .is_retryable());
        let provider = |kind: &str| LlmError::Provider {
            kind: kind.into(),
            message: String::new(),
        };
        assert!(provider("overloaded_error").is_retryable());
        assert!(!provider("invalid_request_error").is_retryable());
    }

    #[test]
    fn display_texts_fit_after_the_callers_prefix() {
        let err = LlmError::Status {
            status: 503,
            body: String::new(),
            retry_after: None,
        };
        assert_eq!(err.to_string(), "HTTP 503 Service Unavailable: (no body)");
        let err = LlmError::RemoteStatus {
            status: 502,
            status_text: "Bad Gateway".into(),
            retry_after: None,
        };
        assert_eq!(
            err.to_string(),
            "Remote compaction failed (502 Bad Gateway)"
        );
        assert_eq!(
            LlmError::RemoteMissingSummary.to_string(),
            "Remote compaction response missing summary"
        );
        assert_eq!(
            LlmError::Timeout {
                after: Duration::from_millis(250)
            }
            .to_string(),
            "request timed out: nothing received for 250ms"
        );
        let all = LlmError::AllFailed(vec![
            CandidateFailure {
                provider: "local".into(),
                model: "qwen".into(),
                error: LlmError::Status {
                    status: 400,
                    body: "bad".into(),
                    retry_after: None,
                },
            },
            CandidateFailure {
                provider: "remote".into(),
                model: String::new(),
                error: LlmError::RemoteMissingSummary,
            },
        ]);
        assert_eq!(
            all.to_string(),
            "all 2 candidate models failed: [1] local qwen: HTTP 400 Bad Request: bad; \
             [2] remote: Remote compaction response missing summary"
        );
    }

    #[test]
    fn body_excerpts_are_cut_and_redacted() {
        let long = "é".repeat(BODY_EXCERPT_CHARS + 10);
        let excerpt = body_excerpt(&long, None);
        assert_eq!(excerpt.chars().count(), BODY_EXCERPT_CHARS + 1);
        assert_eq!(
            body_excerpt(" invalid key sk-secret-1 ", Some("sk-secret-1")),
            "invalid key [redacted]"
        );
    }
}
