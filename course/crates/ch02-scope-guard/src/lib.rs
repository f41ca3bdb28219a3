//! Chapter 2's exercise. `visit` counts a page view behind a `tokio::sync::Mutex` and makes an
//! upstream call for the page. The starting point holds the guard across the call, so every
//! visit waits for the one before; `tests/exercise.rs` fails unless 100 visits at once finish
//! in about one call's time.
//!
//! `cargo test -p ch02-scope-guard --features start --test exercise` tests the starting point
//! (it fails until you fix it); without the feature, the solution.

pub mod solution;
pub mod start;

#[cfg(not(feature = "start"))]
pub use solution::visit;
#[cfg(feature = "start")]
pub use start::visit;
