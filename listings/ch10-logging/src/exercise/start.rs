// ANCHOR: start
use std::io::Write;
use std::sync::Mutex;
use tracing_appender::non_blocking::WorkerGuard;

/// The service's logging, made once in `main`: the subscriber and what must live as long as it.
pub struct ServiceLogging {
    pub dispatch: tracing::Dispatch,
    pub guard: Option<WorkerGuard>,
}

/// Logs every event at info and above to `collector`, the pipe of the log shipper.
/// Today each Tokio worker writes its own lines into the pipe: when the shipper falls behind, the
/// pipe fills and the workers stop in `write(2)`. Make the writes happen on another thread, and
/// keep every line (the test counts them).
pub fn service_logging(collector: impl Write + Send + 'static) -> ServiceLogging {
    let dispatch = tracing_subscriber::fmt()
        .with_writer(Mutex::new(collector))
        .with_ansi(false)
        .finish()
        .into();
    ServiceLogging {
        dispatch,
        guard: None,
    }
}
// ANCHOR_END: start
