//! The starting point: the service does nothing when idle.

// ANCHOR: start
/// Called once the service has had nothing to do for a while.
pub fn when_idle() {
    // The burst's memory is free, so the process's job is done: glibc will reuse it.
}
// ANCHOR_END: start
