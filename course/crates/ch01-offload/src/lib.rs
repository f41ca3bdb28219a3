//! Chapter 1's exercise. `handle` runs a request's CPU-heavy, synchronous work and returns its
//! result. The starting point runs it on the async worker that polls the handler, so every other
//! task queued on that worker waits; `tests/exercise.rs` fails unless a light task can run while
//! the heavy work is still running.
//!
//! `cargo test -p ch01-offload --features start --test exercise` tests the starting point (it
//! fails until you fix it); without the feature, the solution.

pub mod solution;
pub mod start;

#[cfg(not(feature = "start"))]
pub use solution::handle;
#[cfg(feature = "start")]
pub use start::handle;
