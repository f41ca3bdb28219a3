//! The exercise: a producer sends 10,000 numbers to a consumer that takes a
//! millisecond each, on Tokio's paused clock. The sum must be right and the channel
//! must never hold more than 64 messages at once.

use ch06_channels::exercise::{Depth, pipeline};
use std::sync::Arc;

// ANCHOR: exercise_test
#[tokio::test(start_paused = true)]
async fn a_slow_consumer_holds_back_its_producer() {
    let n = 10_000;
    let depth = Arc::new(Depth::default());
    let sum = pipeline(n, depth.clone()).await;
    assert_eq!(sum, n * (n - 1) / 2, "every message arrives once");
    assert!(
        depth.most() <= 64,
        "the channel held {} messages at once: nothing slowed the producer down",
        depth.most()
    );
}
// ANCHOR_END: exercise_test
