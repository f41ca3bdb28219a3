//! The chapter's exercise. `serve` is the service's `main`: it makes the logging, runs the
//! requests on a runtime, and shuts down. The starting point gives fmt the log shipper's pipe
//! itself, so every Tokio worker writes its own lines, and makes the logging inside the runtime,
//! where `#[tokio::main]` would. `tests/exercise.rs` fails if a worker makes a write, or if a line
//! at info is missing, the lines logged while the runtime shuts down included.
//!
//! `cargo test -p ch10-logging --features start --test exercise` tests the starting point (it
//! fails until you fix it); without the feature, the solution.

use crate::service::handle;

pub mod solution;
pub mod start;

#[cfg(feature = "start")]
pub use start::serve;

#[cfg(not(feature = "start"))]
pub use solution::serve;

/// Connections still open when the service stops: each logs a line as the runtime drops it.
pub const CONNECTIONS: u64 = 4;

/// The service's runtime: two workers.
pub fn service_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("service-worker")
        .enable_all()
        .build()
        .expect("a runtime")
}

/// The service's work: `requests` requests to the end, beside `CONNECTIONS` connections that are
/// still open when it returns.
pub async fn accept(requests: u64) {
    for id in 0..CONNECTIONS {
        // Made before the spawn: a task dropped before its first poll still closes it.
        let open = Connection(id);
        tokio::spawn(async move {
            let _open = open;
            std::future::pending::<()>().await;
        });
    }
    let handles: Vec<_> = (0..requests)
        .map(|id| tokio::spawn(handle(id, 60)))
        .collect();
    for h in handles {
        h.await.expect("a request");
    }
}

/// An open connection: it logs as it closes, as a connection task does when the runtime drops it
/// at shutdown.
struct Connection(u64);

impl Drop for Connection {
    fn drop(&mut self) {
        tracing::info!(connection = self.0, "connection closed");
    }
}
