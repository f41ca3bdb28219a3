//! The chapter's exercise. `catalog` is made once when the service starts; `sum_digests` is one
//! request's work: it fetches a list of items from the upstream and adds up their digests. The
//! starting point builds a client for every item, so each one opens a new connection.
//! `tests/exercise.rs` fails unless two requests' items travel on one connection.
//!
//! `cargo test -p ch09-connections --features start --test exercise` tests the starting point
//! (it fails until you fix it); without the feature, the solution.

pub mod solution;
pub mod start;

#[cfg(feature = "start")]
pub use start::{Catalog, catalog, sum_digests};

#[cfg(not(feature = "start"))]
pub use solution::{Catalog, catalog, sum_digests};
