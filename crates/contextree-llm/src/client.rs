//! The IO: [`summarize_with_events`] sends a [`SummaryRequest`] to each candidate in order, streaming,
//! retrying and cancellable. Everything it sends and reads is built and parsed by the pure
//! modules ([`crate::request`], [`crate::sse`]); this file only moves bytes.
//!
//! Policy (omp's candidate loop, compaction.md §1.3 step 4):
//! - candidates are tried in order; one that needs a key and has none is skipped;
//! - a retryable error ([`LlmError::is_retryable`]) is retried up to `max_retries` times
//!   after `retry_base_delay × 2^attempt`, or the server's `retry-after` if longer; if that
//!   delay exceeds [`MAX_RETRY_DELAY`] and another candidate exists, the next candidate is
//!   tried instead;
//! - any other error moves on to the next candidate at once;
//! - cancellation wins at any moment: while connecting, streaming or sleeping before a retry.
//!   The connection is dropped and [`LlmError::Cancelled`] returned;
//! - the whole call has a total deadline ([`Candidates::deadline`]): every candidate, attempt
//!   and backoff sleep counts against it. When it passes the connection is dropped and
//!   [`LlmError::Deadline`] returned; a retry whose wait would end after it is not waited for.
//!   The per-provider idle timeout alone does not bound a call: a server that trickles a byte
//!   just within it, or retries on timeouts, could hold it for many minutes.
//!
//! Requests go only to the configured URL: redirects are not followed, and loopback URLs
//! bypass any proxy.

use std::time::Duration;

use crate::cancel::CancelToken;
use crate::config::{Candidates, ProviderConfig, ProviderKind};
use crate::error::{body_excerpt, redact, redact_error, CandidateFailure, LlmError};
use crate::request::{self, HttpRequest, SummaryRequest};
use crate::sse::{self, SseParser, StreamDecoder, StreamFormat, Usage};

/// A retry delay above this makes the loop move on to the next candidate, if there is one.
pub const MAX_RETRY_DELAY: Duration = Duration::from_secs(30);

/// How much of an error response body is read (the rest is not needed for the excerpt).
const ERROR_BODY_LIMIT: usize = 64 << 10;
/// The largest non-streamed answer accepted.
const BODY_LIMIT: usize = 64 << 20;

/// A finished summary and who wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The summary text, exactly as the model produced it (no trimming).
    pub text: String,
    /// The candidate's label ([`ProviderConfig::label`]).
    pub provider: String,
    /// The candidate's wire format.
    pub kind: ProviderKind,
    /// The model asked for (empty for a remote endpoint).
    pub model: String,
    /// The token usage the provider reported, if it did.
    pub usage: Option<Usage>,
    /// Why generation stopped (`stop`, `length`, `end_turn`, `max_tokens`, ...), if reported.
    /// `length` / `max_tokens` mean the summary was cut at `max_tokens`; the agents keep such
    /// a summary, so it is not an error here either.
    pub stop_reason: Option<String>,
}

/// What [`summarize_with_events`] reports while it works.
#[derive(Debug)]
#[non_exhaustive]
pub enum Event<'a> {
    /// An attempt starts (`attempt` 0 is the first try of this candidate).
    Attempt {
        /// The candidate's label.
        provider: &'a str,
        /// The model.
        model: &'a str,
        /// 0 for the first try, then 1, 2, ...
        attempt: u32,
        /// What is left of the call's deadline as the attempt starts (`None`: no deadline).
        deadline_left: Option<Duration>,
    },
    /// The next piece of summary text.
    Delta(&'a str),
    /// The attempt failed and the same candidate is tried again after `delay`.
    /// Text delivered since the last [`Event::Attempt`] is void.
    Retry {
        /// Why the attempt failed.
        error: &'a LlmError,
        /// How long the loop sleeps first.
        delay: Duration,
    },
    /// The candidate failed for good and the next one is tried.
    /// Text delivered since the last [`Event::Attempt`] is void.
    Fallback {
        /// The candidate that failed.
        provider: &'a str,
        /// Its last error.
        error: &'a LlmError,
    },
}

/// Asks the candidates for a summary, reporting every [`Event`] (text as it streams in);
/// keys are read from the process environment.
///
/// If an attempt fails after some text was delivered and a retry or the next candidate
/// succeeds, the failed attempt's text is followed by [`Event::Retry`] or
/// [`Event::Fallback`], then the new attempt's text. The returned [`Summary::text`] holds
/// only the successful attempt's text.
pub async fn summarize_with_events(
    request: &SummaryRequest,
    candidates: &Candidates,
    on_event: &mut (dyn FnMut(Event<'_>) + Send),
    cancel: &CancelToken,
) -> Result<Summary, LlmError> {
    let env = |var: &str| std::env::var(var).ok();
    summarize_with_env(request, candidates, on_event, cancel, &env).await
}

/// [`summarize_with_events`] with keys looked up through `env` instead of the process
/// environment.
pub async fn summarize_with_env(
    request: &SummaryRequest,
    candidates: &Candidates,
    on_event: &mut (dyn FnMut(Event<'_>) + Send),
    cancel: &CancelToken,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<Summary, LlmError> {
    if candidates.is_empty() {
        return Err(LlmError::NoProvider);
    }
    let deadline = Deadline {
        after: candidates.deadline,
        // A deadline too far to represent is no deadline.
        at: tokio::time::Instant::now().checked_add(candidates.deadline),
    };
    let call = each_candidate(request, candidates, on_event, cancel, env, &deadline);
    match deadline.at {
        Some(at) => tokio::time::timeout_at(at, call).await.unwrap_or(Err(LlmError::Deadline { after: deadline.after, last: None })),
        None => call.await,
    }
}

/// The call's total deadline.
struct Deadline {
    after: Duration,
    at: Option<tokio::time::Instant>,
}

impl Deadline {
    fn left(&self) -> Option<Duration> {
        self.at.map(|at| at.saturating_duration_since(tokio::time::Instant::now()))
    }
}

async fn each_candidate(
    request: &SummaryRequest,
    candidates: &Candidates,
    on_event: &mut (dyn FnMut(Event<'_>) + Send),
    cancel: &CancelToken,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
    deadline: &Deadline,
) -> Result<Summary, LlmError> {
    let mut failures = Vec::new();
    for (idx, provider) in candidates.providers.iter().enumerate() {
        let has_next = idx + 1 < candidates.providers.len();
        match try_candidate(request, provider, has_next, on_event, cancel, env, deadline).await {
            Ok(summary) => return Ok(summary),
            Err(LlmError::Cancelled) => return Err(LlmError::Cancelled),
            // The deadline is the whole call's: no other candidate gets time.
            Err(error @ LlmError::Deadline { .. }) => return Err(error),
            Err(error) => {
                if has_next {
                    on_event(Event::Fallback { provider: provider.label(), error: &error });
                }
                failures.push(CandidateFailure { provider: provider.label().to_owned(), model: provider.model.clone(), error });
            }
        }
    }
    if failures.len() == 1 {
        return Err(failures.pop().expect("one failure").error);
    }
    Err(LlmError::AllFailed(failures))
}

async fn try_candidate(
    request: &SummaryRequest,
    provider: &ProviderConfig,
    has_next: bool,
    on_event: &mut (dyn FnMut(Event<'_>) + Send),
    cancel: &CancelToken,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
    deadline: &Deadline,
) -> Result<Summary, LlmError> {
    let key = provider.resolve_api_key(env);
    if key.is_none() && provider.requires_api_key() {
        return Err(LlmError::MissingApiKey {
            provider: provider.label().to_owned(),
            env: provider.api_key_env_name().unwrap_or("an API key variable").to_owned(),
        });
    }
    let secret = key.as_ref().map(|k| k.expose());
    let http = http_client(provider)?;
    let req = request::build(request, provider, key.as_ref());
    let mut attempt = 0;
    loop {
        on_event(Event::Attempt { provider: provider.label(), model: &provider.model, attempt, deadline_left: deadline.left() });
        let res = tokio::select! {
            biased;
            () = cancel.cancelled() => Err(LlmError::Cancelled),
            res = send_once(&http, &req, provider, secret, on_event) => {
                res.map_err(|err| redact_error(err, secret))
            }
        };
        let error = match res {
            Ok(summary) => return Ok(summary),
            Err(error) => error,
        };
        if !error.is_retryable() || attempt >= provider.max_retries {
            return Err(error);
        }
        let delay = retry_delay(provider.retry_base_delay, attempt, error.retry_after());
        if delay > MAX_RETRY_DELAY && has_next {
            return Err(error);
        }
        if deadline.left().is_some_and(|left| delay >= left) {
            // Waiting would only end in the deadline: say so now, with the reason.
            return Err(LlmError::Deadline { after: deadline.after, last: Some(Box::new(error)) });
        }
        on_event(Event::Retry { error: &error, delay });
        tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(LlmError::Cancelled),
            () = tokio::time::sleep(delay) => {}
        }
        attempt += 1;
    }
}

/// `base × 2^attempt`, at least `retry_after`.
pub fn retry_delay(base: Duration, attempt: u32, retry_after: Option<Duration>) -> Duration {
    let backoff = base.saturating_mul(2u32.saturating_pow(attempt));
    backoff.max(retry_after.unwrap_or_default())
}

fn http_client(provider: &ProviderConfig) -> Result<reqwest::Client, LlmError> {
    let mut builder = reqwest::Client::builder()
        .user_agent(concat!("contextree/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(provider.timeout)
        .redirect(reqwest::redirect::Policy::none());
    if request::is_loopback(&provider.base_url) {
        builder = builder.no_proxy();
    }
    builder.build().map_err(|err| transport_error(err, None, provider.timeout))
}

async fn send_once(
    http: &reqwest::Client,
    req: &HttpRequest,
    provider: &ProviderConfig,
    secret: Option<&str>,
    on_event: &mut (dyn FnMut(Event<'_>) + Send),
) -> Result<Summary, LlmError> {
    let timeout = provider.timeout;
    let mut builder = http.post(&req.url).body(req.body.clone());
    for (name, value) in &req.headers {
        builder = builder.header(*name, value);
    }
    let mut response = idle(timeout, builder.send()).await?.map_err(|err| transport_error(err, secret, timeout))?;
    let status = response.status();
    if !status.is_success() {
        let retry_after = parse_retry_after(response.headers());
        // Whatever part of the body arrives in time is enough for an excerpt.
        let body = read_body(&mut response, timeout, ERROR_BODY_LIMIT, secret).await.unwrap_or_default();
        return Err(match provider.kind {
            ProviderKind::Remote => LlmError::RemoteStatus {
                status: status.as_u16(),
                status_text: status.canonical_reason().unwrap_or_default().to_owned(),
                retry_after,
            },
            _ => LlmError::Status { status: status.as_u16(), body: body_excerpt(&String::from_utf8_lossy(&body), secret), retry_after },
        });
    }
    let summary = |text: String, usage, stop_reason| Summary {
        text,
        provider: provider.label().to_owned(),
        kind: provider.kind,
        model: provider.model.clone(),
        usage,
        stop_reason,
    };
    let format = match provider.kind {
        ProviderKind::Remote => {
            let body = read_body(&mut response, timeout, BODY_LIMIT, secret).await?;
            let text = sse::decode_remote(&body)?;
            on_event(Event::Delta(&text));
            return Ok(summary(text, None, None));
        }
        ProviderKind::OpenAiCompatible => StreamFormat::OpenAi,
        ProviderKind::Anthropic => StreamFormat::Anthropic,
    };
    let is_json = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        // A server that ignored `stream: true` answers in one piece.
        let body = read_body(&mut response, timeout, BODY_LIMIT, secret).await?;
        let answer = sse::decode_json_response(format, &body)?;
        on_event(Event::Delta(&answer.text));
        return Ok(summary(answer.text, answer.usage, answer.stop_reason));
    }
    let mut parser = SseParser::new();
    let mut decoder = StreamDecoder::new(format);
    let mut events = Vec::new();
    let mut text = String::new();
    let mut on_text = |delta: &str| {
        text.push_str(delta);
        on_event(Event::Delta(delta));
    };
    'read: loop {
        let chunk = idle(timeout, response.chunk()).await?.map_err(|err| transport_error(err, secret, timeout))?;
        let at_end = chunk.is_none();
        match chunk {
            Some(bytes) => parser.feed(&bytes, &mut events)?,
            None => parser.finish(&mut events)?,
        }
        for event in events.drain(..) {
            decoder.decode(&event, &mut on_text)?;
            if decoder.is_done() {
                // Do not wait for the server to close the connection.
                break 'read;
            }
        }
        if at_end {
            break;
        }
    }
    if !decoder.is_complete() {
        return Err(LlmError::Truncated { bytes: parser.bytes_seen() });
    }
    let usage = decoder.usage();
    let stop_reason = decoder.stop_reason().map(str::to_owned);
    Ok(summary(text, usage, stop_reason))
}

/// Reads the rest of a body (up to `limit` bytes), each piece within `timeout`.
async fn read_body(response: &mut reqwest::Response, timeout: Duration, limit: usize, secret: Option<&str>) -> Result<Vec<u8>, LlmError> {
    let mut body = Vec::new();
    while let Some(chunk) = idle(timeout, response.chunk()).await?.map_err(|err| transport_error(err, secret, timeout))? {
        body.extend_from_slice(&chunk);
        if body.len() > limit {
            body.truncate(limit);
            break;
        }
    }
    Ok(body)
}

/// Runs `fut`, failing with [`LlmError::Timeout`] if it takes longer than `timeout`.
async fn idle<T>(timeout: Duration, fut: impl std::future::Future<Output = T>) -> Result<T, LlmError> {
    tokio::time::timeout(timeout, fut).await.map_err(|_| LlmError::Timeout { after: timeout })
}

/// `retry-after-ms` (OpenAI) or `retry-after` in seconds; HTTP dates are ignored.
fn parse_retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let number = |name: &str| {
        let value: f64 = headers.get(name)?.to_str().ok()?.trim().parse().ok()?;
        (0.0..1e7).contains(&value).then_some(value)
    };
    if let Some(ms) = number("retry-after-ms") {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    number("retry-after").map(Duration::from_secs_f64)
}

/// A reqwest error as an [`LlmError`], without the URL (its query could hold a key) and
/// with the key redacted from every message in the chain.
fn transport_error(err: reqwest::Error, secret: Option<&str>, timeout: Duration) -> LlmError {
    if err.is_timeout() {
        return LlmError::Timeout { after: timeout };
    }
    let is_builder = err.is_builder();
    let err = err.without_url();
    let mut message = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    let message = redact(&message, secret);
    if is_builder {
        LlmError::InvalidRequest { reason: message }
    } else {
        LlmError::Transport { message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_respects_retry_after() {
        let base = Duration::from_millis(2000);
        assert_eq!(retry_delay(base, 0, None), Duration::from_secs(2));
        assert_eq!(retry_delay(base, 2, None), Duration::from_secs(8));
        assert_eq!(retry_delay(base, 0, Some(Duration::from_secs(5))), Duration::from_secs(5));
        assert!(retry_delay(base, 40, None) > Duration::from_secs(1 << 30)); // Saturates, no panic.
    }

    #[test]
    fn retry_after_headers_are_read() {
        let mut headers = reqwest::header::HeaderMap::new();
        assert_eq!(parse_retry_after(&headers), None);
        headers.insert("retry-after", "3".parse().unwrap());
        assert_eq!(parse_retry_after(&headers), Some(Duration::from_secs(3)));
        headers.insert("retry-after-ms", "250".parse().unwrap());
        assert_eq!(parse_retry_after(&headers), Some(Duration::from_millis(250)));
        headers.clear();
        headers.insert("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap());
        assert_eq!(parse_retry_after(&headers), None);
    }

    #[test]
    fn summarize_is_send() {
        fn assert_send<T: Send>(_: &T) {}
        let request = SummaryRequest { system_prompt: String::new(), prompt: String::new(), max_tokens: Some(1), reasoning: None };
        let candidates = Candidates::default();
        let cancel = CancelToken::new();
        let mut on_event = |_: Event<'_>| {};
        let fut = summarize_with_events(&request, &candidates, &mut on_event, &cancel);
        assert_send(&fut);
    }
}
