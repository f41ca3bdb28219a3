//! The solution: give glibc's free pages back to the kernel.

// ANCHOR: solution
/// Called once the service has had nothing to do for a while: `malloc_trim(0)` walks every
/// arena and returns each whole free page to the kernel (`madvise(MADV_DONTNEED)`), not only
/// the top of each heap as `free` does.
pub fn when_idle() {
    #[cfg(target_env = "gnu")]
    // SAFETY: malloc_trim may be called at any time; it locks each arena in turn.
    unsafe {
        libc::malloc_trim(0);
    }
}
// ANCHOR_END: solution
