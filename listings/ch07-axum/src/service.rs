//! The Bookshelf service: an axum 0.8 router, its state and its layers.
//!
//! Public routes: `POST /hash/inline` (argon2 on the async worker: the pitfall),
//! `POST /hash` (argon2 on the blocking pool, at most `hash_permits` at once, 503
//! with `Retry-After` past the queue timeout), `GET /cover` (a shared `Bytes`) and
//! `GET /cover/copy` (a fresh copy), `GET /ping`, `GET /books` (a catalogue
//! serialised with serde_json), `POST /books` (a book as JSON, checked and
//! numbered) and `POST /books/{id}/views` (a per-book view counter). The internal router, on a
//! port of its own, serves the process's CPU time and page faults, the views counted, the
//! service's own latency quantiles and `/debug/pprof/flamegraph`.

use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, SaltString};
use axum::Router;
use axum::body::Bytes;
use axum::error_handling::HandleErrorLayer;
use axum::extract::{DefaultBodyLimit, Json, Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use measure::LatencyHistogram;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use tower::limit::GlobalConcurrencyLimitLayer;
use tower::load_shed::LoadShedLayer;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::timeout::TimeoutLayer;
use tracing::{Span, info_span};

/// What the service is configured with (`serve --help` lists the flags).
#[derive(Clone, Debug)]
pub struct Config {
    /// Hashes on the blocking pool at once.
    pub hash_permits: usize,
    /// How long a `/hash` request waits for a permit before it gets 503.
    pub queue_timeout: Duration,
    /// How long any request may take before it gets 504.
    pub deadline: Duration,
    /// The largest request body accepted; a larger one gets 413.
    pub body_limit: usize,
    /// One mutex for every book's view counter, or shards.
    pub counters: CounterKind,
    /// Requests handled at once, past which a request gets 503 at once; `None`:
    /// no limit (the chapter's service as Experiments 1 to 4 ran it).
    pub concurrency_limit: Option<usize>,
}

impl Config {
    /// The chapter's settings for a machine with `cores` cores.
    pub fn for_cores(cores: usize) -> Config {
        Config {
            hash_permits: cores,
            queue_timeout: Duration::from_secs(2),
            deadline: Duration::from_secs(10),
            body_limit: 64 * 1024,
            counters: CounterKind::Sharded,
            concurrency_limit: None,
        }
    }
}

/// The shared state every handler sees.
#[derive(Clone)]
pub struct AppState {
    /// Reference-counted: a response clones the pointer, not the bytes.
    pub cover: Bytes,
    pub hash_permits: Arc<Semaphore>,
    pub queue_timeout: Duration,
    pub views: Arc<dyn Counters>,
    pub requests: Arc<RequestCounts>,
    /// The number the next book added gets.
    pub next_id: Arc<AtomicU32>,
}

/// Requests the service began and answered (any status): after a graceful
/// shutdown, `serve` prints both, and a request begun but never answered is lost.
/// `latency` is the service's own view: from the router's first layer receiving a
/// request to its response, handed back to hyper.
#[derive(Default, Debug)]
pub struct RequestCounts {
    pub started: AtomicU64,
    pub answered: AtomicU64,
    pub latency: Mutex<LatencyHistogram>,
}

impl AppState {
    pub fn new(config: &Config) -> AppState {
        AppState {
            cover: Bytes::from(cover_image()),
            hash_permits: Arc::new(Semaphore::new(config.hash_permits)),
            queue_timeout: config.queue_timeout,
            views: match config.counters {
                CounterKind::OneMutex => Arc::new(OneMutex::default()),
                CounterKind::Sharded => Arc::new(Sharded::new(16)),
            },
            requests: Arc::default(),
            next_id: Arc::new(AtomicU32::new(MAX_PAGE)),
        }
    }
}

/// 64 KiB standing in for a book's cover image.
pub fn cover_image() -> Vec<u8> {
    (0..64 * 1024).map(|i| (i % 251) as u8).collect()
}

// ANCHOR: router
/// The public routes, without the layers.
pub fn routes(state: AppState) -> Router {
    Router::new()
        .route("/hash/inline", post(hash_inline))
        .route("/hash", post(hash_offloaded))
        .route("/cover", get(cover))
        .route("/cover/copy", get(cover_copied))
        .route("/ping", get(ping))
        .route("/books", get(books).post(add_book))
        .route("/books/{id}/views", post(count_view))
        .with_state(state)
}

/// What every request goes through: a body limit (413), a deadline (504), a
/// handler's panic turned into a 500 instead of a dropped connection, and with
/// a concurrency limit, 503 past it.
pub fn with_layers(router: Router, config: &Config) -> Router {
    let router = match config.concurrency_limit {
        Some(limit) => with_shedding(router, limit),
        None => router,
    };
    router
        .layer(DefaultBodyLimit::max(config.body_limit))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::GATEWAY_TIMEOUT,
            config.deadline,
        ))
        .layer(CatchPanicLayer::new())
}

/// The service as it runs.
pub fn app(config: &Config) -> Router {
    with_layers(routes(AppState::new(config)), config)
}
// ANCHOR_END: router

// ANCHOR: shedding
/// At most `limit` requests in the handlers at once, across every route; a
/// request past the limit is not queued but answered 503 at once.
pub fn with_shedding(router: Router, limit: usize) -> Router {
    router.layer(
        tower::ServiceBuilder::new()
            .layer(HandleErrorLayer::new(|_: tower::BoxError| async {
                shed_response()
            }))
            .layer(LoadShedLayer::new())
            .layer(GlobalConcurrencyLimitLayer::new(limit)),
    )
}

/// 503 with `Retry-After`: a client that backs off for a second sheds load too.
fn shed_response() -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, "1")],
        "overloaded\n",
    )
        .into_response()
}
// ANCHOR_END: shedding

/// `router` with every request counted as it begins and as it is answered, the
/// 413s, 503s and 504s of the layers too.
pub fn counted(router: Router, counts: Arc<RequestCounts>) -> Router {
    router.layer(axum::middleware::from_fn(
        move |request: axum::extract::Request, next: axum::middleware::Next| {
            let counts = counts.clone();
            async move {
                counts.started.fetch_add(1, Ordering::Relaxed);
                let began = Instant::now();
                let response = next.run(request).await;
                let took = began.elapsed();
                counts.latency.lock().expect("never poisoned").record(took);
                // Release: a reader that sees this answer sees its `started` too.
                counts.answered.fetch_add(1, Ordering::Release);
                response
            }
        },
    ))
}

/// The salt is fixed so that the load generator can check every answer; a real
/// service draws a random salt for every password it stores.
const SALT: &str = "Ym9va3NoZWxmLXNhbHQ";

// ANCHOR: hash
/// argon2id with its default cost (19 MiB, two passes): tens of milliseconds of CPU.
pub fn hash(password: &str) -> Result<String, StatusCode> {
    if password.is_empty() {
        return Err(StatusCode::BAD_REQUEST);
    }
    let salt = SaltString::from_b64(SALT)
        .map_err(|_| StatusCode::INTERNAL_SERVER_ERROR)?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|_| StatusCode::INTERNAL_SERVER_ERROR)
}

/// The pitfall: the hash runs on the async worker that polls this handler, and
/// every task queued behind it on that worker waits.
async fn hash_inline(password: String) -> Result<String, StatusCode> {
    hash(&password)
}

/// The fix: the hash runs on the blocking pool, at most `hash_permits` at once;
/// past the queue timeout the request gets 503 with `Retry-After`.
#[tracing::instrument(skip_all)]
async fn hash_offloaded(
    State(state): State<AppState>,
    password: String,
) -> Result<String, Response> {
    let permits = state.hash_permits.clone();
    let permit =
        ch07_axum::shed::permit_or_503(permits, state.queue_timeout).await?;
    // spawn_blocking's thread does not inherit the request's span: carry it.
    let request = Span::current();
    tokio::task::spawn_blocking(move || {
        // The permit goes with the hash: if the request is dropped (its deadline,
        // its client gone), the hash runs on and still counts against the bound.
        let _permit = permit;
        let _span = info_span!(parent: &request, "argon2_hash").entered();
        hash(&password)
    })
    .await
    .map_err(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())?
    .map_err(IntoResponse::into_response)
}
// ANCHOR_END: hash

async fn cover(State(state): State<AppState>) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "image/png")], state.cover.clone())
}

/// The same cover copied into a fresh buffer for every response: what the shared
/// `Bytes` saves.
async fn cover_copied(State(state): State<AppState>) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "image/png")], state.cover.to_vec())
}

async fn ping() -> &'static str {
    "pong\n"
}

// ANCHOR: books
/// A book as the catalogue lists it.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct Book {
    pub id: u32,
    pub title: String,
    pub author: String,
    pub year: u16,
    pub tags: Vec<String>,
}

#[derive(Deserialize)]
pub struct Page {
    pub limit: Option<u32>,
}

/// The books a page lists, built fresh for every request as a database query's
/// rows would be: five small allocations a book, then the JSON text.
pub fn catalogue(limit: u32) -> Vec<Book> {
    (0..limit)
        .map(|id| Book {
            id,
            title: format!("Volume {id} of the collected works"),
            author: format!("Author {}", id % 97),
            year: 1900 + (id % 125) as u16,
            tags: vec![format!("shelf-{}", id % 16), "paperback".to_string()],
        })
        .collect()
}

/// The largest page a request may ask for.
pub const MAX_PAGE: u32 = 1000;

async fn books(Query(page): Query<Page>) -> Result<Response, (StatusCode, String)> {
    let limit = page.limit.unwrap_or(200);
    if limit > MAX_PAGE {
        return Err((
            StatusCode::BAD_REQUEST,
            format!("limit {limit} is over {MAX_PAGE}"),
        ));
    }
    let body = serde_json::to_vec(&catalogue(limit))
        .map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}
/// A book to add: `POST /books` with its JSON.
#[derive(Deserialize)]
pub struct NewBook {
    pub title: String,
    pub author: String,
    pub year: u16,
    #[serde(default)]
    pub tags: Vec<String>,
}

/// Adds a book: malformed JSON gets 400, a missing field or a wrong type 422 (axum's
/// `Json` rejections), an empty title 422; the book comes back with its number.
async fn add_book(
    State(state): State<AppState>,
    Json(new): Json<NewBook>,
) -> Result<(StatusCode, Json<Book>), (StatusCode, String)> {
    if new.title.trim().is_empty() {
        return Err((
            StatusCode::UNPROCESSABLE_ENTITY,
            "a book needs a title".into(),
        ));
    }
    let id = state.next_id.fetch_add(1, Ordering::Relaxed);
    let book = Book {
        id,
        title: new.title,
        author: new.author,
        year: new.year,
        tags: new.tags,
    };
    Ok((StatusCode::CREATED, Json(book)))
}
// ANCHOR_END: books

/// Which counters the service keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CounterKind {
    OneMutex,
    Sharded,
}

impl std::str::FromStr for CounterKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "one-mutex" => Ok(CounterKind::OneMutex),
            "sharded" => Ok(CounterKind::Sharded),
            other => Err(format!("counters: one-mutex or sharded, not {other:?}")),
        }
    }
}

// ANCHOR: counters
/// Per-book view counters.
pub trait Counters: Send + Sync {
    /// Counts one view of `book`; its views so far.
    fn view(&self, book: u32) -> u64;
    /// Every view counted.
    fn total(&self) -> u64;
}

/// Every book's counter behind one lock.
#[derive(Default)]
pub struct OneMutex(Mutex<HashMap<u32, u64>>);

impl Counters for OneMutex {
    fn view(&self, book: u32) -> u64 {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = map.entry(book).or_default();
        *n += 1;
        *n
    }
    fn total(&self) -> u64 {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .sum()
    }
}

/// The same counters split over independently locked shards, chosen by the
/// book's hash.
pub struct Sharded {
    shards: Vec<Mutex<HashMap<u32, u64>>>,
    hasher: RandomState,
}

impl Sharded {
    pub fn new(n: usize) -> Sharded {
        Sharded {
            shards: (0..n).map(|_| Mutex::default()).collect(),
            hasher: RandomState::new(),
        }
    }
}

impl Counters for Sharded {
    fn view(&self, book: u32) -> u64 {
        let i = self.hasher.hash_one(book) as usize % self.shards.len();
        let mut map = self.shards[i].lock().unwrap_or_else(|e| e.into_inner());
        let n = map.entry(book).or_default();
        *n += 1;
        *n
    }
    fn total(&self) -> u64 {
        self.shards
            .iter()
            .map(|s| {
                s.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .values()
                    .sum::<u64>()
            })
            .sum()
    }
}

async fn count_view(State(state): State<AppState>, Path(id): Path<u32>) -> String {
    format!("{}\n", state.views.view(id))
}
// ANCHOR_END: counters

/// The internal routes, served on a second 127.0.0.1 port only.
pub fn internal(views: Arc<dyn Counters>, requests: Arc<RequestCounts>) -> Router {
    let quantile = move |q: f64| {
        let requests = requests.clone();
        move || async move {
            let latency = requests.latency.lock().expect("never poisoned");
            latency.quantile_ns(q).to_string()
        }
    };
    Router::new()
        .route("/debug/cpu", get(|| async { usage().0.to_string() }))
        .route("/debug/latency_p50_ns", get(quantile(0.50)))
        .route("/debug/latency_p99_ns", get(quantile(0.99)))
        .route("/debug/faults", get(|| async { usage().1.to_string() }))
        .route(
            "/debug/views",
            get(move || async move { views.total().to_string() }),
        )
        .route(
            "/debug/pprof/flamegraph",
            get(ch07_axum::profile::flamegraph),
        )
}

/// The process's CPU time so far in microseconds (user and system, every thread,
/// finished ones too) and its minor page faults: the experiments read both before
/// and after a run.
pub fn usage() -> (u64, u64) {
    // SAFETY: getrusage writes one rusage through a valid pointer.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    (us(u.ru_utime) + us(u.ru_stime), u.ru_minflt as u64)
}
