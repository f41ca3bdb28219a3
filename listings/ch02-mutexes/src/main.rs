//! The experiments of Chapter 2. `cargo run -p ch02-mutexes -- --help` lists the flags.

use ch02_mutexes::*;
use measure::{Cell, Chapter, Cli, Experiment, Harness, LatencyHistogram, Measurement, mix};
use measure_go::Program;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The setup, chosen for the mechanism and scaled to this machine (see `Params::new`).
#[derive(Serialize)]
struct Params {
    cores: u32,
    /// Tokio workers for the async experiments: every core, as a service would run.
    workers: u32,
    upstream_latency_ms: u64,
    held_calls: u32,
    timer_samples: u32,
    worker_sweep: Vec<u32>,
    tasks: u32,
    updates_per_task: u32,
    contention_threads: u32,
    increments_per_thread: u32,
    shard_counts: Vec<u32>,
    keys: u64,
    /// Experiment `acquire_time` times one acquisition in this many.
    acquire_sample_every: u32,
    config_readers: u32,
    config_writes_per_s: u32,
    config_window_ms: u64,
}

impl Params {
    fn new(cli: &Cli, cores: u32) -> Params {
        let workers = cli.workers.unwrap_or(cores);
        let quick = cli.quick;
        let mut worker_sweep: Vec<u32> = std::iter::successors(Some(1), |w| Some(w * 2))
            .take_while(|w| *w < workers)
            .collect();
        worker_sweep.push(workers);
        Params {
            cores,
            workers,
            upstream_latency_ms: 2,
            held_calls: if quick { 50 } else { 500 },
            timer_samples: if quick { 20 } else { 100 },
            worker_sweep,
            tasks: 64,
            updates_per_task: if quick { 1_000 } else { 20_000 },
            // Twice as many threads as cores, as the source ran 8 threads on 4 cores.
            contention_threads: 2 * cores,
            increments_per_thread: if quick { 20_000 } else { 500_000 },
            shard_counts: vec![1, 4, 16, 64],
            keys: 10_000,
            acquire_sample_every: 16,
            config_readers: cores,
            config_writes_per_s: 100,
            config_window_ms: if quick { 50 } else { 1000 },
        }
    }

    fn upstream_latency(&self) -> Duration {
        Duration::from_millis(self.upstream_latency_ms)
    }

    fn config_window(&self) -> Duration {
        Duration::from_millis(self.config_window_ms)
    }
}

/// Experiment `timer`: how late does a requested delay come back, from Tokio's timer and from
/// the deadline thread that models the upstream call?
fn timer(p: &Params, requested_us: u64, variant: &str) -> Result<Measurement, String> {
    let requested = Duration::from_micros(requested_us);
    let rt = measure::runtime(p.workers)?;
    let (upstream, thread) = match variant {
        "tokio_sleep" => (Upstream::Timer(requested), None),
        "precise_upstream" => {
            let (precise, thread) = PreciseUpstream::start(requested);
            (Upstream::Precise(precise), Some(thread))
        }
        other => return Err(format!("unknown timer variant {other}")),
    };
    let mut hist = LatencyHistogram::new();
    rt.block_on(async {
        for _ in 0..p.timer_samples {
            let t = Instant::now();
            upstream.call().await;
            hist.record(t.elapsed());
        }
    });
    drop(upstream);
    if let Some(t) = thread {
        t.join().map_err(|_| "the upstream thread panicked")?;
    }
    if hist.quantile_ns(0.0) < requested.as_nanos() as f64 * 0.999 {
        return Err(format!("{variant}: a {requested:?} delay came back early"));
    }
    let mut m = Measurement::new();
    m.push("actual_p50", "ns", hist.p50_ns())
        .push("actual_p99", "ns", hist.p99_ns());
    Ok(m)
}

/// Experiment `guard_across_await`: N handlers at once, each updating the map and then making a
/// 2 ms upstream call, with the guard held across the call or scoped before it.
fn guard_across_await(p: &Params, variant: &str) -> Result<Measurement, String> {
    let rt = measure::runtime(p.workers)?;
    let (precise, thread) = PreciseUpstream::start(p.upstream_latency());
    let upstream = Upstream::Precise(precise);
    let visits = Arc::new(Visits::default());
    let held = variant == "held";
    let (wall, latencies) = rt.block_on(async {
        let start = Instant::now();
        let handlers: Vec<_> = (0..p.held_calls)
            .map(|i| {
                let (visits, upstream) = (visits.clone(), upstream.clone());
                tokio::spawn(async move {
                    let page = u64::from(i % 16);
                    if held {
                        visit_guard_held(&visits, page, &upstream).await;
                    } else {
                        visit_guard_scoped(&visits, page, &upstream).await;
                    }
                    start.elapsed()
                })
            })
            .collect();
        let mut latencies = LatencyHistogram::new();
        for h in handlers {
            latencies.record(h.await.map_err(|e| format!("a handler failed: {e}"))?);
        }
        Ok::<_, String>((start.elapsed(), latencies))
    })?;
    drop(upstream);
    thread.join().map_err(|_| "the upstream thread panicked")?;
    let counts = visits.blocking_lock();
    let pages = 16.min(p.held_calls as usize);
    if counts.values().sum::<u64>() != u64::from(p.held_calls) || counts.len() != pages {
        return Err(format!(
            "{variant}: the visit counts do not add up to {}",
            p.held_calls
        ));
    }
    let mut m = Measurement::new();
    m.push("wall", "ms", wall.as_secs_f64() * 1e3)
        .push("p50", "ns", latencies.p50_ns())
        .push("p99", "ns", latencies.p99_ns())
        .push(
            "calls_per_s",
            "calls/s",
            f64::from(p.held_calls) / wall.as_secs_f64(),
        );
    Ok(m)
}

/// Experiment `which_mutex`: 64 tasks on the runtime's workers, each doing many updates of one
/// shared map, with no `.await` under the lock. Reports nanoseconds per update.
fn which_mutex(p: &Params, workers: u32, lock: Lock) -> Result<Measurement, String> {
    let rt = measure::runtime(workers)?;
    let (tasks, n) = (p.tasks, p.updates_per_task);
    let key = move |t: u32, i: u32| u64::from((t * 7919 + i) % 1024);
    let std_map = Arc::new(StdCounters::default());
    let pl_map = Arc::new(ParkingLotCounters::default());
    let tokio_map = Arc::new(TokioCounters::default());
    let atomics: Arc<Vec<Padded>> = Arc::new((0..tasks).map(|_| Padded::default()).collect());
    let wall = rt.block_on(async {
        let start = Instant::now();
        let handles: Vec<_> = (0..tasks)
            .map(|t| {
                let (s, pl, tk, at) = (
                    std_map.clone(),
                    pl_map.clone(),
                    tokio_map.clone(),
                    atomics.clone(),
                );
                tokio::spawn(CountPolls::new(async move {
                    match lock {
                        Lock::Std => (0..n).for_each(|i| count_std(&s, key(t, i))),
                        Lock::ParkingLot => (0..n).for_each(|i| count_parking_lot(&pl, key(t, i))),
                        Lock::Tokio => {
                            for i in 0..n {
                                count_tokio(&tk, key(t, i)).await;
                            }
                        }
                        Lock::TokioUnconstrained => {
                            for i in 0..n {
                                count_tokio_unconstrained(&tk, key(t, i)).await;
                            }
                        }
                        Lock::Atomic => (0..n).for_each(|_| count_atomic(&at[t as usize].0)),
                    }
                }))
            })
            .collect();
        let mut polls = 0;
        for h in handles {
            polls += h.await.map_err(|e| format!("a task failed: {e}"))?;
        }
        Ok::<_, String>((start.elapsed(), polls))
    })?;
    let (wall, polls) = wall;
    let total = match lock {
        Lock::Std => std_map.lock().expect("not poisoned").values().sum::<u64>(),
        Lock::ParkingLot => pl_map.lock().values().sum(),
        Lock::Tokio | Lock::TokioUnconstrained => tokio_map.blocking_lock().values().sum(),
        Lock::Atomic => atomics.iter().map(|a| a.0.load(Ordering::Relaxed)).sum(),
    };
    let expected = u64::from(tasks) * u64::from(n);
    if total != expected {
        return Err(format!(
            "{} with {workers} workers: counted {total} updates, expected {expected}",
            lock.name()
        ));
    }
    let mut m = Measurement::new();
    m.push(
        "ns_per_update",
        "ns",
        wall.as_nanos() as f64 / expected as f64,
    );
    // How many updates a task made per poll: the budget's convoy shows as one.
    m.push("updates_per_poll", "count", expected as f64 / polls as f64);
    Ok(m)
}

/// `which_mutex`'s Go variant: goroutines updating a map behind `sync.Mutex` (`go/main.go`).
const GO_MUTEX: &str = "go_sync_mutex";

/// The Go program, built before measuring when a selected cell runs it (`main`).
static GO: OnceLock<Program> = OnceLock::new();

/// What the Go program prints for a pass.
#[derive(Deserialize)]
struct GoReport {
    seconds: f64,
    checksum: u64,
}

/// `which_mutex` as goroutines: the same tasks, updates and keys on `workers` Go threads
/// (`GOMAXPROCS`), the counters' sum checked as the Rust variants' is.
fn which_mutex_go(p: &Params, workers: u32) -> Result<Measurement, String> {
    let go = GO
        .get()
        .ok_or("the Go program was not built before measuring")?;
    let (tasks, n) = (p.tasks.to_string(), p.updates_per_task.to_string());
    let text = go.run(workers, &["mutex", &tasks, &n], &[])?;
    let r: GoReport = serde_json::from_str(text.trim())
        .map_err(|e| format!("the Go program printed {text:?}: {e}"))?;
    let expected = u64::from(p.tasks) * u64::from(p.updates_per_task);
    if r.checksum != expected {
        return Err(format!(
            "{GO_MUTEX} with {workers} workers: counted {} updates, expected {expected}",
            r.checksum
        ));
    }
    let mut m = Measurement::new();
    m.push("ns_per_update", "ns", r.seconds * 1e9 / expected as f64);
    Ok(m)
}

/// Counts how often a task was polled, and returns the count with its completion.
struct CountPolls<F> {
    inner: std::pin::Pin<Box<F>>,
    polls: u64,
}

impl<F: Future<Output = ()>> CountPolls<F> {
    fn new(inner: F) -> Self {
        CountPolls {
            inner: Box::pin(inner),
            polls: 0,
        }
    }
}

impl<F: Future<Output = ()>> Future for CountPolls<F> {
    type Output = u64;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<u64> {
        self.polls += 1;
        self.inner.as_mut().poll(cx).map(|()| self.polls)
    }
}

/// A counter on its own cache line, so uncontended atomics do not share one.
#[derive(Default)]
#[repr(align(128))]
struct Padded(AtomicU64);

/// The keys thread `t` increments, in order: spread over `keys`, different per thread.
fn key_of(t: u32, i: u32, keys: u64) -> u64 {
    mix(u64::from(t) << 32 | u64::from(i)) % keys
}

/// Experiment `sharding`: `threads` threads increment per-key counters behind one lock or N
/// shards, with nothing else in the loop: wall time only. `padded` gives each shard its own cache
/// line; `packed` lays the shards side by side.
fn sharding(p: &Params, shards: u32, padded: bool, threads: u32) -> Result<Measurement, String> {
    let (n, keys) = (p.increments_per_thread, p.keys);
    let sharded = ShardedCounters::new(shards as usize);
    let packed = PackedCounters::new(shards as usize);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (sharded, packed) = (&sharded, &packed);
            scope.spawn(move || {
                for i in 0..n {
                    let key = key_of(t, i, keys);
                    if padded {
                        sharded.count(key);
                    } else {
                        packed.count(key);
                    }
                }
            });
        }
    });
    let wall = start.elapsed();
    let expected = u64::from(threads) * u64::from(n);
    let total = if padded {
        sharded.total()
    } else {
        packed.total()
    };
    if total != expected {
        return Err(format!(
            "{shards} shards: counted {total}, expected {expected}"
        ));
    }
    let mut m = Measurement::new();
    m.push("wall", "ms", wall.as_secs_f64() * 1e3).push(
        "ns_per_increment",
        "ns",
        wall.as_nanos() as f64 / expected as f64,
    );
    Ok(m)
}

/// Experiment `acquire_time`: the same counting, padded, with one acquisition in
/// `acquire_sample_every` timed (Spot it's histogram); its wall time is not compared.
fn acquire_time(p: &Params, shards: u32) -> Result<Measurement, String> {
    let (threads, n, keys) = (p.contention_threads, p.increments_per_thread, p.keys);
    let every = p.acquire_sample_every;
    let counters = ShardedCounters::new(shards as usize);
    let (sampled, acquire) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let counters = &counters;
                scope.spawn(move || {
                    let (mut waited, mut hist) = (Duration::ZERO, LatencyHistogram::new());
                    for i in 0..n {
                        let key = key_of(t, i, keys);
                        if i % every == 0 {
                            count_timed(counters, key, &mut |w| {
                                waited += w;
                                hist.record(w);
                            });
                        } else {
                            counters.count(key);
                        }
                    }
                    (waited, hist)
                })
            })
            .collect();
        let mut total = Duration::ZERO;
        let mut all = LatencyHistogram::new();
        for h in handles {
            let (w, hist) = h.join().expect("a counting thread panicked");
            total += w;
            all.merge(&hist);
        }
        (total, all)
    });
    let expected = u64::from(threads) * u64::from(n);
    if counters.total() != expected {
        return Err(format!(
            "{shards} shards: counted {}, expected {expected}",
            counters.total()
        ));
    }
    let mut m = Measurement::new();
    m.push(
        "acquire_mean",
        "ns",
        sampled.as_nanos() as f64 / acquire.len().max(1) as f64,
    )
    .push("acquire_p50", "ns", acquire.p50_ns())
    .push("acquire_p99", "ns", acquire.p99_ns())
    .push("acquire_p99.9", "ns", acquire.p999_ns())
    .push("acquire_max", "ns", acquire.max_ns())
    .push("acquire_samples", "count", acquire.len() as f64);
    Ok(m)
}

/// Experiment `config`: reader threads read the configuration as fast as they can while a writer
/// replaces it `config_writes_per_s` times a second. Reads per second over the readers' own time.
fn config(p: &Params, kind: &str) -> Result<Measurement, String> {
    let shared = SharedConfig::new(kind).ok_or_else(|| format!("unknown reader {kind}"))?;
    let stop = AtomicBool::new(false);
    let mut writes = 0u64;
    let (reads, torn, elapsed) = std::thread::scope(|scope| {
        let start = Instant::now();
        let readers: Vec<_> = (0..p.config_readers)
            .map(|_| scope.spawn(|| shared.read_until(&stop)))
            .collect();
        let period = Duration::from_secs(1) / p.config_writes_per_s;
        let end = start + p.config_window();
        while Instant::now() < end {
            std::thread::sleep(period);
            writes += 1;
            shared.write(Config::new(writes));
        }
        stop.store(true, Ordering::Relaxed);
        let (mut reads, mut torn) = (0, 0);
        for r in readers {
            let (n, t) = r.join().expect("a reader panicked");
            reads += n;
            torn += t;
        }
        (reads, torn, start.elapsed())
    });
    let last = shared.latest();
    if torn > 0 || last != Config::new(writes) {
        return Err(format!(
            "{kind}: {torn} torn reads or a lost write (last {last:?}, {writes} writes)"
        ));
    }
    let mut m = Measurement::new();
    m.push(
        "reads_per_s",
        "reads/s",
        reads as f64 / elapsed.as_secs_f64(),
    );
    Ok(m)
}

const CHAPTER: Chapter = Chapter {
    name: "ch02-mutexes",
    title: "Mutexes",
    about: "Locks in async code: a tokio::sync::Mutex guard held across a 2 ms upstream call or \
            scoped before it; tokio (with and without the cooperative budget), std and parking_lot \
            mutexes and an atomic, with no .await under the lock, from one worker to every core, \
            beside Go's sync.Mutex in goroutines (the Go variant needs Go); \
            one lock against padded and packed shards under contention, and the acquisition times \
            (sampled); read-mostly configuration behind RwLock, arc-swap and watch. Also measures \
            Tokio's timer, which decides how the upstream call is modelled.",
    listing_dir: env!("CARGO_MANIFEST_DIR"),
    crates: &["tokio", "parking_lot", "arc-swap", "hdrhistogram"],
    headline: &[
        "actual_p50",
        "actual_p99",
        "wall",
        "p99",
        "ns_per_update",
        "acquire_p99",
        "acquire_max",
        "reads_per_s",
    ],
    full_reps: 20,
};

fn main() {
    let mut h = Harness::start(CHAPTER);
    let p = Params::new(h.cli(), h.cores());
    h.params(&p);
    let mut locks: Vec<&str> = Lock::ALL.iter().map(|l| l.name()).collect();
    locks.push(GO_MUTEX);
    let lock = |c: &Cell| Lock::from_name(&c.variant).expect("cells name locks");
    let experiments = vec![
        Experiment::new(
            "timer",
            Cell::grid([50, 1000, 2000], ["tokio_sleep", "precise_upstream"]),
            |c, _| timer(&p, c.case.parse().expect("delays in µs"), &c.variant),
        )
        .shaped_by(measure::fields!(p => timer_samples, workers)),
        Experiment::new(
            "guard_across_await",
            Cell::grid([p.held_calls], ["held", "scoped"]),
            |c, _| guard_across_await(&p, &c.variant),
        )
        .shaped_by(measure::fields!(p => held_calls, upstream_latency_ms, workers)),
        Experiment::new("which_mutex", Cell::grid(&p.worker_sweep, &locks), |c, _| {
            let workers = c.case.parse().expect("worker counts");
            match c.variant.as_str() {
                GO_MUTEX => which_mutex_go(&p, workers),
                _ => which_mutex(&p, workers, lock(c)),
            }
        })
        .shaped_by(measure::fields!(p => tasks, updates_per_task, worker_sweep)),
        Experiment::new(
            "sharding",
            Cell::grid(
                &p.shard_counts,
                ["padded", "packed", "padded_cores_threads", "padded_one_thread"],
            ),
            |c, _| {
                // Twice the cores (the source's ratio), as many threads as cores (no thread
                // waits for a CPU), or one (nothing contends): what each costs apart.
                let threads = match c.variant.as_str() {
                    "padded_cores_threads" => p.cores,
                    "padded_one_thread" => 1,
                    _ => p.contention_threads,
                };
                let padded = c.variant != "packed";
                sharding(&p, c.case.parse().expect("shard counts"), padded, threads)
            },
        )
        .shaped_by(measure::fields!(p => contention_threads, increments_per_thread, shard_counts, keys, cores)),
        Experiment::new("acquire_time", Cell::grid(&p.shard_counts, ["sampled"]), |c, _| {
            acquire_time(&p, c.case.parse().expect("shard counts"))
        })
        .shaped_by(measure::fields!(p => contention_threads, increments_per_thread, shard_counts, keys, acquire_sample_every)),
        Experiment::new(
            "config",
            Cell::grid([p.config_readers], SharedConfig::KINDS),
            |c, _| config(&p, &c.variant),
        )
        .shaped_by(measure::fields!(p => config_readers, config_writes_per_s, config_window_ms)),
    ];
    // Built once, before anything is measured, when a selected cell runs it: without the pinned
    // Go the run stops here, and a run of the Rust variants alone needs no Go.
    let go = h.prepare_for(
        &experiments,
        |c| c.variant == GO_MUTEX,
        || Program::build(CHAPTER.listing_dir, CHAPTER.name),
    );
    if let Some(go) = go {
        h.derived("go_version", go.version());
        let _ = GO.set(go);
    }
    h.run(experiments);
}
