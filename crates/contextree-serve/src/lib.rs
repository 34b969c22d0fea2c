//! `contextree serve`: the app's UI in a browser, for sessions on a machine without a desktop
//! (issue 24). The same `ui/` files (embedded), the same commands (`contextree-face`), over
//! HTTP with axum.
//!
//! Routes (all behind the token, `auth.rs`): `GET /api/sessions` (the `contextree sessions
//! --json` document), `GET /api/context?file=F[&leaf=ID]` (the `contextree context --json`
//! document), `POST /api/call/<command>` (the UI's commands, `calls.rs`), `GET /api/events`
//! (server-sent events: `session-changed`, `progress`), and the UI's files at `/`.

pub mod assets;
pub mod auth;
pub mod calls;
pub mod clients;
pub mod config;
pub mod roots;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use contextree_face::write::WriteState;
use contextree_face::AppState;
use contextree_host::HostEnv;
use futures_util::stream::{self, Stream};
use serde::Deserialize;
use tokio::sync::Semaphore;

pub use config::{Config, ConfigError};
use roots::Roots;

/// The largest request body: a command's arguments (a summary's text, settings).
pub const BODY_LIMIT: usize = 1 << 20;

/// Event streams open at once (a tab keeps one).
pub const MAX_STREAMS: usize = 32;

/// What every request sees.
#[derive(Debug)]
pub struct Server {
    pub token: String,
    /// The cookie carrying the token (its name has the port).
    pub cookie: String,
    pub allow_writes: bool,
    pub roots: Roots,
    /// The library's folders when `--root` named them.
    pub library: Vec<PathBuf>,
    pub env: HostEnv,
    pub startup: Option<PathBuf>,
    pub leaf: Option<String>,
    pub demo_dir: Option<PathBuf>,
    /// One write at a time, whichever tab asks.
    pub writes: WriteState,
    pub clients: clients::Clients,
    pub streams: Arc<Semaphore>,
    csp: HeaderValue,
}

/// The shared server.
pub type Shared = Arc<Server>;

impl Server {
    /// The server for `config` listening on `port`, reading the machine through `env`.
    pub fn new(config: &Config, token: String, port: u16, env: HostEnv) -> Self {
        let library = config.roots.clone();
        // Without --root, the folders the library lists (the settings', else the agents').
        let probe = AppState::with_env(None, env.clone()).with_library(library.clone());
        let dirs: Vec<PathBuf> =
            contextree_host::library::default_roots_in(&env, &probe.library_roots()).into_iter().map(|r| r.path).collect();
        let mut roots = Roots::new(&dirs, &[]);
        if let Some(file) = &config.file {
            roots.allow_file(file);
        }
        let demo_dir = contextree_search::default_dir(&env).and_then(|d| d.parent().map(|p| p.join("serve")));
        if config.file.is_none() {
            if let Some(dir) = &demo_dir {
                // The demo opens when no file was named; the page may name it again (the
                // rule-set switch reopens the open file).
                if let Ok(path) = contextree_face::demo::materialize(dir) {
                    roots.allow_file(&path);
                }
            }
        }
        Self {
            cookie: auth::cookie_name(port),
            token,
            allow_writes: config.allow_writes,
            roots,
            library,
            env,
            startup: config.file.clone(),
            leaf: config.leaf.clone(),
            demo_dir,
            writes: WriteState::default(),
            clients: clients::Clients::default(),
            streams: Arc::new(Semaphore::new(MAX_STREAMS)),
            csp: HeaderValue::from_str(&assets::csp()).expect("the CSP is a header value"),
        }
    }

    /// A new tab's state.
    fn new_state(&self) -> AppState {
        AppState::with_env(self.startup.clone(), self.env.clone()).with_startup_leaf(self.leaf.clone()).with_library(self.library.clone())
    }
}

/// The routes, behind the token and with the security headers.
pub fn router(shared: Shared) -> Router {
    Router::new()
        .route("/api/sessions", get(sessions))
        .route("/api/context", get(context))
        .route("/api/call/{command}", post(call))
        .route("/api/events", get(events))
        .fallback(get(assets::file))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(shared.clone(), auth::require_token))
        .layer(middleware::from_fn_with_state(shared.clone(), headers))
        .with_state(shared)
}

/// The security headers on every answer, a 401 included.
async fn headers(State(shared): State<Shared>, request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    assets::secure(response.headers_mut(), &shared.csp);
    response
}

fn failure(f: calls::Failure) -> Response {
    (f.status, axum::Json(f.body)).into_response()
}

fn raw_json(json: Box<serde_json::value::RawValue>) -> Response {
    ([(CONTENT_TYPE, "application/json")], String::from(Box::<str>::from(json))).into_response()
}

/// Runs `work` on a blocking thread; a panic is a 500.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> Result<T, calls::Failure> + Send + 'static) -> Result<T, Response> {
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(f)) => Err(failure(f)),
        Err(e) => Err(failure(contextree_face::CommandError::Internal(e.to_string()).into())),
    }
}

#[derive(Deserialize)]
struct SessionsQuery {
    search: Option<String>,
}

/// `GET /api/sessions[?search=TEXT]`: the `contextree sessions --json` document.
async fn sessions(State(shared): State<Shared>, Query(q): Query<SessionsQuery>) -> Response {
    let s = shared.clone();
    let done = blocking(move || {
        let state = s.new_state();
        let report = contextree_face::library::list(&state, q.search.as_deref());
        serde_json::value::to_raw_value(&report).map_err(|e| contextree_face::CommandError::Report(e).into())
    })
    .await;
    done.map_or_else(|r| r, raw_json)
}

#[derive(Deserialize)]
struct ContextQuery {
    file: String,
    leaf: Option<String>,
}

/// `GET /api/context?file=F[&leaf=ID]`: the `contextree context --json` document of a file
/// under the roots (anything else is refused before it is opened).
async fn context(State(shared): State<Shared>, Query(q): Query<ContextQuery>) -> Response {
    let done = blocking(move || {
        let path = shared.roots.check(&q.file).map_err(|e| calls::Failure::refused(e.to_string()))?;
        let loaded = contextree_host::load_session(&shared.env, &path, None).map_err(contextree_face::CommandError::from)?;
        let pack = contextree_host::agent::default_pack(&shared.env, loaded.session.rules());
        let open = contextree_face::OpenSession::new(loaded, pack, None, None);
        Ok(contextree_face::context::document(&open, q.leaf.as_deref())?)
    })
    .await;
    done.map_or_else(|r| r, raw_json)
}

/// The tab a request comes from (`X-Contextree-Client`).
fn client_of(shared: &Server, id: Option<&str>) -> Option<clients::Client> {
    id.filter(|id| clients::valid_id(id)).map(|id| shared.clients.get(id, || shared.new_state()))
}

/// The answer to a request without a valid client id.
fn no_client() -> Response {
    (StatusCode::BAD_REQUEST, "a client id is needed (X-Contextree-Client, 8 to 64 letters, digits or -)\n").into_response()
}

/// `POST /api/call/<command>`: a UI command; its JSON body is the `invoke` arguments.
async fn call(State(shared): State<Shared>, Path(command): Path<String>, headers: HeaderMap, body: Bytes) -> Response {
    let Some(client) = client_of(&shared, headers.get("x-contextree-client").and_then(|v| v.to_str().ok())) else {
        return no_client();
    };
    let args: serde_json::Value = if body.is_empty() {
        serde_json::Value::Object(Default::default())
    } else {
        match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(e) => return (StatusCode::BAD_REQUEST, format!("the body is not JSON: {e}\n")).into_response(),
        }
    };
    let done = blocking(move || calls::call(&shared, &client, &command, &args)).await;
    match done {
        Ok(calls::Answer::Json(json)) => raw_json(json),
        Ok(calls::Answer::Bytes(bytes)) => ([(CONTENT_TYPE, "application/octet-stream")], bytes).into_response(),
        Err(r) => r,
    }
}

#[derive(Deserialize)]
struct EventsQuery {
    client: String,
}

/// `GET /api/events?client=ID`: the tab's server-sent events. At most [`MAX_STREAMS`] at once.
async fn events(State(shared): State<Shared>, Query(q): Query<EventsQuery>) -> Response {
    let Some(client) = client_of(&shared, Some(&q.client)) else {
        return no_client();
    };
    let Ok(permit) = shared.streams.clone().try_acquire_owned() else {
        return (StatusCode::SERVICE_UNAVAILABLE, "too many event streams\n").into_response();
    };
    let rx = client.events.subscribe();
    let stream = events_stream(rx, permit);
    Sse::new(stream).keep_alive(KeepAlive::default()).into_response()
}

/// The events of `rx` as SSE; `permit` is held while the stream lives.
fn events_stream(
    rx: tokio::sync::broadcast::Receiver<clients::Event>,
    permit: tokio::sync::OwnedSemaphorePermit,
) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    stream::unfold((rx, permit), |(mut rx, permit)| async move {
        loop {
            match rx.recv().await {
                Ok(e) => return Some((Ok(SseEvent::default().event(e.name).data(e.data)), (rx, permit))),
                // A slow tab missed some: it hears the next ones.
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
            }
        }
    })
}

/// A server ready to run: its listener and routes.
pub struct Bound {
    pub listener: tokio::net::TcpListener,
    pub shared: Shared,
    /// The address it listens on.
    pub addr: SocketAddr,
}

impl Bound {
    /// The URL to open: it carries the token once.
    pub fn url(&self) -> String {
        let host = match self.addr {
            SocketAddr::V4(a) if a.ip().is_unspecified() => format!("127.0.0.1:{}", a.port()),
            SocketAddr::V6(a) if a.ip().is_unspecified() => format!("[::1]:{}", a.port()),
            a => a.to_string(),
        };
        format!("http://{host}/?token={}", self.shared.token)
    }

    /// Serves until the process ends.
    pub async fn serve(self) -> std::io::Result<()> {
        axum::serve(self.listener, router(self.shared)).await
    }
}

/// Checks `config` and binds its address (on the current tokio runtime).
pub async fn bind(config: &Config, env: HostEnv) -> Result<Bound, BindError> {
    config.check_paths()?;
    let token = config.token()?;
    let listener = tokio::net::TcpListener::bind(config.bind).await.map_err(|e| BindError::Listen(config.bind, e))?;
    let addr = listener.local_addr().map_err(|e| BindError::Listen(config.bind, e))?;
    let shared = Arc::new(Server::new(config, token, addr.port(), env));
    Ok(Bound { listener, shared, addr })
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum BindError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("cannot listen on {0}: {1}")]
    Listen(SocketAddr, #[source] std::io::Error),
}

/// Runs the server for `config` until the process ends; `ready` is told the URL to open.
pub fn run(config: &Config, env: HostEnv, ready: impl FnOnce(&str)) -> Result<(), BindError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("contextree-serve")
        .build()
        .map_err(|e| BindError::Listen(config.bind, e))?;
    runtime.block_on(async {
        let bound = bind(config, env).await?;
        ready(&bound.url());
        bound.serve().await.map_err(|e| BindError::Listen(config.bind, e))
    })
}
