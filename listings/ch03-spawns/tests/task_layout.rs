//! What one `tokio::spawn` allocates, recorded by a global allocator that notes every layout
//! while a flag is up: one allocation holds the whole task (header, future, trailer), and on
//! x86_64 and aarch64 it is aligned to 128 bytes (`repr(align(128))` on `Cell` in tokio's
//! `runtime/task/core.rs`), so its size is a multiple of 128.

use ch03_spawns::idle_task;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tokio::sync::Semaphore;

struct Recording;

static RECORDING: AtomicBool = AtomicBool::new(false);
static SEEN: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

unsafe impl GlobalAlloc for Recording {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // Swap the flag down while noting, so the Vec's own allocation is not noted.
        if RECORDING.swap(false, Ordering::SeqCst) {
            SEEN.lock().unwrap().push((layout.size(), layout.align()));
            RECORDING.store(true, Ordering::SeqCst);
        }
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Recording = Recording;

#[test]
fn a_task_is_one_allocation_aligned_to_a_cache_line_pair() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let _guard = rt.enter();
    let gate = Arc::new(Semaphore::new(0));
    let started = Arc::new(AtomicUsize::new(0));
    let future = idle_task(gate.clone(), started.clone());
    let future_bytes = std::mem::size_of_val(&future);
    SEEN.lock().unwrap().reserve(16);
    RECORDING.store(true, Ordering::SeqCst);
    let handle = tokio::spawn(future);
    RECORDING.store(false, Ordering::SeqCst);
    let seen = SEEN.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "one allocation per spawn: {seen:?}");
    let (size, align) = seen[0];
    assert!(
        size > future_bytes,
        "the task holds its {future_bytes} B future: {seen:?}"
    );
    if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        assert_eq!(align, 128, "{seen:?}");
        assert_eq!(size % 128, 0, "{seen:?}");
    }
    println!("future {future_bytes} B; task allocation {size} B aligned to {align} B");
    gate.add_permits(1);
    rt.block_on(handle).unwrap();
}
