use std::time::{Duration, Instant};

use contextree_llm::{summarize_with_env, CancelToken, Candidates, Event, LlmError, ProviderKind};
use tokio::sync::mpsc;

use crate::support::{provider, request, run, Reply, Server};

/// Runs a summary in a task, reporting every event name on a channel; returns the task.
fn spawn_summary(
    candidates: Candidates,
    cancel: CancelToken,
) -> (tokio::task::JoinHandle<Result<String, LlmError>>, mpsc::UnboundedReceiver<String>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let task = tokio::spawn(async move {
        let mut on_event = |event: Event<'_>| {
            let name = match event {
                Event::Delta(text) => format!("delta {text}"),
                Event::Retry { .. } => "retry".to_owned(),
                _ => "other".to_owned(),
            };
            let _ = tx.send(name);
        };
        summarize_with_env(&request(), &candidates, &mut on_event, &cancel, &|_| None).await.map(|s| s.text)
    });
    (task, rx)
}

async fn wait_for(rx: &mut mpsc::UnboundedReceiver<String>, prefix: &str) {
    tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(name) = rx.recv().await {
            if name.starts_with(prefix) {
                return;
            }
        }
        panic!("events ended before {prefix}");
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn cancelling_mid_stream_returns_cancelled_at_once_and_drops_the_connection() {
    let first = b"data: {\"choices\":[{\"delta\":{\"content\":\"partial\"}}]}\n\n".to_vec();
    let server = Server::start(vec![Reply::Stream { chunks: vec![first], pause: Duration::ZERO, stall: true }]).await;
    let mut p = provider(ProviderKind::OpenAiCompatible, &server.url, "m");
    p.timeout = Duration::from_secs(30);
    let cancel = CancelToken::new();
    let (task, mut rx) = spawn_summary(Candidates::new(vec![p]), cancel.clone());
    wait_for(&mut rx, "delta partial").await;
    let started = Instant::now();
    cancel.cancel();
    let res = tokio::time::timeout(Duration::from_secs(2), task).await.unwrap().unwrap();
    assert!(matches!(res, Err(LlmError::Cancelled)), "{res:?}");
    assert!(started.elapsed() < Duration::from_millis(500), "{:?}", started.elapsed());
    // The server notices the client went away.
    tokio::time::timeout(Duration::from_secs(2), async {
        while server.n_closed() == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn cancelling_while_waiting_for_an_answer_returns_cancelled() {
    let server = Server::start(vec![Reply::Hang]).await;
    let mut p = provider(ProviderKind::Remote, &server.url, "");
    p.timeout = Duration::from_secs(30);
    let cancel = CancelToken::new();
    let (task, _rx) = spawn_summary(Candidates::new(vec![p]), cancel.clone());
    // Cancel only once the server holds the request.
    tokio::time::timeout(Duration::from_secs(5), async {
        while server.received().is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .unwrap();
    cancel.cancel();
    let res = tokio::time::timeout(Duration::from_secs(1), task).await.unwrap().unwrap();
    assert!(matches!(res, Err(LlmError::Cancelled)), "{res:?}");
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn cancelling_during_the_retry_sleep_returns_cancelled_without_retrying() {
    let server = Server::start(vec![Reply::status(503, "")]).await;
    let mut p = provider(ProviderKind::OpenAiCompatible, &server.url, "m");
    p.max_retries = 3;
    p.retry_base_delay = Duration::from_secs(20);
    let cancel = CancelToken::new();
    let (task, mut rx) = spawn_summary(Candidates::new(vec![p]), cancel.clone());
    wait_for(&mut rx, "retry").await;
    cancel.cancel();
    let res = tokio::time::timeout(Duration::from_secs(1), task).await.unwrap().unwrap();
    assert!(matches!(res, Err(LlmError::Cancelled)), "{res:?}");
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn an_already_cancelled_token_sends_nothing() {
    let server = Server::start(vec![Reply::status(200, "")]).await;
    let cancel = CancelToken::new();
    cancel.cancel();
    let (res, _) = run(vec![provider(ProviderKind::OpenAiCompatible, &server.url, "m")], &cancel).await;
    assert!(matches!(res, Err(LlmError::Cancelled)));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(server.received().is_empty());
}
