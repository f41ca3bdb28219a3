use ch06_channels::exercise::Depth;
use std::sync::Arc;
use std::time::Duration;

// ANCHOR: exercise_solution
/// A bounded channel: the producer waits while 64 messages are queued.
pub async fn pipeline(n: u64, depth: Arc<Depth>) -> u64 {
    let (tx, mut rx) = tokio::sync::mpsc::channel(64);
    let queued = depth.clone();
    tokio::spawn(async move {
        for i in 0..n {
            if tx.send(i).await.is_err() {
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
// ANCHOR_END: exercise_solution
