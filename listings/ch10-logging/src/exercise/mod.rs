//! The "fix it" exercise (`cargo run -p course -- list`): keep the workers from writing log lines.

#[cfg(feature = "start")]
mod start;
#[cfg(feature = "start")]
pub use start::*;

#[cfg(not(feature = "start"))]
mod solution;
#[cfg(not(feature = "start"))]
pub use solution::*;
