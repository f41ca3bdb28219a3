//! Chapter 5: Rayon lanes.
//!
//! CPU-heavy requests handled three ways beside a ticker that measures how late the
//! runtime is (`lanes.rs`), pools of different sizes under a CPU mask and a CPU
//! quota (`budget.rs`), work in flight bounded or not, load shed by a timeout,
//! panics in Rayon jobs (`panics.rs`), and when a batch is too small to split. The
//! book includes these files by anchor and tests them as written.

// The modules name this crate `ch05_rayon_lanes`, as the book's tests of the
// included code do.
extern crate self as ch05_rayon_lanes;

pub mod budget;
pub mod exercise;
mod lanes;
pub mod panics;
mod ticker;
mod work;

pub use lanes::*;
pub use ticker::*;
pub use work::*;
