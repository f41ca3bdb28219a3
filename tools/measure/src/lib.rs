//! The measurement library shared by every listing of the book.
//!
//! A chapter's crate keeps only its own story (the pitfall, the fixes, the workload); this crate
//! holds what every experiment needs: the command line ([`cli`]), interleaved repetitions
//! ([`runner`]), statistics ([`stats`]), an open-loop load generator ([`loadgen`]), checksums
//! ([`checksum`]), the JSON record shared with the book's preprocessor ([`record`]) and the
//! terminal report ([`report`]).

pub mod checksum;
pub mod cli;
pub mod loadgen;
pub mod lockfile;
pub mod record;
pub mod report;
pub mod runner;
pub mod stats;

pub use checksum::{Checksum, ChecksumError, mix};
pub use cli::Cli;
pub use record::{Record, Series};
pub use runner::{Cell, Measurement, Runner};
pub use stats::{LatencyHistogram, Summary};

/// Refuses (or loudly warns about) a listing that was compiled without optimisations.
///
/// A macro so that `cfg!(debug_assertions)` is read in the listing's own crate.
#[macro_export]
macro_rules! assert_optimised {
    ($cli:expr) => {
        $crate::cli::check_optimised(cfg!(debug_assertions), $cli.allow_debug)
    };
}
