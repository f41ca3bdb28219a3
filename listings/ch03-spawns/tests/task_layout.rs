//! What one `tokio::spawn` allocates, recorded by a global allocator that notes every layout
//! the test's thread allocates while its flag is up: one allocation holds the whole task (header, future, trailer), and on
//! x86_64 and aarch64 it is aligned to 128 bytes (`repr(align(128))` on `Cell` in tokio's
//! `runtime/task/core.rs`), so its size is a multiple of 128.

use ch03_spawns::{
    idle_task, spawn_into_slice, spawn_into_slice_keeping_handles, spawn_keep_handles,
};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::AtomicUsize;
use tokio::sync::Semaphore;

struct Recording;

static SEEN: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());
thread_local! {
    /// This thread records: the spawns under test run on it (a current-thread runtime), and the
    /// test harness's other threads, printing the other test's result, are left out.
    static RECORDING: Cell<bool> = const { Cell::new(false) };
    /// This thread is noting an allocation: the note's own allocations are not noted (a flag per
    /// thread, so that no other thread can turn recording back on under a lock holder).
    static NOTING: Cell<bool> = const { Cell::new(false) };
}
/// The tests share the recorder, so they take turns.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

unsafe impl GlobalAlloc for Recording {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if RECORDING.try_with(Cell::get).unwrap_or(false) && !NOTING.with(|n| n.replace(true)) {
            SEEN.lock().unwrap().push((layout.size(), layout.align()));
            NOTING.with(|n| n.set(false));
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
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let _guard = rt.enter();
    let gate = Arc::new(Semaphore::new(0));
    let started = Arc::new(AtomicUsize::new(0));
    let future = idle_task(gate.clone(), started.clone());
    let future_bytes = std::mem::size_of_val(&future);
    SEEN.lock().unwrap().clear();
    SEEN.lock().unwrap().reserve(16);
    RECORDING.with(|r| r.set(true));
    let handle = tokio::spawn(future);
    RECORDING.with(|r| r.set(false));
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

/// The sizes of the 128-aligned allocations (the tasks) that `run` makes.
fn task_sizes(
    rt: &tokio::runtime::Runtime,
    run: impl std::future::Future<Output = u64>,
) -> Vec<usize> {
    SEEN.lock().unwrap().clear();
    SEEN.lock().unwrap().reserve(64);
    RECORDING.with(|r| r.set(true));
    rt.block_on(run);
    RECORDING.with(|r| r.set(false));
    let seen = SEEN.lock().unwrap().clone();
    seen.iter()
        .filter(|(_, align)| *align == 128)
        .map(|(size, _)| *size)
        .collect()
}

#[test]
fn the_peak_variants_spawn_tasks_of_one_size() {
    if !cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    // The runtime's own first allocations, out of the way.
    rt.block_on(spawn_keep_handles(1, 0, 0));
    let kept = task_sizes(&rt, spawn_keep_handles(4, 3, 0));
    let slice = task_sizes(&rt, spawn_into_slice(4, 3, 0));
    let slice_kept = task_sizes(&rt, spawn_into_slice_keeping_handles(4, 3, 0));
    assert_eq!(kept, vec![128; 4], "handles kept: {kept:?}");
    assert_eq!(slice, kept, "shared slice, handles dropped");
    assert_eq!(slice_kept, kept, "shared slice, handles kept");
}
