//! The subscribers the chapter compares. Each is installed once, as the process's global default,
//! the way a service's `main` installs it.

use tracing::Dispatch;
use tracing_appender::non_blocking::{ErrorCounter, NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::EnvFilter;

measure::variants! {
    /// Where a log line is written, and by which thread.
    pub enum Writer for "writers" {
        /// No subscriber: every event is disabled at its callsite.
        Off = "no_subscriber",
        /// `tracing_subscriber::fmt` with its default writer, standard output: the worker that
        /// emits the event formats it and writes it with `write(2)` under stdout's lock.
        OnTheWorker = "fmt_on_the_worker",
        /// `tracing_appender::non_blocking`, lossy (its default), with the queue the cell gives
        /// it: the worker queues the formatted line; a thread of the appender writes it.
        NonBlockingLossy = "non_blocking_lossy",
        /// The same, `lossy(false)`: a worker waits when the queue is full.
        NonBlockingLossless = "non_blocking_lossless",
        /// Formatting alone: fmt's layer writing into `io::sink`, which discards the line.
        IntoNothing = "fmt_into_sink",
    }
}

impl Writer {
    /// The writers a service could ship with, which `writers` compares.
    pub const SHIPPED: [Writer; 4] = [
        Writer::Off,
        Writer::OnTheWorker,
        Writer::NonBlockingLossy,
        Writer::NonBlockingLossless,
    ];
}

/// The non-blocking writer's queue, in lines, unless a cell sets its own: tracing-appender's
/// default.
pub const DEFAULT_QUEUE_LINES: usize = tracing_appender::non_blocking::DEFAULT_BUFFERED_LINES_LIMIT;

/// What a service keeps while it logs: the subscriber, and for the non-blocking writer the guard
/// that flushes its queue when dropped and its count of dropped lines.
pub struct Logging {
    pub dispatch: Option<Dispatch>,
    pub guard: Option<WorkerGuard>,
    pub dropped: Option<ErrorCounter>,
}

impl Logging {
    /// A subscriber that writes on the emitting thread (or none): nothing to flush or count.
    fn on_the_thread(dispatch: Option<Dispatch>) -> Logging {
        Logging {
            dispatch,
            guard: None,
            dropped: None,
        }
    }

    /// Installs the subscriber as the process's global default (once per process).
    pub fn install(&self) -> Result<(), String> {
        match &self.dispatch {
            Some(dispatch) => tracing::dispatcher::set_global_default(dispatch.clone())
                .map_err(|e| format!("cannot install the subscriber: {e}")),
            None => Ok(()),
        }
    }

    /// The lines this subscriber writes of `enabled` events its filter keeps: none without one.
    pub fn lines(&self, enabled: u64) -> u64 {
        if self.dispatch.is_some() { enabled } else { 0 }
    }

    /// Lines the non-blocking writer dropped because its queue was full (0 for the others).
    pub fn dropped_lines(&self) -> u64 {
        self.dropped
            .as_ref()
            .map_or(0, |c| c.dropped_lines() as u64)
    }
}

/// The subscriber for `writer`, keeping events at `filter` (`RUST_LOG`'s syntax) and above; a
/// non-blocking writer queues at most `queue_lines`.
pub fn logging(writer: Writer, filter: &str, queue_lines: usize) -> Result<Logging, String> {
    let filter = EnvFilter::try_new(filter).map_err(|e| format!("bad filter {filter:?}: {e}"))?;
    Ok(match writer {
        Writer::Off => Logging::on_the_thread(None),
        Writer::OnTheWorker => Logging::on_the_thread(Some(fmt_on_the_worker(filter))),
        Writer::NonBlockingLossy => fmt_through_a_thread(filter, true, queue_lines),
        Writer::NonBlockingLossless => fmt_through_a_thread(filter, false, queue_lines),
        Writer::IntoNothing => Logging::on_the_thread(Some(fmt_into_nothing(filter))),
    })
}

/// fmt's own writer at `filter`, beside tokio-console's layer, composed as
/// `console_subscriber::init` composes them. Needs a service built with the `console` feature and
/// `--cfg tokio_unstable`.
pub fn console_and_fmt(filter: &str) -> Result<Logging, String> {
    #[cfg(feature = "console")]
    {
        use tracing_subscriber::Layer;
        use tracing_subscriber::layer::SubscriberExt;
        let filter =
            EnvFilter::try_new(filter).map_err(|e| format!("bad filter {filter:?}: {e}"))?;
        // ANCHOR: console
        let console = console_subscriber::ConsoleLayer::builder()
            .server_addr(([127, 0, 0, 1], 0))
            .spawn();
        let fmt = tracing_subscriber::fmt::layer()
            .with_writer(std::io::stdout)
            .with_ansi(false)
            .with_filter(filter);
        let subscriber = tracing_subscriber::registry().with(console).with(fmt);
        // ANCHOR_END: console
        Ok(Logging::on_the_thread(Some(subscriber.into())))
    }
    #[cfg(not(feature = "console"))]
    {
        let _ = filter;
        Err("this service was built without the `console` feature".into())
    }
}

// ANCHOR: on_the_worker
/// The pitfall: the default writer. The emitting thread, a Tokio worker, formats the line and
/// writes it to standard output itself, under stdout's lock.
pub fn fmt_on_the_worker(filter: EnvFilter) -> Dispatch {
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stdout)
        .with_ansi(false)
        .finish()
        .into()
}
// ANCHOR_END: on_the_worker

/// Formatting alone, for `event_cost`: the emitting thread formats each line as fmt's own writer
/// does, and hands it to a writer that discards it, so that no write(2) is made.
pub fn fmt_into_nothing(filter: EnvFilter) -> Dispatch {
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::sink)
        .with_ansi(false)
        .finish()
        .into()
}

// ANCHOR: through_a_thread
/// The fix: the worker queues the formatted line; the appender's thread writes it. When the queue
/// holds `queue_lines`, a lossy writer drops the line and a lossless one waits. Keep the guard for
/// as long as the service runs: dropping it flushes the queue for about a second, if the queue
/// has room for its shutdown message.
pub fn fmt_through_a_thread(filter: EnvFilter, lossy: bool, queue_lines: usize) -> Logging {
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(lossy)
        .buffered_lines_limit(queue_lines)
        .finish(std::io::stdout());
    let dropped = writer.error_counter();
    let dispatch = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(false)
        .finish()
        .into();
    Logging {
        dispatch: Some(dispatch),
        guard: Some(guard),
        dropped: Some(dropped),
    }
}
// ANCHOR_END: through_a_thread
