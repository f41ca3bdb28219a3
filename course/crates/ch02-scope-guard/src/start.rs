//! The starting point: the guard lives until the end of the function.

use std::future::Future;
use tokio::sync::Mutex;

// ANCHOR: start
/// Counts a visit and makes the upstream call for the page; the visits so far.
pub async fn visit<F, Fut>(visits: &Mutex<u64>, upstream: F) -> u64
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = ()>,
{
    let mut count = visits.lock().await;
    *count += 1;
    upstream().await;
    *count
}
// ANCHOR_END: start
