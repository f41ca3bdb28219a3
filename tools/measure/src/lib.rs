//! The measurement library shared by every listing of the book.
//!
//! A chapter's crate keeps only its own story (the pitfall, the fixes, the workload); this crate
//! holds what every experiment needs: the command line ([`cli`]), interleaved repetitions
//! ([`runner`]), statistics ([`stats`]), an open-loop load generator ([`loadgen`]), checksums
//! ([`checksum`]), the JSON record shared with the book's preprocessor ([`record`]), the claims
//! the book makes about a record ([`claims`]), the machine's noise ([`noise`]), the terminal
//! report ([`report`]) and the run from command line to saved record ([`harness`]).

pub mod affinity;
pub mod checksum;
pub mod child;
pub mod claims;
pub mod cli;
pub mod harness;
pub mod loadgen;
pub mod lockfile;
pub mod noise;
pub mod record;
pub mod report;
pub mod runner;
pub mod stats;

pub use checksum::{Checksum, ChecksumError, mix};
pub use claims::Claims;
pub use cli::Cli;
pub use harness::{Chapter, Experiment, Harness};
pub use record::{Record, Series};
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

/// Refuses (or loudly warns about) a listing that was compiled without optimisations.
///
/// A macro so that `cfg!(debug_assertions)` is read in the listing's own crate.
#[macro_export]
macro_rules! assert_optimised {
    ($cli:expr) => {
        $crate::cli::check_optimised(cfg!(debug_assertions), $cli.allow_debug)
    };
}
