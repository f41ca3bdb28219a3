//! The exercise's starting point: a task per item.

use ch03_spawns::exercise::counted_work;

// ANCHOR: exercise_start
/// Sums the work over every item, a task per item. Make it use 2 to 16 tasks.
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
