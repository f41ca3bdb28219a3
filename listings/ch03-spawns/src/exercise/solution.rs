//! A solution: sixteen tasks, each taking a contiguous run of items.

use ch03_spawns::exercise::counted_work;

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
