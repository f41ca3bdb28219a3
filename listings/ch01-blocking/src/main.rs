//! The experiment of Chapter 1: light requests arrive open loop at a fixed rate while heavy CPU
//! jobs arrive in bursts; we sweep the burst size and compare where the heavy work runs.
//!
//! `cargo run -p ch01-blocking -- --help` lists the flags.

use ch01_blocking::{Variant, burn, heavy_request, light_request, tick_lag_probe};
use measure::loadgen::{Arrival, OpenLoop, fixed_rate, measure_alone};
use measure::{Cell, Chapter, Checksum, Cli, Experiment, Harness, LatencyHistogram, Measurement};
use serde::Serialize;
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
    heavy_cost_ms: u64,
    /// Share of the workers' capacity the light requests use.
    light_load: f64,
    /// Share of the workers' capacity the heavy jobs would use if they ran on the workers.
    heavy_load: f64,
    light_rate_per_s: f64,
    heavy_rate_per_s: f64,
    warmup_ms: u64,
    window_ms: u64,
    bursts: Vec<u32>,
    probe_period_ms: u64,
    slow_poll_threshold_ms: u64,
    generator_spin_us: u64,
    /// Rounds of `burn` per microsecond, calibrated here (kept among the derived values).
    #[serde(skip)]
    rounds_per_us: f64,
}

impl Params {
    /// Half the cores run Tokio's workers; the rest are left to the load generator and to the
    /// work the fixes move off the workers. Offered load scales with the worker count.
    fn for_machine(cli: &Cli, cores: u32, rounds_per_us: f64) -> Params {
        let workers = cli.workers.unwrap_or((cores / 2).max(1));
        let (light_cost_us, heavy_cost_ms) = (40, 30);
        let (light_load, heavy_load) = (0.10, 0.25);
        Params {
            workers,
            lane_threads: cores.saturating_sub(workers + 1).max(1),
            light_cost_us,
            heavy_cost_ms,
            light_load,
            heavy_load,
            light_rate_per_s: light_load * f64::from(workers) * 1e6 / light_cost_us as f64,
            heavy_rate_per_s: heavy_load * f64::from(workers) * 1e3 / heavy_cost_ms as f64,
            warmup_ms: if cli.quick { 100 } else { 300 },
            window_ms: if cli.quick { 600 } else { 2500 },
            bursts: if cli.quick {
                vec![0, workers]
            } else {
                burst_sweep(workers)
            },
            probe_period_ms: 10,
            slow_poll_threshold_ms: 1,
            generator_spin_us: 100,
            rounds_per_us,
        }
    }

    fn light_cost(&self) -> Duration {
        Duration::from_micros(self.light_cost_us)
    }
    fn heavy_cost(&self) -> Duration {
        Duration::from_millis(self.heavy_cost_ms)
    }
    fn warmup(&self) -> Duration {
        Duration::from_millis(self.warmup_ms)
    }
    fn window(&self) -> Duration {
        Duration::from_millis(self.window_ms)
    }
    fn light_rounds(&self) -> u64 {
        (self.light_cost().as_secs_f64() * 1e6 * self.rounds_per_us) as u64
    }
    fn heavy_rounds(&self) -> u64 {
        (self.heavy_cost().as_secs_f64() * 1e6 * self.rounds_per_us) as u64
    }
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

/// The expected digests of every light and heavy seed, computed once.
struct Expected {
    light: Vec<u64>,
    heavy: Vec<u64>,
}

impl Expected {
    fn new(p: &Params) -> Expected {
        Expected {
            light: (0..LIGHT_SEEDS)
                .map(|s| burn(p.light_rounds(), s))
                .collect(),
            heavy: (0..HEAVY_SEEDS)
                .map(|s| burn(p.heavy_rounds(), s))
                .collect(),
        }
    }
}

/// The arrivals of one run: light requests at a fixed rate for warm-up plus window, heavy jobs
/// in bursts of `burst` spread evenly over the window.
fn schedule(p: &Params, burst: u32) -> Vec<Arrival<Job>> {
    let total = p.warmup() + p.window();
    let light_count = (p.light_rate_per_s * total.as_secs_f64()).round() as usize;
    let mut arrivals = fixed_rate(p.light_rate_per_s, Duration::ZERO, light_count, ());
    let mut jobs: Vec<Arrival<Job>> = arrivals
        .drain(..)
        .enumerate()
        .map(|(i, a)| Arrival {
            at: a.at,
            what: Job::Light(i as u64),
        })
        .collect();
    if burst > 0 {
        let burst_rate = p.heavy_rate_per_s / f64::from(burst);
        let bursts = (burst_rate * p.window().as_secs_f64()).round().max(1.0) as usize;
        let first = p.warmup() + Duration::from_secs_f64(0.5 / burst_rate);
        let mut heavy_id = 0;
        for b in fixed_rate(burst_rate, first, bursts, ()) {
            for _ in 0..burst {
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

/// Runs one cell: a fresh runtime (and lane), the generator on this thread, then the metrics.
fn run_cell(
    p: &Params,
    expected: &Expected,
    burst: u32,
    variant: Variant,
) -> Result<Measurement, String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(p.workers as usize)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot build the runtime: {e}"))?;
    let lane = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(p.lane_threads as usize)
            .thread_name(|i| format!("compute-lane-{i}"))
            .build()
            .map_err(|e| format!("cannot build the compute lane: {e}"))?,
    );
    let jobs = schedule(p, burst);
    let light_total = jobs
        .iter()
        .filter(|j| matches!(j.what, Job::Light(_)))
        .count();
    let light_latency: Arc<Vec<AtomicU64>> =
        Arc::new((0..light_total).map(|_| AtomicU64::new(0)).collect());
    let (light_sum, heavy_sum) = (Arc::new(Checksum::new()), Arc::new(Checksum::new()));
    // ANCHOR: task_monitors
    // Spot it: tokio-metrics counts polls slower than the threshold, and how long each light
    // request waited for its first poll after it was spawned.
    let heavy_monitor =
        TaskMonitor::with_slow_poll_threshold(Duration::from_millis(p.slow_poll_threshold_ms));
    let light_monitor = TaskMonitor::new();
    // ANCHOR_END: task_monitors

    let stop = Arc::new(AtomicBool::new(false));
    let probe = rt.spawn(tick_lag_probe(
        Duration::from_millis(p.probe_period_ms),
        stop.clone(),
    ));
    let mut heavy_tasks = Vec::new();
    let mut light_tasks = Vec::with_capacity(light_total);
    let (light_rounds, heavy_rounds) = (p.light_rounds(), p.heavy_rounds());
    let start = Instant::now() + Duration::from_millis(20);
    // ANCHOR: open_loop
    // Each request is spawned at its scheduled time, whatever the runtime is doing, and its
    // latency is counted from that time: a stalled runtime cannot hide its queue.
    let generator = OpenLoop {
        spin: Duration::from_micros(p.generator_spin_us),
    }
    .run(start, &jobs, |job, scheduled| match *job {
        Job::Light(id) => {
            let (lat, sum) = (light_latency.clone(), light_sum.clone());
            light_tasks.push(rt.spawn(light_monitor.instrument(async move {
                sum.add(light_request(light_rounds, id % LIGHT_SEEDS).await);
                let ns = scheduled.elapsed().as_nanos() as u64;
                lat[id as usize].store(ns, Ordering::Relaxed);
            })));
        }
        // ANCHOR_END: open_loop
        Job::Heavy(id) => {
            let (lane, sum) = (lane.clone(), heavy_sum.clone());
            heavy_tasks.push(rt.spawn(heavy_monitor.instrument(async move {
                sum.add(heavy_request(variant, &lane, heavy_rounds, id % HEAVY_SEEDS).await);
                scheduled.elapsed()
            })));
        }
    });

    let heavy_durations = rt.block_on(async {
        for t in light_tasks {
            t.await
                .map_err(|e| format!("a light request failed: {e}"))?;
        }
        let mut durations = Vec::new();
        for t in heavy_tasks {
            durations.push(t.await.map_err(|e| format!("a heavy job failed: {e}"))?);
        }
        Ok::<_, String>(durations)
    })?;
    let drained = start.elapsed();
    stop.store(true, Ordering::Relaxed);
    let tick_lag = rt
        .block_on(probe)
        .map_err(|e| format!("the probe failed: {e}"))?;
    rt.shutdown_timeout(Duration::from_secs(5));

    let heavy_count = heavy_durations.len() as u64;
    let what = format!("burst {burst} / {}", variant.name());
    light_sum
        .verify(
            &format!("{what}: light requests"),
            Checksum::expected(
                (0..light_total as u64).map(|i| expected.light[(i % LIGHT_SEEDS) as usize]),
            ),
        )
        .map_err(|e| e.to_string())?;
    heavy_sum
        .verify(
            &format!("{what}: heavy jobs"),
            Checksum::expected(
                (0..heavy_count).map(|i| expected.heavy[(i % HEAVY_SEEDS) as usize]),
            ),
        )
        .map_err(|e| e.to_string())?;

    let outcome = Outcome {
        jobs: &jobs,
        light_latency: &light_latency,
        heavy_durations: &heavy_durations,
        drained,
        generator: &generator,
        tick_lag,
        heavy_monitor: &heavy_monitor,
        light_monitor: &light_monitor,
    };
    Ok(metrics(p, &outcome))
}

/// What one run left behind, before it is summarised.
struct Outcome<'a> {
    jobs: &'a [Arrival<Job>],
    light_latency: &'a [AtomicU64],
    heavy_durations: &'a [Duration],
    drained: Duration,
    generator: &'a measure::loadgen::GeneratorReport,
    tick_lag: Duration,
    heavy_monitor: &'a TaskMonitor,
    light_monitor: &'a TaskMonitor,
}

/// Turns one run's raw samples into the chapter's metrics. Warm-up requests are left out.
fn metrics(p: &Params, o: &Outcome) -> Measurement {
    let mut hist = LatencyHistogram::new();
    for job in o.jobs {
        match job.what {
            Job::Light(id) if job.at >= p.warmup() => {
                let ns = o.light_latency[id as usize].load(Ordering::Relaxed);
                hist.record(Duration::from_nanos(ns));
            }
            _ => {}
        }
    }
    let measured = hist.len() as f64;
    let mut heavy: Vec<f64> = o
        .heavy_durations
        .iter()
        .map(|d| d.as_secs_f64() * 1e3)
        .collect();
    heavy.sort_by(f64::total_cmp);
    let heavy_median = measure::Summary::of(&heavy).map_or(0.0, |s| s.median);
    let heavy_stats = o.heavy_monitor.cumulative();
    let light_stats = o.light_monitor.cumulative();
    let mut m = Measurement::new();
    m.push("p50", "ns", hist.p50_ns())
        .push("p99", "ns", hist.p99_ns())
        .push("p99.9", "ns", hist.p999_ns())
        .push("max", "ns", hist.max_ns())
        .push(
            "over_10ms",
            "%",
            100.0 * hist.share_above(Duration::from_millis(10)),
        )
        .push("heavy_job", "ms", heavy_median)
        .push("offered_rate", "req/s", measured / p.window().as_secs_f64())
        .push(
            "achieved_rate",
            "req/s",
            measured
                / (o.drained.as_secs_f64() - p.warmup().as_secs_f64())
                    .max(p.window().as_secs_f64()),
        )
        .push("tick_lag_max", "ns", o.tick_lag.as_nanos() as f64)
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
        .push("gen_cpu", "%", 100.0 * o.generator.cpu_share());
    m
}

/// Spin margins (µs) at which the generator measures itself alone.
const GENERATOR_SPINS_US: [u64; 5] = [0, 25, 50, 100, 200];

/// The generator alone at this chapter's light rate: the floor under every latency it measures.
fn generator_alone(p: &Params, spin_us: u64) -> Result<Measurement, String> {
    let length = if p.window() > Duration::from_secs(1) {
        Duration::from_secs(1)
    } else {
        p.window() / 2
    };
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
            block_in_place or on a Rayon lane. Reports the light requests' latency from their \
            scheduled arrival (p50 to max), the heavy jobs' time, a tick-lag probe and tokio-metrics.",
    full_run: "about 4 minutes",
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
    full_reps: 5,
};

fn main() {
    let mut h = Harness::start(CHAPTER);
    let rounds_per_us = calibrate();
    let p = Params::for_machine(h.cli(), h.cores(), rounds_per_us);
    eprintln!(
        "{} Tokio worker(s), {}-thread compute lane; light {:.0} req/s of {} µs, heavy {:.1} jobs/s of {} ms; bursts {:?}",
        p.workers,
        p.lane_threads,
        p.light_rate_per_s,
        p.light_cost_us,
        p.heavy_rate_per_s,
        p.heavy_cost_ms,
        p.bursts
    );
    h.params(&p);
    h.derived("calibrated_rounds_per_us", rounds_per_us);
    h.derived("light_rounds", p.light_rounds());
    h.derived("heavy_rounds", p.heavy_rounds());

    let expected = Expected::new(&p);
    let cells = p
        .bursts
        .iter()
        .flat_map(|b| Variant::ALL.map(|v| Cell::new(b, v.name())));
    let spins = GENERATOR_SPINS_US
        .iter()
        .map(|spin| Cell::new(spin, "alone"));
    h.run(vec![
        Experiment::new("blocking", cells.collect(), |cell, _rep| {
            let burst: u32 = cell.case.parse().expect("cases are burst sizes");
            let variant = Variant::from_name(&cell.variant).expect("cells name known variants");
            run_cell(&p, &expected, burst, variant)
        }),
        Experiment::new("generator", spins.collect(), |cell, _rep| {
            generator_alone(&p, cell.case.parse().expect("cases are spin margins"))
        })
        .shaped_by(&["light_rate_per_s", "window_ms"]),
    ]);
}
