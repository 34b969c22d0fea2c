use std::time::{Duration, Instant};

use contextree_llm::{ApiKey, CancelToken, LlmError, ProviderKind};

use crate::support::{all_text, provider, run, Reply, Server};

const OPENAI: &[u8] = include_bytes!("../fixtures/openai_ollama.sse");

#[tokio::test]
async fn retries_429_and_503_with_backoff_then_succeeds() {
    let server = Server::start(vec![
        Reply::Full { status: 429, headers: vec![("retry-after-ms", "30".into())], body: "slow down".into() },
        Reply::status(503, ""),
        Reply::sse(OPENAI, 4096),
    ])
    .await;
    let mut p = provider(ProviderKind::OpenAiCompatible, &server.url, "m");
    p.max_retries = 3;
    let (res, log) = run(vec![p], &CancelToken::new()).await;
    assert_eq!(res.unwrap().text, "## Goal\nPort the parser 😀.");
    assert_eq!(server.received().len(), 3);
    // 10 ms × 2⁰ raised to the server's 30 ms, then 10 ms × 2¹.
    let events: Vec<&str> = log.events.iter().map(String::as_str).filter(|e| *e != "delta").collect();
    assert_eq!(
        events,
        [
            "attempt openai-compatible 0",
            "retry after 30ms",
            "attempt openai-compatible 1",
            "retry after 20ms",
            "attempt openai-compatible 2"
        ]
    );
}

#[tokio::test]
async fn a_400_is_not_retried_and_keeps_the_body() {
    let server = Server::start(vec![Reply::status(400, r#"{"error":"bad model"}"#), Reply::sse(OPENAI, 4096)]).await;
    let mut p = provider(ProviderKind::OpenAiCompatible, &server.url, "m");
    p.max_retries = 3;
    let (res, _) = run(vec![p], &CancelToken::new()).await;
    let err = res.unwrap_err();
    assert_eq!(err.to_string(), r#"HTTP 400 Bad Request: {"error":"bad model"}"#);
    assert!(!err.is_retryable());
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn when_every_candidate_fails_each_is_listed_in_order() {
    let unauthorized = Server::start(vec![Reply::status(401, "no")]).await;
    let overloaded = Server::start(vec![Reply::status(503, "busy")]).await;
    let remote = Server::start(vec![Reply::json(r#"{"text":"wrong field"}"#)]).await;
    // A port nobody listens on.
    let refused = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let mut busy = provider(ProviderKind::OpenAiCompatible, &overloaded.url, "m2");
    busy.max_retries = 1;
    let candidates = vec![
        provider(ProviderKind::OpenAiCompatible, &unauthorized.url, "m1"),
        // Needs a key and has none: skipped without a request.
        provider(ProviderKind::Anthropic, &unauthorized.url, "claude"),
        busy,
        provider(ProviderKind::OpenAiCompatible, &refused, "m3"),
        provider(ProviderKind::Remote, &remote.url, ""),
    ];
    let (res, log) = run(candidates, &CancelToken::new()).await;
    let err = res.unwrap_err();
    let LlmError::AllFailed(failures) = &err else { panic!("{err:?}") };
    let kinds: Vec<String> = failures.iter().map(|f| format!("{} {}", f.provider, f.model)).collect();
    assert_eq!(kinds, ["openai-compatible m1", "anthropic claude", "openai-compatible m2", "openai-compatible m3", "remote "]);
    assert!(matches!(failures[0].error, LlmError::Status { status: 401, .. }));
    assert!(matches!(failures[1].error, LlmError::MissingApiKey { .. }));
    assert!(matches!(failures[2].error, LlmError::Status { status: 503, .. }));
    assert!(matches!(failures[3].error, LlmError::Transport { .. }), "{:?}", failures[3].error);
    assert!(matches!(failures[4].error, LlmError::RemoteMissingSummary));
    let text = err.to_string();
    assert!(text.starts_with("all 5 candidate models failed: [1] openai-compatible m1: HTTP 401 Unauthorized: no; [2] anthropic claude: no API key for anthropic (set ANTHROPIC_API_KEY"), "{text}");
    assert!(
        text.contains("[3] openai-compatible m2: HTTP 503 Service Unavailable: busy; [4] openai-compatible m3: connection failed: "),
        "{text}"
    );
    assert!(text.ends_with("[5] remote: Remote compaction response missing summary"), "{text}");
    // One request to the 401 server (the Anthropic candidate never connected), two to the 503 one.
    assert_eq!(unauthorized.received().len(), 1);
    assert_eq!(overloaded.received().len(), 2);
    assert_eq!(log.events.iter().filter(|e| e.starts_with("fallback")).count(), 4);
}

#[tokio::test]
async fn the_next_candidate_answers_when_the_first_fails() {
    let broken = Server::start(vec![Reply::status(500, "")]).await;
    let good = Server::start(vec![Reply::sse(OPENAI, 4096)]).await;
    let mut second = provider(ProviderKind::OpenAiCompatible, &good.url, "m2");
    second.name = Some("backup".into());
    let (res, log) = run(vec![provider(ProviderKind::OpenAiCompatible, &broken.url, "m1"), second], &CancelToken::new()).await;
    let summary = res.unwrap();
    assert_eq!((summary.provider.as_str(), summary.model.as_str()), ("backup", "m2"));
    assert!(log.events.contains(&"fallback from openai-compatible".to_owned()));
}

#[tokio::test]
async fn a_single_failing_candidate_returns_its_own_error() {
    let server = Server::start(vec![Reply::status(503, "")]).await;
    let (res, _) = run(vec![provider(ProviderKind::Remote, &server.url, "")], &CancelToken::new()).await;
    assert_eq!(res.unwrap_err().to_string(), "Remote compaction failed (503 Service Unavailable)");
    let (res, _) = run(Vec::new(), &CancelToken::new()).await;
    assert_eq!(res.unwrap_err().to_string(), "no available model (no provider is configured)");
}

#[tokio::test]
async fn malformed_sse_is_a_clear_error_and_not_retried() {
    let stream = b"data: {\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}\n\ndata: {\"choices\":[{\"delta\":\n\n".to_vec();
    let server = Server::start(vec![Reply::sse(&stream, 4096)]).await;
    let mut p = provider(ProviderKind::OpenAiCompatible, &server.url, "m");
    p.max_retries = 2;
    let (res, log) = run(vec![p], &CancelToken::new()).await;
    let err = res.unwrap_err();
    assert!(err.to_string().starts_with("malformed stream event at byte 48: invalid JSON in event data: EOF while parsing"), "{err}");
    assert_eq!(log.deltas, ["ok"]);
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn a_stream_closed_before_its_end_is_truncated_and_retried() {
    let cut = &OPENAI[..OPENAI.len() / 2];
    let server = Server::start(vec![Reply::sse(cut, 4096), Reply::sse(OPENAI, 4096)]).await;
    let mut p = provider(ProviderKind::OpenAiCompatible, &server.url, "m");
    p.max_retries = 1;
    let (res, log) = run(vec![p], &CancelToken::new()).await;
    // The summary holds only the successful attempt; the events say the first one was void.
    assert_eq!(res.unwrap().text, "## Goal\nPort the parser 😀.");
    assert!(log.events.contains(&"retry after 10ms".to_owned()), "{:?}", log.events);
    assert_eq!(server.received().len(), 2);
}

#[tokio::test]
async fn no_response_in_time_is_a_retryable_timeout() {
    let server = Server::start(vec![Reply::Hang]).await;
    let mut p = provider(ProviderKind::Anthropic, &server.url, "claude");
    p.api_key = Some(ApiKey::new("ant-k"));
    p.timeout = Duration::from_millis(200);
    p.max_retries = 1;
    let started = Instant::now();
    let (res, _) = run(vec![p], &CancelToken::new()).await;
    let err = res.unwrap_err();
    assert_eq!(err.to_string(), "request timed out: nothing received for 200ms");
    assert!(err.is_retryable());
    assert_eq!(server.received().len(), 2);
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn a_stream_that_stalls_times_out_too() {
    let first = b"data: {\"choices\":[{\"delta\":{\"content\":\"half\"}}]}\n\n".to_vec();
    let server = Server::start(vec![Reply::Stream { chunks: vec![first], pause: Duration::ZERO, stall: true }]).await;
    let mut p = provider(ProviderKind::OpenAiCompatible, &server.url, "m");
    p.timeout = Duration::from_millis(200);
    let (res, log) = run(vec![p], &CancelToken::new()).await;
    assert!(matches!(res, Err(LlmError::Timeout { .. })), "{res:?}");
    assert_eq!(log.deltas, ["half"]);
}

#[tokio::test]
async fn api_keys_never_appear_in_errors() {
    let key = "sk-very-secret-0123456789";
    // A server that echoes the key it rejected, in the body and in an in-stream error.
    let echo = Server::start(vec![Reply::status(401, &format!(r#"{{"error":"invalid key {key}"}}"#))]).await;
    let stream = format!("data: {{\"error\":{{\"message\":\"bad key {key}\",\"type\":\"auth\"}}}}\n\n");
    let in_stream = Server::start(vec![Reply::sse(stream.as_bytes(), 4096)]).await;
    let refused = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let mut candidates = Vec::new();
    for url in [&echo.url, &in_stream.url, &refused] {
        let mut p = provider(ProviderKind::OpenAiCompatible, url, "m");
        p.api_key = Some(ApiKey::new(key));
        candidates.push(p);
    }
    let (res, _) = run(candidates.clone(), &CancelToken::new()).await;
    let err = res.unwrap_err();
    let text = all_text(&err);
    assert!(!text.contains(key), "{text}");
    assert!(text.contains("invalid key [redacted]"), "{text}");
    assert!(!format!("{candidates:?}").contains(key));
    // The key did go where it belongs.
    assert_eq!(echo.received()[0].header("authorization"), Some(format!("Bearer {key}").as_str()));
}
