//! The ticker: a task that stands in for everything else a service must keep doing (health
//! checks, reading sockets, timers) and records how late the runtime let it run.

use measure::stats::LatencyHistogram;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

// ANCHOR: ticker
/// Wakes every `period` until `stop` is set and records how late each wake-up was, from the
/// time it was due. Tokio's timer rounds a deadline up to the next millisecond, so lateness
/// under a millisecond is the timer, not the load.
pub async fn ticker(period: Duration, stop: Arc<AtomicBool>) -> LatencyHistogram {
    let mut lateness = LatencyHistogram::new();
    let mut due = tokio::time::Instant::now();
    while !stop.load(Ordering::Relaxed) {
        due += period;
        tokio::time::sleep_until(due).await;
        lateness.record(due.elapsed());
    }
    lateness
}
// ANCHOR_END: ticker

/// A ticker running on the current runtime, stopped and read with [`Ticking::stop`].
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
