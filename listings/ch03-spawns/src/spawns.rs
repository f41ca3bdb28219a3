//! The code the chapter shows: the work, the ways to split it, and the tasks whose cost the
//! experiments measure. `lib.rs` re-exports all of it.

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use tokio::sync::{Notify, Semaphore};
use tokio::task::{JoinHandle, JoinSet};

// ANCHOR: work
/// One item of work: `rounds` steps of a multiply-rotate chain the compiler cannot skip. Returns
/// a digest, so the caller can check that every item was done.
pub fn work(rounds: u64, item: u64) -> u64 {
    let mut x = item;
    for i in 0..rounds {
        x = (x.rotate_left(5) ^ i).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    std::hint::black_box(x)
}
// ANCHOR_END: work

// ANCHOR: spawn_per_item
/// The pitfall: one task per item, and the handles awaited in order.
pub async fn spawn_per_item(items: u64, rounds: u64) -> u64 {
    let handles: Vec<JoinHandle<u64>> = (0..items)
        .map(|item| tokio::spawn(async move { work(rounds, item) }))
        .collect();
    let mut sum = 0u64;
    for handle in handles {
        sum = sum.wrapping_add(handle.await.expect("an item panicked"));
    }
    sum
}
// ANCHOR_END: spawn_per_item

// ANCHOR: joinset_per_item
/// The same through a `JoinSet`: results in completion order, every task aborted if the set is
/// dropped early.
pub async fn joinset_per_item(items: u64, rounds: u64) -> u64 {
    let mut set = JoinSet::new();
    for item in 0..items {
        set.spawn(async move { work(rounds, item) });
    }
    let mut sum = 0u64;
    while let Some(digest) = set.join_next().await {
        sum = sum.wrapping_add(digest.expect("an item panicked"));
    }
    sum
}
// ANCHOR_END: joinset_per_item

// ANCHOR: chunked
/// The fix: `chunks` tasks, each taking a contiguous run of items.
pub async fn chunked(items: u64, rounds: u64, chunks: u64) -> u64 {
    let per_chunk = items.div_ceil(chunks.max(1));
    let handles: Vec<JoinHandle<u64>> = (0..items)
        .step_by(per_chunk.max(1) as usize)
        .map(|first| {
            let last = (first + per_chunk).min(items);
            tokio::spawn(async move {
                (first..last).fold(0u64, |sum, item| sum.wrapping_add(work(rounds, item)))
            })
        })
        .collect();
    let mut sum = 0u64;
    for handle in handles {
        sum = sum.wrapping_add(handle.await.expect("a chunk panicked"));
    }
    sum
}
// ANCHOR_END: chunked

// ANCHOR: inline
/// No tasks at all: every item in the calling task, on one worker.
pub async fn inline(items: u64, rounds: u64) -> u64 {
    (0..items).fold(0u64, |sum, item| sum.wrapping_add(work(rounds, item)))
}
// ANCHOR_END: inline

// ANCHOR: futures_unordered
/// A future per item, polled by one task through `FuturesUnordered`: no spawns, no parallelism.
pub async fn futures_unordered(items: u64, rounds: u64) -> u64 {
    let mut pending: FuturesUnordered<_> = (0..items)
        .map(|item| async move { work(rounds, item) })
        .collect();
    let mut sum = 0u64;
    while let Some(digest) = pending.next().await {
        sum = sum.wrapping_add(digest);
    }
    sum
}
// ANCHOR_END: futures_unordered

/// The ways to split the work that the experiment compares; `Chunked(k)` is k tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    SpawnPerItem,
    JoinSetPerItem,
    Chunked(u64),
    Inline,
    FuturesUnordered,
}

impl Split {
    pub fn name(self) -> String {
        match self {
            Split::SpawnPerItem => "spawn_per_item".into(),
            Split::JoinSetPerItem => "joinset_per_item".into(),
            Split::Chunked(k) => format!("chunked_{k}"),
            Split::Inline => "inline".into(),
            Split::FuturesUnordered => "futures_unordered".into(),
        }
    }

    pub fn from_name(name: &str) -> Option<Split> {
        Some(match name {
            "spawn_per_item" => Split::SpawnPerItem,
            "joinset_per_item" => Split::JoinSetPerItem,
            "inline" => Split::Inline,
            "futures_unordered" => Split::FuturesUnordered,
            other => Split::Chunked(other.strip_prefix("chunked_")?.parse().ok()?),
        })
    }

    /// Runs the work this way; the digests' sum is the same whichever way.
    pub async fn run(self, items: u64, rounds: u64) -> u64 {
        match self {
            Split::SpawnPerItem => spawn_per_item(items, rounds).await,
            Split::JoinSetPerItem => joinset_per_item(items, rounds).await,
            Split::Chunked(k) => chunked(items, rounds, k).await,
            Split::Inline => inline(items, rounds).await,
            Split::FuturesUnordered => futures_unordered(items, rounds).await,
        }
    }
}

// ANCHOR: spawn_and_join
/// Spawns `n` tasks that do nothing and waits for all of them: the cost of a task itself.
pub async fn spawn_and_join(n: usize) -> usize {
    let handles: Vec<JoinHandle<usize>> = (0..n).map(|i| tokio::spawn(async move { i })).collect();
    let mut joined = 0;
    for handle in handles {
        joined += usize::from(handle.await.is_ok());
    }
    joined
}
// ANCHOR_END: spawn_and_join

// ANCHOR: spawn_from_outside
/// `n` tasks that do nothing, spawned from a plain thread through the runtime's handle: every one
/// goes through the injection queue.
pub fn spawn_from_outside(rt: &tokio::runtime::Runtime, n: usize) -> usize {
    let handle = rt.handle().clone();
    let handles = std::thread::spawn(move || {
        (0..n)
            .map(|i| handle.spawn(async move { i }))
            .collect::<Vec<_>>()
    })
    .join()
    .expect("the spawning thread panicked");
    rt.block_on(async {
        let mut joined = 0;
        for h in handles {
            joined += usize::from(h.await.is_ok());
        }
        joined
    })
}
// ANCHOR_END: spawn_from_outside

// ANCHOR: results_in_a_slice
/// Where the tasks put their results, and how they count themselves done. It also holds the
/// work's size, so that a task's future is an `Arc` and an index: as small as one that keeps its
/// result, and a task of the same size.
pub struct SliceResults {
    results: Vec<AtomicU64>,
    remaining: AtomicUsize,
    all_done: Notify,
    rounds: u64,
}

impl SliceResults {
    pub fn new(n: usize, rounds: u64) -> Arc<SliceResults> {
        Arc::new(SliceResults {
            results: (0..n).map(|_| AtomicU64::new(0)).collect(),
            remaining: AtomicUsize::new(n),
            all_done: Notify::new(),
            rounds,
        })
    }

    /// Item `i`'s work, its result stored and one fewer task to wait for.
    fn run_item(&self, i: usize) {
        self.results[i].store(work(self.rounds, i as u64), Ordering::Relaxed);
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.all_done.notify_one();
        }
    }

    async fn sum_when_done(&self) -> u64 {
        self.all_done.notified().await;
        self.results
            .iter()
            .fold(0u64, |sum, r| sum.wrapping_add(r.load(Ordering::Relaxed)))
    }
}

/// A million tasks without a million handles: each writes its result into a shared slice and
/// counts itself done; its `JoinHandle` is dropped at once, so a finished task is freed at once.
/// With `yield_every` > 0 the spawner yields to the runtime after that many spawns, as a loop
/// that awaits something between spawns would.
pub async fn spawn_into_slice(n: usize, rounds: u64, yield_every: usize) -> u64 {
    let shared = SliceResults::new(n, rounds);
    for i in 0..n {
        let shared = shared.clone();
        tokio::spawn(async move { shared.run_item(i) });
        if yield_every > 0 && i % yield_every == yield_every - 1 {
            tokio::task::yield_now().await;
        }
    }
    shared.sum_when_done().await
}
// ANCHOR_END: results_in_a_slice

/// The control for `spawn_into_slice`: the same tasks doing the same shared-slice work, but every
/// `JoinHandle` kept until all are done, so a finished task's memory stays until the end. It
/// differs from `spawn_into_slice` in the handles alone.
pub async fn spawn_into_slice_keeping_handles(n: usize, rounds: u64, yield_every: usize) -> u64 {
    let shared = SliceResults::new(n, rounds);
    let mut handles: Vec<JoinHandle<()>> = Vec::with_capacity(n);
    for i in 0..n {
        let shared = shared.clone();
        handles.push(tokio::spawn(async move { shared.run_item(i) }));
        if yield_every > 0 && i % yield_every == yield_every - 1 {
            tokio::task::yield_now().await;
        }
    }
    let sum = shared.sum_when_done().await;
    for handle in handles {
        handle.await.expect("a task panicked");
    }
    sum
}

/// The same million tasks with every `JoinHandle` kept until the end, as `spawn_per_item` does: a
/// finished task's memory stays until its handle is awaited or dropped.
pub async fn spawn_keep_handles(n: usize, rounds: u64, yield_every: usize) -> u64 {
    let mut handles: Vec<JoinHandle<u64>> = Vec::with_capacity(n);
    for i in 0..n {
        handles.push(tokio::spawn(async move { work(rounds, i as u64) }));
        if yield_every > 0 && i % yield_every == yield_every - 1 {
            tokio::task::yield_now().await;
        }
    }
    let mut sum = 0u64;
    for handle in handles {
        sum = sum.wrapping_add(handle.await.expect("a task panicked"));
    }
    sum
}

// ANCHOR: idle_task
/// An idle task: it waits for a permit that comes only when the experiment has measured it.
pub async fn idle_task(gate: Arc<Semaphore>, started: Arc<AtomicUsize>) {
    started.fetch_add(1, Ordering::Relaxed);
    let _permit = gate.acquire().await.expect("the gate stays open");
}

/// An idle task that keeps an 8 KiB buffer alive across its `.await`: the buffer is part of
/// the task's future, so it lives in the task's own allocation.
pub async fn idle_task_with_buffer(gate: Arc<Semaphore>, started: Arc<AtomicUsize>) {
    let buffer = [7u8; 8 * 1024];
    started.fetch_add(1, Ordering::Relaxed);
    let _permit = gate.acquire().await.expect("the gate stays open");
    std::hint::black_box(&buffer);
}

/// The fix: the buffer's scope ends before the `.await`, so the future does not hold it.
pub async fn idle_task_with_scoped_buffer(gate: Arc<Semaphore>, started: Arc<AtomicUsize>) {
    {
        let buffer = [7u8; 8 * 1024];
        std::hint::black_box(&buffer);
    }
    started.fetch_add(1, Ordering::Relaxed);
    let _permit = gate.acquire().await.expect("the gate stays open");
}
// ANCHOR_END: idle_task

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap()
    }

    #[test]
    fn every_split_computes_the_same_sum() {
        let rt = runtime();
        let want = rt.block_on(inline(1000, 50));
        for split in [
            Split::SpawnPerItem,
            Split::JoinSetPerItem,
            Split::Chunked(1),
            Split::Chunked(7),
            Split::Chunked(64),
            Split::Chunked(5000),
            Split::Inline,
            Split::FuturesUnordered,
        ] {
            assert_eq!(rt.block_on(split.run(1000, 50)), want, "{split:?}");
            assert_eq!(Split::from_name(&split.name()), Some(split));
        }
        assert_eq!(Split::from_name("chunked_x"), None);
        assert_eq!(rt.block_on(spawn_and_join(100)), 100);
    }

    #[test]
    fn slice_and_handles_give_the_same_results() {
        let rt = runtime();
        let a = rt.block_on(spawn_into_slice(500, 10, 0));
        let b = rt.block_on(spawn_keep_handles(500, 10, 64));
        assert_eq!(a, b);
        assert_eq!(a, rt.block_on(spawn_into_slice_keeping_handles(500, 10, 0)));
        assert_eq!(a, rt.block_on(spawn_into_slice(500, 10, 7)));
        assert_eq!(a, rt.block_on(inline(500, 10)));
    }

    #[test]
    fn a_buffer_held_across_an_await_is_part_of_the_future() {
        let gate = Arc::new(Semaphore::new(0));
        let started = Arc::new(AtomicUsize::new(0));
        let small = std::mem::size_of_val(&idle_task(gate.clone(), started.clone()));
        let large = std::mem::size_of_val(&idle_task_with_buffer(gate.clone(), started.clone()));
        let scoped =
            std::mem::size_of_val(&idle_task_with_scoped_buffer(gate.clone(), started.clone()));
        let boxed = std::mem::size_of_val(&Box::pin(idle_task_with_buffer(gate, started)));
        assert!(large >= 8 * 1024 && small < 1024, "{small} {large}");
        assert_eq!(
            scoped, small,
            "a buffer scoped before the .await is not in the future"
        );
        assert_eq!(boxed, std::mem::size_of::<usize>());
    }
}
