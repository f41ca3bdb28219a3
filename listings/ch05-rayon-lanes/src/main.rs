//! The experiments of Chapter 5. `lanes` handles a burst of CPU-heavy requests
//! inline, through a Rayon lane and through `spawn_blocking` while a ticker
//! measures how late the runtime runs; `budgets` sizes the two pools under a CPU
//! mask and a CPU quota, each in a child process; `in_flight` varies the semaphore;
//! `shedding` overloads the lane with a timeout; `panics` panics in a job, in a
//! child process; `split` finds the batch too small to split.
//!
//! `cargo run -p ch05-rayon-lanes -- --help` lists the flags.

mod child;

use ch05_rayon_lanes::budget::{CpuQuota, host_cpus, threads};
use ch05_rayon_lanes::{
    Batch, Lane, LaneError, Ticking, batch, evaluate, evaluate_sequential,
    handle_inline, niced_pool, offload, offload_or_busy, offload_permit_in_job,
    offload_spawn_blocking, sched_idle_pool, shed, thread_nice, thread_policy,
};
use child::{BudgetReport, PanicReport};
use measure::loadgen::{OpenLoop, fixed_rate};
use measure::stats::LatencyHistogram;
use measure::{Cell, Chapter, Experiment, Harness, Measurement};
use serde::Serialize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The setup, chosen for this machine (see `Params::for_machine`).
#[derive(Serialize)]
struct Params {
    /// Tokio workers (`--workers`) and Rayon threads: `available_parallelism()`,
    /// both pools' default.
    workers: u32,
    rayon_threads: usize,
    /// The stack of each thread of the lane's pool. Jobs whose callers left nest on a pool
    /// thread's stack (`JobDone::enter` in lanes.rs), one on another, about as deep as jobs pile
    /// up: a 16-CPU run overflowed Rust's default of 2 MiB. Only the pages a thread touches are
    /// committed.
    lane_stack_bytes: usize,
    /// A burst of this many requests, each a batch of `items` numbers mixed
    /// `rounds` times.
    requests: usize,
    items: usize,
    rounds: u64,
    /// Batches in flight in the lane (the semaphore's permits), as the source's.
    permits: usize,
    /// The ticker's period, as the source's.
    tick_ms: u64,
    /// `idle`: the ticker alone for this long, the floor its lateness starts from.
    idle_ms: u64,
    /// `in_flight`: the semaphore's permits.
    in_flight_permits: Vec<usize>,
    /// `budgets`: affinity masks of this many CPUs, a quota of `quota_cpus`, a
    /// smaller burst.
    mask_cpus: Vec<usize>,
    quota_cpus: usize,
    budget_requests: usize,
    /// `shedding`: requests arrive at `overload` times the lane's capacity for
    /// `shed_s` seconds and are shed after `deadline_ms`.
    overload: f64,
    shed_s: f64,
    deadline_ms: u64,
    /// `panics`: a burst of `panic_requests`, request `bad_request` with an empty
    /// batch.
    panic_requests: usize,
    bad_request: usize,
    /// `split`: batch sizes, each item mixed `split_rounds` times.
    split_items: Vec<usize>,
    split_rounds: u64,
}

impl Params {
    fn for_machine(quick: bool, workers: u32, cores: u32) -> Params {
        let cpus = host_cpus();
        Params {
            workers,
            rayon_threads: cores as usize,
            lane_stack_bytes: 64 << 20,
            requests: if quick { 16 } else { 64 },
            items: 2_000,
            rounds: 24_000,
            permits: 2,
            tick_ms: 5,
            idle_ms: if quick { 50 } else { 300 },
            in_flight_permits: if quick {
                vec![1, 64]
            } else {
                vec![1, 2, 8, 64]
            },
            mask_cpus: [1, 2].into_iter().filter(|&c| c <= cpus).collect(),
            quota_cpus: 1,
            budget_requests: if quick { 8 } else { 32 },
            overload: 2.0,
            shed_s: if quick { 0.3 } else { 1.0 },
            deadline_ms: 50,
            panic_requests: 8,
            bad_request: 3,
            split_items: if quick {
                vec![16, 4096]
            } else {
                vec![1, 16, 256, 4096]
            },
            split_rounds: 50,
        }
    }

    fn tick(&self) -> Duration {
        Duration::from_millis(self.tick_ms)
    }
}

measure::variants! {
    /// Experiments `lanes` and `in_flight`: how a burst's requests are handled.
    enum Burst for "lanes" {
        /// No requests: the ticker alone.
        Idle = "idle",
        Inline = "inline",
        RayonSpawn = "rayon_spawn",
        SpawnBlocking = "spawn_blocking",
        RayonSpawnNiced = "rayon_spawn_niced",
        RayonSpawnSchedIdle = "rayon_spawn_sched_idle",
    }
}

impl Burst {
    /// The Rayon pool the burst's jobs run on.
    fn pool(self, s: &Setup) -> &Arc<rayon::ThreadPool> {
        match self {
            Burst::RayonSpawnNiced => &s.niced,
            Burst::RayonSpawnSchedIdle => &s.sched_idle,
            Burst::Idle
            | Burst::Inline
            | Burst::RayonSpawn
            | Burst::SpawnBlocking => &s.pool,
        }
    }

    /// Whether the jobs go to the lane by `rayon::spawn` (the lane's counts mean something).
    fn spawns_on_the_lane(self) -> bool {
        matches!(
            self,
            Burst::RayonSpawn | Burst::RayonSpawnNiced | Burst::RayonSpawnSchedIdle
        )
    }
}

measure::variants! {
    /// Experiment `budgets`: how the two pools are sized.
    enum Budget for "budgets" {
        Defaults = "defaults",
        HostCpus = "host_cpus",
        RayonAllTokio1 = "rayon_all_tokio_1",
        RayonLessOneTokio1 = "rayon_less_one_tokio_1",
    }
}

measure::variants! {
    /// Experiment `shedding`: where an overloaded lane says "busy".
    enum Shedding for "shedding" {
        PermitInHandler = "permit_in_handler",
        PermitInJob = "permit_in_job",
        BusyAtTheDoor = "busy_at_the_door",
    }
}

/// Everything the cells share: the pool (one for the whole run, as a service has),
/// the batch and its answer.
struct Setup {
    pool: Arc<rayon::ThreadPool>,
    /// The same size of pool, its threads at nice 19 (`niced_pool`).
    niced: Arc<rayon::ThreadPool>,
    /// The same size of pool, its threads under `SCHED_IDLE` (`sched_idle_pool`).
    sched_idle: Arc<rayon::ThreadPool>,
    work: Batch,
    answer: u64,
}

/// Experiments `lanes` and `in_flight`: a burst of requests on a fresh runtime
/// beside the ticker; `idle` runs the ticker alone.
fn burst_cell(
    p: &Params,
    s: &Setup,
    variant: &str,
    permits: usize,
) -> Result<Measurement, String> {
    let how = Burst::named(variant)?;
    let rt = measure::runtime(p.workers)?;
    let pool = how.pool(s);
    let lane = Lane::new(pool.clone(), permits, p.rounds);
    let (total, ticks, latency, threads_now) = rt.block_on(async {
        let ticking = Ticking::start(p.tick());
        let start = Instant::now();
        let mut latency = LatencyHistogram::new();
        if how == Burst::Idle {
            tokio::time::sleep(Duration::from_millis(p.idle_ms)).await;
        } else {
            let mut set = tokio::task::JoinSet::new();
            for _ in 0..p.requests {
                let (lane, work) = (lane.clone(), s.work.clone());
                set.spawn(async move {
                    let answer = handle(how, &lane, work).await;
                    (answer, start.elapsed())
                });
            }
            while let Some(joined) = set.join_next().await {
                let (answer, took) =
                    joined.map_err(|e| format!("{variant}: {e}"))?;
                let answer = answer.map_err(|e| format!("{variant}: {e:?}"))?;
                if answer != s.answer {
                    return Err(format!(
                        "{variant}: a request answered {answer}, not {}",
                        s.answer
                    ));
                }
                latency.record(took);
            }
        }
        let total = start.elapsed();
        let threads_now = threads().unwrap_or(0);
        Ok((total, ticking.stop().await, latency, threads_now))
    })?;
    let mut m = Measurement::new();
    m.push("total_ms", "ms", total.as_secs_f64() * 1e3)
        .push("tick_p50", "ns", ticks.p50_ns())
        .push("tick_max", "ns", ticks.max_ns())
        .push("ticks", "count", ticks.len() as f64)
        .push("threads", "count", threads_now as f64);
    if !latency.is_empty() {
        m.push("request_p50", "ns", latency.p50_ns()).push(
            "request_p99",
            "ns",
            latency.p99_ns(),
        );
    }
    if how.spawns_on_the_lane() {
        m.push("most_in_pool", "count", lane.most_in_pool() as f64)
            .push("lane_nice", "count", f64::from(pool.install(thread_nice)))
            .push(
                "lane_policy",
                "count",
                f64::from(pool.install(thread_policy)),
            );
    }
    Ok(m)
}

/// One request, handled the way `how` names (never `Idle`, which sends none).
async fn handle(how: Burst, lane: &Lane, work: Batch) -> Result<u64, LaneError> {
    match how {
        Burst::Inline => Ok(handle_inline(lane, work).await),
        Burst::SpawnBlocking => {
            let (pool, job) = (lane.pool.clone(), lane.job(work));
            offload_spawn_blocking(lane, move || pool.install(job)).await
        }
        Burst::Idle
        | Burst::RayonSpawn
        | Burst::RayonSpawnNiced
        | Burst::RayonSpawnSchedIdle => offload(lane, lane.job(work)).await,
    }
}

/// Experiment `shedding`: requests arrive at a fixed rate above the lane's
/// capacity, from a thread of their own (open loop), and each is shed if it has no
/// answer within the deadline.
fn shedding_cell(
    p: &Params,
    s: &Setup,
    variant: &str,
    capacity_per_s: f64,
) -> Result<Measurement, String> {
    let how = Shedding::named(variant)?;
    let rt = measure::runtime(p.workers)?;
    let lane = Lane::new(s.pool.clone(), p.permits, p.rounds);
    let rate = capacity_per_s * p.overload;
    let arrivals = fixed_rate(rate, Duration::ZERO, (rate * p.shed_s) as usize, ());
    let deadline = Duration::from_millis(p.deadline_ms);
    // With `permits` jobs in flight at the measured capacity, a job takes about this long: the
    // door waits for a permit only as long as leaves the job time to finish by the deadline.
    let job_time = Duration::from_secs_f64(p.permits as f64 / capacity_per_s);
    let served = Arc::new(Mutex::new(LatencyHistogram::new()));
    let mut answers = Vec::with_capacity(arrivals.len());
    let start = Instant::now() + Duration::from_millis(5);
    let generator = OpenLoop::default().run(start, &arrivals, |_, scheduled| {
        let (lane, job, served) =
            (lane.clone(), lane.job(s.work.clone()), served.clone());
        answers.push(rt.spawn(async move {
            // The deadline counts from the request's scheduled arrival, as its
            // latency does.
            let left = deadline.saturating_sub(scheduled.elapsed());
            let answer = match how {
                Shedding::PermitInHandler => shed(left, offload(&lane, job)).await,
                Shedding::PermitInJob => {
                    shed(left, offload_permit_in_job(&lane, job)).await
                }
                Shedding::BusyAtTheDoor => {
                    offload_or_busy(&lane, left.saturating_sub(job_time), job).await
                }
            };
            if answer.is_ok() {
                served
                    .lock()
                    .expect("no panics here")
                    .record(scheduled.elapsed());
            }
            answer
        }));
    });
    let mut shed_count = 0;
    for answer in answers {
        match rt.block_on(answer).map_err(|e| format!("{variant}: {e}"))? {
            Ok(v) if v == s.answer => {}
            Ok(v) => {
                return Err(format!(
                    "{variant}: a request answered {v}, not {}",
                    s.answer
                ));
            }
            Err(LaneError::Busy) => shed_count += 1,
            Err(e) => return Err(format!("{variant}: {e:?}")),
        }
    }
    // Every caller has its answer; the pool may still be computing for callers who
    // left.
    let answered = Instant::now();
    while lane.in_pool() > 0 {
        std::thread::sleep(Duration::from_micros(200));
    }
    let busy_after = answered.elapsed();
    let served = served.lock().expect("no panics here").clone();
    let mut m = Measurement::new();
    // Goodput is the answers within the deadline: the door's estimate of a job's time can fall
    // short, and a timeout fires a little after its deadline (the timer's millisecond steps).
    let in_deadline = served.len() as f64 * (1.0 - served.share_above(deadline));
    m.push("served", "count", served.len() as f64)
        .push("served_in_deadline", "count", in_deadline.round())
        .push("shed", "count", shed_count as f64)
        .push("served_p99", "ns", served.p99_ns())
        .push("most_in_pool", "count", lane.most_in_pool() as f64)
        .push("most_nested", "count", lane.most_nested() as f64)
        .push("nested_stack", "B", lane.most_nested_bytes() as f64)
        .push(
            "wasted_jobs",
            "count",
            (lane.finished() as f64 - served.len() as f64).max(0.0),
        )
        .push("busy_after_ms", "ms", busy_after.as_secs_f64() * 1e3)
        .push("gen_error_p99", "ns", generator.timing_error.p99_ns());
    Ok(m)
}

/// Experiment `budgets`: one child process per cell, pinned or limited before its
/// pools start.
fn budget_cell(
    p: &Params,
    s: &Setup,
    case: &str,
    variant: &str,
) -> Result<Measurement, String> {
    let (kind, cpus) = case
        .split_once('_')
        .and_then(|(k, n)| Some((k, n.parse::<usize>().ok()?)))
        .ok_or_else(|| format!("bad budget case {case}"))?;
    if kind != "mask" && kind != "quota" {
        return Err(format!("budgets has no case `{case}` (mask_N or quota_N)"));
    }
    let quota = (kind == "quota").then(|| CpuQuota::new(cpus)).transpose()?;
    let procs = quota
        .as_ref()
        .map_or("-".to_string(), |q| q.procs().display().to_string());
    let host = host_cpus().to_string();
    let (tokio_workers, rayon_threads) = match Budget::named(variant)? {
        Budget::Defaults => ("default".to_string(), "default".to_string()),
        Budget::HostCpus => (host.clone(), host),
        Budget::RayonAllTokio1 => ("1".into(), cpus.to_string()),
        Budget::RayonLessOneTokio1 => {
            ("1".into(), cpus.saturating_sub(1).max(1).to_string())
        }
    };
    let mask = if kind == "mask" { cpus } else { 0 };
    let (report, _, _) = in_child::<BudgetReport>(&[
        "budget".into(),
        mask.to_string(),
        procs,
        tokio_workers,
        rayon_threads,
        p.budget_requests.to_string(),
        p.items.to_string(),
        p.rounds.to_string(),
        p.permits.to_string(),
        p.tick_ms.to_string(),
    ])?;
    let report =
        report.ok_or_else(|| format!("{case}/{variant}: the child failed"))?;
    let want = s.answer.wrapping_mul(p.budget_requests as u64);
    if report.checksum != want {
        return Err(format!(
            "{case}/{variant}: checksum {}, expected {want}",
            report.checksum
        ));
    }
    let mut m = Measurement::new();
    m.push("total_ms", "ms", report.seconds * 1e3)
        .push("tick_p50", "ns", report.tick_p50_ns)
        .push("tick_max", "ns", report.tick_max_ns)
        .push(
            "available_parallelism",
            "count",
            report.available_parallelism as f64,
        )
        .push("tokio_workers", "count", report.tokio_workers as f64)
        .push("rayon_threads", "count", report.rayon_threads as f64)
        .push("threads", "count", report.threads as f64);
    if let Some(throttled) = quota.as_ref().and_then(CpuQuota::throttled_periods) {
        m.push("throttled_periods", "count", throttled as f64);
    }
    Ok(m)
}

/// Experiment `panics`: one child process per cell; an abort is a result, not an
/// error.
fn panic_cell(p: &Params, variant: &str) -> Result<Measurement, String> {
    let (report, status, stderr) = in_child::<PanicReport>(&[
        "panic".into(),
        variant.into(),
        p.panic_requests.to_string(),
        p.bad_request.to_string(),
    ])?;
    let mut m = Measurement::new();
    m.push("survived", "count", f64::from(u8::from(status.success())))
        .push(
            "aborted",
            "count",
            f64::from(u8::from(rayon_aborted(&status, &stderr))),
        );
    if let Some(r) = report {
        if r.ok + r.failed.len() != p.panic_requests {
            return Err(format!(
                "{variant}: {} answers for {} requests",
                r.ok + r.failed.len(),
                p.panic_requests
            ));
        }
        m.push("answered_ok", "count", r.ok as f64).push(
            "failed",
            "count",
            r.failed.len() as f64,
        );
    }
    Ok(m)
}

/// Whether a child ended the way Rayon ends a process: SIGABRT after its message.
fn rayon_aborted(status: &std::process::ExitStatus, stderr: &str) -> bool {
    use std::os::unix::process::ExitStatusExt;
    status.signal() == Some(libc::SIGABRT)
        && stderr.contains("Rayon: detected unexpected panic; aborting")
}

/// Runs this program as a child (`child ARGS...`), with the pools' environment
/// variables removed so that `default` means `available_parallelism()`: its report
/// if it printed one, its status and its standard error.
fn in_child<R: serde::de::DeserializeOwned>(
    args: &[String],
) -> Result<(Option<R>, std::process::ExitStatus, String), String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find this program: {e}"))?;
    let out = std::process::Command::new(exe)
        .arg("child")
        .args(args)
        .env_remove("RAYON_NUM_THREADS")
        .env_remove("RAYON_RS_NUM_CPUS")
        .env_remove("TOKIO_WORKER_THREADS")
        .output()
        .map_err(|e| format!("cannot start a child: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let report = match text.trim() {
        "" => None,
        line => Some(
            serde_json::from_str(line)
                .map_err(|e| format!("child printed {line:?}: {e}"))?,
        ),
    };
    if report.is_none() && out.status.success() {
        return Err(format!(
            "child {} printed nothing: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    if report.is_none() && args[0] != "panic" {
        return Err(format!(
            "child {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok((
        report,
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// Experiment `split`: one batch of `items`, sequential or `par_iter`, called from
/// a job already on the pool (as a lane's job would), repeated for at least 5 ms.
fn split_cell(
    p: &Params,
    s: &Setup,
    items: usize,
    variant: &str,
) -> Result<Measurement, String> {
    let work = batch(items);
    let want = evaluate_sequential(&work, p.split_rounds);
    let par = variant == "par_iter";
    let (ns, got) = s.pool.install(|| time_batch(&work, p.split_rounds, par));
    if got != want {
        return Err(format!(
            "{variant}/{items}: checksum {got}, expected {want}"
        ));
    }
    let mut m = Measurement::new();
    m.push("ns_per_batch", "ns", ns);
    Ok(m)
}

/// Nanoseconds per call of the batch, sequential or parallel, over at least 5 ms;
/// and its sum.
fn time_batch(work: &[u64], rounds: u64, par: bool) -> (f64, u64) {
    let start = Instant::now();
    let (mut calls, mut sum) = (0u32, 0);
    while calls < 3 || start.elapsed() < Duration::from_millis(5) {
        sum = if par {
            evaluate(work, rounds)
        } else {
            evaluate_sequential(work, rounds)
        };
        calls += 1;
    }
    (start.elapsed().as_nanos() as f64 / f64::from(calls), sum)
}

/// Experiment `split` (case `threshold`): sizes 1, 2, 4, ... 8192; at each, three
/// pairs of timings, sequential and parallel in alternating order, best of each.
/// The threshold is the smallest size at which `par_iter` takes under 0.9× the
/// loop's time and is faster at every larger size; twice the largest size if none.
fn threshold_cell(p: &Params, s: &Setup) -> Result<Measurement, String> {
    let sizes: Vec<usize> = (0..14).map(|i| 1 << i).collect();
    // (faster by a tenth, faster) at each size
    let wins = s.pool.install(|| -> Result<Vec<(bool, bool)>, String> {
        let mut wins = Vec::new();
        for &n in &sizes {
            let work = batch(n);
            let want = evaluate_sequential(&work, p.split_rounds);
            let (mut seq, mut par) = (f64::INFINITY, f64::INFINITY);
            for pair in 0..3 {
                for par_first in [pair % 2 == 0, pair % 2 == 1] {
                    let (ns, sum) = time_batch(&work, p.split_rounds, par_first);
                    if sum != want {
                        return Err(format!(
                            "split threshold: {n} items summed {sum}, not {want}"
                        ));
                    }
                    let best = if par_first { &mut par } else { &mut seq };
                    *best = best.min(ns);
                }
            }
            wins.push((par < 0.9 * seq, par < seq));
        }
        Ok(wins)
    })?;
    let from = (0..sizes.len())
        .find(|&i| wins[i].0 && wins[i..].iter().all(|w| w.1))
        .map_or(2 * sizes[sizes.len() - 1], |i| sizes[i]);
    let mut m = Measurement::new();
    m.push("threshold_items", "count", from as f64);
    Ok(m)
}

/// Requests per second the lane serves: the median of three offloaded bursts of
/// `requests`, measured before the run.
fn capacity_per_s(p: &Params, s: &Setup) -> Result<f64, String> {
    let rt = measure::runtime(p.workers)?;
    let mut rates = Vec::new();
    for _ in 0..3 {
        let lane = Lane::new(s.pool.clone(), p.permits, p.rounds);
        let start = Instant::now();
        rt.block_on(async {
            let mut set = tokio::task::JoinSet::new();
            for _ in 0..p.requests {
                let lane = lane.clone();
                let job = lane.job(s.work.clone());
                set.spawn(async move { offload(&lane, job).await });
            }
            while let Some(joined) = set.join_next().await {
                let answer = joined.map_err(|e| e.to_string())?;
                if answer.map_err(|e| format!("{e:?}"))? != s.answer {
                    return Err("capacity: a request answered wrongly".to_string());
                }
            }
            Ok(())
        })?;
        rates.push(p.requests as f64 / start.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    Ok(rates[1])
}

const CHAPTER: Chapter = Chapter {
    name: "ch05-rayon-lanes",
    title: "Rayon lanes",
    about: "A burst of 64 CPU-heavy requests (each a par_iter over 2,000 \
            numbers) handled three ways while a ticker wakes every 5 ms: Rayon \
            called inline in the handler, rayon::spawn behind a semaphore with the \
            answer on a oneshot channel, and spawn_blocking; total time, the \
            ticker's worst lateness and wake-ups, per-request latency and the \
            process's thread count. Then the two pools sized four ways under CPU \
            affinity masks and a cgroup CPU quota (each in a child process; the \
            quota where this process may make a cgroup), the semaphore at 1 to 64 \
            permits, an overload shed by a timeout (the permit held by the handler \
            or by the job) or at the semaphore, a panicking job with no panic \
            handler, with one, and caught in the job (each in a child process), and \
            the batch size below which par_iter loses to a loop.",
    listing_dir: env!("CARGO_MANIFEST_DIR"),
    crates: &["tokio", "rayon", "rayon-core"],
    headline: &[
        "total_ms",
        "tick_max",
        "request_p50",
        "served",
        "survived",
        "ns_per_batch",
        "threshold_items",
    ],
    full_reps: 10,
};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("child") {
        std::process::exit(child::main(&args[2..]));
    }
    let mut h = Harness::start(CHAPTER);
    let p = Params::for_machine(
        h.cli().quick,
        h.cli().workers.unwrap_or(h.cores()),
        h.cores(),
    );
    h.params(&p);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(p.rayon_threads)
        .stack_size(p.lane_stack_bytes)
        .build()
        .unwrap_or_else(|e| fail(format!("cannot start the Rayon pool: {e}")));
    let work: Batch = batch(p.items).into();
    let answer = evaluate_sequential(&work, p.rounds);
    let niced = niced_pool(p.rayon_threads).unwrap_or_else(|e| {
        fail(format!("cannot start the niced Rayon pool: {e}"))
    });
    let sched_idle = sched_idle_pool(p.rayon_threads).unwrap_or_else(|e| {
        fail(format!("cannot start the SCHED_IDLE Rayon pool: {e}"))
    });
    let s = Setup {
        pool: Arc::new(pool),
        niced: Arc::new(niced),
        sched_idle: Arc::new(sched_idle),
        work,
        answer,
    };
    let capacity = capacity_per_s(&p, &s).unwrap_or_else(|e| fail(e));
    h.derived("capacity_per_s", capacity);
    h.derived("host_cpus", host_cpus());
    let quota = CpuQuota::new(p.quota_cpus).map(drop);
    h.derived("cpu_quota", quota.is_ok());
    if let Err(why) = &quota {
        eprintln!("note: {why}; the quota cases are skipped");
    }
    let mut budget_cases: Vec<String> =
        p.mask_cpus.iter().map(|c| format!("mask_{c}")).collect();
    if quota.is_ok() {
        budget_cases.push(format!("quota_{}", p.quota_cpus));
    }
    let mut split_cells = Cell::grid(&p.split_items, ["sequential", "par_iter"]);
    split_cells.push(Cell::new("threshold", "par_iter"));
    let (p, s) = (&p, &s);
    h.run(vec![
        Experiment::new(
            "lanes",
            Cell::grid([p.requests], Burst::NAMES),
            |cell, _| burst_cell(p, s, &cell.variant, p.permits),
        )
        // Cheap, and its throughput claim must not turn on one or two disturbed repetitions.
        .repetitions(20)
        .shaped_by(measure::fields!(p => workers, rayon_threads, requests, items, rounds, permits, tick_ms, idle_ms)),
        Experiment::new(
            "budgets",
            Cell::grid(&budget_cases, Budget::NAMES),
            |cell, _| budget_cell(p, s, &cell.case, &cell.variant),
        )
        // Its throttled ticks move from run to run: ten repetitions left a claim undecided on a
        // remeasure whose report estimated that about a dozen would decide it.
        .shaped_by(measure::fields!(p => budget_requests, items, rounds, permits, tick_ms, mask_cpus, quota_cpus))
        .repetitions(20),
        Experiment::new(
            "in_flight",
            Cell::grid(&p.in_flight_permits, [Burst::RayonSpawn.name()]),
            |cell, _| {
                let permits = cell
                    .case
                    .parse()
                    .map_err(|_| "a permit count".to_string())?;
                burst_cell(p, s, &cell.variant, permits)
            },
        )
        .shaped_by(measure::fields!(p => workers, rayon_threads, requests, items, rounds, tick_ms, in_flight_permits))
        .repetitions(20),
        Experiment::new(
            "shedding",
            Cell::grid([format!("{}x", p.overload)], Shedding::NAMES),
            |cell, _| shedding_cell(p, s, &cell.variant, capacity),
        )
        .shaped_by(measure::fields!(p => workers, rayon_threads, items, rounds, permits, overload, shed_s, deadline_ms)),
        Experiment::new(
            "panics",
            Cell::grid(
                [p.panic_requests],
                ["no_handler", "handler", "catch_unwind"],
            ),
            |cell, _| panic_cell(p, &cell.variant),
        )
        .shaped_by(measure::fields!(p => panic_requests, bad_request)),
        Experiment::new("split", split_cells, |cell, _| match cell.case.as_str() {
            "threshold" => threshold_cell(p, s),
            n => split_cell(
                p,
                s,
                n.parse().map_err(|_| "a size".to_string())?,
                &cell.variant,
            ),
        })
        // Cheap; ten repetitions left its tiny-batch claim undecided on the same remeasure.
        .shaped_by(measure::fields!(p => rayon_threads, split_items, split_rounds))
        .repetitions(20),
    ]);
}

fn fail(why: String) -> ! {
    eprintln!("error: {why}");
    std::process::exit(1)
}
