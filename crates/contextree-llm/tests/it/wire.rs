use contextree_llm::{ApiKey, CancelToken, ProviderKind, Usage};

use crate::support::{provider, run, Reply, Server};

const OPENAI: &[u8] = include_bytes!("../fixtures/openai_ollama.sse");
const ANTHROPIC: &[u8] = include_bytes!("../fixtures/anthropic.sse");

#[tokio::test]
async fn openai_compatible_request_is_exact_and_deltas_stream_in_order() {
    // 16-byte pieces split lines, JSON and the emoji across reads.
    let server = Server::start(vec![Reply::sse(OPENAI, 16)]).await;
    let mut p = provider(ProviderKind::OpenAiCompatible, &format!("{}/v1", server.url), "qwen2.5:7b");
    p.name = Some("local".into());
    p.api_key = Some(ApiKey::new("sk-local"));
    let (res, log) = run(vec![p], &CancelToken::new()).await;
    let summary = res.unwrap();

    let got = server.received();
    assert_eq!(got.len(), 1);
    let req = &got[0];
    assert_eq!((req.method.as_str(), req.path.as_str()), ("POST", "/v1/chat/completions"));
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.header("accept"), Some("text/event-stream"));
    assert_eq!(req.header("authorization"), Some("Bearer sk-local"));
    assert_eq!(
        req.body,
        r#"{"model":"qwen2.5:7b","messages":[{"role":"system","content":"You are a context summarization assistant."},{"role":"user","content":"<conversation>\n[User]: Port the parser.\n</conversation>\n\nSummarize."}],"max_tokens":13107,"stream":true,"stream_options":{"include_usage":true}}"#
    );

    assert_eq!(log.deltas, ["## Goal", "\nPort the ", "parser 😀."]);
    assert_eq!(log.events[0], "attempt local 0");
    assert_eq!(summary.text, "## Goal\nPort the parser 😀.");
    assert_eq!(summary.provider, "local");
    assert_eq!(summary.model, "qwen2.5:7b");
    assert_eq!(summary.stop_reason.as_deref(), Some("stop"));
    assert_eq!(summary.usage, Some(Usage { input_tokens: Some(812), output_tokens: Some(9) }));
}

#[tokio::test]
async fn anthropic_request_has_its_headers_and_text_blocks_are_joined() {
    let crlf = String::from_utf8(ANTHROPIC.to_vec()).unwrap().replace('\n', "\r\n");
    let server = Server::start(vec![Reply::sse(crlf.as_bytes(), 64)]).await;
    let mut p = provider(ProviderKind::Anthropic, &server.url, "claude-sonnet-4-5");
    p.api_key = Some(ApiKey::new("ant-test-key"));
    let (res, log) = run(vec![p], &CancelToken::new()).await;
    let summary = res.unwrap();

    let req = &server.received()[0];
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(req.header("x-api-key"), Some("ant-test-key"));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.header("authorization"), None);
    assert_eq!(
        req.body,
        r#"{"model":"claude-sonnet-4-5","max_tokens":13107,"system":"You are a context summarization assistant.","messages":[{"role":"user","content":"<conversation>\n[User]: Port the parser.\n</conversation>\n\nSummarize."}],"stream":true}"#
    );
    assert_eq!(log.deltas, ["## Goal\n", "Port the parser.", "\n", "## Next Steps"]);
    assert_eq!(summary.text, "## Goal\nPort the parser.\n## Next Steps");
    assert_eq!(summary.provider, "anthropic");
    assert_eq!(summary.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(summary.usage, Some(Usage { input_tokens: Some(1204), output_tokens: Some(57) }));
}

#[tokio::test]
async fn remote_endpoint_gets_system_prompt_and_prompt_and_returns_summary() {
    let server = Server::start(vec![Reply::json(r###"{"summary":"## Goal\nRemote.","shortSummary":"ignored"}"###)]).await;
    let p = provider(ProviderKind::Remote, &format!("{}/compact", server.url), "");
    let (res, log) = run(vec![p], &CancelToken::new()).await;
    let summary = res.unwrap();

    let req = &server.received()[0];
    assert_eq!(req.path, "/compact");
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(
        req.body,
        r#"{"systemPrompt":"You are a context summarization assistant.","prompt":"<conversation>\n[User]: Port the parser.\n</conversation>\n\nSummarize."}"#
    );
    assert_eq!(summary.text, "## Goal\nRemote.");
    assert_eq!(log.deltas, ["## Goal\nRemote."]);
    assert_eq!(summary.usage, None);
}

#[tokio::test]
async fn a_server_that_ignores_stream_true_is_read_as_json() {
    let body = r#"{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"Whole."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#;
    let server = Server::start(vec![Reply::json(body)]).await;
    let p = provider(ProviderKind::OpenAiCompatible, &server.url, "m");
    let (res, log) = run(vec![p], &CancelToken::new()).await;
    let summary = res.unwrap();
    // A bare origin gets the /v1 prefix.
    assert_eq!(server.received()[0].path, "/v1/chat/completions");
    assert_eq!(summary.text, "Whole.");
    assert_eq!(log.deltas, ["Whole."]);
    assert_eq!(summary.usage, Some(Usage { input_tokens: Some(5), output_tokens: Some(2) }));
}
