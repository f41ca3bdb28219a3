//! The same workloads without Tokio's tasks: threads of the operating system (one per task, or one
//! per core), and a Rayon pool. Chapter 3 measures them beside Tokio and beside Go's goroutines (`go/main.go`),
//! each in a child process of its own. `lib.rs` re-exports all of it.

use ch03_spawns::work;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Barrier;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

// ANCHOR: os_thread_per_task
/// `n` OS threads that do nothing but store their index, spawned and joined in a scope: what a
/// task per item costs when the kernel is the scheduler.
pub fn spawn_os_threads(n: usize) -> u64 {
    let mut results = vec![0u64; n];
    std::thread::scope(|s| {
        for (i, slot) in results.iter_mut().enumerate() {
            s.spawn(move || *slot = i as u64);
        }
    });
    results.iter().fold(0u64, |sum, r| sum.wrapping_add(*r))
}
// ANCHOR_END: os_thread_per_task

// ANCHOR: idle_thread
/// An idle OS thread: it counts itself started and blocks until the experiment, having measured
/// it, opens the gate.
pub fn idle_thread(gate: &Barrier, started: &AtomicUsize) {
    started.fetch_add(1, Ordering::Relaxed);
    gate.wait();
}
// ANCHOR_END: idle_thread

// ANCHOR: hashing
/// One task's share of the hashing: items `range`, `rounds` of `work` each, their digests summed.
pub fn hash_share(rounds: u64, range: Range<u64>) -> u64 {
    range.fold(0u64, |sum, item| sum.wrapping_add(work(rounds, item)))
}

/// Task `t` of `tasks`: its contiguous share of `items`.
pub fn share(t: u64, tasks: u64, items: u64) -> Range<u64> {
    t * items / tasks..(t + 1) * items / tasks
}

/// The hashing as `tasks` Tokio tasks on the runtime's workers.
pub async fn hash_on_tokio(tasks: u64, items: u64, rounds: u64) -> u64 {
    let handles: Vec<_> = (0..tasks)
        .map(|t| tokio::spawn(async move { hash_share(rounds, share(t, tasks, items)) }))
        .collect();
    let mut sum = 0u64;
    for h in handles {
        sum = sum.wrapping_add(h.await.expect("a hashing task panicked"));
    }
    sum
}

/// The hashing as `tasks` jobs on a Rayon pool.
pub fn hash_on_rayon(pool: &rayon::ThreadPool, tasks: u64, items: u64, rounds: u64) -> u64 {
    pool.install(|| {
        (0..tasks)
            .into_par_iter()
            .map(|t| hash_share(rounds, share(t, tasks, items)))
            .reduce(|| 0, u64::wrapping_add)
    })
}

/// The hashing on `threads` OS threads, one per core, as a pool without a library would run it:
/// each takes the next of the `tasks` from a shared counter until none is left.
pub fn hash_on_threads(threads: u32, tasks: u64, items: u64, rounds: u64) -> u64 {
    let next = AtomicU64::new(0);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut sum = 0u64;
                    loop {
                        let t = next.fetch_add(1, Ordering::Relaxed);
                        if t >= tasks {
                            break sum;
                        }
                        sum = sum.wrapping_add(hash_share(rounds, share(t, tasks, items)));
                    }
                })
            })
            .collect();
        handles.into_iter().fold(0u64, |sum, h| {
            sum.wrapping_add(h.join().expect("a hashing thread panicked"))
        })
    })
}
// ANCHOR_END: hashing

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_cover_the_items_once() {
        for (tasks, items) in [(256, 1000), (3, 10), (256, 100)] {
            let mut next = 0;
            for t in 0..tasks {
                let r = share(t, tasks, items);
                assert_eq!(r.start, next);
                next = r.end;
            }
            assert_eq!(next, items);
        }
    }

    #[test]
    fn every_way_hashes_to_the_same_sum() {
        let want = hash_share(20, 0..10_000);
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        assert_eq!(rt.block_on(hash_on_tokio(256, 10_000, 20)), want);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        assert_eq!(hash_on_rayon(&pool, 256, 10_000, 20), want);
        assert_eq!(hash_on_threads(2, 256, 10_000, 20), want);
        assert_eq!(hash_on_threads(3, 7, 10_000, 20), want);
        assert_ne!(hash_share(21, 0..10_000), want);
    }

    #[test]
    fn os_threads_store_every_index() {
        assert_eq!(spawn_os_threads(100), 99 * 100 / 2);
    }
}
