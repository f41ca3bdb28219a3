//! The solution: the guard is dropped before the upstream call.

use std::future::Future;
use tokio::sync::Mutex;

// ANCHOR: solution
/// Counts a visit and makes the upstream call for the page; the visits so far.
pub async fn visit<F, Fut>(visits: &Mutex<u64>, upstream: F) -> u64
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = ()>,
{
    let count = {
        let mut count = visits.lock().await;
        *count += 1;
        *count
    }; // the guard is dropped here, before the call
    upstream().await;
    count
}
// ANCHOR_END: solution
