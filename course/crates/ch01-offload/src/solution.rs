//! The solution: the work runs on the blocking pool, and the worker stays free.

// ANCHOR: solution
/// Runs a request's CPU-heavy work off the async workers and returns its result.
pub async fn handle<F>(work: F) -> u64
where
    F: FnOnce() -> u64 + Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .expect("the work panicked")
}
// ANCHOR_END: solution
