//! What the experiment tells a service process (its command line, as JSON) and what the service
//! reports back (one JSON line, the last of its standard error).

use crate::probe::{Figure, Memory};
use crate::service::Work;
use serde::{Deserialize, Serialize};

/// `ch11-SERVICE bursts CONFIG`: `bursts` bursts of `requests` requests at a fixed open-loop
/// rate, each followed by `idle_ms` with nothing to do, or with a trickle of `trickle_per_s`
/// requests a second.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Bursts {
    pub workers: u32,
    pub rate_per_s: f64,
    pub requests: usize,
    pub bursts: usize,
    pub idle_ms: u64,
    #[serde(default)]
    pub trickle_per_s: f64,
    pub work: Work,
    /// A task that calls `malloc_trim(0)` every `trim_period_ms` while fewer than `quiet_below`
    /// requests started in the period and fewer are in flight (glibc only).
    #[serde(default)]
    pub trim_when_quiet: bool,
    #[serde(default)]
    pub trim_period_ms: u64,
    #[serde(default)]
    pub quiet_below: u64,
}

/// What a `bursts` run measured.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    /// The program's allocator (`system`, `mimalloc`, `jemalloc`), its version, and the C library.
    pub allocator: String,
    pub version: String,
    pub libc: String,
    /// Memory before the first burst, and after each burst's spell (each with its burst's peak).
    pub start: Memory,
    pub after_idle: Vec<Memory>,
    /// Bytes the program held (the counting allocator's figure) after each idle spell.
    pub live_after_idle: Vec<u64>,
    /// The most bytes it held at once.
    pub live_peak: u64,
    /// The allocator's own figures after the last spell (`child::Allocator::figures`).
    pub figures: Vec<Figure>,
    /// Requests' latency from their scheduled times, every burst together (the trickles' are
    /// left out).
    pub p50_ns: f64,
    pub p99_ns: f64,
    pub max_ns: f64,
    /// The generator's own lateness (p99, the worst burst's).
    pub gen_error_p99_ns: f64,
    /// The process's CPU over the whole run, bursts, idle spells and trickles, the generator's
    /// taken out.
    pub cpu_ns: f64,
    /// Minor page faults over the whole run.
    pub minor_faults: u64,
    /// Requests served, bursts and trickles, and their digests added up.
    pub served: u64,
    pub digest_sum: u64,
    pub cache_entries: usize,
    /// The trickles' requests: latency from their scheduled times (0 without a trickle).
    pub trickle_p99_ns: f64,
    /// `malloc_trim` calls made by the trimming task, and the longest.
    pub trims: u64,
    pub trim_max_ns: f64,
}

/// `ch11-SERVICE limit CONFIG`: allocate `chunk_mib` at a time, touching every page, until the
/// allocator says no; then one allocation that cannot say no.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Limit {
    pub chunk_mib: usize,
    /// Stop with an error after this many chunks: no limit was hit.
    pub max_chunks: usize,
    /// Bursts to serve first, so that what the allocator kept is there when the blocks come.
    #[serde(default)]
    pub warm_up: Option<Bursts>,
}

/// A `limit` run's progress, a line after each block: what it held, and the anonymous resident
/// memory (`RssAnon`: heaps, stacks) before the first block. Under a container's limit the kernel
/// kills the process without a word, and the last such line is what it held.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Held {
    pub anon_before: u64,
    pub held_mib: usize,
}

/// The prefix of a progress line on standard error.
pub const HELD_PREFIX: &str = "ch11-held ";

/// The prefix of the warm-up's report (a `Report`) in a `limit` run.
pub const WARM_UP_PREFIX: &str = "ch11-warm-up ";

/// What a `limit` run held when the allocator first said no, printed before the allocation that
/// cannot say no.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LimitReport {
    pub held_mib: usize,
    pub refused: u64,
}

/// The prefix of the report's line on standard error.
pub const REPORT_PREFIX: &str = "ch11-report ";
