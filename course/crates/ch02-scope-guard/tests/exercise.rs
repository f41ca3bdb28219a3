//! The exercise: 100 visits at once, each with a 2 ms upstream call, on Tokio's paused clock: they
//! must all finish within 10 ms of virtual time, count 100 visits, and each return the count with
//! itself included (every count from 1 to 100 once).

use ch02_scope_guard::visit;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;
use tokio::time::{Instant, sleep};

// ANCHOR: exercise_test
#[tokio::test(start_paused = true)]
async fn a_hundred_visits_overlap_their_upstream_calls() {
    let visits = Arc::new(Mutex::new(0u64));
    let started = Instant::now();
    let all: Vec<_> = (0..100)
        .map(|_| {
            let visits = visits.clone();
            tokio::spawn(async move { visit(&visits, || sleep(Duration::from_millis(2))).await })
        })
        .collect();
    let mut returned = Vec::with_capacity(all.len());
    for v in all {
        returned.push(v.await.unwrap());
    }
    let took = started.elapsed();
    assert_eq!(*visits.lock().await, 100, "every visit is counted once");
    assert!(
        took <= Duration::from_millis(10),
        "100 visits took {took:?} of virtual time: each waited for the one before"
    );
    returned.sort_unstable();
    assert_eq!(
        returned,
        (1..=100).collect::<Vec<u64>>(),
        "each visit returns the count with itself included (its own increment, not a later visit's): every count from 1 to 100 once, sorted here"
    );
}
// ANCHOR_END: exercise_test
