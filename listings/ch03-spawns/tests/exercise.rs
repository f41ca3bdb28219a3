//! The exercise's test: deterministic, with no clock. On a current-thread runtime nothing runs
//! until the spawning task yields, so a task per item leaves every item's task alive at once.

use ch03_spawns::exercise::{MOST_ALIVE, checksum_items};
use ch03_spawns::work;
use std::sync::atomic::Ordering;

// ANCHOR: exercise_test
#[test]
fn at_most_sixteen_tasks_work_at_once() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let (items, rounds) = (10_000, 10);
    let sum = rt.block_on(checksum_items(items, rounds));
    let want = (0..items).fold(0u64, |s, i| s.wrapping_add(work(rounds, i)));
    assert_eq!(sum, want, "every item is summed once");
    let most = MOST_ALIVE.load(Ordering::Relaxed);
    assert!(
        most <= 17,
        "{most} tasks were alive at once: spawn a few tasks that each take a run of items"
    );
}
// ANCHOR_END: exercise_test
