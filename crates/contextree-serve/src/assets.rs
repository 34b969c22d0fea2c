//! The UI's files, embedded at build time (`build.rs`), and the headers every answer carries.

use axum::http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

include!(concat!(env!("OUT_DIR"), "/assets.rs"));

/// The app's CSP (`src-tauri/tauri.conf.json`, its one home) for a browser: the page talks to
/// this server (`'self'`) where the app's talks to Tauri's IPC; every other directive is the
/// app's.
pub fn csp() -> String {
    APP_CSP
        .split(';')
        .map(str::trim)
        .map(|d| if d.starts_with("connect-src") { "connect-src 'self'" } else { d })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Adds the security headers to `headers` (every answer, static or not).
pub fn secure(headers: &mut HeaderMap, csp: &HeaderValue) {
    headers.insert(CONTENT_SECURITY_POLICY, csp.clone());
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.entry(CACHE_CONTROL).or_insert(HeaderValue::from_static("no-store"));
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

/// `GET /…`: the embedded file (`/` is `index.html`), else 404.
pub async fn file(uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    let path = if path.is_empty() { "index.html" } else { path };
    match FILES.iter().find(|(p, _)| *p == path) {
        Some((p, bytes)) => ([(CONTENT_TYPE, content_type(p))], *bytes).into_response(),
        None => (StatusCode::NOT_FOUND, "no such file\n").into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ui_is_embedded_and_the_csp_is_the_apps() {
        assert!(FILES.iter().any(|(p, _)| *p == "index.html"));
        assert!(FILES.iter().any(|(p, _)| *p == "src/ipc.js"));
        assert!(!FILES.iter().any(|(p, _)| p.ends_with("package.json")));
        let csp = csp();
        assert!(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"), "{csp}");
        assert!(csp.contains("connect-src 'self'") && !csp.contains("ipc:"), "{csp}");
    }
}
