//! Every request needs the token: an `Authorization: Bearer` header, the cookie, or — once, on
//! a GET — `?token=` in the URL, answered with the cookie (HttpOnly, SameSite=Strict) and a
//! redirect to the same URL without it, so the token leaves the address bar and the history.

use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, COOKIE, LOCATION, SET_COOKIE};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::Shared;

/// Whether `a` and `b` are equal, in a time that depends on their lengths only.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    // Every byte is compared whatever the earlier ones were: how long the answer takes says
    // nothing about how much of a guess was right.
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The cookie's name: one per port, so two servers on one host keep their own.
pub fn cookie_name(port: u16) -> String {
    format!("contextree_{port}")
}

/// The value of cookie `name` in a `Cookie` header.
fn cookie<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.split(';').filter_map(|kv| kv.trim().split_once('=')).find(|(k, _)| *k == name).map(|(_, v)| v)
}

/// `?token=` of a query string, and the query without it.
fn query_token(query: &str) -> (Option<&str>, String) {
    let mut token = None;
    let rest: Vec<&str> = query
        .split('&')
        .filter(|kv| match kv.strip_prefix("token=") {
            Some(t) => {
                token = Some(t);
                false
            }
            None => !kv.is_empty(),
        })
        .collect();
    (token, rest.join("&"))
}

/// The middleware: passes a request with the token, answers anything else with 401.
pub async fn require_token(State(shared): State<Shared>, request: Request, next: Next) -> Response {
    let expected = shared.token.as_bytes();
    let headers = request.headers();
    let bearer = headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    let cookies = headers.get_all(COOKIE).iter().filter_map(|v| v.to_str().ok());
    let from_cookie = cookies.filter_map(|c| cookie(c, &shared.cookie)).any(|v| same(v.as_bytes(), expected));
    if from_cookie || bearer.is_some_and(|b| same(b.as_bytes(), expected)) {
        return next.run(request).await;
    }
    if request.method() == Method::GET {
        let query = request.uri().query().unwrap_or("");
        if let (Some(token), rest) = query_token(query) {
            if same(token.as_bytes(), expected) {
                let path = request.uri().path();
                let clean = if rest.is_empty() { path.to_owned() } else { format!("{path}?{rest}") };
                let set = format!("{}={}; HttpOnly; SameSite=Strict; Path=/", shared.cookie, shared.token);
                let mut response = StatusCode::SEE_OTHER.into_response();
                if let (Ok(set), Ok(location)) = (HeaderValue::from_str(&set), HeaderValue::from_str(&clean)) {
                    response.headers_mut().insert(SET_COOKIE, set);
                    response.headers_mut().insert(LOCATION, location);
                }
                return response;
            }
        }
    }
    (StatusCode::UNAUTHORIZED, "contextree serve: open the URL it printed (it carries the token), or send Authorization: Bearer TOKEN\n")
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"ab"));
        assert!(!same(b"", b"a"));
    }

    #[test]
    fn the_token_is_taken_out_of_the_query() {
        assert_eq!(query_token("token=t1"), (Some("t1"), String::new()));
        assert_eq!(query_token("a=1&token=t1&b=2"), (Some("t1"), "a=1&b=2".to_owned()));
        assert_eq!(query_token("a=1"), (None, "a=1".to_owned()));
        assert_eq!(cookie("x=1; contextree_7=abc", "contextree_7"), Some("abc"));
        assert_eq!(cookie("contextree_77=abc", "contextree_7"), None);
    }
}
