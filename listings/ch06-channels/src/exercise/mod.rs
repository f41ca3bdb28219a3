//! The chapter's exercise. `pipeline` sends `n` numbers from a producer task to a
//! consumer that takes a millisecond per message, and returns their sum. The
//! starting point queues everything the producer makes; `tests/exercise.rs` fails
//! unless the queue never held more than 64 messages at once.
//!
//! `cargo test -p ch06-channels --features start --test exercise` tests the
//! starting point (it fails until you fix it); without the feature, the solution.

use std::sync::atomic::{AtomicUsize, Ordering};

pub mod solution;
pub mod start;

/// Messages sent and not yet received, and the most at once so far.
#[derive(Default, Debug)]
pub struct Depth {
    now: AtomicUsize,
    most: AtomicUsize,
}

impl Depth {
    /// A message went into the channel.
    pub fn sent(&self) {
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
    }

    /// A message came out.
    pub fn received(&self) {
        self.now.fetch_sub(1, Ordering::SeqCst);
    }

    /// The most messages in the channel at once so far.
    pub fn most(&self) -> usize {
        self.most.load(Ordering::SeqCst)
    }
}

#[cfg(not(feature = "start"))]
pub use solution::pipeline;
#[cfg(feature = "start")]
pub use start::pipeline;
