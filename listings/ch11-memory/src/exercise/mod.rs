//! The chapter's exercise. `when_idle` is what the service calls once it has had nothing to do
//! for a while. The starting point does nothing, so the free memory a burst leaves in glibc's
//! arenas stays resident. `tests/exercise.rs` makes such a burst on eight threads, calls
//! `when_idle`, and fails unless most of the freed memory leaves the resident set.
//!
//! `cargo test -p ch11-memory --features start --test exercise` tests the starting point (it
//! fails until you fix it); without the feature, the solution.

pub mod solution;
pub mod start;

#[cfg(feature = "start")]
pub use start::when_idle;

#[cfg(not(feature = "start"))]
pub use solution::when_idle;
