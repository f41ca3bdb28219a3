//! The protections of Chapter 7, part two, each tested with and without itself:
//! a concurrency limit that sheds, a header-read timeout, a connection limit, a
//! flood past the open-file limit, and bad bodies. Each test asserts what the
//! service does (a status, a count, a connection closed or held), never how fast.

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode};
use axum::routing::get;
use ch07_axum::faults;
use ch07_axum::server::{Accept, Hardened, Stopped, start_with};
use ch07_axum::service::{AppState, Config, routes, with_layers, with_shedding};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;
use tower::ServiceExt;

/// A router whose `/wait` handler awaits `release`, after telling `entered`.
fn waiting(entered: Arc<Notify>, release: Arc<Notify>) -> Router {
    Router::new().route(
        "/wait",
        get(move || async move {
            entered.notify_one();
            release.notified().await;
            "released"
        }),
    )
}

async fn status(app: &Router, path: &str) -> StatusCode {
    let req = Request::get(path).body(Body::empty()).unwrap();
    app.clone().oneshot(req).await.unwrap().status()
}

/// With a limit of one, a second request while the first awaits gets 503 at once;
/// without the limit it waits. Run `without` to see the test fail.
async fn second_request_while_first_waits(
    limit: Option<usize>,
) -> Option<StatusCode> {
    let (entered, release) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let router = waiting(entered.clone(), release.clone());
    let app = match limit {
        Some(n) => with_shedding(router, n),
        None => router,
    };
    let first = tokio::spawn({
        let app = app.clone();
        async move { status(&app, "/wait").await }
    });
    entered.notified().await;
    let second =
        tokio::time::timeout(Duration::from_secs(1), status(&app, "/wait")).await;
    release.notify_one();
    assert_eq!(first.await.unwrap(), StatusCode::OK);
    second.ok()
}

#[tokio::test(start_paused = true)]
async fn a_concurrency_limit_sheds_the_request_past_it_with_503() {
    assert_eq!(
        second_request_while_first_waits(Some(1)).await,
        Some(StatusCode::SERVICE_UNAVAILABLE)
    );
}

#[tokio::test(start_paused = true)]
async fn without_the_limit_the_second_request_waits_instead() {
    assert_eq!(second_request_while_first_waits(None).await, None);
}

/// Twenty requests to `app` at once on one thread, limited to one inside at a
/// time: how many were shed.
async fn shed_of_twenty_at_once(app: Router) -> usize {
    let app = with_shedding(app, 1);
    let requests: Vec<_> = (0..20)
        .map(|_| {
            let app = app.clone();
            tokio::spawn(async move { status(&app, "/work").await })
        })
        .collect();
    let mut shed = 0;
    for r in requests {
        if r.await.unwrap() == StatusCode::SERVICE_UNAVAILABLE {
            shed += 1;
        }
    }
    shed
}

#[tokio::test(flavor = "current_thread")]
async fn a_handler_that_never_awaits_never_meets_the_limit() {
    // Its permit is taken and given back within the one poll that runs it.
    let sync = Router::new().route("/work", get(|| async { "done" }));
    assert_eq!(shed_of_twenty_at_once(sync).await, 0);
}

#[tokio::test(flavor = "current_thread")]
async fn a_handler_that_awaits_meets_the_limit() {
    let awaits = Router::new().route(
        "/work",
        get(|| async {
            tokio::task::yield_now().await;
            "done"
        }),
    );
    assert!(shed_of_twenty_at_once(awaits).await > 0);
}

/// The public service on 127.0.0.1, accepting as `accept` says.
async fn serve(accept: Accept) -> ch07_axum::server::Running {
    let config = Config::for_cores(2);
    let state = AppState::new(&config);
    let app = with_layers(routes(state.clone()), &config);
    start_with(app, &state, 0, 0, &accept).await.unwrap()
}

fn hardened(max_connections: usize, header_read_timeout: Duration) -> Accept {
    Accept {
        nodelay: true,
        hardened: Some(Hardened {
            max_connections,
            header_read_timeout,
            drain_deadline: Duration::from_secs(10),
        }),
    }
}

#[tokio::test]
async fn a_header_read_timeout_closes_a_slow_client() {
    let running = serve(hardened(100, Duration::from_millis(100))).await;
    let slow = faults::slow_headers(
        running.addr,
        5,
        Duration::from_millis(20),
        Duration::from_secs(5),
    )
    .await;
    assert_eq!(slow, faults::SlowClients { closed: 5, held: 0 });
    running.shut_down().await.unwrap();
}

#[tokio::test]
async fn axum_serve_holds_a_slow_client_as_long_as_it_sends() {
    let running = serve(Accept::default()).await;
    let slow = faults::slow_headers(
        running.addr,
        5,
        Duration::from_millis(20),
        Duration::from_millis(600),
    )
    .await;
    assert_eq!(slow, faults::SlowClients { closed: 0, held: 5 });
    running.shut_down().await.unwrap();
}

#[tokio::test]
async fn a_connection_limit_holds_the_next_connection_until_one_closes() {
    let running = serve(hardened(2, Duration::from_secs(5))).await;
    let addr = running.addr;
    let idle = faults::flood(addr, 2).await.unwrap();
    let held = faults::ping_new_connection(addr, Duration::from_millis(300)).await;
    assert_eq!(
        held, None,
        "a third connection was served past the limit of two"
    );
    drop(idle);
    let served = faults::ping_new_connection(addr, Duration::from_secs(5)).await;
    assert!(
        served.is_some(),
        "no connection was served after the idle ones closed"
    );
    running.shut_down().await.unwrap();
}

#[tokio::test]
async fn without_a_connection_limit_the_next_connection_is_served() {
    let running = serve(Accept::default()).await;
    let idle = faults::flood(running.addr, 2).await.unwrap();
    let served =
        faults::ping_new_connection(running.addr, Duration::from_secs(5)).await;
    assert!(served.is_some());
    drop(idle);
    running.shut_down().await.unwrap();
}

/// `serve` in a child process with at most `open_files` descriptors, and its
/// standard output after the address line.
fn child_server(
    open_files: u64,
    extra: &[&str],
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStdout>,
    std::net::SocketAddr,
) {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_ch07-axum"));
    command
        .args([
            "serve",
            "--port",
            "0",
            "--internal-port",
            "0",
            "--until-stdin-closes",
        ])
        .args(extra)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    // SAFETY: setrlimit is one system call between fork and exec.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: open_files,
                rlim_max: open_files,
            };
            match libc::setrlimit(libc::RLIMIT_NOFILE, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let mut child = command.spawn().unwrap();
    let mut line = String::new();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    stdout.read_line(&mut line).unwrap();
    let addr = line.split_whitespace().nth(1).unwrap();
    let addr = addr.trim_start_matches("http://").parse().unwrap();
    (child, stdout, addr)
}

/// Stops a child server; what its last line says.
fn stop_child(
    mut child: std::process::Child,
    mut stdout: std::io::BufReader<std::process::ChildStdout>,
) -> Stopped {
    use std::io::Read;
    drop(child.stdin.take());
    assert!(
        child.wait().unwrap().success(),
        "the server did not stop cleanly"
    );
    let mut last = String::new();
    stdout.read_to_string(&mut last).unwrap();
    last.parse().unwrap()
}

/// What a flood did to a server.
#[derive(Debug, PartialEq)]
struct Flood {
    served_during: bool,
    served_after: bool,
    /// Whether its accept loop met an error (EMFILE) at least once.
    met_accept_errors: bool,
}

/// Floods a server limited to 64 descriptors with 128 idle connections: whether a
/// new connection is served during the flood, and after it ends.
async fn flood_then_release(extra: &[&str]) -> Flood {
    let (child, stdout, addr) = child_server(64, extra);
    assert!(
        faults::ping_new_connection(addr, Duration::from_secs(5))
            .await
            .is_some(),
        "not served before the flood"
    );
    let flood = faults::flood(addr, 128).await.unwrap();
    let during =
        faults::ping_new_connection(addr, Duration::from_millis(300)).await;
    drop(flood);
    let after = faults::ping_new_connection(addr, Duration::from_secs(5)).await;
    let last = stop_child(child, stdout);
    Flood {
        served_during: during.is_some(),
        served_after: after.is_some(),
        met_accept_errors: last.accept_errors > 0,
    }
}

/// Out of descriptors, and back once the flood ends.
const SURVIVED_EMFILE: Flood = Flood {
    served_during: false,
    served_after: true,
    met_accept_errors: true,
};

#[tokio::test]
async fn axum_serve_survives_a_flood_past_its_open_file_limit() {
    assert_eq!(flood_then_release(&[]).await, SURVIVED_EMFILE);
}

#[tokio::test]
async fn without_a_connection_limit_the_hardened_loop_meets_emfile_too() {
    let unlimited = ["--hardened", "--max-connections", "1000"];
    assert_eq!(flood_then_release(&unlimited).await, SURVIVED_EMFILE);
}

#[tokio::test]
async fn a_connection_limit_keeps_the_process_below_the_open_file_limit() {
    let limited = ["--hardened", "--max-connections", "32"];
    let flood = flood_then_release(&limited).await;
    assert_eq!(
        flood,
        Flood {
            met_accept_errors: false,
            ..SURVIVED_EMFILE
        }
    );
}

/// A hardened server with a client that is halfway through its headers when the
/// stop comes: whether the server stops within `wait`.
async fn stops_with_a_request_half_sent(
    drain_deadline_ms: &str,
    wait: Duration,
) -> bool {
    use tokio::io::AsyncWriteExt;
    let hardened = [
        "--hardened",
        "--header-read-timeout-ms",
        "60000",
        "--drain-deadline-ms",
        drain_deadline_ms,
    ];
    let (mut child, _stdout, addr) = child_server(1024, &hardened);
    let mut half = tokio::net::TcpStream::connect(addr).await.unwrap();
    half.write_all(b"GET /ping HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    // The server is up, and has had time to read those bytes, before it is told to stop.
    assert!(
        faults::ping_new_connection(addr, Duration::from_secs(5))
            .await
            .is_some()
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    drop(child.stdin.take());
    let started = std::time::Instant::now();
    while started.elapsed() < wait {
        if child.try_wait().unwrap().is_some() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    false
}

#[tokio::test]
async fn a_drain_deadline_bounds_a_graceful_shutdown() {
    assert!(stops_with_a_request_half_sent("200", Duration::from_secs(10)).await);
}

#[tokio::test]
async fn without_a_short_deadline_a_half_sent_request_holds_the_shutdown() {
    assert!(!stops_with_a_request_half_sent("60000", Duration::from_secs(2)).await);
}

#[tokio::test]
async fn bad_bodies_get_413_400_and_422() {
    let config = Config::for_cores(2);
    let app = with_layers(routes(AppState::new(&config)), &config);
    let post = |body: Vec<u8>| {
        Request::post("/books")
            .header("content-type", "application/json")
            .body(Body::from(body))
            .unwrap()
    };
    let cases = [
        (vec![b' '; 64 * 1024 + 1], StatusCode::PAYLOAD_TOO_LARGE),
        (
            br#"{"title": "Dune", "author": "#.to_vec(),
            StatusCode::BAD_REQUEST,
        ),
        (
            br#"{"title": "Dune"}"#.to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            br#"{"title": " ", "author": "F. Herbert", "year": 1965}"#.to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
    ];
    for (body, expected) in cases {
        let got = app.clone().oneshot(post(body)).await.unwrap().status();
        assert_eq!(got, expected);
    }
    let good = br#"{"title": "Dune", "author": "F. Herbert", "year": 1965}"#;
    let response = app.clone().oneshot(post(good.to_vec())).await.unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let book: serde_json::Value = serde_json::from_slice(
        &to_bytes(response.into_body(), 4096).await.unwrap(),
    )
    .unwrap();
    assert_eq!(book["title"], "Dune");
}

/// A request body that promises bytes and never sends them.
struct NeverFinishes;

impl hyper::body::Body for NeverFinishes {
    type Data = axum::body::Bytes;
    type Error = std::io::Error;
    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>>
    {
        std::task::Poll::Pending
    }
}

#[tokio::test(start_paused = true)]
async fn a_body_that_never_finishes_gets_504_at_the_deadline() {
    let config = Config::for_cores(2);
    let app = with_layers(routes(AppState::new(&config)), &config);
    let req = Request::post("/hash")
        .body(Body::new(NeverFinishes))
        .unwrap();
    let got = app.oneshot(req).await.unwrap().status();
    assert_eq!(got, StatusCode::GATEWAY_TIMEOUT);
}
