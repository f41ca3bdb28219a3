//! The service's request: a span, a little CPU work, and a few events at info and debug.

use tracing::{Instrument, debug, info, info_span};

/// Events at info in every request, and at debug.
pub const INFO_EVENTS: u64 = 3;
pub const DEBUG_EVENTS: u64 = 6;

/// The lines one request writes with the filter `filter` (a level).
pub fn lines_per_request(filter: &str) -> Result<u64, String> {
    match filter {
        "off" | "error" | "warn" => Ok(0),
        "info" => Ok(INFO_EVENTS),
        "debug" | "trace" => Ok(INFO_EVENTS + DEBUG_EVENTS),
        other => Err(format!(
            "filter {other:?} is not a level (off, error, warn, info, debug, trace)"
        )),
    }
}

/// The request's work: `rounds` rounds of mixing, a digest the caller checks.
pub fn work(id: u64, rounds: u32) -> u64 {
    let mut x = id;
    for _ in 0..rounds {
        x = measure::mix(x);
    }
    std::hint::black_box(x)
}

// ANCHOR: request
/// One request, as a handler logs it: an event as it starts, debug events along the way, and the
/// outcome, all inside the request's span.
pub async fn handle(id: u64, rounds: u32) -> u64 {
    let span = info_span!("request", id, route = "/orders");
    async move {
        info!(method = "GET", "request started");
        let mut digest = 0;
        for step in 0..DEBUG_EVENTS {
            digest = work(id ^ step, rounds / DEBUG_EVENTS as u32);
            debug!(step, digest, "step done");
        }
        info!(rows = digest % 100, "query answered");
        info!(status = 200, "request finished");
        digest
    }
    .instrument(span)
    .await
}
// ANCHOR_END: request

/// The digest `handle(id, rounds)` returns.
pub fn expected_digest(id: u64, rounds: u32) -> u64 {
    work(id ^ (DEBUG_EVENTS - 1), rounds / DEBUG_EVENTS as u32)
}
