//! The solution: a request waits for a hash permit up to the queue timeout, then
//! gets 503 with `Retry-After`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use ch07_axum::exercise::busy;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

// ANCHOR: solution
/// One of the hash permits, or 503 once `queue_timeout` has passed without one.
pub async fn permit_or_503(
    permits: Arc<Semaphore>,
    queue_timeout: Duration,
) -> Result<OwnedSemaphorePermit, Response> {
    match tokio::time::timeout(queue_timeout, permits.acquire_owned()).await {
        Ok(Ok(permit)) => Ok(permit),
        Ok(Err(_closed)) => Err(StatusCode::SERVICE_UNAVAILABLE.into_response()),
        Err(_elapsed) => Err(busy(queue_timeout)),
    }
}
// ANCHOR_END: solution
