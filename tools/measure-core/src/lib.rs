//! The measuring core: the code that runs while a cell is measured. Interleaved repetitions
//! ([`runner`]), statistics ([`stats`]), an open-loop load generator ([`loadgen`]), checksums
//! ([`checksum`]), the machine's noise while a cell runs ([`noise`]), child processes
//! ([`child`]), CPU affinity ([`affinity`]) and the runtime each cell gets ([`runtime`]).
//!
//! A record is fresh against this crate (`records::freshness`): changing any file here makes
//! every record it shaped stale. What decides what runs and writes down what was measured (the
//! command line, the harness, the record's provenance, the reports) is the `measure` crate, which
//! re-exports this one under the names the listings use (`measure::runner`, `measure::loadgen`,
//! ...). Everything it decides is written into the record itself (repetitions, seed, parameters,
//! machine), so changing it stales nothing.

pub mod affinity;
pub mod checksum;
pub mod child;
pub mod loadgen;
pub mod noise;
pub mod runner;
pub mod stats;

pub use checksum::{Checksum, ChecksumError, mix};
/// The record's types, as the runner builds its series (`crate::record::Series`).
pub use records::record;
pub use runner::{Cell, Measurement, Runner};
pub use stats::{LatencyHistogram, Summary};

/// A fresh multi-thread Tokio runtime with `workers` worker threads and every driver enabled:
/// each cell of an experiment gets its own.
#[cfg(feature = "runtime")]
pub fn runtime(workers: u32) -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers as usize)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot build a runtime with {workers} workers: {e}"))
}
