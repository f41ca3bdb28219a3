//! The exercise: the service's logging must keep its writes off the Tokio workers and lose no
//! line. `cargo test -p ch10-logging --test exercise` passes; with `--features start` it fails.

use ch10_logging::exercise::service_logging;
use ch10_logging::service::{INFO_EVENTS, handle};
use std::sync::{Arc, Mutex};

/// The log shipper's end of the pipe: keeps each write's bytes and the name of the thread that
/// made it.
#[derive(Clone, Default)]
struct Shipper(Arc<Mutex<Vec<Received>>>);

/// One write the shipper received: the writing thread's name, and the bytes.
type Received = (String, Vec<u8>);

impl std::io::Write for Shipper {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let thread = std::thread::current()
            .name()
            .unwrap_or("unnamed")
            .to_string();
        self.0.lock().unwrap().push((thread, buf.to_vec()));
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The runtime's threads: its workers, and its blocking pool, which these requests never use.
const WORKER: &str = "service-worker";

#[test]
fn no_worker_writes_a_line_and_every_line_arrives() {
    const REQUESTS: u64 = 20;
    let shipper = Shipper::default();
    let logging = service_logging(shipper.clone());
    tracing::dispatcher::set_global_default(logging.dispatch.clone()).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name(WORKER)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let requests: Vec<_> = (0..REQUESTS)
            .map(|id| tokio::spawn(handle(id, 60)))
            .collect();
        for r in requests {
            r.await.unwrap();
        }
    });
    drop(rt);
    // As `main` ends: whatever the logging keeps alive flushes what is still queued.
    drop(logging);

    let writes = shipper.0.lock().unwrap();
    let on_workers: Vec<_> = writes
        .iter()
        .filter(|(thread, _)| thread == WORKER)
        .collect();
    assert!(
        on_workers.is_empty(),
        "{} of {} writes were made on a Tokio worker: a collector that falls behind stops it",
        on_workers.len(),
        writes.len()
    );
    let lines: usize = writes
        .iter()
        .map(|(_, bytes)| bytes.iter().filter(|&&b| b == b'\n').count())
        .sum();
    assert_eq!(
        lines as u64,
        REQUESTS * INFO_EVENTS,
        "every request's lines at info must reach the collector"
    );
}
