// ANCHOR: solution
use super::{accept, service_runtime};
use std::io::Write;
use tracing_appender::non_blocking::NonBlockingBuilder;

/// The service's `main`: the workers only queue their lines, the appender's thread writes them to
/// `collector`. Lossless: a worker waits when the queue is full rather than drop a line. The
/// guard is made before the runtime and dropped after it.
pub fn serve(collector: impl Write + Send + 'static, requests: u64) {
    let (writer, guard) = NonBlockingBuilder::default().lossy(false).finish(collector);
    let subscriber = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .finish();
    tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");
    let runtime = service_runtime();
    runtime.block_on(accept(requests));
    // The connections still open close, and log, as the runtime drops them: first the runtime,
    drop(runtime);
    // then the guard, which waits for the queue to reach the collector.
    drop(guard);
}
// ANCHOR_END: solution
