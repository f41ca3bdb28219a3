//! The experiments of Chapter 2. `cargo run -p ch02-mutexes -- --help` lists the flags.

use ch02_mutexes::*;
use clap::Parser;
use measure::report::Session;
use measure::{Cell, Cli, LatencyHistogram, Measurement, Runner, mix};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Parameters, chosen for the mechanism and scaled to this machine (see `Params::new`).
struct Params {
    cores: u32,
    /// Tokio workers for the async experiments: every core, as a service would run.
    workers: u32,
    upstream_latency: Duration,
    held_calls: u32,
    timer_samples: u32,
    worker_sweep: Vec<u32>,
    tasks: u32,
    updates_per_task: u32,
    contention_threads: u32,
    increments_per_thread: u32,
    shard_counts: Vec<u32>,
    keys: u64,
    config_readers: u32,
    config_writes_per_s: u32,
    config_window: Duration,
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
            upstream_latency: Duration::from_millis(2),
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
            config_readers: cores,
            config_writes_per_s: 100,
            config_window: Duration::from_millis(if quick { 50 } else { 1000 }),
        }
    }

    fn as_record(&self) -> BTreeMap<String, serde_json::Value> {
        BTreeMap::from([
            ("cores".into(), json!(self.cores)),
            ("workers".into(), json!(self.workers)),
            (
                "upstream_latency_ms".into(),
                json!(self.upstream_latency.as_millis()),
            ),
            ("held_calls".into(), json!(self.held_calls)),
            ("timer_samples".into(), json!(self.timer_samples)),
            ("worker_sweep".into(), json!(self.worker_sweep)),
            ("tasks".into(), json!(self.tasks)),
            ("updates_per_task".into(), json!(self.updates_per_task)),
            ("contention_threads".into(), json!(self.contention_threads)),
            (
                "increments_per_thread".into(),
                json!(self.increments_per_thread),
            ),
            ("shard_counts".into(), json!(self.shard_counts)),
            ("keys".into(), json!(self.keys)),
            ("config_readers".into(), json!(self.config_readers)),
            (
                "config_writes_per_s".into(),
                json!(self.config_writes_per_s),
            ),
            (
                "config_window_ms".into(),
                json!(self.config_window.as_millis()),
            ),
        ])
    }
}

fn runtime(workers: u32) -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers as usize)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot build the runtime: {e}"))
}

/// Experiment `timer`: how late does a requested delay come back, from Tokio's timer and from
/// the deadline thread that models the upstream call?
fn timer(p: &Params, requested_us: u64, variant: &str) -> Result<Measurement, String> {
    let requested = Duration::from_micros(requested_us);
    let rt = runtime(p.workers)?;
    let (upstream, thread) = match variant {
        "tokio_sleep" => (Upstream::Timer(requested), None),
        _ => {
            let (precise, thread) = PreciseUpstream::start(requested);
            (Upstream::Precise(precise), Some(thread))
        }
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
    let rt = runtime(p.workers)?;
    let (precise, thread) = PreciseUpstream::start(p.upstream_latency);
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
fn which_mutex(p: &Params, workers: u32, variant: &str) -> Result<Measurement, String> {
    let rt = runtime(workers)?;
    let (tasks, n) = (p.tasks, p.updates_per_task);
    let key = move |t: u32, i: u32| u64::from((t * 7919 + i) % 1024);
    let std_map = Arc::new(StdCounters::default());
    let pl_map = Arc::new(ParkingLotCounters::default());
    let tokio_map = Arc::new(TokioCounters::default());
    let atomics: Arc<Vec<Padded>> = Arc::new((0..tasks).map(|_| Padded::default()).collect());
    let variant_owned = variant.to_string();
    let wall = rt.block_on(async {
        let start = Instant::now();
        let handles: Vec<_> = (0..tasks)
            .map(|t| {
                let (s, pl, tk, at, v) = (
                    std_map.clone(),
                    pl_map.clone(),
                    tokio_map.clone(),
                    atomics.clone(),
                    variant_owned.clone(),
                );
                tokio::spawn(async move {
                    match v.as_str() {
                        "std" => (0..n).for_each(|i| count_std(&s, key(t, i))),
                        "parking_lot" => (0..n).for_each(|i| count_parking_lot(&pl, key(t, i))),
                        "tokio" => {
                            for i in 0..n {
                                count_tokio(&tk, key(t, i)).await;
                            }
                        }
                        _ => (0..n).for_each(|_| count_atomic(&at[t as usize].0)),
                    }
                })
            })
            .collect();
        for h in handles {
            h.await.map_err(|e| format!("a task failed: {e}"))?;
        }
        Ok::<_, String>(start.elapsed())
    })?;
    let total = match variant {
        "std" => std_map.lock().expect("not poisoned").values().sum::<u64>(),
        "parking_lot" => pl_map.lock().values().sum(),
        "tokio" => tokio_map.blocking_lock().values().sum(),
        _ => atomics.iter().map(|a| a.0.load(Ordering::Relaxed)).sum(),
    };
    let expected = u64::from(tasks) * u64::from(n);
    if total != expected {
        return Err(format!(
            "{variant} with {workers} workers: counted {total} updates, expected {expected}"
        ));
    }
    let mut m = Measurement::new();
    m.push(
        "ns_per_update",
        "ns",
        wall.as_nanos() as f64 / expected as f64,
    );
    Ok(m)
}

/// A counter on its own cache line, so uncontended atomics do not share one.
#[derive(Default)]
#[repr(align(128))]
struct Padded(AtomicU64);

/// Experiment `sharding`: threads increment per-key counters behind one lock or N shards, each
/// acquisition timed.
fn sharding(p: &Params, shards: u32) -> Result<Measurement, String> {
    let counters = ShardedCounters::new(shards as usize);
    let (threads, n, keys) = (p.contention_threads, p.increments_per_thread, p.keys);
    let start = Instant::now();
    let (waited, acquire) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let counters = &counters;
                scope.spawn(move || {
                    let mut waited = Duration::ZERO;
                    let mut hist = LatencyHistogram::new();
                    for i in 0..n {
                        let key = mix(u64::from(t) << 32 | u64::from(i)) % keys;
                        count_timed(counters, key, &mut |w| {
                            waited += w;
                            hist.record(w);
                        });
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
    let wall = start.elapsed();
    let expected = u64::from(threads) * u64::from(n);
    if counters.total() != expected {
        return Err(format!(
            "{shards} shards: counted {}, expected {expected}",
            counters.total()
        ));
    }
    let mut m = Measurement::new();
    m.push("wall", "ms", wall.as_secs_f64() * 1e3)
        .push("waiting", "ms", waited.as_secs_f64() * 1e3)
        .push(
            "ns_per_increment",
            "ns",
            wall.as_nanos() as f64 / expected as f64,
        )
        .push(
            "acquire_mean",
            "ns",
            waited.as_nanos() as f64 / expected as f64,
        )
        .push("acquire_p50", "ns", acquire.p50_ns())
        .push("acquire_p99", "ns", acquire.p99_ns())
        .push("acquire_p99.9", "ns", acquire.p999_ns())
        .push("acquire_max", "ns", acquire.max_ns());
    Ok(m)
}

/// Experiment `config`: reader threads read the configuration as fast as they can while a writer
/// replaces it `config_writes_per_s` times a second.
fn config(p: &Params, variant: &str) -> Result<Measurement, String> {
    let shared = SharedConfig::new(variant).ok_or_else(|| format!("unknown reader {variant}"))?;
    let stop = AtomicBool::new(false);
    let torn = AtomicU64::new(0);
    let mut writes = 0u64;
    let reads: u64 = std::thread::scope(|scope| {
        let readers: Vec<_> = (0..p.config_readers)
            .map(|_| {
                let mut read = shared.reader();
                let (stop, torn) = (&stop, &torn);
                scope.spawn(move || {
                    let mut count = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        if !read().is_consistent() {
                            torn.fetch_add(1, Ordering::Relaxed);
                        }
                        count += 1;
                    }
                    count
                })
            })
            .collect();
        let period = Duration::from_secs(1) / p.config_writes_per_s;
        let end = Instant::now() + p.config_window;
        while Instant::now() < end {
            std::thread::sleep(period);
            writes += 1;
            shared.write(Config::new(writes));
        }
        stop.store(true, Ordering::Relaxed);
        readers
            .into_iter()
            .map(|r| r.join().expect("a reader panicked"))
            .sum()
    });
    let last = shared.reader()();
    if torn.load(Ordering::Relaxed) > 0 || last != Config::new(writes) {
        return Err(format!(
            "{variant}: torn reads or a lost write (last {last:?}, {writes} writes)"
        ));
    }
    let mut m = Measurement::new();
    m.push(
        "reads_per_s",
        "reads/s",
        reads as f64 / p.config_window.as_secs_f64(),
    );
    Ok(m)
}

/// Runs one cell of an experiment.
type CellFn<'a> = Box<dyn FnMut(&Cell, u32) -> Result<Measurement, String> + 'a>;

fn main() {
    let cli = Cli::parse();
    measure::assert_optimised!(cli);
    let mut session = Session::start(
        cli.clone(),
        "ch02-mutexes",
        "Mutexes",
        Path::new(env!("CARGO_MANIFEST_DIR")),
        5,
        &["tokio", "parking_lot", "arc-swap", "hdrhistogram"],
    );
    session.show(&[
        "actual_p50",
        "actual_p99",
        "wall",
        "p99",
        "ns_per_update",
        "waiting",
        "acquire_p99.9",
        "reads_per_s",
    ]);
    let p = Params::new(&cli, session.machine.available_parallelism);
    let (reps, seed) = (session.reps, session.seed);
    let cells = |cases: Vec<String>, variants: &[&str]| -> Vec<Cell> {
        cases
            .iter()
            .flat_map(|c| variants.iter().map(move |v| Cell::new(c, v)))
            .collect()
    };
    let timer_cases = vec!["50".to_string(), "1000".into(), "2000".into()];
    let workers: Vec<String> = p.worker_sweep.iter().map(|w| w.to_string()).collect();
    let shards: Vec<String> = p.shard_counts.iter().map(|s| s.to_string()).collect();
    let experiments: Vec<(Runner, CellFn)> = vec![
        (
            Runner::new(
                "timer",
                cells(timer_cases, &["tokio_sleep", "precise_upstream"]),
                reps,
                seed,
            ),
            Box::new(|c, _| timer(&p, c.case.parse().expect("delays in µs"), &c.variant)),
        ),
        (
            Runner::new(
                "guard_across_await",
                cells(vec![p.held_calls.to_string()], &["held", "scoped"]),
                reps,
                seed,
            ),
            Box::new(|c, _| guard_across_await(&p, &c.variant)),
        ),
        (
            Runner::new(
                "which_mutex",
                cells(workers, &["tokio", "std", "parking_lot", "atomic"]),
                reps,
                seed,
            ),
            Box::new(|c, _| which_mutex(&p, c.case.parse().expect("worker counts"), &c.variant)),
        ),
        (
            Runner::new("sharding", cells(shards, &["std_mutex"]), reps, seed),
            Box::new(|c, _| sharding(&p, c.case.parse().expect("shard counts"))),
        ),
        (
            Runner::new(
                "config",
                cells(
                    vec![p.config_readers.to_string()],
                    &["rwlock", "arc_swap", "watch"],
                ),
                reps,
                seed,
            ),
            Box::new(|c, _| config(&p, &c.variant)),
        ),
    ];
    let mut series = Vec::new();
    for (runner, f) in experiments {
        match runner.selected(&cli).run(f) {
            Ok(s) => series.extend(s),
            Err(e) => {
                eprintln!("error: {e}\nnothing was saved");
                std::process::exit(1);
            }
        }
    }
    if series.is_empty() {
        eprintln!("error: --filter matched no case or variant");
        std::process::exit(2);
    }
    if let Err(e) = session.finish(p.as_record(), series) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
