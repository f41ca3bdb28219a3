//! The load generator: HTTP/1.1 over keep-alive connections to 127.0.0.1, or
//! HTTP/2 without TLS (h2c, prior knowledge) over one shared connection.
//!
//! `open_loop` sends requests at a constant rate from a schedule fixed before the
//! run (measure's `OpenLoop` thread), hands each scheduled time to whichever
//! connection is free, and measures latency from the scheduled time: a stalled
//! server cannot hide its queue (no coordinated omission). `busy` keeps clients
//! sending back to back, as background load. Every answer is checked; every
//! non-2xx status and transport error is counted by kind.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::{http1, http2};
use hyper::{Method, StatusCode, header};
use hyper_util::rt::{TokioExecutor, TokioIo};
use measure::loadgen::{GeneratorReport, OpenLoop, fixed_rate};
use measure::stats::LatencyHistogram;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

/// How long the generator waits for one answer before it counts a timeout.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(15);

/// One request, and what a correct answer looks like.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: Method,
    pub path: String,
    pub body: Bytes,
    pub expect: Expect,
    /// `{n}` in the path becomes 0, 1, 2, … below this, in turn per connection.
    pub spread: u32,
}

/// The check on every 2xx answer's body: the workload's checksum.
#[derive(Clone, Debug)]
pub enum Expect {
    /// Exactly these bytes.
    Body(Bytes),
    /// A decimal number and a newline (a view count).
    Count,
    /// Anything (a flamegraph).
    Any,
}

impl Request {
    pub fn get(path: &str, expect: Expect) -> Request {
        Request {
            method: Method::GET,
            path: path.into(),
            body: Bytes::new(),
            expect,
            spread: 1,
        }
    }

    pub fn post(path: &str, body: impl Into<Bytes>, expect: Expect) -> Request {
        Request {
            method: Method::POST,
            path: path.into(),
            body: body.into(),
            expect,
            spread: 1,
        }
    }

    /// The same request with `{n}` in its path taking `n` values in turn.
    pub fn spread_over(mut self, n: u32) -> Request {
        self.spread = n.max(1);
        self
    }

    fn check(&self, body: &Bytes) -> Result<(), String> {
        let ok = match &self.expect {
            Expect::Body(b) => b == body,
            Expect::Count => std::str::from_utf8(body)
                .ok()
                .and_then(|s| s.strip_suffix('\n'))
                .is_some_and(|n| n.parse::<u64>().is_ok()),
            Expect::Any => true,
        };
        if ok {
            Ok(())
        } else {
            let shown = String::from_utf8_lossy(&body[..body.len().min(80)]);
            Err(format!(
                "{} {}: wrong answer ({} bytes: {shown:?})",
                self.method,
                self.path,
                body.len()
            ))
        }
    }
}

/// Unexpected answers, by kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Errors {
    /// Non-2xx answers, by status code.
    pub status: BTreeMap<u16, u64>,
    /// Connections refused or broken, requests that could not be sent.
    pub transport: u64,
    /// No answer within `CLIENT_TIMEOUT`.
    pub timeout: u64,
}

impl Errors {
    pub fn statuses(&self) -> u64 {
        self.status.values().sum()
    }

    pub fn total(&self) -> u64 {
        self.statuses() + self.transport + self.timeout
    }

    pub fn add(&mut self, other: &Errors) {
        for (code, n) in &other.status {
            *self.status.entry(*code).or_default() += n;
        }
        self.transport += other.transport;
        self.timeout += other.timeout;
    }

    /// `none`, or every kind seen: `503 ×12, transport ×1`.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self
            .status
            .iter()
            .map(|(c, n)| format!("{c} ×{n}"))
            .collect();
        if self.transport > 0 {
            parts.push(format!("transport ×{}", self.transport));
        }
        if self.timeout > 0 {
            parts.push(format!("timeout ×{}", self.timeout));
        }
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(", ")
        }
    }
}

/// What one client (or all of them, merged) saw.
#[derive(Debug, Default)]
pub struct Tally {
    /// From the scheduled time (open loop), or from the send (busy clients).
    pub latency: LatencyHistogram,
    /// Open loop: from the scheduled time until a connection took the request (the
    /// generator's own queue, when every connection is busy).
    pub waited: LatencyHistogram,
    /// Open loop: the answered requests' latency by the third of the run in which
    /// each was scheduled (a queue that grows with time shows here).
    pub by_third: [LatencyHistogram; 3],
    pub ok: u64,
    pub errors: Errors,
    /// The first wrong answer: the run is an error.
    pub wrong: Option<String>,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.latency.merge(&other.latency);
        self.waited.merge(&other.waited);
        for (mine, theirs) in self.by_third.iter_mut().zip(&other.by_third) {
            mine.merge(theirs);
        }
        self.ok += other.ok;
        self.errors.add(&other.errors);
        self.wrong = self.wrong.take().or(other.wrong);
    }

    /// The run's checksum: every 2xx answer was right.
    pub fn checked(self) -> Result<Tally, String> {
        match self.wrong {
            Some(w) => Err(w),
            None => Ok(self),
        }
    }
}

/// An open-loop run's tally and the generator's own report (its timing error).
pub struct OpenLoopRun {
    pub tally: Tally,
    pub generator: GeneratorReport,
}

impl OpenLoopRun {
    /// Two runs, one after the other, as one.
    pub fn and(mut self, next: OpenLoopRun) -> OpenLoopRun {
        self.tally.merge(next.tally);
        let g = &mut self.generator;
        g.timing_error.merge(&next.generator.timing_error);
        g.cpu += next.generator.cpu;
        g.wall += next.generator.wall;
        g.sent += next.generator.sent;
        self
    }
}

/// The generator's runtime: a single worker thread runs every connection's task.
pub struct Generator {
    rt: tokio::runtime::Runtime,
    addr: SocketAddr,
    /// h2c: the connection every client sends its streams on.
    shared: Option<http2::SendRequest<Full<Bytes>>>,
}

impl Generator {
    /// HTTP/1.1: a connection per client.
    pub fn new(addr: SocketAddr) -> Result<Generator, String> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the generator's runtime: {e}"))?;
        Ok(Generator {
            rt,
            addr,
            shared: None,
        })
    }

    /// HTTP/2 with prior knowledge: every client's requests are streams of one
    /// connection.
    pub fn h2c(addr: SocketAddr) -> Result<Generator, String> {
        let mut generator = Generator::new(addr)?;
        generator.shared = Some(generator.rt.block_on(connect_h2(addr))?);
        Ok(generator)
    }

    fn connection(&self) -> Connection {
        Connection::new(self.addr, self.shared.clone())
    }

    // ANCHOR: open_loop
    /// `rate` requests a second for `length`, over `connections` keep-alive
    /// connections (at most that many requests in flight: a request that finds
    /// them all busy waits, and its latency counts the wait); latency from each
    /// request's scheduled time.
    pub fn open_loop(
        &self,
        request: &Request,
        rate: f64,
        length: Duration,
        connections: usize,
    ) -> Result<OpenLoopRun, String> {
        let (due, todo) = async_channel::unbounded::<(Instant, usize)>();
        let clients: Vec<JoinHandle<Tally>> = (0..connections)
            .map(|_| {
                let (todo, request) = (todo.clone(), request.clone());
                let mut conn = self.connection();
                // Connected before the schedule starts, so that no measured request
                // pays for a connect and an accept; one that fails is retried by its
                // first call, which counts the error.
                let _ = self.rt.block_on(conn.open());
                self.rt.spawn(async move {
                    let mut tally = Tally::default();
                    while let Ok((scheduled, third)) = todo.recv().await {
                        tally.waited.record(scheduled.elapsed());
                        let answer = conn.call(&request).await;
                        let latency = scheduled.elapsed();
                        if tally.count(&request, answer, latency) {
                            tally.by_third[third].record(latency);
                        }
                    }
                    tally
                })
            })
            .collect();
        let n = (rate * length.as_secs_f64()).round() as usize;
        let mut arrivals = fixed_rate(rate, Duration::ZERO, n, 0);
        for (i, arrival) in arrivals.iter_mut().enumerate() {
            arrival.what = i * 3 / n;
        }
        let start = Instant::now() + Duration::from_millis(20);
        let generator = OpenLoop::default().run(start, &arrivals, |&third, at| {
            let _ = due.try_send((at, third));
        });
        due.close();
        let mut tally = Tally::default();
        for client in clients {
            tally.merge(self.rt.block_on(client).map_err(|e| e.to_string())?);
        }
        Ok(OpenLoopRun {
            tally: tally.checked()?,
            generator,
        })
    }
    // ANCHOR_END: open_loop

    /// `clients` connections sending `request` back to back until `Busy::stop`.
    pub fn busy(&self, request: &Request, clients: usize) -> Busy {
        self.busy_every(request, clients, Duration::ZERO)
    }

    /// `busy`, each client pausing `pause` between an answer and its next request.
    pub fn busy_every(
        &self,
        request: &Request,
        clients: usize,
        pause: Duration,
    ) -> Busy {
        let stop = Arc::new(AtomicBool::new(false));
        // Every connection open before the first client starts, as in `open_loop`: a
        // capacity measured over a short window would otherwise count the connects.
        let conns: Vec<Connection> = (0..clients)
            .map(|_| {
                let mut conn = self.connection();
                let _ = self.rt.block_on(conn.open());
                conn
            })
            .collect();
        let tasks = conns
            .into_iter()
            .map(|mut conn| {
                let (stop, request) = (stop.clone(), request.clone());
                self.rt.spawn(async move {
                    let mut tally = Tally::default();
                    while !stop.load(Ordering::Relaxed) {
                        let sent = Instant::now();
                        let answer = conn.call(&request).await;
                        tally.count(&request, answer, sent.elapsed());
                        if !pause.is_zero() {
                            tokio::time::sleep(pause).await;
                        }
                    }
                    tally
                })
            })
            .collect();
        Busy {
            stop,
            tasks,
            started: Instant::now(),
        }
    }

    /// Waits for background clients to stop; their tally and how long they ran.
    pub fn finish(&self, busy: Busy) -> Result<(Tally, Duration), String> {
        busy.stop.store(true, Ordering::Relaxed);
        let mut tally = Tally::default();
        for task in busy.tasks {
            tally.merge(self.rt.block_on(task).map_err(|e| e.to_string())?);
        }
        Ok((tally.checked()?, busy.started.elapsed()))
    }

    /// Runs `work` (misbehaving clients) on the generator's runtime, beside its
    /// clients.
    pub fn spawn<F>(&self, work: F) -> JoinHandle<F::Output>
    where
        F: std::future::Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.rt.spawn(work)
    }

    /// Waits for work started with `spawn`.
    pub fn join<T>(&self, handle: JoinHandle<T>) -> Result<T, String> {
        self.rt.block_on(handle).map_err(|e| e.to_string())
    }

    /// One request, answered 2xx, its body.
    pub fn fetch(&self, request: &Request) -> Result<Bytes, String> {
        let mut conn = self.connection();
        self.rt.block_on(async {
            match conn.call(request).await {
                Answer::Body(status, body) if status.is_success() => Ok(body),
                Answer::Body(status, body) => Err(format!(
                    "{} {}: {status} {}",
                    request.method,
                    request.path,
                    String::from_utf8_lossy(&body)
                )),
                Answer::Transport(e) => Err(format!("{}: {e}", request.path)),
                Answer::Timeout => Err(format!("{}: no answer", request.path)),
            }
        })
    }
}

/// Background clients, running.
pub struct Busy {
    stop: Arc<AtomicBool>,
    tasks: Vec<JoinHandle<Tally>>,
    started: Instant,
}

/// What one call got.
enum Answer {
    Body(StatusCode, Bytes),
    Transport(String),
    Timeout,
}

impl Tally {
    /// Counts one answer; whether it was a 2xx.
    fn count(
        &mut self,
        request: &Request,
        answer: Answer,
        latency: Duration,
    ) -> bool {
        match answer {
            Answer::Body(status, body) if status.is_success() => {
                self.ok += 1;
                self.latency.record(latency);
                if let Err(wrong) = request.check(&body) {
                    self.wrong.get_or_insert(wrong);
                }
                return true;
            }
            Answer::Body(status, _) => {
                *self.errors.status.entry(status.as_u16()).or_default() += 1
            }
            Answer::Transport(_) => self.errors.transport += 1,
            Answer::Timeout => self.errors.timeout += 1,
        }
        false
    }
}

/// A keep-alive HTTP/1.1 connection, opened on first use and again after an
/// error, or a handle on a shared HTTP/2 connection.
struct Connection {
    addr: SocketAddr,
    open: Option<Sender>,
    http2: bool,
    /// Requests sent so far: `{n}` in a path.
    sent: u32,
}

enum Sender {
    Http1(http1::SendRequest<Full<Bytes>>),
    Http2(http2::SendRequest<Full<Bytes>>),
}

impl Sender {
    fn is_closed(&self) -> bool {
        match self {
            Sender::Http1(s) => s.is_closed(),
            Sender::Http2(s) => s.is_closed(),
        }
    }
}

impl Connection {
    fn new(
        addr: SocketAddr,
        shared: Option<http2::SendRequest<Full<Bytes>>>,
    ) -> Connection {
        Connection {
            addr,
            http2: shared.is_some(),
            open: shared.map(Sender::Http2),
            sent: fastrand::u32(..),
        }
    }

    async fn call(&mut self, request: &Request) -> Answer {
        match tokio::time::timeout(CLIENT_TIMEOUT, self.try_call(request)).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(e)) => {
                self.open = None;
                Answer::Transport(e)
            }
            Err(_) => {
                self.open = None;
                Answer::Timeout
            }
        }
    }

    fn path(&mut self, request: &Request) -> String {
        self.sent = self.sent.wrapping_add(1);
        let n = self.sent % request.spread;
        request.path.replace("{n}", &n.to_string())
    }

    /// Opens a connection if there is none or the last one closed: after an error
    /// the client goes on over a new connection, and the run's errors count the
    /// error (the experiments expect none).
    async fn open(&mut self) -> Result<(), String> {
        if self.open.as_ref().is_none_or(|s| s.is_closed()) {
            self.open = Some(match self.http2 {
                true => Sender::Http2(connect_h2(self.addr).await?),
                false => Sender::Http1(connect(self.addr).await?),
            });
        }
        Ok(())
    }

    async fn try_call(&mut self, request: &Request) -> Result<Answer, String> {
        self.open().await?;
        let path = self.path(request);
        let builder = hyper::Request::builder().method(request.method.clone());
        let body = Full::new(request.body.clone());
        let response = match self.open.as_mut().expect("opened above") {
            Sender::Http1(send) => {
                send.ready().await.map_err(|e| e.to_string())?;
                let req = builder
                    .uri(path)
                    .header(header::HOST, self.addr.to_string())
                    .body(body)
                    .map_err(|e| e.to_string())?;
                send.send_request(req).await
            }
            Sender::Http2(send) => {
                send.ready().await.map_err(|e| e.to_string())?;
                // HTTP/2 carries the scheme and authority in the request itself.
                let req = builder
                    .uri(format!("http://{}{path}", self.addr))
                    .body(body)
                    .map_err(|e| e.to_string())?;
                send.send_request(req).await
            }
        }
        .map_err(|e| e.to_string())?;
        let status = response.status();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        Ok(Answer::Body(status, body))
    }
}

async fn connect(
    addr: SocketAddr,
) -> Result<http1::SendRequest<Full<Bytes>>, String> {
    let stream = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let (send, connection) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    Ok(send)
}

async fn connect_h2(
    addr: SocketAddr,
) -> Result<http2::SendRequest<Full<Bytes>>, String> {
    let stream = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let (send, connection) =
        http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    Ok(send)
}
