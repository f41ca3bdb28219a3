//! The chapter's exercise. `/hash` takes one of `hash_permits` permits before it
//! hashes; `permit_or_503` gets it. The starting point waits for a permit as long
//! as it takes, so a burst queues without bound; `tests/exercise.rs` fails unless
//! a request that waited `queue_timeout` gets 503 with a `Retry-After` header.
//!
//! `cargo test -p ch07-axum --features start --test exercise` tests the starting
//! point (it fails until you fix it); without the feature, the solution.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::time::Duration;

pub mod solution;
pub mod start;

/// 503 Service Unavailable, with the seconds a client should wait before it tries
/// again (at least one).
pub fn busy(waited: Duration) -> Response {
    let seconds = waited.as_secs_f64().ceil().max(1.0) as u64;
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, seconds.to_string())],
        "busy: try again later\n",
    )
        .into_response()
}
