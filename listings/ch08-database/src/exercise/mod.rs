//! The chapter's exercise. `title_and_stock` answers a book's title and how many
//! copies an upstream stock service says are left. The starting point keeps its
//! database connection while it waits for the upstream; `tests/exercise.rs` fails
//! unless a second request gets the pool's only connection meanwhile.
//!
//! `cargo test -p ch08-database --features start --test exercise` tests the
//! starting point (it fails until you fix it); without the feature, the solution.

pub mod solution;
pub mod start;

#[cfg(not(feature = "start"))]
pub use solution::title_and_stock;
#[cfg(feature = "start")]
pub use start::title_and_stock;
