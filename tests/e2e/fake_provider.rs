//! A model provider on 127.0.0.1 speaking OpenAI's streamed chat completions, for the write
//! flows: it streams [`SUMMARY_PIECES`] slowly and records every request (its head and body).
//! Its threads end with the test process.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

/// What the fake provider streams, piece by piece, for every request.
pub const SUMMARY_PIECES: [&str; 6] =
    ["## Goal\n", "Fake provider summary ", "for the contextree ", "end-to-end test.\n", "## Progress\n", "- streamed slowly\n"];
/// The pause between two pieces: long enough to see the text arrive.
pub const PIECE_DELAY: Duration = Duration::from_millis(350);
/// ... and long enough to press Cancel before the end.
pub const SLOW_PIECE_DELAY: Duration = Duration::from_millis(1500);

/// One request as the provider received it.
#[derive(Clone)]
pub struct Request {
    /// The request line and headers, as sent.
    pub head: String,
    pub body: Value,
}

pub struct FakeProvider {
    pub base_url: String,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl FakeProvider {
    pub fn start() -> anyhow::Result<Self> {
        Self::start_with(PIECE_DELAY)
    }

    pub fn start_with(delay: Duration) -> anyhow::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let base_url = format!("http://{}/v1", listener.local_addr()?);
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let seen = seen.clone();
                // One thread per request: a summary may ask several calls at once.
                std::thread::spawn(move || {
                    let _ = answer(stream, &seen, delay);
                });
            }
        });
        Ok(Self { base_url, requests })
    }

    pub fn bodies(&self) -> Vec<Value> {
        self.requests().into_iter().map(|r| r.body).collect()
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

/// Reads one request and streams [`SUMMARY_PIECES`] back as SSE in chunked encoding.
fn answer(mut stream: std::net::TcpStream, seen: &Mutex<Vec<Request>>, delay: Duration) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut length = 0;
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        head.push_str(&line);
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    seen.lock().unwrap().push(Request { head, body: serde_json::from_slice(&body).unwrap_or(Value::Null) });
    stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")?;
    let chunk = |stream: &mut std::net::TcpStream, data: &str| {
        stream.write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())?;
        stream.flush()
    };
    for piece in SUMMARY_PIECES {
        let event = json!({"choices": [{"index": 0, "delta": {"content": piece}}]});
        chunk(&mut stream, &format!("data: {event}\n\n"))?;
        std::thread::sleep(delay);
    }
    let done = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    chunk(&mut stream, &format!("data: {done}\n\n"))?;
    chunk(&mut stream, "data: [DONE]\n\n")?;
    stream.write_all(b"0\r\n\r\n")?;
    stream.flush()
}
