//! The chapter's exercise. `checksum_items` sums `work` over every item. The starting point
//! spawns a task per item; `tests/exercise.rs` runs it and fails unless between 2 and 16
//! distinct tasks did the work.
//!
//! `cargo test -p ch03-spawns --features start --test exercise` tests the starting point (it
//! fails until you fix it); without the feature, the solution is tested.

use ch03_spawns::work;
use std::collections::HashSet;
use std::sync::Mutex;

pub mod solution;
pub mod start;

/// The tasks that did some of the work, by id (`None`: outside any task).
pub static TASKS_SEEN: Mutex<Option<HashSet<tokio::task::Id>>> = Mutex::new(None);

/// `work`, noting which task did it (`tokio::task::try_id`), so the test can count the tasks.
pub fn counted_work(rounds: u64, item: u64) -> u64 {
    if let Some(id) = tokio::task::try_id() {
        let mut seen = TASKS_SEEN.lock().expect("no test panicked holding it");
        seen.get_or_insert_with(HashSet::new).insert(id);
    }
    work(rounds, item)
}

/// How many distinct tasks have called `counted_work`.
pub fn tasks_seen() -> usize {
    let seen = TASKS_SEEN.lock().expect("no test panicked holding it");
    seen.as_ref().map_or(0, HashSet::len)
}

#[cfg(not(feature = "start"))]
pub use solution::checksum_items;
#[cfg(feature = "start")]
pub use start::checksum_items;
