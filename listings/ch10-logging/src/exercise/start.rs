// ANCHOR: start
use super::{accept, service_runtime};
use std::io::Write;
use std::sync::Mutex;

/// The service's `main`: logs every event at info and above to `collector`, the pipe of the log
/// shipper, serves `requests` requests, and shuts down.
/// Today each Tokio worker writes its own lines into the pipe: when the shipper falls behind, the
/// pipe fills and the workers stop in `write(2)`. Make the writes happen on another thread, and
/// keep every line, those logged while the runtime shuts down too (the test counts them).
pub fn serve(collector: impl Write + Send + 'static, requests: u64) {
    let runtime = service_runtime();
    runtime.block_on(async move {
        // Made where `#[tokio::main]` would make it: inside the runtime.
        let subscriber = tracing_subscriber::fmt()
            .with_writer(Mutex::new(collector))
            .with_ansi(false)
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");
        accept(requests).await;
    });
    // The connections still open close, and log, as the runtime drops them.
    drop(runtime);
}
// ANCHOR_END: start
