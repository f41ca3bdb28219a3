//! Starting and stopping the service: `cargo run -p ch07-axum -- serve` runs it
//! alone for a reader's own tools; the experiments run the same command as a child
//! process per cell, read the address it prints, and close its stdin to stop it.

use ch07_axum::service::{AppState, Config, CounterKind, internal, with_layers};
use clap::Parser;
use std::io::Write;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
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
    /// The internal port: /debug/cpu, /debug/faults, /debug/views, /debug/pprof/flamegraph (0: any).
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
        }
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
/// their layers) until `shut_down`.
pub async fn start(
    router: axum::Router,
    state: &AppState,
    port: u16,
    internal_port: u16,
) -> std::io::Result<Running> {
    let public = TcpListener::bind(("127.0.0.1", port)).await?;
    let private = TcpListener::bind(("127.0.0.1", internal_port)).await?;
    let (addr, internal_addr) = (public.local_addr()?, private.local_addr()?);
    let (stop, stopped) = oneshot::channel::<()>();
    let internal_router = internal(state.views.clone());
    tokio::spawn(async move { axum::serve(private, internal_router).await });
    let served = tokio::spawn(async move {
        axum::serve(public, router)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
    });
    Ok(Running {
        addr,
        internal: internal_addr,
        stop,
        served,
    })
}
// ANCHOR_END: start

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
    match rt.block_on(serve(&args, &config)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("serve: {e}");
            1
        }
    }
}

async fn serve(args: &ServeArgs, config: &Config) -> std::io::Result<()> {
    let state = AppState::new(config);
    let router = with_layers(ch07_axum::service::routes(state.clone()), config);
    let running = start(router, &state, args.port, args.internal_port).await?;
    println!(
        "listening http://{} internal http://{}",
        running.addr, running.internal
    );
    std::io::stdout().flush()?;
    stop_signal(args.until_stdin_closes).await;
    running.shut_down().await
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

/// Warnings to stderr; with the `console` feature (and `--cfg tokio_unstable`),
/// tokio-console's subscriber instead, on 127.0.0.1:6669.
fn init_tracing() {
    #[cfg(feature = "console")]
    console_subscriber::init();
    #[cfg(not(feature = "console"))]
    let _ = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_writer(std::io::stderr)
        .try_init();
}
