//! What the service answers when a request is too large, malformed, panics, runs
//! past its deadline, or arrives during a graceful shutdown; what its routes return;
//! that a hash's span on the blocking pool keeps the request's span as its parent.
//! Deadlines run on Tokio's paused clock: no test here waits on the wall clock.

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode, header};
use axum::response::Response;
use axum::routing::get;
use ch07_axum::service::{
    AppState, Book, Config, Counters, OneMutex, Sharded, catalogue, cover_image,
    hash, routes, with_layers,
};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Notify;
use tower::ServiceExt;

fn app_with(extra: Router<AppState>) -> (Router, AppState) {
    let config = Config::for_cores(2);
    let state = AppState::new(&config);
    let router = routes(state.clone()).merge(extra.with_state(state.clone()));
    (with_layers(router, &config), state)
}

fn app() -> Router {
    app_with(Router::new()).0
}

async fn send(app: &Router, request: Request<Body>) -> (StatusCode, Response) {
    let response = app.clone().oneshot(request).await.unwrap();
    (response.status(), response)
}

async fn text(response: Response) -> String {
    let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[tokio::test]
async fn ping_pongs() {
    let (status, response) =
        send(&app(), Request::get("/ping").body(Body::empty()).unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(text(response).await, "pong\n");
}

#[tokio::test]
async fn both_hash_routes_give_the_same_argon2id_hash() {
    let app = app();
    let mut answers = Vec::new();
    for path in ["/hash/inline", "/hash"] {
        let req = Request::post(path).body(Body::from("hunter2")).unwrap();
        let (status, response) = send(&app, req).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        answers.push(text(response).await);
    }
    assert!(
        answers[0].starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
        "{}",
        answers[0]
    );
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0], hash("hunter2").unwrap());
}

#[tokio::test]
async fn a_body_over_the_limit_gets_413() {
    let big = vec![b'a'; 64 * 1024 + 1];
    let req = Request::post("/hash").body(Body::from(big)).unwrap();
    let (status, _) = send(&app(), req).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test]
async fn a_malformed_body_gets_400_with_a_message() {
    let req = Request::post("/hash")
        .body(Body::from(vec![0xff, 0xfe]))
        .unwrap();
    let (status, response) = send(&app(), req).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(text(response).await.contains("UTF-8"));
}

#[tokio::test]
async fn an_empty_password_gets_400() {
    let req = Request::post("/hash/inline").body(Body::empty()).unwrap();
    assert_eq!(send(&app(), req).await.0, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_malformed_or_oversized_page_gets_400_with_a_message() {
    let app = app();
    for (uri, says) in [
        ("/books?limit=many", "limit"),
        ("/books?limit=5000", "over 1000"),
    ] {
        let (status, response) =
            send(&app, Request::get(uri).body(Body::empty()).unwrap()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}");
        let message = text(response).await;
        assert!(message.contains(says), "{uri}: {message}");
    }
}

#[tokio::test]
async fn books_are_listed_as_json() {
    let req = Request::get("/books?limit=3").body(Body::empty()).unwrap();
    let (status, response) = send(&app(), req).await;
    assert_eq!(status, StatusCode::OK);
    let books: Vec<Book> = serde_json::from_str(&text(response).await).unwrap();
    assert_eq!(books, catalogue(3));
}

#[tokio::test]
async fn the_cover_is_served_from_the_shared_buffer() {
    let (app, state) = app_with(Router::new());
    let (status, response) =
        send(&app, Request::get("/cover").body(Body::empty()).unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(response.headers()[header::CONTENT_TYPE], "image/png");
    let body = to_bytes(response.into_body(), usize::MAX).await.unwrap();
    assert_eq!(body, cover_image());
    // A clone of the state's Bytes points at the same buffer: no copy.
    assert_eq!(state.cover.clone().as_ptr(), state.cover.as_ptr());
}

#[tokio::test]
async fn a_panicking_handler_gets_500_and_the_service_stays_up() {
    async fn buggy() -> &'static str {
        panic!("a bug in a handler")
    }
    let panics = Router::new().route("/panic", get(buggy));
    let (app, _) = app_with(panics);
    let (status, _) =
        send(&app, Request::get("/panic").body(Body::empty()).unwrap()).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    let (status, _) =
        send(&app, Request::get("/ping").body(Body::empty()).unwrap()).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test(start_paused = true)]
async fn a_request_past_its_deadline_gets_504() {
    let slow = Router::new().route(
        "/slow",
        get(|| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            "too late"
        }),
    );
    let (app, _) = app_with(slow);
    let (status, _) =
        send(&app, Request::get("/slow").body(Body::empty()).unwrap()).await;
    assert_eq!(status, StatusCode::GATEWAY_TIMEOUT);
}

#[test]
fn both_counters_count_every_view() {
    let counters: [Arc<dyn Counters>; 2] =
        [Arc::new(OneMutex::default()), Arc::new(Sharded::new(16))];
    for c in counters {
        std::thread::scope(|s| {
            for t in 0..4u32 {
                let c = &c;
                s.spawn(move || {
                    (0..1000u32).for_each(|i| _ = c.view((i * 7 + t) % 100))
                });
            }
        });
        assert_eq!(c.total(), 4000);
        assert_eq!(c.view(5), 41, "book 5 had 40 views, this is the 41st");
    }
}

/// A raw HTTP/1.1 GET that closes the connection, its status line.
async fn get_over_tcp(
    addr: std::net::SocketAddr,
    path: &str,
) -> std::io::Result<String> {
    let mut stream = tokio::net::TcpStream::connect(addr).await?;
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await?;
    Ok(answer.lines().next().unwrap_or_default().to_string())
}

#[tokio::test]
async fn a_graceful_shutdown_finishes_requests_in_flight_and_refuses_new_ones() {
    let (entered, release) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let (e, r) = (entered.clone(), release.clone());
    let waits = Router::new().route(
        "/wait",
        get(move || async move {
            e.notify_one();
            r.notified().await;
            "finished"
        }),
    );
    let (app, state) = app_with(waits);
    let running = ch07_axum::server::start(app, &state, 0, 0).await.unwrap();
    let addr = running.addr;
    let in_flight = tokio::spawn(get_over_tcp(addr, "/wait"));
    entered.notified().await;

    let stopping = tokio::spawn(running.shut_down());
    // The listener closes as the shutdown starts; a new connection is refused.
    let mut refused = false;
    for _ in 0..500 {
        if tokio::net::TcpStream::connect(addr).await.is_err() {
            refused = true;
            break;
        }
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        refused,
        "new connections were still accepted during the shutdown"
    );
    assert!(
        !stopping.is_finished(),
        "the shutdown did not wait for the request in flight"
    );

    release.notify_one();
    assert_eq!(in_flight.await.unwrap().unwrap(), "HTTP/1.1 200 OK");
    stopping.await.unwrap().unwrap();
}

#[tokio::test]
async fn the_internal_port_serves_a_flamegraph_of_a_busy_process() {
    let (_, state) = app_with(Router::new());
    let internal =
        ch07_axum::service::internal(state.views.clone(), state.requests.clone());
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let spinning = stop.clone();
    let busy = std::thread::spawn(move || {
        while !spinning.load(std::sync::atomic::Ordering::Relaxed) {
            let _ = hash("a busy thread");
        }
    });
    let req = Request::get("/debug/pprof/flamegraph?seconds=1")
        .body(Body::empty())
        .unwrap();
    let (status, response) = send(&internal, req).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(response.headers()[header::CONTENT_TYPE], "image/svg+xml");
    let svg = text(response).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    busy.join().unwrap();
    assert!(svg.contains("<svg"), "{}", &svg[..svg.len().min(300)]);
    assert!(svg.contains("argon2"), "the busy thread's frames are in it");
}
