//! Spot it: Tokio's own metrics while the same work runs as a task per item and as one chunk per
//! worker, on one worker per core.
//! `num_alive_tasks` and `global_queue_depth` are stable metrics; the per-worker local queue
//! depth and the count of spawned tasks need `RUSTFLAGS="--cfg tokio_unstable"`.
//!
//! `cargo run -p ch03-spawns --example runtime_metrics`

use ch03_spawns::{chunked, spawn_per_item};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

// ANCHOR: watch_the_runtime
/// Samples the runtime's metrics from another thread every 200 µs until `done`; returns
/// (most tasks alive, longest global queue).
fn watch(metrics: tokio::runtime::RuntimeMetrics, done: Arc<AtomicBool>) -> (usize, usize) {
    let (mut alive, mut queue) = (0, 0);
    while !done.load(Ordering::Relaxed) {
        alive = alive.max(metrics.num_alive_tasks());
        queue = queue.max(metrics.global_queue_depth());
        std::thread::sleep(Duration::from_micros(200));
    }
    (alive, queue)
}

/// The workers' busy time. Each worker publishes it in batches (when it parks and at its
/// periodic maintenance): in a service, read it every few seconds and use the differences;
/// here, read it once the runtime has shut down.
fn busy(metrics: &tokio::runtime::RuntimeMetrics) -> Duration {
    (0..metrics.num_workers())
        .map(|w| metrics.worker_total_busy_duration(w))
        .sum()
}
// ANCHOR_END: watch_the_runtime

fn main() {
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let (items, rounds) = (300_000, 750);
    for name in ["a task per item", "one chunk per worker"] {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .build()
            .expect("a runtime");
        let metrics = rt.handle().metrics();
        let done = Arc::new(AtomicBool::new(false));
        let watcher = {
            let (metrics, done) = (metrics.clone(), done.clone());
            std::thread::spawn(move || watch(metrics, done))
        };
        let t = Instant::now();
        let _sum = rt
            .block_on(rt.spawn(async move {
                match name {
                    "a task per item" => spawn_per_item(items, rounds).await,
                    _ => chunked(items, rounds, workers as u64).await,
                }
            }))
            .expect("the work ran");
        let elapsed = t.elapsed();
        done.store(true, Ordering::Relaxed);
        let (alive, queue) = watcher.join().expect("the watcher ran");
        drop(rt);
        let share = busy(&metrics).as_secs_f64() / (elapsed.as_secs_f64() * workers as f64);
        println!(
            "{name} ({items} items, {workers} workers): {} ms",
            elapsed.as_millis()
        );
        println!(
            "  most tasks alive {alive}, longest global queue {queue}, workers busy {:.0}%",
            100.0 * share
        );
    }
}
