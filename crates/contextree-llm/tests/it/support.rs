//! A tiny scripted HTTP/1.1 server on 127.0.0.1 (ephemeral port) and helpers around
//! `summarize_with_events`. Each accepted connection takes the next [`Reply`]; the last one repeats.
//! Every response closes its connection, so each attempt is one connection.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use contextree_llm::{summarize_with_env, CancelToken, Candidates, Event, LlmError, ProviderConfig, ProviderKind, Summary, SummaryRequest};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the server does with one connection.
#[derive(Clone)]
pub enum Reply {
    /// A complete response with a `content-length` body.
    Full { status: u16, headers: Vec<(&'static str, String)>, body: String },
    /// `200`, `text/event-stream`, the chunks written one by one (`pause` between them),
    /// then the connection is closed, or held open forever when `stall` is set.
    Stream { chunks: Vec<Vec<u8>>, pause: Duration, stall: bool },
    /// Reads the request and never answers.
    Hang,
}

impl Reply {
    pub fn status(status: u16, body: &str) -> Reply {
        Reply::Full { status, headers: Vec::new(), body: body.to_owned() }
    }

    pub fn json(body: &str) -> Reply {
        Reply::Full { status: 200, headers: vec![("content-type", "application/json".to_owned())], body: body.to_owned() }
    }

    /// The whole transcript cut into pieces of `piece` bytes.
    pub fn sse(transcript: &[u8], piece: usize) -> Reply {
        Reply::Stream { chunks: transcript.chunks(piece).map(<[u8]>::to_vec).collect(), pause: Duration::from_millis(1), stall: false }
    }
}

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub path: String,
    /// Names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

pub struct Server {
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
    closed: Arc<AtomicUsize>,
}

impl Server {
    pub async fn start(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let closed = Arc::new(AtomicUsize::new(0));
        let (rec, done) = (received.clone(), closed.clone());
        tokio::spawn(async move {
            for n in 0.. {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let reply = replies[n.min(replies.len() - 1)].clone();
                let (rec, done) = (rec.clone(), done.clone());
                tokio::spawn(async move {
                    serve(socket, reply, rec).await;
                    done.fetch_add(1, Ordering::SeqCst);
                });
            }
        });
        Server { url, received, closed }
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Connections whose handling ended (answered and closed, or dropped by the client).
    pub fn n_closed(&self) -> usize {
        self.closed.load(Ordering::SeqCst)
    }
}

async fn serve(mut socket: TcpStream, reply: Reply, received: Arc<Mutex<Vec<Received>>>) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    received.lock().unwrap().push(request);
    match reply {
        Reply::Full { status, headers, body } => {
            let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
            if !headers.iter().any(|(n, _)| *n == "content-type") {
                head.push_str("content-type: text/plain\r\n");
            }
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str(&format!("content-length: {}\r\nconnection: close\r\n\r\n", body.len()));
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(body.as_bytes()).await;
            let _ = socket.shutdown().await;
        }
        Reply::Stream { chunks, pause, stall } => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
            if socket.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            for chunk in chunks {
                if socket.write_all(&chunk).await.is_err() || socket.flush().await.is_err() {
                    return;
                }
                tokio::time::sleep(pause).await;
            }
            if stall {
                wait_for_client_close(&mut socket).await;
            } else {
                let _ = socket.shutdown().await;
            }
        }
        Reply::Hang => wait_for_client_close(&mut socket).await,
    }
}

async fn wait_for_client_close(socket: &mut TcpStream) {
    let mut buf = [0u8; 256];
    while let Ok(n) = socket.read(&mut buf).await {
        if n == 0 {
            return;
        }
    }
}

async fn read_request(socket: &mut TcpStream) -> Option<Received> {
    let mut buf = Vec::new();
    let mut piece = [0u8; 4096];
    let head_end = loop {
        if let Some(idx) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break idx;
        }
        let n = socket.read(&mut piece).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&piece[..n]);
    };
    let head = String::from_utf8(buf[..head_end].to_vec()).ok()?;
    let mut lines = head.split("\r\n");
    let mut start = lines.next()?.split(' ');
    let (method, path) = (start.next()?.to_owned(), start.next()?.to_owned());
    let headers: Vec<(String, String)> =
        lines.filter_map(|line| line.split_once(':')).map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned())).collect();
    let length: usize = headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut piece).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&piece[..n]);
    }
    Some(Received { method, path, headers, body: String::from_utf8(body).ok()? })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Whatever",
    }
}

/// A candidate for `url` that fails fast: no retries, 10 ms backoff base, 2 s idle timeout.
pub fn provider(kind: ProviderKind, url: &str, model: &str) -> ProviderConfig {
    let mut p = ProviderConfig::new(kind, url, model);
    p.max_retries = 0;
    p.retry_base_delay = Duration::from_millis(10);
    p.timeout = Duration::from_secs(2);
    p
}

pub fn request() -> SummaryRequest {
    SummaryRequest {
        system_prompt: "You are a context summarization assistant.".into(),
        prompt: "<conversation>\n[User]: Port the parser.\n</conversation>\n\nSummarize.".into(),
        max_tokens: Some(13107),
        reasoning: None,
    }
}

/// What a call reported, in order (deltas as `Delta(text)`, others by a short name).
#[derive(Debug, Default)]
pub struct Log {
    pub deltas: Vec<String>,
    pub events: Vec<String>,
    /// Each attempt's `deadline_left`.
    pub deadline_left: Vec<Option<Duration>>,
}

/// Runs `summarize_with_env` with an empty environment and the default deadline, collecting
/// every event.
pub async fn run(candidates: Vec<ProviderConfig>, cancel: &CancelToken) -> (Result<Summary, LlmError>, Log) {
    run_candidates(&Candidates::new(candidates), cancel).await
}

/// [`run`] with the candidates (and their deadline) given whole.
pub async fn run_candidates(candidates: &Candidates, cancel: &CancelToken) -> (Result<Summary, LlmError>, Log) {
    let mut log = Log::default();
    let mut on_event = |event: Event<'_>| match event {
        Event::Delta(text) => {
            log.deltas.push(text.to_owned());
            log.events.push("delta".into());
        }
        Event::Attempt { provider, attempt, deadline_left, .. } => {
            log.events.push(format!("attempt {provider} {attempt}"));
            log.deadline_left.push(deadline_left);
        }
        Event::Retry { delay, .. } => log.events.push(format!("retry after {}ms", delay.as_millis())),
        Event::Fallback { provider, .. } => log.events.push(format!("fallback from {provider}")),
        _ => log.events.push("other".into()),
    };
    let res = summarize_with_env(&request(), candidates, &mut on_event, cancel, &|_| None).await;
    (res, log)
}

/// Text of an error including its `Debug` form, for secret checks.
pub fn all_text(err: &LlmError) -> String {
    format!("{err} {err:?}")
}
