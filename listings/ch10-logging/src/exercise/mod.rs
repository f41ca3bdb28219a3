//! The chapter's exercise. `service_logging` makes the service's logging once, in `main`: it takes
//! the log shipper's pipe and returns the subscriber and what must live as long as it. The
//! starting point gives fmt the pipe itself, so every Tokio worker writes its own lines.
//! `tests/exercise.rs` fails if a worker makes a write, or if a line at info is missing.
//!
//! `cargo test -p ch10-logging --features start --test exercise` tests the starting point (it
//! fails until you fix it); without the feature, the solution.

pub mod solution;
pub mod start;

#[cfg(feature = "start")]
pub use start::{ServiceLogging, service_logging};

#[cfg(not(feature = "start"))]
pub use solution::{ServiceLogging, service_logging};
