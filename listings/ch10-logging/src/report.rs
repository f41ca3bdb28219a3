//! What the experiment tells the service process (its command line, as JSON) and what the service
//! reports back (one JSON line on its standard error, after everything it logged).

use serde::{Deserialize, Serialize};

/// `ch10-service serve CONFIG`: requests at a fixed open-loop rate.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Serve {
    /// A `logging::Writer` name, and the filter (a level).
    pub writer: String,
    pub filter: String,
    pub workers: u32,
    pub rate_per_s: f64,
    pub requests: usize,
    /// Rounds of `service::work` per request.
    pub rounds: u32,
    /// The tick-lag probe's period.
    pub tick_us: u64,
    /// tokio-console's layer beside fmt (a service built with the `console` feature only).
    #[serde(default)]
    pub console: bool,
    /// The non-blocking writer's queue in lines; tracing-appender's default when absent.
    #[serde(default)]
    pub queue_lines: Option<usize>,
}

/// `ch10-service events CONFIG`: `count` events emitted in a loop on one thread, no runtime.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Events {
    pub writer: String,
    /// `debug` events under an `info` filter (disabled), or `info` events (enabled).
    pub level: String,
    pub count: u64,
}

/// What the service measured, printed as the last line of its standard error.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    /// Requests: latency from each request's scheduled time.
    pub p50_ns: f64,
    pub p99_ns: f64,
    pub max_ns: f64,
    /// The tick-lag probe: how late a timer that should fire every period fired.
    pub tick_lag_p99_ns: f64,
    pub tick_lag_max_ns: f64,
    /// The process's CPU while the requests ran, the generator's own taken out.
    pub cpu_ns: f64,
    pub gen_error_p99_ns: f64,
    /// Emitting: the time on the emitting thread per event.
    pub emit_ns_per_event: f64,
    /// Lines the subscriber was asked to write, and those the non-blocking writer dropped.
    pub lines_emitted: u64,
    pub lines_dropped: u64,
    /// Write system calls while the requests ran (or the events were emitted).
    pub write_syscalls: u64,
    /// How long dropping the non-blocking writer's guard took (its flush at exit); `None` for a
    /// writer without a guard, which has nothing to flush.
    pub flush_at_exit_ns: Option<f64>,
    /// The requests' digests added up (0 for `events`).
    pub digest_sum: u64,
    /// The process's resident memory before the requests and after them (and the flush).
    pub rss_before: u64,
    pub rss_after: u64,
}

/// The prefix of the report's line on standard error, which may also hold the subscriber's own
/// error messages.
pub const REPORT_PREFIX: &str = "ch10-report ";
