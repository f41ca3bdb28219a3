//! Chapter 4: file I/O.
//!
//! A batch of small files read six ways (`tokio::fs` awaited in a loop, `std::fs` inline in the
//! task, the whole batch in one `spawn_blocking`, a task per file all at once, a bounded number
//! in flight, io_uring), then larger files, and the write path. The chapter's code is in
//! `reads.rs` and `writes.rs`, which the book includes by anchor and tests as written.

// The modules name this crate `ch04_fs`, as the book's tests of the included code do.
extern crate self as ch04_fs;

pub mod corpus;
pub mod exercise;
pub mod probe;
mod reads;
#[cfg(target_os = "linux")]
pub mod uring;
mod writes;

pub use reads::*;
pub use writes::*;
