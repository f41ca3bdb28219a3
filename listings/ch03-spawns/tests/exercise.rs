//! The exercise's test: deterministic, with no clock. It counts the distinct tasks that did the
//! work (by task id), so neither a task per item nor doing everything in one place passes.

use ch03_spawns::exercise::{checksum_items, tasks_seen};
use ch03_spawns::work;

// ANCHOR: exercise_test
#[test]
fn two_to_sixteen_tasks_do_the_work() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let (items, rounds) = (10_000, 10);
    let sum = rt.block_on(checksum_items(items, rounds));
    let want = (0..items).fold(0u64, |s, i| s.wrapping_add(work(rounds, i)));
    assert_eq!(sum, want, "every item is summed once");
    let tasks = tasks_seen();
    assert!(
        (2..=16).contains(&tasks),
        "{tasks} tasks did the work: spawn 2 to 16 tasks that each take a run of items"
    );
}
// ANCHOR_END: exercise_test
