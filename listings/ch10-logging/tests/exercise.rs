//! The exercise: the service's logging must keep its writes off the Tokio workers and lose no
//! line, those logged while the runtime shuts down included. `cargo test -p ch10-logging --test
//! exercise` passes; with `--features start` it fails.

use ch10_logging::exercise::{CONNECTIONS, serve};
use ch10_logging::service::INFO_EVENTS;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The log shipper's end of the pipe, a slow one: keeps each write's bytes and whether a thread of
/// a Tokio runtime made it.
#[derive(Clone, Default)]
struct Shipper(Arc<Mutex<Vec<Received>>>);

/// One write the shipper received: whether a runtime's thread made it, and the bytes.
type Received = (bool, Vec<u8>);

/// Each write takes this long, as a shipper that has fallen behind: a line still queued when the
/// test reads what arrived is missing, not late.
const WRITE_TAKES: Duration = Duration::from_millis(2);

impl std::io::Write for Shipper {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Workers and blocking-pool threads run inside a runtime's context; the appender's own
        // thread does not.
        let on_runtime = tokio::runtime::Handle::try_current().is_ok();
        std::thread::sleep(WRITE_TAKES);
        self.0.lock().unwrap().push((on_runtime, buf.to_vec()));
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The lines among `writes` that contain `text`.
fn lines_with(writes: &[Received], text: &str) -> u64 {
    let all: Vec<u8> = writes.iter().flat_map(|(_, b)| b.iter().copied()).collect();
    String::from_utf8_lossy(&all)
        .lines()
        .filter(|l| l.contains(text))
        .count() as u64
}

#[test]
fn no_worker_writes_a_line_and_every_line_arrives() {
    const REQUESTS: u64 = 20;
    let shipper = Shipper::default();
    serve(shipper.clone(), REQUESTS);

    let writes = shipper.0.lock().unwrap();
    let on_runtime = writes.iter().filter(|(on_runtime, _)| *on_runtime).count();
    assert!(
        on_runtime == 0,
        "{on_runtime} of {} writes were made on a thread of the Tokio runtime: a collector that falls behind stops it; give fmt a writer whose own thread writes",
        writes.len()
    );
    let requests = lines_with(&writes, "request{");
    assert_eq!(
        requests,
        REQUESTS * INFO_EVENTS,
        "every request's lines at info must reach the collector: is whatever flushes them still alive (`_guard`, not `_`)?"
    );
    let closed = lines_with(&writes, "connection closed");
    assert_eq!(
        closed, CONNECTIONS,
        "the {CONNECTIONS} connections log as the runtime drops them, after the requests: \
         {closed} of their lines arrived. Whatever flushes the log must outlive the runtime"
    );
}
