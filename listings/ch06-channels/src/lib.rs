//! Chapter 6: channels.
//!
//! The same workloads (throughput by topology and capacity, ping-pong, select over
//! two channels, a receive cancelled by a competing branch) on Tokio's mpsc, with
//! and without `recv_many`, kanal, async-channel and flume on a Tokio runtime, and
//! crossbeam-channel on OS threads. `flavors.rs` adapts each crate to one trait;
//! `workloads.rs` holds the workloads the book includes by anchor.

// The modules name this crate `ch06_channels`, as the book's tests of the included
// code do.
extern crate self as ch06_channels;

pub mod child;
pub mod exercise;
mod flavors;
mod workloads;

pub use flavors::*;
pub use workloads::*;
