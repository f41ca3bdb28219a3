//! The ticker: a task that stands in for everything else a service must keep doing
//! (health checks, reading sockets, timers) and records how late the runtime let it
//! run.

use measure::stats::LatencyHistogram;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

// ANCHOR: ticker
/// Wakes every `period` until `stop` is set and records how late each wake-up
/// was, from the time it was due. Ticks missed while the ticker could not run
/// are skipped, not made up: after a wake-up more than a period late, the next
/// is due a period after it. Tokio's timer rounds the deadline up to the next
/// millisecond and counts the park from the current millisecond rounded down,
/// so up to about 2 ms of lateness is the timer, not the load.
pub async fn ticker(period: Duration, stop: Arc<AtomicBool>) -> LatencyHistogram {
    let mut lateness = LatencyHistogram::new();
    let mut due = tokio::time::Instant::now() + period;
    while !stop.load(Ordering::Relaxed) {
        tokio::time::sleep_until(due).await;
        let now = tokio::time::Instant::now();
        lateness.record(now - due);
        due += period;
        if due < now {
            due = now + period;
        }
    }
    lateness
}
// ANCHOR_END: ticker

/// A ticker running on the current runtime, stopped and read with
/// [`Ticking::stop`].
pub struct Ticking {
    stop: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<LatencyHistogram>,
}

impl Ticking {
    pub fn start(period: Duration) -> Ticking {
        let stop = Arc::new(AtomicBool::new(false));
        let task = tokio::spawn(ticker(period, stop.clone()));
        Ticking { stop, task }
    }

    pub async fn stop(self) -> LatencyHistogram {
        self.stop.store(true, Ordering::Relaxed);
        self.task.await.unwrap_or_default()
    }
}
