//! A tick-lag probe you can drop into a service: a task that wakes every 10 ms and reports, once
//! a second, the worst lateness it saw. Here it watches a runtime that is healthy for a second,
//! then has every worker blocked by inline CPU work, then recovers.
//!
//! `cargo run -p examples --example tick_lag`

use std::time::{Duration, Instant};

const PERIOD: Duration = Duration::from_millis(10);

/// Wakes every `PERIOD`; every second prints the worst lateness of the last second.
async fn tick_lag_probe(seconds: u32) {
    let mut next = tokio::time::Instant::now() + PERIOD;
    for second in 1..=seconds {
        let mut worst = Duration::ZERO;
        let end = tokio::time::Instant::now() + Duration::from_secs(1);
        while tokio::time::Instant::now() < end {
            tokio::time::sleep_until(next).await;
            let now = tokio::time::Instant::now();
            worst = worst.max(now - next);
            next = now.max(next) + PERIOD;
        }
        println!(
            "second {second}: worst tick lag {:.1} ms",
            worst.as_secs_f64() * 1e3
        );
    }
}

/// CPU work that never awaits: it holds its worker for `length`.
fn spin_for(length: Duration) {
    let end = Instant::now() + length;
    while Instant::now() < end {
        std::hint::spin_loop();
    }
}

fn main() {
    let workers = 2;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_time()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let probe = tokio::spawn(tick_lag_probe(3));
        tokio::time::sleep(Duration::from_millis(1200)).await;
        // As many blocking jobs as workers: nothing else on the runtime runs for 300 ms.
        let jobs: Vec<_> = (0..workers)
            .map(|_| tokio::spawn(async { spin_for(Duration::from_millis(300)) }))
            .collect();
        for job in jobs {
            job.await.expect("job");
        }
        probe.await.expect("probe");
    });
}
