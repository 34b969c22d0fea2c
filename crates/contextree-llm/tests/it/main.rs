//! contextree-llm against a real HTTP server on 127.0.0.1, never the internet.

// Requests, headers and streamed answers of each wire format.
mod wire;
// Retries, fallback to the next candidate, and how each failure surfaces.
mod failures;
// Cancellation while connecting, streaming and sleeping before a retry.
mod cancel;
// The total deadline of a call, and keys echoed back in any form.
mod deadline;

mod support;
