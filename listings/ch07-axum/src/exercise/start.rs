//! The starting point: a request waits for a hash permit as long as it takes.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

// ANCHOR: start
/// One of the hash permits, however long it takes to get one.
pub async fn permit_or_503(
    permits: Arc<Semaphore>,
    _queue_timeout: Duration,
) -> Result<OwnedSemaphorePermit, Response> {
    permits
        .acquire_owned()
        .await
        .map_err(|_closed| StatusCode::SERVICE_UNAVAILABLE.into_response())
}
// ANCHOR_END: start
