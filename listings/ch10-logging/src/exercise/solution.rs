// ANCHOR: solution
use std::io::Write;
use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};

/// The service's logging, made once in `main`: the subscriber and what must live as long as it.
pub struct ServiceLogging {
    pub dispatch: tracing::Dispatch,
    pub guard: Option<WorkerGuard>,
}

/// Logs every event at info and above to `collector` from the appender's thread; the workers only
/// queue their lines. Lossless: a worker waits when the queue is full rather than drop a line.
pub fn service_logging(collector: impl Write + Send + 'static) -> ServiceLogging {
    let (writer, guard) = NonBlockingBuilder::default().lossy(false).finish(collector);
    let dispatch = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .finish()
        .into();
    ServiceLogging {
        dispatch,
        guard: Some(guard),
    }
}
// ANCHOR_END: solution
