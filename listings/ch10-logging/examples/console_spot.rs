//! Spot it with tokio-console: the chapter's pitfall, fmt's writer on the workers and a collector
//! that has fallen behind, in a process tokio-console can watch on 127.0.0.1:6669.
//!
//! ```console
//! $ RUSTFLAGS="--cfg tokio_unstable" cargo run --release -p ch10-logging --features console \
//!     --example console_spot --target-dir target/ch10-console -- 15
//! $ tokio-console   # in another terminal, while it runs
//! ```
//!
//! For SECONDS (1–600, default 60) three `connection` tasks log a line every 10 ms through fmt's
//! writer into a pipe whose reader takes 2,000 bytes a second; a `startup-report` task logs 2,000
//! lines in one poll; a `ticker` task logs nothing and asks to run every millisecond. All are
//! spawned at the start. Then the process exits, with lines still queued in the pipe.

use ch10_logging::sink::collect_slowly;
use std::io::PipeWriter;
use std::sync::Mutex;
use std::time::Duration;
use tokio::runtime::Runtime;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The collector's rate: a small fraction of what the tasks write.
const COLLECTOR_BYTES_PER_S: u64 = 2_000;

fn main() {
    let seconds = match seconds(std::env::args().nth(1)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("console_spot: {e}");
            std::process::exit(2);
        }
    };
    let (reader, writer) = std::io::pipe().expect("a pipe");
    std::thread::spawn(move || collect_slowly(reader, COLLECTOR_BYTES_PER_S));
    install(writer);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    for n in 0..3 {
        spawn(&runtime, "connection", connection(n));
    }
    spawn(&runtime, "ticker", ticker());
    spawn(&runtime, "startup-report", report());
    // The main thread keeps the time: the runtime's timers wait while both workers are stuck.
    std::thread::sleep(Duration::from_secs(seconds));
    // The workers may be stuck in `write(2)`: end the process without waiting for them.
    std::process::exit(0);
}

/// A task with a name tokio-console shows, and the caller's line as its location.
#[track_caller]
fn spawn(runtime: &Runtime, name: &str, task: impl Future<Output = ()> + Send + 'static) {
    tokio::task::Builder::new()
        .name(name)
        .spawn_on(task, runtime.handle())
        .expect("a task");
}

/// The run's length in seconds, from the first argument.
fn seconds(arg: Option<String>) -> Result<u64, String> {
    let Some(arg) = arg else { return Ok(60) };
    match arg.parse::<u64>() {
        Ok(s @ 1..=600) => Ok(s),
        _ => Err(format!("SECONDS must be 1 to 600, not {arg:?}")),
    }
}

/// tokio-console's layer on its default address, and fmt writing on the emitting thread into the
/// pipe, under a mutex as stdout's writes are under stdout's lock.
fn install(pipe: PipeWriter) {
    let console = console_subscriber::ConsoleLayer::builder()
        .server_addr(([127, 0, 0, 1], 6669))
        .spawn();
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(Mutex::new(pipe))
        .with_ansi(false)
        .with_filter(LevelFilter::INFO);
    tracing_subscriber::registry()
        .with(console)
        .with(fmt)
        .init();
}

/// A line every 10 ms: each poll writes one line, and waits once the pipe is full.
async fn connection(n: u32) {
    for request in 0u64.. {
        tracing::info!(connection = n, request, "served GET /books in 0.4 ms");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// 2,000 lines in one poll, more than the pipe holds: it never yields until the collector has read
/// them.
async fn report() {
    for line in 0..2_000 {
        tracing::info!(line, "configuration: a setting the service read at start");
    }
}

/// Logs nothing and asks to run every millisecond: its polls count the timer's firings.
async fn ticker() {
    let mut tick = tokio::time::interval(Duration::from_millis(1));
    loop {
        tick.tick().await;
    }
}
