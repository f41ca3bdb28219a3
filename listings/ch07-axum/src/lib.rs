//! Chapter 7: an axum service under load.
//!
//! `service.rs` is the Bookshelf service; `server.rs` starts it (alone with
//! `cargo run -p ch07-axum -- serve`, or as the experiment's child process);
//! `load.rs` is the open-loop HTTP load generator the experiments drive it with;
//! `faults.rs` the misbehaving clients of the fault experiments; `profile.rs` the
//! on-demand flamegraph.

// The modules name this crate `ch07_axum`, as the book's tests of the included
// code do.
extern crate self as ch07_axum;

pub mod exercise;
pub mod faults;
pub mod load;
pub mod profile;
pub mod server;
pub mod service;

/// Load shedding for `/hash`: the exercise's solution, or with `--features start`
/// its starting point.
pub mod shed {
    #[cfg(not(feature = "start"))]
    pub use ch07_axum::exercise::solution::permit_or_503;
    #[cfg(feature = "start")]
    pub use ch07_axum::exercise::start::permit_or_503;
}
