//! The total deadline of one summary call (`Candidates::deadline`), against servers that never
//! finish; and API keys a server echoes back in any form, redacted from every error.

use std::time::{Duration, Instant};

use contextree_llm::{ApiKey, CancelToken, Candidates, LlmError, ProviderConfig, ProviderKind};

use crate::support::{all_text, provider, run_candidates, Reply, Server};

/// How late past its deadline a call may end (scheduling on a loaded machine, the dropped
/// connection). The deadlines below are a second or more so that building the HTTP client
/// (system certificates, slow in a debug build) never eats them up.
// Generous: on two loaded cores a thread may wait seconds to run. What the tests prove is that
// a call ends at its deadline, not after the minutes a hanging server would take.
const MARGIN: Duration = Duration::from_secs(3);

/// A candidate with the default idle timeout (120 s) and retries (3): alone, these would let
/// a silent server hold the call for many minutes.
fn patient(kind: ProviderKind, url: &str) -> ProviderConfig {
    let mut p = ProviderConfig::new(kind, url, "m");
    p.api_key = Some(ApiKey::new("k"));
    p
}

fn with_deadline(providers: Vec<ProviderConfig>, deadline: Duration) -> Candidates {
    Candidates { providers, deadline }
}

#[tokio::test]
async fn a_server_that_accepts_and_never_answers_fails_at_the_deadline() {
    let server = Server::start(vec![Reply::Hang]).await;
    let deadline = Duration::from_millis(1000);
    let started = Instant::now();
    let (res, log) =
        run_candidates(&with_deadline(vec![patient(ProviderKind::OpenAiCompatible, &server.url)], deadline), &CancelToken::new()).await;
    let took = started.elapsed();
    let err = res.unwrap_err();
    assert!(matches!(err, LlmError::Deadline { after, last: None } if after == deadline), "{err:?}");
    assert_eq!(err.to_string(), "no summary within the deadline of 1s (summaryDeadlineSecs in contextree's config)");
    assert!(took >= deadline && took < deadline + MARGIN, "{took:?}");
    assert_eq!(server.received().len(), 1);
    // The attempt said how much time it had.
    let left = log.deadline_left[0].unwrap();
    assert!(left <= deadline && !left.is_zero(), "{left:?}");
    // The connection is dropped, not left hanging (the server sees it close; on two loaded
    // cores that may take a moment).
    let until = Instant::now() + MARGIN;
    while server.n_closed() == 0 && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(server.n_closed(), 1);
}

#[tokio::test]
async fn a_stream_that_trickles_forever_fails_at_the_deadline() {
    // An SSE comment every 20 ms: never idle long enough for the 120 s timeout, never done.
    let server = Server::start(vec![Reply::Stream {
        chunks: vec![b": still thinking\n".to_vec(); 100_000],
        pause: Duration::from_millis(20),
        stall: true,
    }])
    .await;
    let deadline = Duration::from_millis(1000);
    let started = Instant::now();
    let (res, log) =
        run_candidates(&with_deadline(vec![patient(ProviderKind::Anthropic, &server.url)], deadline), &CancelToken::new()).await;
    let took = started.elapsed();
    assert!(matches!(res, Err(LlmError::Deadline { .. })), "{res:?}");
    assert!(took >= deadline && took < deadline + MARGIN, "{took:?}");
    assert!(log.deltas.is_empty());
}

#[tokio::test]
async fn retries_and_backoff_count_against_the_deadline() {
    let server = Server::start(vec![Reply::status(503, "busy")]).await;
    let mut p = provider(ProviderKind::OpenAiCompatible, &server.url, "m");
    p.max_retries = 10;
    p.retry_base_delay = Duration::from_millis(300);
    let deadline = Duration::from_millis(1500);
    let started = Instant::now();
    let (res, log) = run_candidates(&with_deadline(vec![p], deadline), &CancelToken::new()).await;
    let took = started.elapsed();
    // Attempts at about 0, 300 and 900 ms; the next wait (1200 ms) would end past the
    // deadline, so the call ends at once with the reason rather than sleep into it.
    let err = res.unwrap_err();
    assert!(
        matches!(&err, LlmError::Deadline { last: Some(last), .. } if matches!(**last, LlmError::Status { status: 503, .. })),
        "{err:?}"
    );
    assert!(err.to_string().ends_with("last error: HTTP 503 Service Unavailable: busy"), "{err}");
    assert!(server.received().len() >= 2, "{:?}", log.events);
    assert!(took < deadline, "{took:?}");
    // Each attempt had less time left than the one before.
    let left: Vec<Duration> = log.deadline_left.iter().map(|l| l.unwrap()).collect();
    assert!(left.windows(2).all(|w| w[1] < w[0]), "{left:?}");
}

#[tokio::test]
async fn the_deadline_is_the_whole_calls_and_no_other_candidate_starts() {
    let hang = Server::start(vec![Reply::Hang]).await;
    let never = Server::start(vec![Reply::status(500, "unused")]).await;
    let deadline = Duration::from_millis(1000);
    let candidates = with_deadline(
        vec![patient(ProviderKind::OpenAiCompatible, &hang.url), patient(ProviderKind::OpenAiCompatible, &never.url)],
        deadline,
    );
    let started = Instant::now();
    let (res, _) = run_candidates(&candidates, &CancelToken::new()).await;
    assert!(matches!(res, Err(LlmError::Deadline { .. })), "{res:?}");
    assert!(started.elapsed() < deadline + MARGIN);
    assert!(never.received().is_empty());
}

/// The key in every form a server might echo it, each in a 401 body and in an in-stream error.
#[tokio::test]
async fn a_key_echoed_in_any_form_is_redacted_from_errors() {
    let key = "sk-proj-Ab12/Cd34+Ef56=Gh78_ij90";
    let forms = [
        ("verbatim", key.to_owned()),
        ("lower-cased", key.to_lowercase()),
        ("upper-cased", key.to_uppercase()),
        ("JSON-escaped slash", key.replace('/', "\\/")),
        ("JSON \\u escapes", key.chars().map(|c| format!("\\u{:04x}", u32::from(c))).collect()),
        ("percent-encoded", key.replace('/', "%2F").replace('+', "%2B").replace('=', "%3d")),
        ("percent-encoded twice", key.replace('/', "%252F").replace('+', "%252B")),
        ("truncated", key[..20].to_owned()),
    ];
    for (what, echo) in forms {
        // Written raw into the body: the server's own escaping is what is tested.
        let body = format!(r#"{{"error":{{"message":"Incorrect API key provided: {echo}.","type":"invalid_request_error"}}}}"#);
        let status = Server::start(vec![Reply::status(401, &body)]).await;
        let stream = format!("data: {{\"error\":{{\"message\":\"bad key {echo}\",\"type\":\"auth\"}}}}\n\n");
        let in_stream = Server::start(vec![Reply::sse(stream.as_bytes(), 4096)]).await;
        for server in [&status, &in_stream] {
            let mut p = provider(ProviderKind::OpenAiCompatible, &server.url, "m");
            p.api_key = Some(ApiKey::new(key));
            let (res, _) = run_candidates(&Candidates::new(vec![p]), &CancelToken::new()).await;
            let text = all_text(&res.unwrap_err());
            assert!(text.contains("[redacted]"), "{what}: {text}");
            assert!(!text.contains(&echo), "{what}: {text}");
            assert!(!text.to_lowercase().contains("ab12/cd34"), "{what}: {text}");
            assert_eq!(
                server.received()[0].header("authorization"),
                Some(format!("Bearer {key}").as_str()),
                "{what}: the key went where it belongs"
            );
        }
    }
}
