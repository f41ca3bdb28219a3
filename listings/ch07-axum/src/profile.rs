//! An on-demand CPU profile: `GET /debug/pprof/flamegraph?seconds=N` on the
//! internal port arms pprof's process-wide SIGPROF timer for N seconds (it fires
//! after every 1/99 s of CPU time the process uses, and records the stack of the
//! thread it interrupts) and answers with an SVG flamegraph.

use axum::extract::Query;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use std::time::Duration;

#[derive(Deserialize)]
pub struct ProfileParams {
    pub seconds: Option<u64>,
}

// ANCHOR: flamegraph
pub async fn flamegraph(
    Query(params): Query<ProfileParams>,
) -> Result<Response, (StatusCode, String)> {
    let seconds = params.seconds.unwrap_or(10).clamp(1, 60);
    // The sampling waits for seconds: on the blocking pool, not on a worker.
    let svg =
        tokio::task::spawn_blocking(move || sample(Duration::from_secs(seconds)))
            .await
            .map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
            .map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    match svg {
        Some(svg) => {
            Ok(([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response())
        }
        // An idle process: the timer counts CPU time, and none was used.
        None => Ok(StatusCode::NO_CONTENT.into_response()),
    }
}

/// A flamegraph of `length`, or None when nothing ran.
fn sample(length: Duration) -> Result<Option<Vec<u8>>, pprof::Error> {
    let guard = pprof::ProfilerGuardBuilder::default()
        .frequency(99)
        .blocklist(&["libc", "libgcc", "pthread", "vdso"])
        .build()?;
    std::thread::sleep(length);
    let report = guard.report().build()?;
    if report.data.is_empty() {
        return Ok(None);
    }
    let mut svg = Vec::new();
    report.flamegraph(&mut svg)?;
    Ok(Some(svg))
}
// ANCHOR_END: flamegraph
