use ch06_channels::exercise::Depth;
use std::sync::Arc;
use std::time::Duration;

// ANCHOR: exercise_start
/// A producer faster than its consumer, through an unbounded channel.
pub async fn pipeline(n: u64, depth: Arc<Depth>) -> u64 {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let queued = depth.clone();
    tokio::spawn(async move {
        for i in 0..n {
            if tx.send(i).is_err() {
                break;
            }
            queued.sent();
        }
    });
    let mut sum = 0u64;
    while let Some(v) = rx.recv().await {
        depth.received();
        tokio::time::sleep(Duration::from_millis(1)).await; // the slow part
        sum += v;
    }
    sum
}
// ANCHOR_END: exercise_start
