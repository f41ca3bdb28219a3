//! The exercise: every hash permit is taken, and a request for /hash arrives. On
//! Tokio's paused clock, it must get 503 with `Retry-After` once the queue timeout
//! has passed, instead of waiting as long as the permits stay taken.

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use ch07_axum::service::{AppState, Config, routes, with_layers};
use std::time::Duration;
use tower::ServiceExt;

// ANCHOR: exercise_test
#[tokio::test(start_paused = true)]
async fn a_request_that_cannot_get_a_permit_is_turned_away() {
    let config = Config::for_cores(2);
    let state = AppState::new(&config);
    let app = with_layers(routes(state.clone()), &config);
    // Every permit is busy hashing, and stays so.
    let _busy = state.hash_permits.acquire_many(2).await.unwrap();

    let request = Request::post("/hash").body(Body::from("hunter2")).unwrap();
    let waited =
        tokio::time::timeout(Duration::from_secs(60), app.oneshot(request));
    let response = waited
        .await
        .expect("still waiting for a permit after 60 s (of virtual time)")
        .unwrap();

    assert_eq!(
        response.status(),
        StatusCode::SERVICE_UNAVAILABLE,
        "the request waited for a permit until something else gave up on it"
    );
    let retry = response.headers().get(header::RETRY_AFTER);
    assert_eq!(retry.and_then(|v| v.to_str().ok()), Some("2"));
}
// ANCHOR_END: exercise_test
