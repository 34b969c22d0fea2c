//! A small HTTP server on 127.0.0.1 standing in for a model provider: it
//! answers each request with whatever the test's closure returns and records
//! every request body. It runs on a detached thread that ends with the test
//! process.

use std::io::{BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex};

use serde_json::Value;

/// A running server.
pub struct Server {
    /// Base URL: `http://127.0.0.1:PORT` + the path given to [`serve`].
    pub url: String,
    bodies: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl Server {
    /// How many requests arrived.
    pub fn count(&self) -> usize {
        self.bodies.lock().unwrap().len()
    }

    /// The JSON bodies received, in order (`null` for a body that is not JSON).
    pub fn bodies(&self) -> Vec<Value> {
        self.bodies.lock().unwrap().iter().map(|b| serde_json::from_slice(b).unwrap_or(Value::Null)).collect()
    }
}

/// Serves `respond(n, body)` — the whole raw HTTP response — to the n-th
/// request (0-based).
pub fn serve(path: &str, respond: impl Fn(usize, &[u8]) -> String + Send + 'static) -> Server {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}{path}", listener.local_addr().unwrap());
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let seen = bodies.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(30)));
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let n = {
                let mut all = seen.lock().unwrap();
                all.push(body.clone());
                all.len() - 1
            };
            let _ = stream.write_all(respond(n, &body).as_bytes());
        }
    });
    Server { url, bodies }
}

/// A complete response with a JSON body.
pub fn json_response(status: u16, body: &Value) -> String {
    let text = body.to_string();
    format!("HTTP/1.1 {status} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}", text.len())
}
