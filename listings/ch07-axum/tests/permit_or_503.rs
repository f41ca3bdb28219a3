//! The exercise at the function's level (the rustlings set runs this one; `exercise.rs` goes
//! through the whole service): every permit is taken, and on Tokio's paused clock
//! `permit_or_503` must answer 503 with `Retry-After` once the queue timeout has passed.

use axum::http::{StatusCode, header};
use ch07_axum::shed::permit_or_503;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

#[tokio::test(start_paused = true)]
async fn no_permit_within_the_queue_timeout_is_a_503_with_retry_after() {
    let permits = Arc::new(Semaphore::new(1));
    let _busy = permits.clone().acquire_owned().await.unwrap();
    let queue_timeout = Duration::from_millis(1500);

    let waited = tokio::time::timeout(
        Duration::from_secs(60),
        permit_or_503(permits, queue_timeout),
    );
    let answer = waited
        .await
        .expect("still waiting for a permit after 60 s (of virtual time)");

    let response = answer.expect_err("a permit came though every permit is taken");
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let retry = response.headers().get(header::RETRY_AFTER);
    assert_eq!(retry.and_then(|v| v.to_str().ok()), Some("2"));
}
