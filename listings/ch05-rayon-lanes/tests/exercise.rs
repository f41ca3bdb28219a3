//! The exercise: requests arrive 10 ms apart and are shed after 25 ms, while every
//! job they hand to the pool waits on a gate. However many requests give up, the
//! pool must never hold more jobs than the semaphore has permits. On Tokio's paused
//! clock, so no timing decides it.

use ch05_rayon_lanes::exercise::offload;
use ch05_rayon_lanes::{Lane, LaneError, shed};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Jobs wait here until the test opens it.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl Gate {
    fn wait(&self) {
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.opened.wait(open).unwrap();
        }
    }

    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }
}

// ANCHOR: exercise_test
#[tokio::test(start_paused = true)]
async fn shed_requests_leave_no_more_jobs_than_permits() {
    let permits = 2;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(8)
        .build()
        .unwrap();
    let lane = Lane::new(Arc::new(pool), permits, 1);
    let gate = Arc::new(Gate::default());
    let mut requests = tokio::task::JoinSet::new();
    for i in 0..8u64 {
        let (lane, gate) = (lane.clone(), gate.clone());
        requests.spawn(async move {
            tokio::time::sleep(Duration::from_millis(10 * i)).await;
            let job = move || {
                gate.wait();
                i
            };
            shed(Duration::from_millis(25), offload(&lane, job)).await
        });
    }
    let mut shed_count = 0;
    while let Some(answer) = requests.join_next().await {
        assert_eq!(
            answer.unwrap(),
            Err(LaneError::Busy),
            "no job may finish yet"
        );
        shed_count += 1;
    }
    gate.open();
    while lane.in_pool() > 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(shed_count, 8);
    assert!(
        lane.most_in_pool() <= permits,
        "the pool held {} jobs at once with {permits} permits: a shed request's job kept \
         running after its permit was released",
        lane.most_in_pool()
    );
}
// ANCHOR_END: exercise_test
