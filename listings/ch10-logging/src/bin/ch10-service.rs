//! The service in a process of its own, so that each cell installs its subscriber as the global
//! default and writes to the standard output the experiment gives it.
//!
//! `ch10-service serve CONFIG` runs requests at a fixed open-loop rate on a Tokio runtime;
//! `ch10-service events CONFIG` emits events in a loop on one thread. CONFIG is JSON
//! (`ch10_logging::report`); the report is the last line of standard error.

use ch10_logging::logging::{DEFAULT_QUEUE_LINES, Logging, Writer, console_and_fmt, logging};
use ch10_logging::probe::{process_cpu, resident_bytes, write_syscalls};
use ch10_logging::report::{Events, REPORT_PREFIX, Report, Serve};
use ch10_logging::service::{handle, lines_per_request};
use measure::LatencyHistogram;
use measure::loadgen::{OpenLoop, fixed_rate};
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("serve") => config(&args).and_then(serve),
        Some("events") => config(&args).and_then(events),
        _ => Err(format!(
            "usage: ch10-service serve|events CONFIG (JSON); got {args:?}"
        )),
    };
    match result {
        Ok(report) => eprintln!(
            "{REPORT_PREFIX}{}",
            serde_json::to_string(&report).expect("a report serialises")
        ),
        Err(e) => {
            eprintln!("ch10-service: {e}");
            std::process::exit(2);
        }
    }
}

fn config<T: serde::de::DeserializeOwned>(args: &[String]) -> Result<T, String> {
    let text = args.get(1).ok_or("the CONFIG argument is missing")?;
    serde_json::from_str(text).map_err(|e| format!("bad CONFIG {text:?}: {e}"))
}

/// Requests at `rate_per_s`, each spawned at its scheduled time whether or not earlier ones have
/// finished; a tick-lag probe beside them.
fn serve(c: Serve) -> Result<Report, String> {
    let log = if c.console {
        console_and_fmt(&c.filter)?
    } else {
        let queue = c.queue_lines.unwrap_or(DEFAULT_QUEUE_LINES);
        logging(Writer::named(&c.writer)?, &c.filter, queue)?
    };
    let lines = log.lines(lines_per_request(&c.filter)? * c.requests as u64);
    log.install()?;
    let rt = measure::runtime(c.workers)?;
    let stop = Arc::new(AtomicBool::new(false));
    let probe = rt.spawn(tick_lag(Duration::from_micros(c.tick_us), stop.clone()));
    let arrivals = fixed_rate(c.rate_per_s, Duration::from_millis(20), c.requests, ());
    let (cpu_before, writes_before, rss_before) =
        (process_cpu(), write_syscalls()?, resident_bytes()?);
    let mut handles = Vec::with_capacity(c.requests);
    let mut next_id = 0u64;
    let generator = OpenLoop::default().run(Instant::now(), &arrivals, |_, scheduled| {
        let id = next_id;
        next_id += 1;
        handles.push(rt.spawn(async move {
            let digest = handle(id, c.rounds).await;
            (scheduled.elapsed(), digest)
        }));
    });
    let mut latency = LatencyHistogram::new();
    let mut digest_sum = 0u64;
    for done in rt.block_on(async {
        let mut all = Vec::with_capacity(handles.len());
        for h in handles {
            all.push(h.await);
        }
        all
    }) {
        let (took, digest) = done.map_err(|e| format!("a request panicked: {e}"))?;
        latency.record(took);
        digest_sum = digest_sum.wrapping_add(digest);
    }
    stop.store(true, Ordering::Relaxed);
    let ticks = rt
        .block_on(probe)
        .map_err(|e| format!("the probe panicked: {e}"))?;
    let dropped = log.dropped_lines();
    // The appender's thread writes what is still queued before the guard lets go: its CPU and
    // its writes are the requests' too.
    let flush = flush_at_exit(log);
    let cpu = process_cpu()
        .saturating_sub(cpu_before)
        .saturating_sub(generator.cpu);
    let writes = write_syscalls()? - writes_before;
    Ok(Report {
        p50_ns: latency.p50_ns(),
        p99_ns: latency.p99_ns(),
        max_ns: latency.max_ns(),
        tick_lag_p99_ns: ticks.p99_ns(),
        tick_lag_max_ns: ticks.max_ns(),
        cpu_ns: cpu.as_nanos() as f64,
        gen_error_p99_ns: generator.timing_error.p99_ns(),
        lines_emitted: lines,
        lines_dropped: dropped,
        write_syscalls: writes,
        flush_at_exit_ns: flush,
        digest_sum,
        rss_before,
        rss_after: resident_bytes()?,
        ..Report::default()
    })
}

/// How late a timer that should fire every `period` fires, until `stop`.
async fn tick_lag(period: Duration, stop: Arc<AtomicBool>) -> LatencyHistogram {
    let mut lag = LatencyHistogram::new();
    while !stop.load(Ordering::Relaxed) {
        let due = Instant::now() + period;
        tokio::time::sleep_until(due.into()).await;
        lag.record(due.elapsed());
    }
    lag
}

/// Drops the subscriber's guard, as `main` does when the service exits, and times it; `None`
/// where the writer has no guard.
fn flush_at_exit(log: Logging) -> Option<f64> {
    let guard = log.guard?;
    let start = Instant::now();
    drop(guard);
    Some(start.elapsed().as_nanos() as f64)
}

/// `count` events in a loop on this thread: the time each takes the emitting thread.
fn events(c: Events) -> Result<Report, String> {
    let log = logging(Writer::named(&c.writer)?, "info", DEFAULT_QUEUE_LINES)?;
    log.install()?;
    let (cpu_before, writes_before) = (process_cpu(), write_syscalls()?);
    let start = Instant::now();
    match c.level.as_str() {
        "debug" => (0..c.count).for_each(|i| tracing::debug!(i = black_box(i), "filtered out")),
        "info" => (0..c.count).for_each(|i| tracing::info!(i = black_box(i), "written")),
        other => return Err(format!("level {other:?} is neither debug nor info")),
    }
    let emitting = start.elapsed();
    let lines = log.lines(if c.level == "info" { c.count } else { 0 });
    let dropped = log.dropped_lines();
    let flush = flush_at_exit(log);
    // The appender's thread has written its queue by now: its CPU and its writes count.
    Ok(Report {
        cpu_ns: process_cpu().saturating_sub(cpu_before).as_nanos() as f64,
        emit_ns_per_event: emitting.as_nanos() as f64 / c.count as f64,
        lines_emitted: lines,
        lines_dropped: dropped,
        write_syscalls: write_syscalls()? - writes_before,
        flush_at_exit_ns: flush,
        ..Report::default()
    })
}
