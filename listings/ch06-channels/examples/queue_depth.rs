//! Spot it: a pipeline's queue depth, exported every 25 ms as a metric line, while
//! a producer offers twice what its consumer takes: first through an unbounded
//! channel (a capacity of a million: unbounded in all but name), then through a
//! channel of 64 that turns the extra away.
//!
//! `cargo run -p ch06-channels --example queue_depth`

use measure::loadgen::{OpenLoop, fixed_rate, spin_until};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

// ANCHOR: depth
/// Messages accepted into the channel and taken out: their difference is the depth
/// to export.
#[derive(Default)]
struct Depth {
    accepted: AtomicU64,
    taken: AtomicU64,
}

impl Depth {
    fn now(&self) -> u64 {
        let taken = self.taken.load(Ordering::Relaxed);
        self.accepted.load(Ordering::Relaxed).saturating_sub(taken)
    }
}
// ANCHOR_END: depth

fn main() {
    let rt = measure::runtime(2).expect("a runtime");
    for bounded in [false, true] {
        let depth = Arc::new(Depth::default());
        let (tx, mut rx) =
            tokio::sync::mpsc::channel::<u64>(if bounded { 64 } else { 1 << 20 });
        let taken = depth.clone();
        rt.spawn(async move {
            while rx.recv().await.is_some() {
                spin_until(Instant::now() + Duration::from_micros(50)); // the work
                taken.taken.fetch_add(1, Ordering::Relaxed);
            }
        });
        let name = if bounded {
            "capacity_64"
        } else {
            "capacity_1M"
        };
        let arrivals = fixed_rate(40_000.0, Duration::ZERO, 8_000, ());
        let (mut refused, mut offered) = (0, 0);
        // The producer exports the depth itself, so that no third thread competes
        // for the two CPUs.
        OpenLoop::default().run(Instant::now(), &arrivals, |_, _| {
            if tx.try_send(1).is_ok() {
                depth.accepted.fetch_add(1, Ordering::Relaxed);
            } else {
                refused += 1;
            }
            offered += 1;
            if offered % 1_000 == 0 {
                // every 25 ms of the schedule
                println!("queue_depth{{channel=\"{name}\"}} {}", depth.now());
            }
        });
        println!("# {name}: {refused} refused");
    }
}
