//! The starting point: the work runs where the handler runs.

// ANCHOR: start
/// Runs a request's CPU-heavy work and returns its result.
pub async fn handle<F>(work: F) -> u64
where
    F: FnOnce() -> u64 + Send + 'static,
{
    work()
}
// ANCHOR_END: start
