//! Chapter 2: mutexes.
//!
//! Four stories, each as small functions: a `tokio::sync::Mutex` guard held across an `.await`
//! and the same guard scoped; the three mutexes (and an atomic) where no `.await` happens under
//! the lock; one lock against sharded locks; and configuration read on every request.

use arc_swap::ArcSwap;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock, mpsc};
use std::time::{Duration, Instant};
use tokio::sync::{oneshot, watch};

#[cfg(feature = "show-compile-error")]
mod does_not_compile;

// ---------------------------------------------------------------------------------------------
// 1. A guard held across an .await

/// Visit counters shared by every request handler.
pub type Visits = tokio::sync::Mutex<HashMap<u64, u64>>;

// ANCHOR: guard_across_await
/// The pitfall: the guard lives to the end of the function, across the upstream call, so every
/// other handler waits for this one's call to finish.
pub async fn visit_guard_held(visits: &Visits, page: u64, upstream: &Upstream) {
    let mut counts = visits.lock().await;
    *counts.entry(page).or_default() += 1;
    upstream.call().await;
}
// ANCHOR_END: guard_across_await

// ANCHOR: guard_scoped
/// The fix: the guard is dropped at the end of its block, before the call.
pub async fn visit_guard_scoped(visits: &Visits, page: u64, upstream: &Upstream) {
    {
        let mut counts = visits.lock().await;
        *counts.entry(page).or_default() += 1;
    }
    upstream.call().await;
}
// ANCHOR_END: guard_scoped

// ANCHOR: clippy_await_holding_lock
/// A `std::sync::MutexGuard` across an `.await`. It compiles: only a spawned future must be
/// `Send` (`tokio::spawn`, `Handle::spawn`, `JoinSet::spawn`, on any runtime), and this one may
/// be awaited in `block_on` or in a `spawn_local` task on a `LocalSet`, where a second task that waits for the lock blocks the only thread (see the
/// `current_thread_deadlock` example). Clippy's `await_holding_lock` catches it; the lint is
/// allowed here only because this function exists to show it, and the book runs clippy with it
/// forced on.
#[allow(clippy::await_holding_lock)]
pub async fn visit_std_guard_held(
    visits: &std::sync::Mutex<HashMap<u64, u64>>,
    page: u64,
    upstream: &Upstream,
) {
    let mut counts = visits.lock().expect("not poisoned");
    *counts.entry(page).or_default() += 1;
    upstream.call().await;
}
// ANCHOR_END: clippy_await_holding_lock

/// The upstream service a handler calls: a fixed latency, modelled by Tokio's timer (coarse, but
/// it follows a paused clock in tests) or by a thread that keeps exact deadlines.
#[derive(Clone)]
pub enum Upstream {
    Timer(Duration),
    Precise(PreciseUpstream),
}

impl Upstream {
    pub async fn call(&self) {
        match self {
            Upstream::Timer(latency) => tokio::time::sleep(*latency).await,
            Upstream::Precise(p) => p.call().await,
        }
    }
}

// ANCHOR: precise_upstream
/// An upstream call that answers no earlier than `latency` after it was made, and on time when
/// calls come one at a time: one thread holds every
/// pending deadline, sleeps until just before the earliest and spins the rest of the way.
#[derive(Clone)]
pub struct PreciseUpstream {
    latency: Duration,
    calls: mpsc::Sender<(Instant, oneshot::Sender<()>)>,
}

impl PreciseUpstream {
    /// Starts the deadline thread; it ends when the last clone of the returned value is dropped.
    pub fn start(latency: Duration) -> (PreciseUpstream, std::thread::JoinHandle<()>) {
        let (calls, pending) = mpsc::channel();
        let thread = std::thread::spawn(move || serve_deadlines(pending));
        (PreciseUpstream { latency, calls }, thread)
    }

    pub async fn call(&self) {
        let (answer, answered) = oneshot::channel();
        let deadline = Instant::now() + self.latency;
        self.calls
            .send((deadline, answer))
            .expect("the upstream thread is running");
        answered
            .await
            .expect("the upstream thread answers every call");
    }
}

// ANCHOR_END: precise_upstream

/// Answers each call at its deadline, earliest first.
fn serve_deadlines(pending: mpsc::Receiver<(Instant, oneshot::Sender<()>)>) {
    const SPIN: Duration = Duration::from_micros(200);
    let mut due: BinaryHeap<Reverse<(Instant, u64)>> = BinaryHeap::new();
    let mut answers: HashMap<u64, oneshot::Sender<()>> = HashMap::new();
    let mut next_id = 0u64;
    loop {
        let received = match due.peek() {
            None => pending
                .recv()
                .map_err(|_| mpsc::RecvTimeoutError::Disconnected),
            Some(Reverse((deadline, _))) => {
                let wait = deadline.saturating_duration_since(Instant::now());
                pending.recv_timeout(wait.saturating_sub(SPIN))
            }
        };
        match received {
            Ok((deadline, answer)) => {
                due.push(Reverse((deadline, next_id)));
                answers.insert(next_id, answer);
                next_id += 1;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let Reverse((deadline, id)) = due.pop().expect("a deadline is due");
                answer_at(
                    deadline,
                    answers.remove(&id).expect("every deadline has an answer"),
                );
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                // No new calls can come; answer the rest on time, then stop.
                while let Some(Reverse((deadline, id))) = due.pop() {
                    answer_at(
                        deadline,
                        answers.remove(&id).expect("every deadline has an answer"),
                    );
                }
                return;
            }
        }
    }
}

/// Spins until `deadline` (as the load generator does), then answers the call.
fn answer_at(deadline: Instant, answer: oneshot::Sender<()>) {
    measure::loadgen::spin_until(deadline);
    let _ = answer.send(());
}

// ---------------------------------------------------------------------------------------------
// 2. No .await under the lock: which mutex?

/// A shared map of counters, under each kind of lock.
pub type StdCounters = std::sync::Mutex<HashMap<u64, u64>>;
pub type ParkingLotCounters = parking_lot::Mutex<HashMap<u64, u64>>;
pub type TokioCounters = tokio::sync::Mutex<HashMap<u64, u64>>;

// ANCHOR: locked_updates
/// `std::sync::Mutex`: blocks the thread while it waits; never held across an `.await`.
pub fn count_std(counters: &StdCounters, key: u64) {
    *counters
        .lock()
        .expect("not poisoned")
        .entry(key)
        .or_default() += 1;
}

/// `parking_lot::Mutex`: the same, smaller (a one-byte state), no poisoning.
pub fn count_parking_lot(counters: &ParkingLotCounters, key: u64) {
    *counters.lock().entry(key).or_default() += 1;
}

/// `tokio::sync::Mutex`: a semaphore of one permit. A `lock().await` takes a free permit with a
/// compare-and-swap (a taken one: the task queues under the semaphore's waiter-list lock), then
/// spends one unit of the task's cooperative budget (after 128, the lock returns `Pending` once,
/// with the permit already taken, so that the worker can run other tasks); every unlock takes
/// the waiter-list lock to hand the permit to a waiter, if there is one.
pub async fn count_tokio(counters: &TokioCounters, key: u64) {
    *counters.lock().await.entry(key).or_default() += 1;
}

/// The same lock outside the cooperative budget (`tokio::task::unconstrained`): what the
/// budget's forced yields cost, measured.
pub async fn count_tokio_unconstrained(counters: &TokioCounters, key: u64) {
    tokio::task::unconstrained(count_tokio(counters, key)).await
}

/// The floor: one uncontended atomic increment (each task has its own counter).
pub fn count_atomic(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}
// ANCHOR_END: locked_updates

/// The locks Experiment 2 compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lock {
    Tokio,
    TokioUnconstrained,
    Std,
    ParkingLot,
    Atomic,
}

impl Lock {
    pub const ALL: [Lock; 5] = [
        Lock::Tokio,
        Lock::TokioUnconstrained,
        Lock::Std,
        Lock::ParkingLot,
        Lock::Atomic,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Lock::Tokio => "tokio",
            Lock::TokioUnconstrained => "tokio_unconstrained",
            Lock::Std => "std",
            Lock::ParkingLot => "parking_lot",
            Lock::Atomic => "atomic",
        }
    }

    pub fn from_name(name: &str) -> Option<Lock> {
        Lock::ALL.into_iter().find(|l| l.name() == name)
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Contention and sharding

// ANCHOR: sharded_counters
/// Per-key counters split over `n` independently locked shards chosen by the key's hash, so
/// threads updating different keys rarely meet. One shard is the plain single-mutex map.
pub struct ShardedCounters {
    shards: Vec<Shard>,
}

/// One shard on a cache line of its own, so that two threads locking neighbouring shards do
/// not bounce one line between their cores (the alignment is a cache line pair: some CPUs
/// prefetch lines two at a time).
#[repr(align(128))]
#[derive(Default)]
pub struct Shard(std::sync::Mutex<HashMap<u64, u64>>);

impl ShardedCounters {
    pub fn new(n: usize) -> ShardedCounters {
        let shards = (0..n.max(1)).map(|_| Shard::default()).collect();
        ShardedCounters { shards }
    }

    /// The shard of `key`: a multiply-and-shift hash, a few instructions, not the map's SipHash.
    pub fn shard(&self, key: u64) -> &std::sync::Mutex<HashMap<u64, u64>> {
        let hash = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        &self.shards[hash as usize % self.shards.len()].0
    }

    pub fn count(&self, key: u64) {
        *self
            .shard(key)
            .lock()
            .expect("not poisoned")
            .entry(key)
            .or_default() += 1;
    }
}
// ANCHOR_END: sharded_counters

impl ShardedCounters {
    /// The sum of every counter.
    pub fn total(&self) -> u64 {
        self.shards
            .iter()
            .map(|s| s.0.lock().expect("not poisoned").values().sum::<u64>())
            .sum()
    }
}

/// The same counters without the padding: shards side by side, 56 bytes each, so that
/// neighbouring shards share a cache line.
pub struct PackedCounters {
    shards: Vec<std::sync::Mutex<HashMap<u64, u64>>>,
}

impl PackedCounters {
    pub fn new(n: usize) -> PackedCounters {
        PackedCounters {
            shards: (0..n.max(1)).map(|_| Default::default()).collect(),
        }
    }

    pub fn count(&self, key: u64) {
        let hash = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        let shard = &self.shards[hash as usize % self.shards.len()];
        *shard.lock().expect("not poisoned").entry(key).or_default() += 1;
    }

    pub fn total(&self) -> u64 {
        self.shards
            .iter()
            .map(|s| s.lock().expect("not poisoned").values().sum::<u64>())
            .sum()
    }
}

// ANCHOR: timed_lock
/// Spot it: time how long an acquisition waits, so a contended lock shows up as a histogram of
/// acquire times instead of as mysteriously idle CPUs. One clock read falls inside the critical
/// section (the wait ends when the lock is held); the histogram insert waits until the guard is
/// dropped. Time one acquisition in several, and the clock reads cost little.
pub fn count_timed(counters: &ShardedCounters, key: u64, waited: &mut impl FnMut(Duration)) {
    let asked = Instant::now();
    let mut shard = counters.shard(key).lock().expect("not poisoned");
    let wait = asked.elapsed();
    *shard.entry(key).or_default() += 1;
    drop(shard);
    waited(wait);
}
// ANCHOR_END: timed_lock

// ---------------------------------------------------------------------------------------------
// 4. Read-mostly configuration

/// Configuration read on every request. Written together, `limit` is always `3 * version`, so
/// a reader can tell a torn read.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Config {
    pub version: u64,
    pub limit: u64,
}

impl Config {
    pub fn new(version: u64) -> Config {
        Config {
            version,
            limit: 3 * version,
        }
    }

    pub fn is_consistent(&self) -> bool {
        self.limit == 3 * self.version
    }
}

// ANCHOR: config_readers
/// A read-write lock: readers share it, and a writer waits for them to leave.
pub fn read_rwlock(config: &RwLock<Config>) -> Config {
    *config.read().expect("not poisoned")
}

/// arc-swap: readers load an `Arc` without taking any lock.
pub fn read_arc_swap(config: &ArcSwap<Config>) -> Config {
    **config.load()
}

/// A watch channel: every reader holds a receiver and borrows the latest value.
pub fn read_watch(config: &watch::Receiver<Config>) -> Config {
    *config.borrow()
}
// ANCHOR_END: config_readers

/// The shared configuration behind each kind of reader, with its writer.
pub enum SharedConfig {
    RwLock(Arc<RwLock<Config>>),
    ArcSwap(Arc<ArcSwap<Config>>),
    Watch(Arc<watch::Sender<Config>>),
}

impl SharedConfig {
    pub const KINDS: [&'static str; 3] = ["rwlock", "arc_swap", "watch"];

    pub fn new(kind: &str) -> Option<SharedConfig> {
        let start = Config::new(0);
        Some(match kind {
            "rwlock" => SharedConfig::RwLock(Arc::new(RwLock::new(start))),
            "arc_swap" => SharedConfig::ArcSwap(Arc::new(ArcSwap::from_pointee(start))),
            "watch" => SharedConfig::Watch(Arc::new(watch::channel(start).0)),
            _ => return None,
        })
    }

    pub fn write(&self, config: Config) {
        match self {
            SharedConfig::RwLock(c) => *c.write().expect("not poisoned") = config,
            SharedConfig::ArcSwap(c) => c.store(Arc::new(config)),
            SharedConfig::Watch(c) => {
                c.send_replace(config);
            }
        }
    }

    /// Reads as fast as it can until `stop`; returns (reads, torn reads). The kind is chosen
    /// once, outside the loop, so each loop calls its reader directly (no indirect call).
    pub fn read_until(&self, stop: &AtomicBool) -> (u64, u64) {
        match self {
            SharedConfig::RwLock(c) => read_loop(|| read_rwlock(c), stop),
            SharedConfig::ArcSwap(c) => read_loop(|| read_arc_swap(c), stop),
            SharedConfig::Watch(c) => {
                let rx = c.subscribe();
                read_loop(|| read_watch(&rx), stop)
            }
        }
    }

    /// The latest value, as a reader sees it.
    pub fn latest(&self) -> Config {
        match self {
            SharedConfig::RwLock(c) => read_rwlock(c),
            SharedConfig::ArcSwap(c) => read_arc_swap(c),
            SharedConfig::Watch(c) => read_watch(&c.subscribe()),
        }
    }
}

fn read_loop(mut read: impl FnMut() -> Config, stop: &AtomicBool) -> (u64, u64) {
    let (mut reads, mut torn) = (0u64, 0u64);
    while !stop.load(Ordering::Relaxed) {
        if !read().is_consistent() {
            torn += 1;
        }
        reads += 1;
    }
    (reads, torn)
}

#[cfg(test)]
mod tests {
    use super::*;

    // ANCHOR: exercise_test
    /// The exercise's test, on Tokio's paused clock: 100 handlers make a 2 ms upstream call at
    /// once. With the guard scoped they overlap and all finish 2 ms (virtual) later; with the
    /// guard held across the call they queue, 100 × 2 ms. No wall-clock time is involved.
    /// Returns how long each call took and how long all of them took.
    async fn hundred_concurrent_visits<F, Fut>(visit: F) -> (Vec<Duration>, Duration)
    where
        F: Fn(Arc<Visits>, u64, Upstream) -> Fut,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let visits = Arc::new(Visits::default());
        let upstream = Upstream::Timer(UPSTREAM);
        let start = tokio::time::Instant::now();
        let handlers: Vec<_> = (0..100)
            .map(|page| {
                let call = visit(visits.clone(), page % 7, upstream.clone());
                tokio::spawn(async move {
                    let t = tokio::time::Instant::now();
                    call.await;
                    t.elapsed()
                })
            })
            .collect();
        let mut each = Vec::new();
        for h in handlers {
            each.push(h.await.unwrap());
        }
        assert_eq!(visits.lock().await.values().sum::<u64>(), 100);
        (each, start.elapsed())
    }

    const UPSTREAM: Duration = Duration::from_millis(2);

    #[tokio::test(start_paused = true)]
    async fn scoped_guard_lets_the_calls_overlap() {
        let (each, all) =
            hundred_concurrent_visits(|v, p, u| async move { visit_guard_scoped(&v, p, &u).await })
                .await;
        assert!(
            each.iter().all(|t| *t >= UPSTREAM),
            "every call made the upstream call"
        );
        assert!(
            all < Duration::from_millis(10),
            "took {all:?} of virtual time"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn held_guard_serialises_the_calls() {
        let (each, all) =
            hundred_concurrent_visits(|v, p, u| async move { visit_guard_held(&v, p, &u).await })
                .await;
        assert!(
            each.iter().all(|t| *t >= UPSTREAM),
            "every call made the upstream call"
        );
        assert!(all >= 100 * UPSTREAM, "took {all:?} of virtual time");
    }
    // ANCHOR_END: exercise_test

    #[test]
    fn every_counter_counts() {
        let std_c = StdCounters::default();
        let pl = ParkingLotCounters::default();
        let tk = TokioCounters::default();
        let atomic = AtomicU64::new(0);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        for k in 0..10 {
            count_std(&std_c, k % 3);
            count_parking_lot(&pl, k % 3);
            rt.block_on(count_tokio(&tk, k % 3));
            rt.block_on(count_tokio_unconstrained(&tk, k % 3));
            count_atomic(&atomic);
        }
        assert_eq!(std_c.lock().unwrap()[&0], 4);
        assert_eq!(pl.lock()[&1], 3);
        assert_eq!(rt.block_on(tk.lock())[&2], 6);
        for lock in Lock::ALL {
            assert_eq!(Lock::from_name(lock.name()), Some(lock));
        }
        assert_eq!(atomic.load(Ordering::Relaxed), 10);
    }

    #[test]
    fn shards_spread_keys_and_keep_every_count() {
        let c = ShardedCounters::new(16);
        let mut waits = 0;
        for k in 0..1000 {
            count_timed(&c, k, &mut |_| waits += 1);
            c.count(k);
        }
        assert_eq!((c.total(), waits), (2000, 1000));
        assert_eq!(
            std::mem::align_of::<Shard>(),
            128,
            "one shard per cache line pair"
        );
        let packed = PackedCounters::new(16);
        (0..1000).for_each(|k| packed.count(k));
        assert_eq!(packed.total(), 1000);
        let used = c
            .shards
            .iter()
            .filter(|s| !s.0.lock().unwrap().is_empty())
            .count();
        assert!(
            used > 8,
            "1000 keys should reach most of 16 shards, reached {used}"
        );
        assert_eq!(ShardedCounters::new(0).shards.len(), 1);
    }

    #[test]
    fn every_config_reader_sees_the_latest_write() {
        for kind in SharedConfig::KINDS {
            let shared = SharedConfig::new(kind).unwrap();
            assert_eq!(shared.latest(), Config::new(0));
            shared.write(Config::new(7));
            assert_eq!(shared.latest(), Config::new(7), "{kind}");
            let stop = AtomicBool::new(true);
            assert_eq!(
                shared.read_until(&stop),
                (0, 0),
                "a stopped reader reads nothing"
            );
        }
        assert!(SharedConfig::new("mutex").is_none());
    }

    #[test]
    fn precise_upstream_answers_no_earlier_than_its_latency() {
        let (upstream, thread) = PreciseUpstream::start(Duration::from_millis(3));
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        // Twenty calls at once, each timed on its own: none may come back early.
        let took: Vec<Duration> = rt.block_on(async {
            let calls = (0..20).map(|_| {
                let upstream = upstream.clone();
                tokio::spawn(async move {
                    let t = Instant::now();
                    upstream.call().await;
                    t.elapsed()
                })
            });
            let handles: Vec<_> = calls.collect();
            let mut took = Vec::new();
            for h in handles {
                took.push(h.await.unwrap());
            }
            took
        });
        assert_eq!(took.len(), 20);
        assert!(
            took.iter().all(|t| *t >= Duration::from_millis(3)),
            "{took:?}"
        );
        drop(upstream);
        thread.join().unwrap();
    }
}
