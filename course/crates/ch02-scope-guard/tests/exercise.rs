//! The exercise: 100 visits at once, each with a 2 ms upstream call, on Tokio's paused clock: they
//! must all finish within 10 ms of virtual time, and count 100 visits.

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
    for v in all {
        v.await.unwrap();
    }
    let took = started.elapsed();
    assert_eq!(*visits.lock().await, 100, "every visit is counted once");
    assert!(
        took <= Duration::from_millis(10),
        "100 visits took {took:?} of virtual time: each waited for the one before"
    );
}
// ANCHOR_END: exercise_test
