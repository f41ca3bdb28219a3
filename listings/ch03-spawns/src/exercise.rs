//! The chapter's exercise. `checksum_items` sums `work` over every item. The starting point
//! spawns a task per item; `tests/exercise.rs` runs it on a current-thread runtime and fails if
//! more than 17 tasks were alive at once (16 chunks and the one that spawned them).
//!
//! `cargo test -p ch03-spawns --features start --test exercise` tests the starting point (it
//! fails until you fix it); without the feature, the solution is tested.

use crate::work;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The most tasks alive at once while items were worked on.
pub static MOST_ALIVE: AtomicUsize = AtomicUsize::new(0);

/// `work`, noting how many tasks the runtime holds right now (`RuntimeMetrics::num_alive_tasks`).
pub fn counted_work(rounds: u64, item: u64) -> u64 {
    let alive = tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks();
    MOST_ALIVE.fetch_max(alive, Ordering::Relaxed);
    work(rounds, item)
}

pub mod start {
    use super::counted_work;

    // ANCHOR: exercise_start
    /// Sums the work over every item, a task per item. Make it use at most 16 tasks.
    pub async fn checksum_items(items: u64, rounds: u64) -> u64 {
        let handles: Vec<_> = (0..items)
            .map(|item| tokio::spawn(async move { counted_work(rounds, item) }))
            .collect();
        let mut sum = 0u64;
        for handle in handles {
            sum = sum.wrapping_add(handle.await.expect("an item panicked"));
        }
        sum
    }
    // ANCHOR_END: exercise_start
}

pub mod solution {
    use super::counted_work;

    // ANCHOR: exercise_solution
    /// Sums the work over every item in 16 tasks, each taking a contiguous run of items.
    pub async fn checksum_items(items: u64, rounds: u64) -> u64 {
        const TASKS: u64 = 16;
        let per_task = items.div_ceil(TASKS).max(1);
        let handles: Vec<_> = (0..items)
            .step_by(per_task as usize)
            .map(|first| {
                let last = (first + per_task).min(items);
                tokio::spawn(async move {
                    (first..last).fold(0u64, |sum, item| {
                        sum.wrapping_add(counted_work(rounds, item))
                    })
                })
            })
            .collect();
        let mut sum = 0u64;
        for handle in handles {
            sum = sum.wrapping_add(handle.await.expect("a chunk panicked"));
        }
        sum
    }
    // ANCHOR_END: exercise_solution
}

#[cfg(not(feature = "start"))]
pub use solution::checksum_items;
#[cfg(feature = "start")]
pub use start::checksum_items;
