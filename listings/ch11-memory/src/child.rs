//! The service's program, the same for every allocator: `src/bin/ch11-system.rs`,
//! `ch11-mimalloc.rs` and `ch11-jemalloc.rs` each set their global allocator and call `main`.
//!
//! `ch11-SERVICE bursts CONFIG` drives the service through bursts and the spells after them;
//! `ch11-SERVICE limit CONFIG` allocates until the allocator refuses. CONFIG is JSON
//! (`crate::report`); the report is the last line of standard error.

use crate::counting::{live_bytes, peak_live_bytes};
use crate::probe::{Figure, memory, process_cpu_and_faults, reset_peak};
use crate::report::{
    Bursts, HELD_PREFIX, Held, Limit, LimitReport, REPORT_PREFIX, Report, WARM_UP_PREFIX,
};
use crate::service::{Cache, Work, handle};
use measure::LatencyHistogram;
use measure::loadgen::{GeneratorReport, OpenLoop, fixed_rate};
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The program's allocator: its name (`system`, `mimalloc`, `jemalloc`), its version and
/// settings, and how to read its own figures.
pub struct Allocator {
    pub name: &'static str,
    pub version: String,
    pub figures: fn() -> Result<Vec<Figure>, String>,
}

/// Runs the command on the command line with `allocator`.
pub fn main(allocator: Allocator) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("bursts") => config(&args)
            .and_then(|c| bursts(&allocator, c))
            .map(|(r, _runtime)| print(REPORT_PREFIX, r)),
        Some("limit") => config(&args).and_then(|c| limit(&allocator, c)),
        _ => Err(format!(
            "usage: ch11-{} bursts|limit CONFIG (JSON); got {args:?}",
            allocator.name
        )),
    };
    if let Err(e) = result {
        eprintln!("ch11-{}: {e}", allocator.name);
        std::process::exit(2);
    }
}

fn config<T: serde::de::DeserializeOwned>(args: &[String]) -> Result<T, String> {
    let text = args.get(1).ok_or("the CONFIG argument is missing")?;
    serde_json::from_str(text).map_err(|e| format!("bad CONFIG {text:?}: {e}"))
}

/// A line of standard error: `prefix` and `report` as JSON.
fn print<R: Serialize>(prefix: &str, report: R) {
    eprintln!(
        "{prefix}{}",
        serde_json::to_string(&report).expect("a report serialises")
    );
}

/// Requests started and finished: the trimming task's way to tell how busy the service is.
#[derive(Default)]
struct Activity {
    started: AtomicU64,
    finished: AtomicU64,
}

/// Serves the bursts and the spells after them; the report, and the runtime, still running (its
/// threads idle) for what the caller does next.
fn bursts(allocator: &Allocator, c: Bursts) -> Result<(Report, tokio::runtime::Runtime), String> {
    if c.trim_when_quiet && !cfg!(target_env = "gnu") {
        return Err(
            "trim_when_quiet calls glibc's malloc_trim: this program is not on glibc".into(),
        );
    }
    if c.trim_when_quiet && c.trim_period_ms == 0 {
        return Err("trim_when_quiet needs a trim_period_ms above 0".into());
    }
    let rt = measure::runtime(c.workers)?;
    let cache: &'static Cache = Box::leak(Box::default());
    let activity: &'static Activity = Box::leak(Box::default());
    let stop = Arc::new(AtomicBool::new(false));
    let trimmer = c.trim_when_quiet.then(|| {
        rt.spawn(trim_when_quiet(
            Duration::from_millis(c.trim_period_ms),
            c.quiet_below,
            activity,
            stop.clone(),
        ))
    });
    let start = memory()?;
    let (cpu_before, faults_before) = process_cpu_and_faults();
    let (mut latency, mut gen_error_p99_ns, mut gen_cpu) =
        (LatencyHistogram::new(), 0f64, Duration::ZERO);
    let mut trickle_latency = LatencyHistogram::new();
    let (mut after_idle, mut live_after_idle) = (Vec::new(), Vec::new());
    let mut digest_sum = 0u64;
    let mut next_id = 0u64;
    let mut run = |rate: f64, count: usize| {
        let served = serve(&rt, rate, count, &mut next_id, c.work, cache, activity)?;
        digest_sum = served
            .requests
            .iter()
            .fold(digest_sum, |sum, (_, d)| sum.wrapping_add(*d));
        Ok::<_, String>(served)
    };
    for _ in 0..c.bursts {
        // Each reading's peak is its own burst's.
        reset_peak()?;
        let burst = run(c.rate_per_s, c.requests)?;
        for (took, _) in &burst.requests {
            latency.record(*took);
        }
        gen_cpu += burst.generator.cpu;
        gen_error_p99_ns = gen_error_p99_ns.max(burst.generator.timing_error.p99_ns());
        // After the peak: nothing at all, or a trickle of the same requests.
        let trickle = (c.trickle_per_s * c.idle_ms as f64 / 1000.0) as usize;
        if trickle == 0 {
            std::thread::sleep(Duration::from_millis(c.idle_ms));
        } else {
            let served = run(c.trickle_per_s, trickle)?;
            for (took, _) in &served.requests {
                trickle_latency.record(*took);
            }
            gen_cpu += served.generator.cpu;
        }
        after_idle.push(memory()?);
        live_after_idle.push(live_bytes());
    }
    let (cpu_after, faults_after) = process_cpu_and_faults();
    stop.store(true, Ordering::Relaxed);
    let (trims, trim_max_ns) = match trimmer {
        Some(t) => rt
            .block_on(t)
            .map_err(|e| format!("the trimming task panicked: {e}"))?,
        None => (0, 0.0),
    };
    let report = Report {
        allocator: allocator.name.into(),
        version: allocator.version.clone(),
        libc: if cfg!(target_env = "musl") {
            "musl"
        } else {
            "glibc"
        }
        .into(),
        start,
        after_idle,
        live_after_idle,
        live_peak: peak_live_bytes(),
        figures: (allocator.figures)()?,
        p50_ns: latency.p50_ns(),
        p99_ns: latency.p99_ns(),
        max_ns: latency.max_ns(),
        gen_error_p99_ns,
        cpu_ns: cpu_after
            .saturating_sub(cpu_before)
            .saturating_sub(gen_cpu)
            .as_nanos() as f64,
        minor_faults: faults_after - faults_before,
        served: next_id,
        digest_sum,
        cache_entries: cache.len(),
        trickle_p99_ns: if c.trickle_per_s > 0.0 {
            trickle_latency.p99_ns()
        } else {
            0.0
        },
        trims,
        trim_max_ns,
    };
    Ok((report, rt))
}

/// What one open-loop run of requests gave: each request's latency from its scheduled time and
/// its digest, and the generator's own figures.
struct Served {
    requests: Vec<(Duration, u64)>,
    generator: GeneratorReport,
}

/// `count` requests at `rate` a second, numbered on from `next_id`, until every one is done.
fn serve(
    rt: &tokio::runtime::Runtime,
    rate: f64,
    count: usize,
    next_id: &mut u64,
    work: Work,
    cache: &'static Cache,
    activity: &'static Activity,
) -> Result<Served, String> {
    let arrivals = fixed_rate(rate, Duration::from_millis(20), count, ());
    let mut handles = Vec::with_capacity(count);
    let generator = OpenLoop::default().run(Instant::now(), &arrivals, |_, scheduled| {
        let id = *next_id;
        *next_id += 1;
        activity.started.fetch_add(1, Ordering::Relaxed);
        handles.push(rt.spawn(async move {
            let digest = handle(id, work, cache).await;
            activity.finished.fetch_add(1, Ordering::Relaxed);
            (scheduled.elapsed(), digest)
        }));
    });
    let done = rt.block_on(async {
        let mut all = Vec::with_capacity(handles.len());
        for h in handles {
            all.push(h.await);
        }
        all
    });
    let requests = done
        .into_iter()
        .map(|d| d.map_err(|e| format!("a request panicked: {e}")))
        .collect::<Result<_, _>>()?;
    Ok(Served {
        requests,
        generator,
    })
}

// ANCHOR: trim_when_quiet
/// Every `period`, if fewer than `quiet_below` requests started since the last look and fewer
/// than that are in flight, gives glibc's free pages back with `malloc_trim(0)`. Returns the
/// calls and the longest.
async fn trim_when_quiet(
    period: Duration,
    quiet_below: u64,
    activity: &'static Activity,
    stop: Arc<AtomicBool>,
) -> (u64, f64) {
    let (mut calls, mut longest, mut seen) = (0u64, Duration::ZERO, 0u64);
    let mut ticks = tokio::time::interval(period);
    ticks.tick().await;
    while !stop.load(Ordering::Relaxed) {
        ticks.tick().await;
        let started = activity.started.load(Ordering::Relaxed);
        let in_flight = started - activity.finished.load(Ordering::Relaxed);
        if started - seen < quiet_below && in_flight < quiet_below {
            // Milliseconds or more, each arena locked in turn: on the blocking pool, not here.
            let took = tokio::task::spawn_blocking(crate::probe::trim)
                .await
                .expect("malloc_trim does not panic");
            longest = longest.max(took);
            calls += 1;
        }
        seen = started;
    }
    (calls, longest.as_nanos() as f64)
}
// ANCHOR_END: trim_when_quiet

/// Serves the warm-up's bursts, if any; then holds `chunk_mib` at a time, each page written,
/// saying what it holds after each, until an allocation fails; reports what it held, then asks
/// once more through an allocation that cannot fail, which aborts the process.
fn limit(allocator: &Allocator, c: Limit) -> Result<(), String> {
    // The warm-up's runtime stays up, its threads idle, as a service's would.
    let _runtime = match c.warm_up {
        Some(warm_up) => {
            let (report, runtime) = bursts(allocator, warm_up)?;
            print(WARM_UP_PREFIX, report);
            Some(runtime)
        }
        None => None,
    };
    let anon_before = memory()?.anon;
    let chunk = c.chunk_mib << 20;
    let mut held: Vec<Vec<u8>> = Vec::new();
    loop {
        let mut block = Vec::new();
        if block.try_reserve_exact(chunk).is_err() {
            break;
        }
        block.resize(chunk, 1);
        held.push(block);
        let held_mib = held.len() * c.chunk_mib;
        print(
            HELD_PREFIX,
            Held {
                anon_before,
                held_mib,
            },
        );
        if held.len() > c.max_chunks {
            return Err(format!(
                "held {} MiB and no limit was hit",
                held.len() * c.chunk_mib
            ));
        }
    }
    print(
        REPORT_PREFIX,
        LimitReport {
            held_mib: held.len() * c.chunk_mib,
            refused: 1,
        },
    );
    let block = vec![1u8; chunk];
    Err(format!(
        "an allocation of {} MiB succeeded after one was refused ({} bytes)",
        c.chunk_mib,
        std::hint::black_box(block).len()
    ))
}

/// Makes `command`'s process start under an address-space limit (`RLIMIT_AS`) of `bytes`.
pub fn limit_address_space(command: &mut std::process::Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is async-signal-safe; the closure touches nothing else.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
