//! The experiments of Chapter 1: light requests arrive open loop at a fixed rate while heavy CPU
//! jobs arrive in bursts. `blocking` sweeps the burst size and compares where the heavy work
//! runs; `heavy_cost` sweeps the heavy job's length at a burst as large as the worker count;
//! `spawn_path` spawns the requests from inside the runtime, as a server's accept loop does;
//! `lifo` wakes tasks from a handler that then burns, on two workers; `generator` measures the
//! load generator alone.
//!
//! `cargo run -p ch01-blocking -- --help` lists the flags.

use ch01_blocking::{
    HEAVY_BURNS, Variant, accept_loop, burn, heavy_request, light_request, tick_lag_probe,
    wake_then_burn,
};
use measure::loadgen::{Arrival, GeneratorReport, OpenLoop, fixed_rate, measure_alone};
use measure::{Cell, Chapter, Checksum, Cli, Experiment, Harness, LatencyHistogram, Measurement};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio_metrics::TaskMonitor;

/// The experiment's setup, chosen for this machine (see `Params::for_machine`); the record keeps
/// it, and a reader's run is compared with the book's only where it matches.
#[derive(Clone, Debug, Serialize)]
struct Params {
    workers: u32,
    lane_threads: u32,
    light_cost_us: u64,
    /// The heavy job of the `blocking` and `spawn_path` experiments.
    heavy_cost_ms: f64,
    /// Share of the workers' capacity the light requests use.
    light_load: f64,
    /// Share of the workers' capacity the heavy jobs would use if they ran on the workers.
    heavy_load: f64,
    light_rate_per_s: f64,
    heavy_rate_per_s: f64,
    warmup_ms: u64,
    window_ms: u64,
    bursts: Vec<u32>,
    /// The heavy job lengths of the `heavy_cost` experiment, at a burst of `workers`.
    heavy_costs_ms: Vec<f64>,
    heavy_cost_window_ms: u64,
    probe_period_ms: u64,
    slow_poll_threshold_ms: u64,
    generator_spin_us: u64,
    /// `yield_chunks` yields after this much work: a few light requests' worth.
    yield_chunk_us: u64,
    /// `lifo`: workers (two, so that one is idle while the other burns), the burn after each
    /// wake, and how many wakes per cell.
    lifo_workers: u32,
    lifo_burn_ms: f64,
    lifo_rounds: u32,
}

impl Params {
    /// Tokio gets half as many workers as there are cores; nothing is pinned, so the workers,
    /// the blocking pool, the lane and the load generator share every core. Offered load
    /// scales with the worker count.
    fn for_machine(cli: &Cli, cores: u32) -> Params {
        let workers = cli.workers.unwrap_or((cores / 2).max(1));
        let (light_cost_us, heavy_cost_ms) = (40, 30.0);
        let (light_load, heavy_load) = (0.10, 0.25);
        let quick = cli.quick;
        Params {
            workers,
            lane_threads: cores.saturating_sub(workers + 1).max(1),
            light_cost_us,
            heavy_cost_ms,
            light_load,
            heavy_load,
            light_rate_per_s: light_load * f64::from(workers) * 1e6 / light_cost_us as f64,
            heavy_rate_per_s: heavy_rate(heavy_load, workers, heavy_cost_ms),
            warmup_ms: if quick { 100 } else { 300 },
            window_ms: if quick { 600 } else { 2500 },
            bursts: if quick {
                vec![0, workers]
            } else {
                burst_sweep(workers)
            },
            heavy_costs_ms: if quick {
                vec![0.1, 30.0]
            } else {
                vec![0.1, 1.0, 3.0, 10.0, 30.0]
            },
            heavy_cost_window_ms: if quick { 600 } else { 2000 },
            probe_period_ms: 10,
            slow_poll_threshold_ms: 1,
            generator_spin_us: 100,
            yield_chunk_us: 100,
            lifo_workers: 2,
            lifo_burn_ms: 5.0,
            lifo_rounds: if quick { 20 } else { 100 },
        }
    }
}

/// Heavy jobs per second that take `load` of `workers` workers' capacity.
fn heavy_rate(load: f64, workers: u32, cost_ms: f64) -> f64 {
    load * f64::from(workers) * 1e3 / cost_ms
}

/// 0 to twice the worker count: every size when that is short, else the sizes around `workers`.
fn burst_sweep(workers: u32) -> Vec<u32> {
    if workers <= 3 {
        (0..=2 * workers).collect()
    } else {
        let mut v = vec![
            0,
            1,
            workers / 2,
            workers - 1,
            workers,
            workers + 1,
            2 * workers,
        ];
        v.dedup();
        v
    }
}

/// How many rounds of `burn` take one microsecond here (the fastest of several tries).
fn calibrate() -> f64 {
    let rounds = 2_000_000;
    (0..7)
        .map(|i| {
            let t = Instant::now();
            burn(rounds, i);
            rounds as f64 / (t.elapsed().as_secs_f64() * 1e6)
        })
        .fold(0.0, f64::max)
}

/// How the requests reach the runtime.
#[derive(Clone, Copy, Debug, PartialEq)]
enum SpawnPath {
    /// The generator thread spawns each request: Tokio's injection queue.
    Injection,
    /// The generator hands each request to an accept loop on a worker, which spawns it.
    AcceptLoop,
}

impl SpawnPath {
    fn name(self) -> &'static str {
        match self {
            SpawnPath::Injection => "injection",
            SpawnPath::AcceptLoop => "accept_loop",
        }
    }

    fn from_name(name: &str) -> Option<SpawnPath> {
        [SpawnPath::Injection, SpawnPath::AcceptLoop]
            .into_iter()
            .find(|p| p.name() == name)
    }
}

/// One cell's workload: what arrives and how.
#[derive(Clone, Copy, Debug)]
struct Workload {
    burst: u32,
    heavy_cost_ms: f64,
    window: Duration,
    path: SpawnPath,
}

impl Workload {
    fn heavy_rounds(&self, rounds_per_us: f64) -> u64 {
        (self.heavy_cost_ms * 1e3 * rounds_per_us) as u64
    }
}

/// What the generator sends.
#[derive(Clone, Copy, Debug)]
enum Job {
    Light(u64),
    Heavy(u64),
}

/// Light seeds repeat every `LIGHT_SEEDS`, heavy ones every `HEAVY_SEEDS`, so the expected
/// checksum costs one pass over each table.
const LIGHT_SEEDS: u64 = 1024;
const HEAVY_SEEDS: u64 = 8;

/// The expected digests of every light seed and, per heavy job length, every heavy seed.
struct Expected {
    rounds_per_us: f64,
    light_rounds: u64,
    light: Vec<u64>,
    heavy: BTreeMap<u64, Vec<u64>>,
}

impl Expected {
    fn new(p: &Params, rounds_per_us: f64) -> Expected {
        let light_rounds = (p.light_cost_us as f64 * rounds_per_us) as u64;
        let mut heavy = BTreeMap::new();
        for cost in p.heavy_costs_ms.iter().chain([&p.heavy_cost_ms]) {
            let w = Workload {
                burst: 1,
                heavy_cost_ms: *cost,
                window: Duration::ZERO,
                path: SpawnPath::Injection,
            };
            let rounds = w.heavy_rounds(rounds_per_us);
            heavy
                .entry(rounds)
                .or_insert_with(|| (0..HEAVY_SEEDS).map(|s| burn(rounds, s)).collect());
        }
        Expected {
            rounds_per_us,
            light_rounds,
            light: (0..LIGHT_SEEDS).map(|s| burn(light_rounds, s)).collect(),
            heavy,
        }
    }
}

/// The arrivals of one run: light requests at a fixed rate for warm-up plus window, heavy jobs
/// in bursts of `burst` spread evenly over the window.
fn schedule(p: &Params, w: &Workload) -> Vec<Arrival<Job>> {
    let total = Duration::from_millis(p.warmup_ms) + w.window;
    let light_count = (p.light_rate_per_s * total.as_secs_f64()).round() as usize;
    let mut jobs: Vec<Arrival<Job>> =
        fixed_rate(p.light_rate_per_s, Duration::ZERO, light_count, ())
            .into_iter()
            .enumerate()
            .map(|(i, a)| Arrival {
                at: a.at,
                what: Job::Light(i as u64),
            })
            .collect();
    if w.burst > 0 {
        let burst_rate = heavy_rate(p.heavy_load, p.workers, w.heavy_cost_ms) / f64::from(w.burst);
        let bursts = (burst_rate * w.window.as_secs_f64()).round().max(1.0) as usize;
        let first = Duration::from_millis(p.warmup_ms) + Duration::from_secs_f64(0.5 / burst_rate);
        let mut heavy_id = 0;
        for b in fixed_rate(burst_rate, first, bursts, ()) {
            for _ in 0..w.burst {
                jobs.push(Arrival {
                    at: b.at,
                    what: Job::Heavy(heavy_id),
                });
                heavy_id += 1;
            }
        }
    }
    jobs.sort_by_key(|a| a.at);
    jobs
}

/// What a handler reports when it is done.
enum Done {
    Light,
    /// A heavy job, with its time from scheduled arrival to answer.
    Heavy(Duration),
}

/// Everything the handlers of one run share.
struct Shared {
    variant: Variant,
    lane: rayon::ThreadPool,
    light_rounds: u64,
    heavy_rounds: u64,
    /// The rounds `yield_chunks` burns between two yields.
    chunk_rounds: u64,
    /// Each light request's latency in ns, from its scheduled arrival.
    light_latency: Vec<AtomicU64>,
    light_sum: Checksum,
    heavy_sum: Checksum,
}

/// Serves one request: the light or heavy work, timed from its scheduled arrival.
async fn serve(job: Job, scheduled: Instant, shared: Arc<Shared>) -> Done {
    match job {
        Job::Light(id) => {
            let digest = light_request(shared.light_rounds, id % LIGHT_SEEDS).await;
            shared.light_sum.add(digest);
            let ns = scheduled.elapsed().as_nanos() as u64;
            shared.light_latency[id as usize].store(ns, Ordering::Relaxed);
            Done::Light
        }
        Job::Heavy(id) => {
            let s = &shared;
            let (rounds, chunk) = (s.heavy_rounds, s.chunk_rounds);
            let digest = heavy_request(s.variant, &s.lane, rounds, chunk, id % HEAVY_SEEDS).await;
            shared.heavy_sum.add(digest);
            Done::Heavy(scheduled.elapsed())
        }
    }
}

/// Experiment `lifo`: a handler on a worker wakes `woken` waiting tasks, then burns; each woken
/// task reports how long after its wake it was first polled. Rounds are spaced so that every
/// worker is idle when the next begins.
fn lifo_cell(p: &Params, rounds_per_us: f64, woken: usize) -> Result<Measurement, String> {
    let rt = measure::runtime(p.lifo_workers)?;
    let rounds = (p.lifo_burn_ms * 1e3 * rounds_per_us) as u64;
    let expected: Vec<u64> = (0..HEAVY_SEEDS).map(|s| burn(rounds, s)).collect();
    let (mut first, mut last, mut burnt) = (
        LatencyHistogram::new(),
        LatencyHistogram::new(),
        LatencyHistogram::new(),
    );
    rt.block_on(async {
        for round in 0..u64::from(p.lifo_rounds) {
            let (senders, waits): (Vec<_>, Vec<_>) = (0..woken)
                .map(|_| {
                    let (tx, mut rx) =
                        tokio::sync::mpsc::unbounded_channel::<tokio::time::Instant>();
                    let wait = tokio::spawn(async move { rx.recv().await.map(|at| at.elapsed()) });
                    (tx, wait)
                })
                .unzip();
            // Let the waiting tasks reach their `recv` and every worker park.
            tokio::time::sleep(Duration::from_millis(2)).await;
            let seed = round % HEAVY_SEEDS;
            let handler = tokio::spawn(async move {
                let started = Instant::now();
                let digest = wake_then_burn(&senders, rounds, seed);
                (digest, started.elapsed())
            });
            let (digest, took) = handler.await.map_err(|e| format!("the handler: {e}"))?;
            if digest != expected[seed as usize] {
                return Err(format!(
                    "lifo: round {round} burnt {digest:#x}, expected another digest"
                ));
            }
            burnt.record(took);
            for (i, wait) in waits.into_iter().enumerate() {
                let waited = wait
                    .await
                    .map_err(|e| format!("a woken task: {e}"))?
                    .ok_or("a woken task saw its channel close")?;
                if i == 0 {
                    first.record(waited);
                }
                if i == woken - 1 {
                    last.record(waited);
                }
            }
        }
        Ok::<_, String>(())
    })?;
    let mut m = Measurement::new();
    m.push("first_woken_wait", "ns", first.p50_ns())
        .push("last_woken_wait", "ns", last.p50_ns())
        .push("burn", "ns", burnt.p50_ns());
    Ok(m)
}

/// The monitors of Spot it: slow polls of heavy handlers, and how long light requests waited
/// for their first poll. Only requests that arrive in the measurement window are instrumented.
struct Monitors {
    heavy: TaskMonitor,
    light: TaskMonitor,
    warmup: TaskMonitor,
}

/// Runs one cell: a fresh runtime (and lane), the generator on this thread, then the metrics.
fn run_cell(
    p: &Params,
    expected: &Expected,
    w: &Workload,
    variant: Variant,
) -> Result<Measurement, String> {
    let rt = measure::runtime(p.workers)?;
    let lane = rayon::ThreadPoolBuilder::new()
        .num_threads(p.lane_threads as usize)
        .thread_name(|i| format!("compute-lane-{i}"))
        .build()
        .map_err(|e| format!("cannot build the compute lane: {e}"))?;
    let jobs = schedule(p, w);
    let light_total = jobs
        .iter()
        .filter(|j| matches!(j.what, Job::Light(_)))
        .count();
    let shared = Arc::new(Shared {
        variant,
        lane,
        light_rounds: expected.light_rounds,
        heavy_rounds: w.heavy_rounds(expected.rounds_per_us),
        chunk_rounds: (p.yield_chunk_us as f64 * expected.rounds_per_us) as u64,
        light_latency: (0..light_total).map(|_| AtomicU64::new(0)).collect(),
        light_sum: Checksum::new(),
        heavy_sum: Checksum::new(),
    });
    // ANCHOR: task_monitors
    // Spot it: tokio-metrics counts polls slower than the threshold, and how long each light
    // request waited for its first poll after it was spawned.
    let monitors = Monitors {
        heavy: TaskMonitor::with_slow_poll_threshold(Duration::from_millis(
            p.slow_poll_threshold_ms,
        )),
        light: TaskMonitor::new(),
        warmup: TaskMonitor::new(),
    };
    // ANCHOR_END: task_monitors
    let warmup = Duration::from_millis(p.warmup_ms);
    HEAVY_BURNS.take();
    let stop = Arc::new(AtomicBool::new(false));
    let probe = rt.spawn(tick_lag_probe(
        Duration::from_millis(p.probe_period_ms),
        stop.clone(),
    ));
    let (to_accept_loop, incoming) = tokio::sync::mpsc::unbounded_channel();
    let server = rt.spawn(accept_loop(incoming));
    let mut handlers = Vec::with_capacity(jobs.len());
    let start = Instant::now() + Duration::from_millis(20);
    let request = |job: &Job, scheduled: Instant| {
        let monitor = match job {
            Job::Heavy(_) => &monitors.heavy,
            Job::Light(_) if scheduled >= start + warmup => &monitors.light,
            Job::Light(_) => &monitors.warmup,
        };
        monitor.instrument(serve(*job, scheduled, shared.clone()))
    };
    // ANCHOR: open_loop
    // Each request leaves the generator at its scheduled time, whatever the runtime is doing,
    // and its latency is counted from that time: a stalled runtime cannot hide its queue.
    let generator = OpenLoop {
        spin: Duration::from_micros(p.generator_spin_us),
    }
    .run(start, &jobs, |job, scheduled| {
        let request = request(job, scheduled);
        match w.path {
            SpawnPath::Injection => handlers.push(rt.spawn(request)),
            SpawnPath::AcceptLoop => to_accept_loop
                .send(request)
                .expect("the accept loop runs until the channel closes"),
        }
    });
    // ANCHOR_END: open_loop
    drop(to_accept_loop);
    let done = rt.block_on(async {
        handlers.extend(
            server
                .await
                .map_err(|e| format!("the accept loop failed: {e}"))?,
        );
        let mut done = Vec::with_capacity(handlers.len());
        for h in handlers {
            done.push(h.await.map_err(|e| format!("a request failed: {e}"))?);
        }
        Ok::<_, String>(done)
    })?;
    let drained = start.elapsed();
    stop.store(true, Ordering::Relaxed);
    let ticks = rt
        .block_on(probe)
        .map_err(|e| format!("the probe failed: {e}"))?;
    rt.shutdown_timeout(Duration::from_secs(5));

    let heavy: Vec<Duration> = done
        .iter()
        .filter_map(|d| match d {
            Done::Heavy(t) => Some(*t),
            Done::Light => None,
        })
        .collect();
    verify(expected, &shared, w, variant, light_total, heavy.len())?;
    let window_start = start + warmup;
    let (burn_wall, burn_cpu) = HEAVY_BURNS.take();
    let outcome = Outcome {
        jobs: &jobs,
        light_latency: &shared.light_latency,
        heavy: &heavy,
        drain: drained.saturating_sub(warmup + w.window),
        generator: &generator,
        worst_tick_lag: ticks
            .iter()
            .filter(|(due, _)| (window_start..window_start + w.window).contains(&due.into_std()))
            .map(|t| t.1)
            .max()
            .unwrap_or_default(),
        monitors: &monitors,
        burn_wall,
        burn_cpu,
    };
    Ok(metrics(warmup, &outcome))
}

/// Every light and heavy result, folded into checksums, against the digests computed apart.
fn verify(
    expected: &Expected,
    shared: &Shared,
    w: &Workload,
    variant: Variant,
    light_total: usize,
    heavy_count: usize,
) -> Result<(), String> {
    let what = format!(
        "burst {} / heavy {} ms / {} / {}",
        w.burst,
        w.heavy_cost_ms,
        w.path.name(),
        variant.name()
    );
    let heavy = &expected.heavy[&w.heavy_rounds(expected.rounds_per_us)];
    shared
        .light_sum
        .verify(
            &format!("{what}: light requests"),
            Checksum::expected(
                (0..light_total as u64).map(|i| expected.light[(i % LIGHT_SEEDS) as usize]),
            ),
        )
        .map_err(|e| e.to_string())?;
    shared
        .heavy_sum
        .verify(
            &format!("{what}: heavy jobs"),
            Checksum::expected((0..heavy_count as u64).map(|i| heavy[(i % HEAVY_SEEDS) as usize])),
        )
        .map_err(|e| e.to_string())
}

/// What one run left behind, before it is summarised.
struct Outcome<'a> {
    jobs: &'a [Arrival<Job>],
    light_latency: &'a [AtomicU64],
    heavy: &'a [Duration],
    /// From the end of the window to the last answer: the backlog left when arrivals stopped.
    drain: Duration,
    generator: &'a GeneratorReport,
    /// The probe's worst lateness over ticks due in the window.
    worst_tick_lag: Duration,
    monitors: &'a Monitors,
    /// Per heavy job: the burn's wall time, and the CPU time its thread got meanwhile.
    burn_wall: Duration,
    burn_cpu: Duration,
}

/// Turns one run's raw samples into the chapter's metrics, over the measurement window: warm-up
/// requests are left out, and the monitors saw only requests that arrived in the window.
fn metrics(warmup: Duration, o: &Outcome) -> Measurement {
    let mut hist = LatencyHistogram::new();
    for job in o.jobs {
        if let Job::Light(id) = job.what
            && job.at >= warmup
        {
            let ns = o.light_latency[id as usize].load(Ordering::Relaxed);
            hist.record(Duration::from_nanos(ns));
        }
    }
    let heavy: Vec<f64> = o.heavy.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    let heavy_median = measure::Summary::of(&heavy).map_or(0.0, |s| s.median);
    // Jobs queued behind each other make the times bimodal: the median can fall between the
    // modes, so the mean and the slowest are reported too.
    let heavy_mean = heavy.iter().sum::<f64>() / heavy.len().max(1) as f64;
    let heavy_max = heavy.iter().copied().fold(0.0, f64::max);
    let heavy_stats = o.monitors.heavy.cumulative();
    let light_stats = o.monitors.light.cumulative();
    let mut m = Measurement::new();
    m.push("p50", "ns", hist.p50_ns())
        .push("p99", "ns", hist.p99_ns())
        .push("p99.9", "ns", hist.p999_ns())
        .push("max", "ns", hist.max_ns())
        .push("samples", "count", hist.len() as f64)
        .push(
            "over_10ms",
            "%",
            100.0 * hist.share_above(Duration::from_millis(10)),
        )
        .push("heavy_job", "ms", heavy_median)
        .push("heavy_job_mean", "ms", heavy_mean)
        .push("heavy_job_max", "ms", heavy_max)
        .push("burn_wall", "ms", o.burn_wall.as_secs_f64() * 1e3)
        .push("burn_cpu", "ms", o.burn_cpu.as_secs_f64() * 1e3)
        .push("drain", "ns", o.drain.as_nanos() as f64)
        .push("tick_lag_max", "ns", o.worst_tick_lag.as_nanos() as f64)
        .push(
            "heavy_slow_polls",
            "count",
            heavy_stats.total_slow_poll_count as f64,
        )
        .push(
            "heavy_mean_slow_poll",
            "ns",
            heavy_stats.mean_slow_poll_duration().as_nanos() as f64,
        )
        .push(
            "light_first_poll_delay",
            "ns",
            light_stats.mean_first_poll_delay().as_nanos() as f64,
        )
        .push("gen_error_p99", "ns", o.generator.timing_error.p99_ns())
        .push(
            "gen_share_of_p99",
            "%",
            100.0 * o.generator.timing_error.p99_ns() / hist.p99_ns().max(1.0),
        )
        .push("gen_cpu", "%", 100.0 * o.generator.cpu_share());
    m
}

/// Spin margins (µs) at which the generator measures itself alone.
const GENERATOR_SPINS_US: [u64; 5] = [0, 25, 50, 100, 200];

/// The generator alone at this chapter's light rate: the floor under every latency it measures.
fn generator_alone(p: &Params, spin_us: u64) -> Result<Measurement, String> {
    let length = Duration::from_millis(p.window_ms.min(1000));
    let report = measure_alone(p.light_rate_per_s, length, Duration::from_micros(spin_us));
    let mut m = Measurement::new();
    m.push("error_p50", "ns", report.timing_error.p50_ns())
        .push("error_p99", "ns", report.timing_error.p99_ns())
        .push("error_max", "ns", report.timing_error.max_ns())
        .push("cpu", "%", 100.0 * report.cpu_share());
    Ok(m)
}

const CHAPTER: Chapter = Chapter {
    name: "ch01-blocking",
    title: "Blocking the runtime",
    about: "Light requests arrive open loop at a fixed rate while heavy CPU jobs arrive in bursts of 0 \
            to twice the worker count; the heavy work runs inline on a worker, in spawn_blocking, in \
            block_in_place or on a Rayon lane. Also sweeps the heavy job's length (0.1 to 30 ms) at a \
            burst as large as the worker count, inline, in spawn_blocking and in chunks of 100 µs \
            with yield_now between them, and spawns the requests from an accept loop inside \
            the runtime; on two workers, wakes one or two tasks from a handler that then burns \
            5 ms, and times their wait. Reports the light requests' latency from their scheduled \
            arrival (p50 to max), the heavy jobs' time, a tick-lag probe, tokio-metrics and the \
            generator's own error.",
    listing_dir: env!("CARGO_MANIFEST_DIR"),
    crates: &["tokio", "rayon", "tokio-metrics", "hdrhistogram"],
    headline: &[
        "p50",
        "p99",
        "p99.9",
        "max",
        "over_10ms",
        "heavy_job",
        "tick_lag_max",
        "gen_error_p99",
    ],
    full_reps: 10,
};

fn main() {
    let mut h = Harness::start(CHAPTER);
    let p = Params::for_machine(h.cli(), h.cores());
    let rounds_per_us = calibrate();
    eprintln!(
        "{} Tokio worker(s), {}-thread compute lane; light {:.0} req/s of {} µs, heavy {:.1} jobs/s of {} ms; bursts {:?}; heavy costs {:?} ms",
        p.workers,
        p.lane_threads,
        p.light_rate_per_s,
        p.light_cost_us,
        p.heavy_rate_per_s,
        p.heavy_cost_ms,
        p.bursts,
        p.heavy_costs_ms
    );
    h.params(&p);
    let expected = Expected::new(&p, rounds_per_us);
    h.derived("calibrated_rounds_per_us", rounds_per_us);
    h.derived("light_rounds", expected.light_rounds);
    let main_workload = |burst| Workload {
        burst,
        heavy_cost_ms: p.heavy_cost_ms,
        window: Duration::from_millis(p.window_ms),
        path: SpawnPath::Injection,
    };
    let variants: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
    let variant = |cell: &Cell| Variant::from_name(&cell.variant).expect("cells name variants");
    let paths = ["injection", "accept_loop"];
    h.run(vec![
        Experiment::new("blocking", Cell::grid(&p.bursts, &variants), |cell, _| {
            let burst = cell.case.parse().expect("cases are burst sizes");
            run_cell(&p, &expected, &main_workload(burst), variant(cell))
        })
        .shaped_by(measure::fields!(p => workers, lane_threads, light_cost_us, heavy_cost_ms, light_load, heavy_load, warmup_ms, window_ms, bursts, generator_spin_us)),
        Experiment::new(
            "heavy_cost",
            Cell::grid(
                &p.heavy_costs_ms,
                ["inline", "spawn_blocking", "yield_chunks"],
            ),
            |cell, _| {
                let w = Workload {
                    heavy_cost_ms: cell.case.parse().expect("cases are job lengths"),
                    window: Duration::from_millis(p.heavy_cost_window_ms),
                    ..main_workload(p.workers)
                };
                run_cell(&p, &expected, &w, variant(cell))
            },
        )
        // With jobs of 1 ms, spawn_blocking's p99 turns on where its thread runs, from one
        // repetition to the next: ten left two claims undecided; the report estimated 25.
        .shaped_by(measure::fields!(p => workers, light_cost_us, light_load, heavy_load, warmup_ms, heavy_costs_ms, heavy_cost_window_ms, generator_spin_us, yield_chunk_us))
        .repetitions(25),
        Experiment::new(
            "spawn_path",
            Cell::grid(paths, ["inline", "spawn_blocking"]),
            |cell, _| {
                let w = Workload {
                    path: SpawnPath::from_name(&cell.case).expect("cases are spawn paths"),
                    ..main_workload(p.workers)
                };
                run_cell(&p, &expected, &w, variant(cell))
            },
        )
        .shaped_by(measure::fields!(p => workers, light_cost_us, heavy_cost_ms, light_load, heavy_load, warmup_ms, window_ms, generator_spin_us)),
        Experiment::new(
            "lifo",
            Cell::grid([p.lifo_burn_ms], ["wake_one", "wake_two"]),
            |cell, _| lifo_cell(&p, rounds_per_us, if cell.variant == "wake_one" { 1 } else { 2 }),
        )
        .shaped_by(measure::fields!(p => lifo_workers, lifo_burn_ms, lifo_rounds)),
        Experiment::new("generator", Cell::grid(GENERATOR_SPINS_US, ["alone"]), |cell, _| {
            generator_alone(&p, cell.case.parse().expect("cases are spin margins"))
        })
        .shaped_by(measure::fields!(p => light_rate_per_s, window_ms)),
    ]);
}
