//! A small HTTP server on 127.0.0.1 standing in for a model provider: it answers each request
//! as the test's closure says and records every request (head and body). Each connection is served on a
//! thread of its own (a response that stalls, to test a cancel, does not hold up the next
//! request); the threads end with the test process.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};

use serde_json::Value;

/// A running server.
pub struct Server {
    /// Base URL: `http://127.0.0.1:PORT` + the path given to [`serve`].
    pub url: String,
    bodies: Arc<Mutex<Vec<Vec<u8>>>>,
    heads: Arc<Mutex<Vec<String>>>,
}

impl Server {
    /// How many requests arrived.
    pub fn count(&self) -> usize {
        self.bodies.lock().unwrap().len()
    }

    /// The request heads received (request line and headers, as sent), in order.
    pub fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }

    /// The JSON bodies received, in order (`null` for a body that is not JSON).
    pub fn bodies(&self) -> Vec<Value> {
        self.bodies.lock().unwrap().iter().map(|b| serde_json::from_slice(b).unwrap_or(Value::Null)).collect()
    }
}

/// Serves `respond(n, body)` — the whole raw HTTP response — to the n-th request (0-based).
pub fn serve(path: &str, respond: impl Fn(usize, &[u8]) -> String + Send + Sync + 'static) -> Server {
    serve_with(path, move |n, body, stream| {
        let _ = stream.write_all(respond(n, body).as_bytes());
    })
}

/// Like [`serve`], but `respond(n, body, stream)` writes the response itself: piece by piece
/// (a streamed answer), or some of it and then nothing (a stalled stream).
pub fn serve_with(path: &str, respond: impl Fn(usize, &[u8], &mut TcpStream) + Send + Sync + 'static) -> Server {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}{path}", listener.local_addr().unwrap());
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let heads = Arc::new(Mutex::new(Vec::new()));
    let (seen, seen_heads) = (bodies.clone(), heads.clone());
    let respond = Arc::new(respond);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let (seen, seen_heads, respond) = (seen.clone(), seen_heads.clone(), respond.clone());
            std::thread::spawn(move || {
                let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(30)));
                let (head, body) = read_request(&stream);
                let n = {
                    let mut all = seen.lock().unwrap();
                    all.push(body.clone());
                    seen_heads.lock().unwrap().push(head);
                    all.len() - 1
                };
                respond(n, &body, &mut stream);
            });
        }
    });
    Server { url, bodies, heads }
}

/// Reads one request: its head and its body (`Content-Length` bytes).
fn read_request(stream: &TcpStream) -> (String, Vec<u8>) {
    let Ok(clone) = stream.try_clone() else {
        return (String::new(), Vec::new());
    };
    let mut reader = BufReader::new(clone);
    let mut length = 0;
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        head.push_str(&line);
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    (head, body)
}

/// A complete response with a JSON body.
pub fn json_response(status: u16, body: &Value) -> String {
    let text = body.to_string();
    format!(
        "HTTP/1.1 {status} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    )
}
