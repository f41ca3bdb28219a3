//! Starting and stopping the service: `cargo run -p ch07-axum -- serve` runs it
//! alone for a reader's own tools; the experiments run the same command as a child
//! process per cell, read the address it prints, and close its stdin to stop it.

use axum::serve::ListenerExt;
use ch07_axum::service::{
    AppState, Config, CounterKind, counted, internal, with_layers,
};
use clap::Parser;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, oneshot};
use tokio::task::JoinHandle;

/// `serve`'s flags.
#[derive(Parser, Debug)]
#[command(
    name = "ch07-axum serve",
    about = "Runs the Bookshelf service on 127.0.0.1 until Ctrl-C (or, with \
             --until-stdin-closes, until its standard input closes). Prints \
             `listening http://ADDR internal http://ADDR` once both ports are bound."
)]
pub struct ServeArgs {
    /// The public port (0: any free port).
    #[arg(long, default_value_t = 3000)]
    pub port: u16,
    /// The internal port: /debug/cpu, /debug/faults, /debug/views, /debug/latency_p50_ns,
    /// /debug/latency_p99_ns, /debug/pprof/flamegraph (0: any).
    #[arg(long, default_value_t = 9000)]
    pub internal_port: u16,
    /// Tokio worker threads [default: every core].
    #[arg(long)]
    pub workers: Option<usize>,
    /// Hashes on the blocking pool at once [default: the workers].
    #[arg(long)]
    pub hash_permits: Option<usize>,
    /// Milliseconds a /hash request waits for a permit before it gets 503.
    #[arg(long, default_value_t = 2000)]
    pub queue_timeout_ms: u64,
    /// Milliseconds any request may take before it gets 504.
    #[arg(long, default_value_t = 10_000)]
    pub deadline_ms: u64,
    /// The largest request body in bytes; a larger one gets 413.
    #[arg(long, default_value_t = 64 * 1024)]
    pub body_limit: usize,
    /// The view counters: one-mutex or sharded.
    #[arg(long, default_value = "sharded")]
    pub counters: CounterKind,
    /// Requests in the handlers at once, past which a request gets 503 at once [default: no limit].
    #[arg(long)]
    pub concurrency_limit: Option<usize>,
    /// Set TCP_NODELAY on every accepted connection (Nagle's algorithm off).
    #[arg(long)]
    pub nodelay: bool,
    /// Accept with the listing's own loop (a connection limit, a header-read timeout)
    /// instead of `axum::serve`.
    #[arg(long)]
    pub hardened: bool,
    /// With --hardened: connections open at once; the next waits in the kernel's
    /// backlog [default: the open-file limit less 64].
    #[arg(long, requires = "hardened")]
    pub max_connections: Option<usize>,
    /// With --hardened: milliseconds a client has to send a request's headers, after
    /// it is accepted or answered, before its connection is closed (idle keep-alive
    /// connections too).
    #[arg(long, requires = "hardened", default_value_t = 5000)]
    pub header_read_timeout_ms: u64,
    /// With --hardened: milliseconds a graceful shutdown waits for the requests in
    /// flight before it closes their connections.
    #[arg(long, requires = "hardened", default_value_t = 10_000)]
    pub drain_deadline_ms: u64,
    /// Stop (gracefully) when standard input closes: how the experiments stop it.
    #[arg(long)]
    pub until_stdin_closes: bool,
}

impl ServeArgs {
    pub fn config(&self, cores: usize) -> Config {
        let workers = self.workers.unwrap_or(cores);
        Config {
            hash_permits: self.hash_permits.unwrap_or(workers),
            queue_timeout: Duration::from_millis(self.queue_timeout_ms),
            deadline: Duration::from_millis(self.deadline_ms),
            body_limit: self.body_limit,
            counters: self.counters,
            concurrency_limit: self.concurrency_limit,
        }
    }

    /// How connections are accepted.
    pub fn accept(&self) -> Accept {
        Accept {
            nodelay: self.nodelay,
            hardened: self.hardened.then(|| Hardened {
                max_connections: self
                    .max_connections
                    .unwrap_or_else(|| open_file_limit().saturating_sub(64).max(1)),
                header_read_timeout: Duration::from_millis(
                    self.header_read_timeout_ms,
                ),
                drain_deadline: Duration::from_millis(self.drain_deadline_ms),
            }),
        }
    }
}

/// How the public port accepts connections.
#[derive(Clone, Debug, Default)]
pub struct Accept {
    /// TCP_NODELAY on every accepted connection.
    pub nodelay: bool,
    /// The listing's own accept loop, or (`None`) `axum::serve`.
    pub hardened: Option<Hardened>,
}

/// The protections `axum::serve` does not offer.
#[derive(Clone, Debug)]
pub struct Hardened {
    pub max_connections: usize,
    pub header_read_timeout: Duration,
    /// How long a graceful shutdown waits for the requests in flight.
    pub drain_deadline: Duration,
}

/// Failed accepts so far, whichever loop met them: the hardened loop counts its
/// own, and `AcceptErrors` counts the errors `axum::serve`'s loop logs.
pub static ACCEPT_ERRORS: AtomicU64 = AtomicU64::new(0);

/// A tracing layer that counts `axum::serve`'s accept errors: its loop logs each
/// one (`handle_accept_error` in axum's `serve/listener.rs`) and sleeps a second.
pub struct AcceptErrors;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for AcceptErrors {
    fn on_event(
        &self,
        event: &tracing::Event<'_>,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) {
        let meta = event.metadata();
        if *meta.level() == tracing::Level::ERROR
            && meta.target().starts_with("axum::serve")
        {
            ACCEPT_ERRORS.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// This process's soft limit on open files.
pub fn open_file_limit() -> usize {
    // SAFETY: getrlimit writes one rlimit through a valid pointer.
    let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
    match unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } {
        0 => limit.rlim_cur.min(1 << 20) as usize,
        _ => 1024,
    }
}

/// A service running on this runtime.
pub struct Running {
    pub addr: SocketAddr,
    pub internal: SocketAddr,
    stop: oneshot::Sender<()>,
    served: JoinHandle<std::io::Result<()>>,
}

impl Running {
    /// Stops taking connections, lets the requests in flight finish, and returns.
    pub async fn shut_down(self) -> std::io::Result<()> {
        let _ = self.stop.send(());
        self.served
            .await
            .map_err(|e| std::io::Error::other(e.to_string()))?
    }
}

// ANCHOR: start
/// Binds both ports on 127.0.0.1 and serves `router` (the public routes, with
/// their layers) with `axum::serve` until `shut_down`.
pub async fn start(
    router: axum::Router,
    state: &AppState,
    port: u16,
    internal_port: u16,
) -> std::io::Result<Running> {
    start_with(router, state, port, internal_port, &Accept::default()).await
}

/// `start`, accepting connections as `accept` says.
pub async fn start_with(
    router: axum::Router,
    state: &AppState,
    port: u16,
    internal_port: u16,
    accept: &Accept,
) -> std::io::Result<Running> {
    let public = TcpListener::bind(("127.0.0.1", port)).await?;
    let private = TcpListener::bind(("127.0.0.1", internal_port)).await?;
    let (addr, internal_addr) = (public.local_addr()?, private.local_addr()?);
    let (stop, stopped) = oneshot::channel::<()>();
    let internal_router = internal(state.views.clone(), state.requests.clone());
    tokio::spawn(async move { axum::serve(private, internal_router).await });
    let nodelay = accept.nodelay;
    let served = match accept.hardened.clone() {
        None => tokio::spawn(async move {
            let public = public.tap_io(move |tcp| {
                let _ = tcp.set_nodelay(nodelay);
            });
            axum::serve(public, router)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
        }),
        Some(limits) => {
            tokio::spawn(serve_hardened(public, router, limits, nodelay, stopped))
        }
    };
    Ok(Running {
        addr,
        internal: internal_addr,
        stop,
        served,
    })
}
// ANCHOR_END: start

// ANCHOR: hardened
/// What `axum::serve` does over HTTP/1.1 (no h2c, no upgrades), with two
/// protections it lacks: at most `max_connections` open at once (the next waits in
/// the kernel's backlog, and the process keeps file descriptors to spare), and a
/// client that has not sent a request's headers within `header_read_timeout` of
/// being accepted, or of its last answer, is disconnected.
async fn serve_hardened(
    listener: TcpListener,
    router: axum::Router,
    limits: Hardened,
    nodelay: bool,
    mut stop: oneshot::Receiver<()>,
) -> std::io::Result<()> {
    // HTTP/1.1 only: the auto builder's first read, to tell HTTP/2 from HTTP/1.1,
    // has no timeout, so an idle connection would never meet the header timeout.
    let mut builder = auto::Builder::new(TokioExecutor::new()).http1_only();
    // hyper times the headers only if it is given a timer.
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore stays open"),
            _ = &mut stop => break,
        };
        let tcp = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => tcp,
                // Out of descriptors despite the limit: try again soon, not in a second.
                Err(_) => {
                    ACCEPT_ERRORS.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        let _ = tcp.set_nodelay(nodelay);
        let service = TowerToHyperService::new(router.clone());
        let connection = builder
            .serve_connection(TokioIo::new(tcp), service)
            .into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = connection.await;
            drop(slot);
        });
    }
    drop(listener);
    // Idle connections close now; each request in flight is answered first, if it
    // is answered before the deadline (nothing in hyper-util bounds the wait).
    if tokio::time::timeout(limits.drain_deadline, graceful.shutdown())
        .await
        .is_err()
    {
        // Each connection holds a slot until its task ends.
        let open = limits.max_connections - slots.available_permits();
        eprintln!(
            "serve: {open} connection(s) still open at the drain deadline ({:?}); \
             they are closed unanswered as the runtime shuts down",
            limits.drain_deadline
        );
    }
    Ok(())
}
// ANCHOR_END: hardened

/// `serve` from the command line; the process's exit status.
pub fn main(args: &[String]) -> i32 {
    let args = match ServeArgs::try_parse_from(args) {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    init_tracing();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let config = args.config(cores);
    let workers = args.workers.unwrap_or(cores);
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("serve: cannot start the runtime: {e}");
            return 1;
        }
    };
    let code = match rt.block_on(serve(&args, &config)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("serve: {e}");
            1
        }
    };
    // Dropping the runtime would wait, without a limit, for every blocking task still
    // running (a hash whose request the drain deadline cut): a second, then exit.
    rt.shutdown_timeout(SHUTDOWN_TIMEOUT);
    code
}

/// How long the runtime's shutdown waits for blocking tasks after `serve` has returned.
const SHUTDOWN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);

async fn serve(args: &ServeArgs, config: &Config) -> std::io::Result<()> {
    let state = AppState::new(config);
    let router = with_layers(ch07_axum::service::routes(state.clone()), config);
    let router = counted(router, state.requests.clone());
    let running = start_with(
        router,
        &state,
        args.port,
        args.internal_port,
        &args.accept(),
    )
    .await?;
    println!(
        "listening http://{} internal http://{}",
        running.addr, running.internal
    );
    std::io::stdout().flush()?;
    stop_signal(args.until_stdin_closes).await;
    let signalled = std::time::Instant::now();
    let requests = &state.requests;
    // Answered first, with Acquire (the counter adds it with Release): every request it counts
    // is in the count of begun requests read after it, so the difference cannot go below zero.
    let answered = requests.answered.load(Ordering::Acquire);
    let in_flight_at_signal = requests.started.load(Ordering::Relaxed) - answered;
    running.shut_down().await?;
    let stopped = Stopped {
        started: requests.started.load(Ordering::Relaxed),
        answered: requests.answered.load(Ordering::Relaxed),
        in_flight_at_signal,
        drained_ms: signalled.elapsed().as_secs_f64() * 1e3,
        accept_errors: ACCEPT_ERRORS.load(Ordering::Relaxed),
    };
    // Nobody may be reading any more (a reader's terminal closed): not an error.
    let _ = writeln!(std::io::stdout(), "{stopped}");
    Ok(())
}

/// What `serve` prints as it stops, its last line:
/// `requests started N answered M in_flight_at_signal F drained_ms D accept_errors E`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stopped {
    pub started: u64,
    pub answered: u64,
    /// Begun and not yet answered when the stop signal came: what the drain waits for.
    pub in_flight_at_signal: u64,
    /// From the stop signal to the end of the drain: the last connection closed, or the
    /// hardened loop's drain deadline if that came first.
    pub drained_ms: f64,
    /// Failed accepts over the whole run (see [`ACCEPT_ERRORS`]).
    pub accept_errors: u64,
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "requests started {} answered {} in_flight_at_signal {} drained_ms {:.1} \
             accept_errors {}",
            self.started,
            self.answered,
            self.in_flight_at_signal,
            self.drained_ms,
            self.accept_errors
        )
    }
}

impl std::str::FromStr for Stopped {
    type Err = String;

    /// The last line of `text` (what the server printed, up to its exit).
    fn from_str(text: &str) -> Result<Stopped, String> {
        let line = text.lines().last().unwrap_or_default();
        let words: Vec<&str> = line.split_whitespace().collect();
        let after = |key: &str| {
            let i = words.iter().position(|w| *w == key);
            i.and_then(|i| words.get(i + 1))
                .copied()
                .ok_or(format!("the server's last line has no {key}: {line:?}"))
        };
        let number = |key: &str| {
            after(key)?
                .parse::<u64>()
                .map_err(|e| format!("{key} in {line:?}: {e}"))
        };
        Ok(Stopped {
            started: number("started")?,
            answered: number("answered")?,
            in_flight_at_signal: number("in_flight_at_signal")?,
            drained_ms: after("drained_ms")?
                .parse()
                .map_err(|e| format!("drained_ms in {line:?}: {e}"))?,
            accept_errors: number("accept_errors")?,
        })
    }
}

/// Ctrl-C, or standard input closing when asked to watch it.
async fn stop_signal(watch_stdin: bool) {
    let (closed, stdin_closed) = oneshot::channel::<()>();
    if watch_stdin {
        // A thread of its own: a read of stdin cannot be cancelled.
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
            let _ = closed.send(());
        });
    }
    tokio::select! {
        Ok(()) = stdin_closed => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

/// Warnings to stderr, and axum's accept errors counted; with the `console` feature
/// (and `--cfg tokio_unstable`), tokio-console's layer too, on 127.0.0.1:6669.
fn init_tracing() {
    use tracing_subscriber::filter::LevelFilter;
    use tracing_subscriber::{
        Layer, layer::SubscriberExt, util::SubscriberInitExt,
    };
    let warnings = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(LevelFilter::WARN);
    let registry = tracing_subscriber::registry()
        .with(warnings)
        // Its own filter, so that no event below WARN is ever built for it.
        .with(AcceptErrors.with_filter(LevelFilter::ERROR));
    // console_subscriber::spawn, not init: init would set a subscriber without these layers.
    #[cfg(feature = "console")]
    let registry = registry.with(console_subscriber::spawn());
    let _ = registry.try_init();
}

#[cfg(test)]
mod tests {
    use super::Stopped;

    #[test]
    fn the_last_line_reads_back_as_it_was_written() {
        let stopped = Stopped {
            started: 1200,
            answered: 1198,
            in_flight_at_signal: 7,
            drained_ms: 12.5,
            accept_errors: 3,
        };
        let printed = format!(
            "listening http://127.0.0.1:1 internal http://127.0.0.1:2\n{stopped}\n"
        );
        assert_eq!(printed.parse::<Stopped>(), Ok(stopped));
    }

    #[test]
    fn a_last_line_without_a_count_is_an_error_naming_it() {
        let err =
            "requests started 4 answered 4 in_flight_at_signal 0 drained_ms 1.0"
                .parse::<Stopped>()
                .unwrap_err();
        assert!(err.contains("accept_errors"), "{err}");
        let err = "requests started four answered 4 in_flight_at_signal 0 drained_ms 1.0 accept_errors 0"
            .parse::<Stopped>()
            .unwrap_err();
        assert!(err.contains("started"), "{err}");
    }
}
