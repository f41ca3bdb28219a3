//! The upstream: a small HTTP/1.1 service on 127.0.0.1, plain and TLS, that counts what each
//! client costs it: connections accepted, TLS handshakes (full or resumed), requests, bytes
//! written. A third listener serves compressed answers (`compress.rs`). It runs in a process of
//! its own (`src/bin/ch09-upstream.rs`), so that its CPU is measured apart.

use bytes::Bytes;
use ch09_connections::compress::Compressing;
use ch09_connections::tls::{Identity, server_config};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt;

/// What the upstream has counted since it started, and the CPU time its process used.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Counts {
    pub connections: u64,
    pub full_handshakes: u64,
    pub resumed_handshakes: u64,
    pub failed_handshakes: u64,
    pub requests: u64,
    /// Bytes written to the upstream's sockets: headers, bodies and TLS records, as sent.
    pub bytes_written: u64,
    pub cpu_ns: u64,
}

impl Counts {
    /// What happened between `earlier` and `self`.
    pub fn since(&self, earlier: &Counts) -> Counts {
        Counts {
            connections: self.connections - earlier.connections,
            full_handshakes: self.full_handshakes - earlier.full_handshakes,
            resumed_handshakes: self.resumed_handshakes - earlier.resumed_handshakes,
            failed_handshakes: self.failed_handshakes - earlier.failed_handshakes,
            requests: self.requests - earlier.requests,
            bytes_written: self.bytes_written - earlier.bytes_written,
            cpu_ns: self.cpu_ns - earlier.cpu_ns,
        }
    }
}

#[derive(Default)]
struct Counters {
    connections: AtomicU64,
    full_handshakes: AtomicU64,
    resumed_handshakes: AtomicU64,
    failed_handshakes: AtomicU64,
    requests: AtomicU64,
    bytes_written: Arc<AtomicU64>,
}

/// A running upstream: its three addresses, and its counters.
pub struct Upstream {
    pub plain: SocketAddr,
    pub tls: SocketAddr,
    pub compress: SocketAddr,
    counters: Arc<Counters>,
}

impl Upstream {
    /// Binds the three listeners on 127.0.0.1 (ports the system picks) and serves them on the
    /// current runtime.
    pub async fn start(identity: &Identity) -> Result<Upstream, String> {
        let acceptor = TlsAcceptor::from(server_config(identity)?);
        let bind = || async {
            let listener = TcpListener::bind("127.0.0.1:0").await;
            let listener = listener.map_err(|e| e.to_string())?;
            let addr = listener.local_addr().map_err(|e| e.to_string())?;
            Ok::<_, String>((listener, addr))
        };
        let ((plain, plain_addr), (tls, tls_addr)) = (bind().await?, bind().await?);
        let (compress, compress_addr) = bind().await?;
        let counters = Arc::new(Counters::default());
        let upstream = Upstream {
            plain: plain_addr,
            tls: tls_addr,
            compress: compress_addr,
            counters: counters.clone(),
        };
        tokio::spawn(accept_plain(plain, counters.clone()));
        tokio::spawn(accept_tls(tls, acceptor, counters.clone()));
        tokio::spawn(accept_compressing(compress, counters));
        Ok(upstream)
    }

    /// The counts so far (`cpu_ns` is the whole process's CPU time).
    pub fn counts(&self) -> Counts {
        let c = &self.counters;
        Counts {
            connections: c.connections.load(Relaxed),
            full_handshakes: c.full_handshakes.load(Relaxed),
            resumed_handshakes: c.resumed_handshakes.load(Relaxed),
            failed_handshakes: c.failed_handshakes.load(Relaxed),
            requests: c.requests.load(Relaxed),
            bytes_written: c.bytes_written.load(Relaxed),
            cpu_ns: ch09_connections::probe::process_cpu().as_nanos() as u64,
        }
    }
}

/// The next connection, counted, its writes counted.
async fn accept(listener: &TcpListener, counters: &Counters) -> Option<Counted<TcpStream>> {
    let (stream, _) = listener.accept().await.ok()?;
    counters.connections.fetch_add(1, Relaxed);
    let _ = stream.set_nodelay(true);
    Some(Counted {
        inner: stream,
        written: counters.bytes_written.clone(),
    })
}

async fn accept_plain(listener: TcpListener, counters: Arc<Counters>) {
    while let Some(stream) = accept(&listener, &counters).await {
        tokio::spawn(serve(stream, counters.clone()));
    }
}

/// Serves `compress::Compressing` with hyper's HTTP/1.1 server, as the other listeners.
async fn accept_compressing(listener: TcpListener, counters: Arc<Counters>) {
    let compressing = Compressing::new();
    while let Some(stream) = accept(&listener, &counters).await {
        let (compressing, counters) = (compressing.clone(), counters.clone());
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            counters.requests.fetch_add(1, Relaxed);
            compressing.route(request.uri().path()).oneshot(request)
        });
        tokio::spawn(
            hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service),
        );
    }
}

async fn accept_tls(listener: TcpListener, acceptor: TlsAcceptor, counters: Arc<Counters>) {
    while let Some(stream) = accept(&listener, &counters).await {
        let (acceptor, counters) = (acceptor.clone(), counters.clone());
        tokio::spawn(async move {
            // The handshake runs in the connection's own task, as in any TLS server.
            match acceptor.accept(stream).await {
                Ok(tls) => {
                    let resumed =
                        tls.get_ref().1.handshake_kind() == Some(rustls::HandshakeKind::Resumed);
                    let kind = match resumed {
                        true => &counters.resumed_handshakes,
                        false => &counters.full_handshakes,
                    };
                    kind.fetch_add(1, Relaxed);
                    serve(tls, counters).await;
                }
                Err(_) => {
                    counters.failed_handshakes.fetch_add(1, Relaxed);
                }
            }
        });
    }
}

/// Serves one connection with hyper's HTTP/1.1 server: keep-alive on, as by default, so a
/// connection lives until the client closes it or asks `Connection: close`.
async fn serve<S: AsyncRead + AsyncWrite + Unpin + Send + 'static>(io: S, counters: Arc<Counters>) {
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        counters.requests.fetch_add(1, Relaxed);
        std::future::ready(Ok::<_, std::convert::Infallible>(answer(
            request.uri().path(),
        )))
    });
    let _ = hyper::server::conn::http1::Builder::new()
        .serve_connection(TokioIo::new(io), service)
        .await;
}

/// A socket whose bytes written are added to a counter.
struct Counted<S> {
    inner: S,
    written: Arc<AtomicU64>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counted<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let written = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = written {
            self.written.fetch_add(n as u64, Relaxed);
        }
        written
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let written = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = written {
            self.written.fetch_add(n as u64, Relaxed);
        }
        written
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// `/item/{id}` answers the item's JSON; `/work/{rounds}/{id}` the same after `rounds` of work
/// (400 above [`MAX_WORK_ROUNDS`]); anything else, 404.
fn answer(path: &str) -> Response<Full<Bytes>> {
    if let Some(id) = path.strip_prefix("/item/").and_then(|id| id.parse().ok()) {
        return json(item_body(id));
    }
    match path.strip_prefix("/work/").and_then(parse_work) {
        Some((rounds, _)) if rounds > MAX_WORK_ROUNDS => status(StatusCode::BAD_REQUEST),
        Some((rounds, id)) => json(work_body(id, rounds)),
        None => status(StatusCode::NOT_FOUND),
    }
}

fn json(body: String) -> Response<Full<Bytes>> {
    Response::builder()
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body)))
        .expect("a valid response")
}

fn status(code: StatusCode) -> Response<Full<Bytes>> {
    Response::builder()
        .status(code)
        .body(Full::new(Bytes::new()))
        .expect("a valid response")
}

/// `{rounds}/{id}`, both numbers.
fn parse_work(rest: &str) -> Option<(u64, u64)> {
    let (rounds, id) = rest.split_once('/')?;
    Some((rounds.parse().ok()?, id.parse().ok()?))
}

/// The item's body: its id, its digest (the client's checksum) and a description, about 200
/// bytes, the size of a small API answer.
pub fn item_body(id: u64) -> String {
    format!(
        r#"{{"id":{id},"digest":{},"name":"item {id}","description":"{}"}}"#,
        item_digest(id),
        "an upstream answer of the size a small API call returns; ".repeat(2)
    )
}

/// What the client checks for item `id`.
pub fn item_digest(id: u64) -> u64 {
    measure::mix(id)
}

/// The path of item `id`.
pub fn item_path(id: u64) -> String {
    format!("/item/{id}")
}

/// The most work one answer may ask for: about a second of CPU, so that no request can hold the
/// upstream's one worker for long.
pub const MAX_WORK_ROUNDS: u64 = 200_000_000;

/// The CPU work of one answer of the `keep_alive` experiment, the part of a real handler that is
/// not its connection: `rounds` dependent steps of SplitMix64 (a few nanoseconds each).
pub fn work(rounds: u64) -> u64 {
    (0..rounds).fold(rounds, |x, _| measure::mix(x))
}

/// Item `id` after `rounds` of work, the work's result beside it (the client's checksum).
pub fn work_body(id: u64, rounds: u64) -> String {
    format!(
        r#"{{"id":{id},"digest":{},"work":{}}}"#,
        item_digest(id),
        work(rounds)
    )
}

/// The path of item `id` after `rounds` of work.
pub fn work_path(rounds: u64, id: u64) -> String {
    format!("/work/{rounds}/{id}")
}
