//! The measurement library shared by every listing of the book.
//!
//! A chapter's crate keeps only its own story (the pitfall, the fixes, the workload); this crate
//! holds what every experiment needs: the command line ([`cli`]), interleaved repetitions
//! ([`runner`]), statistics ([`stats`]), an open-loop load generator ([`loadgen`]), checksums
//! ([`checksum`]), the machine's noise ([`noise`]), where and how a run was measured
//! ([`provenance`]) and the run from command line to saved record ([`harness`]).
//!
//! What reads a record once its values are final (the record type, the claims and their
//! verdicts, the formats, the reports) is the `records` crate, re-exported here under the same
//! names (`measure::record`, `measure::claims`, `measure::report`, `measure::format`). Every
//! file of this crate shapes the figures, so changing one makes every record stale.

pub mod affinity;
pub mod checksum;
pub mod child;
pub mod cli;
pub mod harness;
pub mod loadgen;
pub mod noise;
pub mod provenance;
pub mod runner;
pub mod stats;

pub use checksum::{Checksum, ChecksumError, mix};
pub use cli::Cli;
pub use harness::{Chapter, Experiment, Harness};
pub use records::{
    Claims, Record, Series, claims, format, freshness, history, lockfile, record, report, verdict,
};
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

/// The names of fields of the experiment's parameters, checked by the compiler: an experiment's
/// `shaped_by(fields!(p => workers, window_ms))` cannot name a parameter that does not exist.
///
/// ```
/// struct Params { workers: u32, window_ms: u64 }
/// let p = Params { workers: 2, window_ms: 500 };
/// let names: &[&str] = measure::fields!(p => workers, window_ms);
/// assert_eq!(names, ["workers", "window_ms"]);
/// ```
///
/// ```compile_fail
/// struct Params { workers: u32 }
/// let p = Params { workers: 2 };
/// let names: &[&str] = measure::fields!(p => wrokers);
/// ```
#[macro_export]
macro_rules! fields {
    ($params:expr => $($field:ident),+ $(,)?) => {{
        let params = &$params;
        $( let _ = &params.$field; )+
        &[$(stringify!($field)),+]
    }};
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
