//! Chapter 1: blocking the runtime.
//!
//! A heavy request does tens of milliseconds of CPU work. Done inline in an async task it holds a
//! Tokio worker for that long, and every task queued behind it waits. Three fixes move the work
//! off the worker: to Tokio's blocking pool, to a thread that takes over the worker's queue, or
//! to a dedicated Rayon pool (a compute lane); a fourth keeps it on the worker in short chunks,
//! yielding between them.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

// ANCHOR: burn
/// Pure CPU work: `rounds` steps of a multiply-rotate chain. Returns a digest, so the compiler
/// cannot skip the work and the caller can check it.
pub fn burn(rounds: u64, seed: u64) -> u64 {
    burn_steps(seed, 0..rounds)
}

/// The chain's `steps`, from state `x`: a job burnt in pieces gets `burn`'s digest.
pub fn burn_steps(mut x: u64, steps: Range<u64>) -> u64 {
    for i in steps {
        x = (x.rotate_left(5) ^ i).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    std::hint::black_box(x)
}
// ANCHOR_END: burn

/// The heavy jobs' clocks, summed over a run: how long each burn took and how much CPU its
/// thread got meanwhile. A burn that got less CPU than its wall time was descheduled while it ran.
#[derive(Default)]
pub struct BurnClock {
    wall_ns: AtomicU64,
    cpu_ns: AtomicU64,
    jobs: AtomicU64,
}

impl BurnClock {
    pub const fn new() -> BurnClock {
        BurnClock {
            wall_ns: AtomicU64::new(0),
            cpu_ns: AtomicU64::new(0),
            jobs: AtomicU64::new(0),
        }
    }

    pub fn record(&self, wall: Duration, cpu: Duration) {
        self.wall_ns
            .fetch_add(wall.as_nanos() as u64, Ordering::Relaxed);
        self.cpu_ns
            .fetch_add(cpu.as_nanos() as u64, Ordering::Relaxed);
        self.jobs.fetch_add(1, Ordering::Relaxed);
    }

    /// (mean wall time, mean CPU time) per burn since the last call; resets.
    pub fn take(&self) -> (Duration, Duration) {
        let jobs = self.jobs.swap(0, Ordering::Relaxed).max(1);
        let per = |total: &AtomicU64| Duration::from_nanos(total.swap(0, Ordering::Relaxed) / jobs);
        (per(&self.wall_ns), per(&self.cpu_ns))
    }
}

/// Every heavy job's burn, timed.
pub static HEAVY_BURNS: BurnClock = BurnClock::new();

/// A heavy job's CPU work: `burn`, with its wall time and its thread's CPU time recorded.
pub fn heavy_burn(rounds: u64, seed: u64) -> u64 {
    let (started, cpu) = (
        std::time::Instant::now(),
        measure::loadgen::thread_cpu_time(),
    );
    let digest = burn(rounds, seed);
    let cpu = measure::loadgen::thread_cpu_time().saturating_sub(cpu);
    HEAVY_BURNS.record(started.elapsed(), cpu);
    digest
}

/// A heavy job burnt a chunk at a time, its chunks' wall and CPU times summed and recorded as
/// one burn when it ends.
pub struct ChunkedBurn {
    state: u64,
    done: u64,
    rounds: u64,
    wall: Duration,
    cpu: Duration,
}

impl ChunkedBurn {
    pub fn new(rounds: u64, seed: u64) -> ChunkedBurn {
        ChunkedBurn {
            state: seed,
            done: 0,
            rounds,
            wall: Duration::ZERO,
            cpu: Duration::ZERO,
        }
    }

    /// Burns up to `chunk` more rounds; true when the job is done.
    pub fn step(&mut self, chunk: u64) -> bool {
        let (started, cpu) = (
            std::time::Instant::now(),
            measure::loadgen::thread_cpu_time(),
        );
        let end = (self.done + chunk.max(1)).min(self.rounds);
        self.state = burn_steps(self.state, self.done..end);
        self.done = end;
        self.cpu += measure::loadgen::thread_cpu_time().saturating_sub(cpu);
        self.wall += started.elapsed();
        self.done == self.rounds
    }

    /// The digest, once every chunk has run.
    pub fn finish(self) -> u64 {
        HEAVY_BURNS.record(self.wall, self.cpu);
        self.state
    }
}

// ANCHOR: light_request
/// A light request: tens of microseconds of CPU, the kind a service answers by the thousand.
pub async fn light_request(rounds: u64, seed: u64) -> u64 {
    burn(rounds, seed)
}
// ANCHOR_END: light_request

// ANCHOR: inline
/// The pitfall: the heavy work runs on the worker thread, which polls nothing else until it ends.
pub async fn heavy_inline(rounds: u64, seed: u64) -> u64 {
    heavy_burn(rounds, seed)
}
// ANCHOR_END: inline

// ANCHOR: spawn_blocking
/// Fix A: hand the work to Tokio's blocking pool and await it; the worker is free meanwhile.
pub async fn heavy_spawn_blocking(rounds: u64, seed: u64) -> u64 {
    tokio::task::spawn_blocking(move || heavy_burn(rounds, seed))
        .await
        .expect("the heavy job panicked")
}
// ANCHOR_END: spawn_blocking

// ANCHOR: block_in_place
/// Fix B: tell the runtime this worker is about to block; it moves the worker's queue to another
/// thread first. Multi-threaded runtime only (it panics on a current-thread runtime).
pub async fn heavy_block_in_place(rounds: u64, seed: u64) -> u64 {
    tokio::task::block_in_place(|| heavy_burn(rounds, seed))
}
// ANCHOR_END: block_in_place

// ANCHOR: yield_chunks
/// Fix D: keep the work on the worker, but give the worker back after every chunk. `yield_now`
/// hands the task's waker to the scheduler, which wakes it only once it has no other task ready.
pub async fn heavy_yield_chunks(rounds: u64, chunk: u64, seed: u64) -> u64 {
    let mut job = ChunkedBurn::new(rounds, seed);
    while !job.step(chunk) {
        tokio::task::yield_now().await;
    }
    job.finish()
}
// ANCHOR_END: yield_chunks

// ANCHOR: rayon_lane
/// Fix C: a compute lane. A Rayon pool of fixed size runs the work; the task awaits a oneshot.
pub async fn heavy_rayon_lane(lane: &rayon::ThreadPool, rounds: u64, seed: u64) -> u64 {
    let (reply, result) = oneshot::channel();
    lane.spawn(move || {
        let _ = reply.send(heavy_burn(rounds, seed));
    });
    result.await.expect("the compute lane dropped the job")
}
// ANCHOR_END: rayon_lane

// ANCHOR: wake_then_burn
/// A handler that wakes the tasks waiting on `woken` (one send each), then burns on its worker.
/// A task woken from a worker goes to that worker's LIFO slot, which other workers do not steal
/// from; the one it displaces goes to the worker's queue, which they do.
pub fn wake_then_burn(woken: &[mpsc::UnboundedSender<Instant>], rounds: u64, seed: u64) -> u64 {
    for waiting in woken {
        let _ = waiting.send(Instant::now());
    }
    burn(rounds, seed)
}
// ANCHOR_END: wake_then_burn

// ANCHOR: accept_loop
/// A server's accept loop: requests arrive on a channel, as connections arrive on a listener,
/// and each is spawned from a task on a worker, into that worker's LIFO slot (`schedule_local`
/// in the multi-thread scheduler) rather than the injection queue a thread outside the runtime
/// spawns into. While requests are queued, `recv()` is ready at once, so one poll spawns
/// several: each takes the LIFO slot and pushes the one before it to the local queue.
pub async fn accept_loop<R>(mut incoming: mpsc::UnboundedReceiver<R>) -> Vec<JoinHandle<R::Output>>
where
    R: Future + Send + 'static,
    R::Output: Send + 'static,
{
    let mut handlers = Vec::new();
    while let Some(request) = incoming.recv().await {
        handlers.push(tokio::spawn(request));
    }
    handlers
}
// ANCHOR_END: accept_loop

/// The ways to run a heavy request that the experiment compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Inline,
    SpawnBlocking,
    BlockInPlace,
    RayonLane,
    YieldChunks,
}

impl Variant {
    /// The variants of the `blocking` experiment.
    pub const ALL: [Variant; 4] = [
        Variant::Inline,
        Variant::SpawnBlocking,
        Variant::BlockInPlace,
        Variant::RayonLane,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Inline => "inline",
            Variant::SpawnBlocking => "spawn_blocking",
            Variant::BlockInPlace => "block_in_place",
            Variant::RayonLane => "rayon_lane",
            Variant::YieldChunks => "yield_chunks",
        }
    }

    pub fn from_name(name: &str) -> Option<Variant> {
        (Variant::ALL.into_iter())
            .chain([Variant::YieldChunks])
            .find(|v| v.name() == name)
    }
}

/// Runs one heavy request the way `variant` says (`chunk`: the rounds `yield_chunks` burns
/// between yields).
pub async fn heavy_request(
    variant: Variant,
    lane: &rayon::ThreadPool,
    rounds: u64,
    chunk: u64,
    seed: u64,
) -> u64 {
    match variant {
        Variant::Inline => heavy_inline(rounds, seed).await,
        Variant::SpawnBlocking => heavy_spawn_blocking(rounds, seed).await,
        Variant::BlockInPlace => heavy_block_in_place(rounds, seed).await,
        Variant::RayonLane => heavy_rayon_lane(lane, rounds, seed).await,
        Variant::YieldChunks => heavy_yield_chunks(rounds, chunk, seed).await,
    }
}

// ANCHOR: tick_lag_probe
/// Spot it: a task that asks to wake every `period` and records how late it actually woke, with
/// the time each tick was due. A healthy runtime wakes it within a millisecond or two (Tokio's
/// timer has millisecond resolution); a blocked one wakes it only when a worker is free again.
/// In a service, export the lateness as a histogram and alert on its maximum.
pub async fn tick_lag_probe(period: Duration, stop: Arc<AtomicBool>) -> Vec<(Instant, Duration)> {
    let mut ticks = Vec::new();
    let mut next = Instant::now() + period;
    while !stop.load(Ordering::Relaxed) {
        tokio::time::sleep_until(next).await;
        let now = Instant::now();
        ticks.push((next, now - next));
        next = now.max(next) + period;
    }
    ticks
}
// ANCHOR_END: tick_lag_probe

#[cfg(test)]
mod tests {
    use super::*;

    fn lane() -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
    }

    #[test]
    fn burn_is_deterministic_and_depends_on_its_inputs() {
        assert_eq!(burn(1000, 7), burn(1000, 7));
        assert_ne!(burn(1000, 7), burn(1000, 8));
        assert_ne!(burn(1000, 7), burn(1001, 7));
        assert_eq!(burn(0, 7), 7);
    }

    #[test]
    fn every_variant_computes_the_same_digest() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let lane = lane();
        let want = burn(10_000, 3);
        HEAVY_BURNS.take();
        for v in Variant::ALL.into_iter().chain([Variant::YieldChunks]) {
            let got = rt.block_on(heavy_request(v, &lane, 10_000, 333, 3));
            assert_eq!(got, want, "{v:?}");
            assert_eq!(Variant::from_name(v.name()), Some(v));
        }
        // A chunk longer than the job, or of zero rounds, still burns the whole job once.
        for chunk in [0, 1, 10_000, 20_000] {
            assert_eq!(rt.block_on(heavy_yield_chunks(10_000, chunk, 3)), want);
        }
        let (wall, cpu) = HEAVY_BURNS.take();
        assert!(
            wall > Duration::ZERO && cpu > Duration::ZERO,
            "every burn was timed"
        );
        assert_eq!(rt.block_on(light_request(10, 1)), burn(10, 1));
    }

    #[test]
    #[should_panic(expected = "multi-threaded runtime")]
    fn block_in_place_panics_on_a_current_thread_runtime() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(heavy_block_in_place(10, 1));
    }

    #[test]
    fn the_accept_loop_spawns_every_request_it_receives() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let (tx, rx) = mpsc::unbounded_channel();
        let server = rt.spawn(accept_loop(rx));
        for i in 0..10u64 {
            tx.send(async move { i * 2 }).unwrap();
        }
        drop(tx);
        let handlers = rt.block_on(server).unwrap();
        let answers: Vec<u64> = rt.block_on(async {
            let mut out = Vec::new();
            for h in handlers {
                out.push(h.await.unwrap());
            }
            out
        });
        assert_eq!(answers, (0..10).map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn tick_lag_probe_sees_a_blocked_worker() {
        // Paused time would hide the stall, so this uses real time but asserts only the order of
        // magnitude that a 50 ms block must produce.
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_time()
            .build()
            .unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let probe = rt.spawn(tick_lag_probe(Duration::from_millis(5), stop.clone()));
        rt.block_on(async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            tokio::spawn(async { std::thread::sleep(Duration::from_millis(50)) })
                .await
                .unwrap();
            tokio::time::sleep(Duration::from_millis(20)).await;
        });
        stop.store(true, Ordering::Relaxed);
        let ticks = rt.block_on(probe).unwrap();
        let worst = ticks.iter().map(|t| t.1).max().unwrap();
        assert!(worst >= Duration::from_millis(30), "worst lag {worst:?}");
        assert!(ticks.windows(2).all(|w| w[0].0 < w[1].0), "ticks in order");
    }
}
