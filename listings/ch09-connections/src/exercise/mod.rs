//! The chapter's exercise. `sum_digests` fetches a list of items from the upstream and adds up
//! their digests; the starting point builds a client for every item, so each one opens a new
//! connection. `tests/exercise.rs` fails unless the whole list travels on one connection.
//!
//! `cargo test -p ch09-connections --features start --test exercise` tests the starting point
//! (it fails until you fix it); without the feature, the solution.

pub mod solution;
pub mod start;

#[cfg(feature = "start")]
pub use start::sum_digests;

#[cfg(not(feature = "start"))]
pub use solution::sum_digests;
