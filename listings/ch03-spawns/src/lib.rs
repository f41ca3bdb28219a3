//! Chapter 3: spawning.
//!
//! The same amount of CPU work, cut into items, run five ways: a task per item (handles awaited in
//! order), a `JoinSet` per item, a few chunked tasks, everything inline in one task, and a
//! `FuturesUnordered` in one task. Then what a task costs to spawn and to keep in memory.
//!
//! The chapter's code is in `spawns.rs`, which the book includes by anchor and tests as written.

// The modules name this crate `ch03_spawns`, as the book's tests of the included code do.
extern crate self as ch03_spawns;

mod beside;
pub mod child;
pub mod exercise;
mod spawns;

pub use beside::*;
pub use spawns::*;

/// How often a thread beside the runtime samples its metrics (most tasks alive, longest
/// injection queue): rarely enough that the sampler takes little CPU from the two workers.
pub const SAMPLE_EVERY: std::time::Duration = std::time::Duration::from_millis(1);
