//! The chapter's exercise. `read_all` reads every file and sums the digests of their bytes. The
//! starting point spawns a task per file, all at once; `tests/exercise.rs` fails unless every
//! file went through `counted_read` and 2 to 8 reads were in flight at the most.
//!
//! `cargo test -p ch04-fs --features start --test exercise` tests the starting point (it fails
//! until you fix it); without the feature, the solution is tested.

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

pub mod solution;
pub mod start;

static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
static MOST_IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
static READS: AtomicUsize = AtomicUsize::new(0);

/// `tokio::fs::read`, counting the reads, and how many are in flight at once.
pub async fn counted_read(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    READS.fetch_add(1, Ordering::SeqCst);
    let now = IN_FLIGHT.fetch_add(1, Ordering::SeqCst) + 1;
    MOST_IN_FLIGHT.fetch_max(now, Ordering::SeqCst);
    let bytes = tokio::fs::read(path).await;
    IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    bytes
}

/// The most reads that were in flight at once so far.
pub fn most_in_flight() -> usize {
    MOST_IN_FLIGHT.load(Ordering::SeqCst)
}

/// How many reads went through `counted_read` so far.
pub fn reads() -> usize {
    READS.load(Ordering::SeqCst)
}

#[cfg(not(feature = "start"))]
pub use solution::read_all;
#[cfg(feature = "start")]
pub use start::read_all;
