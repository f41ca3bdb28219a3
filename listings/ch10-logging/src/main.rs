//! The experiments of Chapter 10. `writers` runs the service at a fixed open-loop rate, logging
//! through fmt's own writer (the worker writes) and through the non-blocking writer (a thread
//! writes), into a file, `/dev/null` and a collector that falls behind; `full_queue` gives the
//! non-blocking writer a queue that collector lets fill; `levels` leaves the filter at info and
//! at debug; `event_cost` times one event, filtered out, formatted only and written;
//! `console` builds the service with `--cfg tokio_unstable` and tokio-console's layer.
//!
//! `cargo run -p ch10-logging -- --help` lists the flags.

use ch10_logging::logging::Writer;
use ch10_logging::report::{Events, REPORT_PREFIX, Report, Serve};
use ch10_logging::service::expected_digest;
use ch10_logging::sink::{Arrived, Prepared, Sink};
use measure::{Cell, Chapter, Experiment, Harness, Measurement};
use serde::Serialize;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

const CHAPTER: Chapter = Chapter {
    name: "ch10-logging",
    title: "Logging on the hot path",
    about: "A service logs a few events per request with tracing: fmt's own writer (the worker \
            writes each line) against tracing-appender's non-blocking writer (a thread writes), \
            into a file, /dev/null and the pipe of a collector that falls behind, at a fixed \
            open-loop rate, and the non-blocking writer with a queue that collector fills; the \
            filter at info and at debug; the service built with --cfg tokio_unstable and \
            tokio-console's layer; what one event costs, filtered out, formatted only and \
            written. The service runs in a process of its own, built in the release \
            profile (in quick mode, in this program's own).",
    listing_dir: env!("CARGO_MANIFEST_DIR"),
    crates: &[
        "tokio",
        "tracing",
        "tracing-subscriber",
        "tracing-appender",
        "console-subscriber",
    ],
    headline: &[
        "p99",
        "tick_lag_max",
        "cpu_per_request",
        "lines_lost",
        "ns_per_event",
    ],
    // Twenty: at ten, a run whose spread was wider than the last left two level and build
    // comparisons of a few per cent undecided (90% intervals across their bounds).
    full_reps: 20,
};

/// The setup, chosen for a two-CPU machine.
#[derive(Serialize)]
struct Params {
    /// Tokio workers of the service.
    workers: u32,
    /// `writers` and `levels`: requests per second and per cell. At this rate the requests keep
    /// the workers a few per cent busy: what changes the latency is where the lines are written,
    /// not a lack of CPU.
    rate_per_s: f64,
    requests: usize,
    /// Rounds of mixing per request (a few tens of microseconds of CPU).
    rounds: u32,
    /// The tick-lag probe's period.
    tick_us: u64,
    /// The collector's reading rate: below what the service writes at this rate (three lines a
    /// request), so the pipe between them fills, as it does behind a log shipper that falls behind.
    collector_bytes_per_s: u64,
    /// `event_cost`: events per cell, fewer than the non-blocking writer's queue holds (128,000
    /// lines), so that the emitting thread never waits for the appender's.
    events: u64,
    /// `full_queue`: the non-blocking writer's queue in lines, which the slow collector lets fill
    /// within the run and drains in a quarter of a second (at about 117 bytes a line), well
    /// inside the second its guard waits at exit; the guard's shutdown message finds a slot
    /// within its tenth of a second, since the collector frees a page of the pipe about every
    /// 31 ms.
    small_queue_lines: usize,
    /// The service built for release, as a service ships (the workspace's dev profile builds
    /// tracing-subscriber without optimisation); in quick mode it is built in this program's own
    /// profile, so that a quick run (CI's, from `target/debug`) needs no release build of its own.
    service_release: bool,
}

impl Params {
    fn for_machine(quick: bool, workers: u32) -> Params {
        Params {
            workers,
            rate_per_s: 2000.0,
            requests: if quick { 400 } else { 3000 },
            rounds: 3_000,
            tick_us: 1000,
            collector_bytes_per_s: 128 * 1024,
            events: if quick { 20_000 } else { 100_000 },
            small_queue_lines: 256,
            service_release: !quick,
        }
    }

    /// What the service is told for one cell of the served experiments.
    fn serve(&self, writer: Writer, filter: &str) -> Serve {
        Serve {
            writer: writer.name().into(),
            filter: filter.into(),
            workers: self.workers,
            rate_per_s: self.rate_per_s,
            requests: self.requests,
            rounds: self.rounds,
            tick_us: self.tick_us,
            console: false,
            queue_lines: None,
        }
    }
}

measure::variants! {
    enum Level for "levels" {
        Off = "no_subscriber",
        Info = "info",
        Debug = "debug",
    }
}

measure::variants! {
    enum Build for "console" {
        /// The service as the other experiments build it.
        Release = "release",
        /// Built with `--cfg tokio_unstable` and Tokio's `tracing` feature, no console layer.
        Unstable = "tokio_unstable",
        /// The same build, with tokio-console's layer beside fmt.
        Console = "console_layer",
    }
}

measure::variants! {
    enum Queue for "full_queue" {
        /// The non-blocking writer with its default, lossy: a line that finds the queue full is
        /// dropped.
        Lossy = "lossy",
        /// `lossy(false)`: the worker waits for room.
        Lossless = "lossless",
    }
}

measure::variants! {
    enum Cost for "event_cost" {
        FilteredOut = "debug_filtered_out",
        /// fmt's formatting into `io::sink`: the event's cost without its write.
        FormattedOnly = "info_formatted_only",
        OnTheWorker = "info_on_the_worker",
        NonBlocking = "info_non_blocking",
    }
}

fn main() {
    // SAFETY: first thing in `main`, before any other thread runs.
    unsafe { measure::forget_what_cargo_run_set() };
    let mut h = Harness::start(CHAPTER);
    let p = Params::for_machine(h.cli().quick, h.cli().workers.unwrap_or(2));
    h.params(&p);
    let p = &p;
    h.run(vec![
        Experiment::new(
            "writers",
            Cell::grid(Sink::NAMES, Writer::SHIPPED.map(Writer::name)),
            |cell, _rep| {
                let writer = Writer::named(&cell.variant)?;
                serve(p, Sink::named(&cell.case)?, writer, "info")
            },
        )
        .shaped_by(measure::fields!(
            p => service_release, workers, rate_per_s, requests, rounds, tick_us, collector_bytes_per_s
        )),
        Experiment::new(
            "full_queue",
            Cell::grid(["slow_collector"], Queue::NAMES),
            |cell, _rep| full_queue(p, Queue::named(&cell.variant)?),
        )
        .shaped_by(measure::fields!(
            p => service_release, workers, rate_per_s, requests, rounds, tick_us, collector_bytes_per_s,
                small_queue_lines
        )),
        Experiment::new(
            "levels",
            Cell::grid(["file"], Level::NAMES),
            |cell, _rep| match Level::named(&cell.variant)? {
                Level::Off => serve(p, Sink::File, Writer::Off, "info"),
                Level::Info => serve(p, Sink::File, Writer::OnTheWorker, "info"),
                Level::Debug => serve(p, Sink::File, Writer::OnTheWorker, "debug"),
            },
        )
        .shaped_by(measure::fields!(p => service_release, workers, rate_per_s, requests, rounds, tick_us)),
        Experiment::new(
            "console",
            Cell::grid(["file"], Build::NAMES),
            |cell, _rep| console(p, Build::named(&cell.variant)?),
        )
        .shaped_by(measure::fields!(p => service_release, workers, rate_per_s, requests, rounds, tick_us)),
        Experiment::new(
            "event_cost",
            Cell::grid(["one_thread"], Cost::NAMES),
            |cell, _rep| event_cost(p, Cost::named(&cell.variant)?),
        )
        .shaped_by(measure::fields!(p => service_release, events)),
    ]);
}

/// One cell of `writers` or `levels`: the service in a process of its own, its standard output
/// into `sink`, logging through `writer` at `filter`.
fn serve(p: &Params, sink: Sink, writer: Writer, filter: &str) -> Result<Measurement, String> {
    let config = p.serve(writer, filter);
    serve_with(p, service_binary(p)?, sink, config)
}

/// One cell of `full_queue`: the non-blocking writer with a small queue, beside the slow collector.
fn full_queue(p: &Params, queue: Queue) -> Result<Measurement, String> {
    let writer = match queue {
        Queue::Lossy => Writer::NonBlockingLossy,
        Queue::Lossless => Writer::NonBlockingLossless,
    };
    let config = Serve {
        queue_lines: Some(p.small_queue_lines),
        ..p.serve(writer, "info")
    };
    serve_with(p, service_binary(p)?, Sink::SlowCollector, config)
}

/// One cell of `console`: fmt's own writer at info into a file, in the service as the other
/// experiments build it, built for tokio-console, and with tokio-console's layer.
fn console(p: &Params, build: Build) -> Result<Measurement, String> {
    let (binary, with_layer) = match build {
        Build::Release => (service_binary(p)?, false),
        Build::Unstable => (console_binary()?, false),
        Build::Console => (console_binary()?, true),
    };
    let config = Serve {
        console: with_layer,
        ..p.serve(Writer::OnTheWorker, "info")
    };
    serve_with(p, binary, Sink::File, config)
}

fn serve_with(p: &Params, binary: &Path, sink: Sink, config: Serve) -> Result<Measurement, String> {
    let (r, arrived) = run_service(binary, "serve", &config, sink, p.collector_bytes_per_s)?;
    let expected = (0..p.requests as u64).fold(0u64, |sum, id| {
        sum.wrapping_add(expected_digest(id, p.rounds))
    });
    if r.digest_sum != expected {
        return Err(format!(
            "the requests' digests add up to {:#x}, not {expected:#x}",
            r.digest_sum
        ));
    }
    let lost = lines_lost(&r, arrived)?;
    let per_request = |x: f64| x / p.requests as f64;
    let mut m = Measurement::new();
    m.push("p50", "ns", r.p50_ns)
        .push("p99", "ns", r.p99_ns)
        .push("max", "ns", r.max_ns)
        .push("tick_lag_p99", "ns", r.tick_lag_p99_ns)
        .push("tick_lag_max", "ns", r.tick_lag_max_ns)
        .push("cpu_per_request", "ns", per_request(r.cpu_ns))
        .push(
            "writes_per_request",
            "count",
            per_request(r.write_syscalls as f64),
        )
        .push(
            "lines_per_request",
            "count",
            per_request(r.lines_emitted as f64),
        )
        .push("lines_dropped", "count", r.lines_dropped as f64)
        .push("gen_error_p99", "ns", r.gen_error_p99_ns)
        .push(
            "rss_growth_per_request",
            "bytes",
            (r.rss_after as f64 - r.rss_before as f64) / p.requests as f64,
        );
    if let Some(lost) = lost {
        m.push("lines_lost", "count", lost as f64);
    }
    if let Some(flush) = r.flush_at_exit_ns {
        m.push("flush_at_exit", "ns", flush);
    }
    if let Some(a) = arrived.filter(|a| a.lines > 0) {
        m.push("bytes_per_line", "bytes", a.bytes as f64 / a.lines as f64);
    }
    Ok(m)
}

/// Lines the service emitted that never reached the sink: dropped by a full queue, or still
/// queued when the process exited. `None` where the sink cannot count (`/dev/null`).
fn lines_lost(r: &Report, arrived: Option<Arrived>) -> Result<Option<u64>, String> {
    let Some(arrived) = arrived else {
        return Ok(None);
    };
    r.lines_emitted
        .checked_sub(arrived.lines)
        .map(Some)
        .ok_or_else(|| {
            format!(
                "{} lines reached the sink, more than the {} the service emitted",
                arrived.lines, r.lines_emitted
            )
        })
}

/// One cell of `event_cost`: `events` events emitted in a loop on one thread, into a file.
fn event_cost(p: &Params, cost: Cost) -> Result<Measurement, String> {
    let (writer, level) = match cost {
        Cost::FilteredOut => (Writer::OnTheWorker, "debug"),
        Cost::FormattedOnly => (Writer::IntoNothing, "info"),
        Cost::OnTheWorker => (Writer::OnTheWorker, "info"),
        // Lossless, so that every event is written and its writing counted.
        Cost::NonBlocking => (Writer::NonBlockingLossless, "info"),
    };
    let config = Events {
        writer: writer.name().into(),
        level: level.into(),
        count: p.events,
    };
    let (r, arrived) = run_service(service_binary(p)?, "events", &config, Sink::File, 0)?;
    let arrived = arrived.ok_or("the file counted nothing")?;
    // Formatting alone hands every line to `io::sink`: none reaches the file.
    let expected = match cost {
        Cost::FormattedOnly => 0,
        _ => r.lines_emitted,
    };
    if arrived.lines != expected || r.lines_dropped != 0 {
        return Err(format!(
            "{} lines reached the file, not {expected} ({} emitted, {} dropped)",
            arrived.lines, r.lines_emitted, r.lines_dropped
        ));
    }
    let per_event = |x: f64| x / p.events as f64;
    let mut m = Measurement::new();
    m.push("ns_per_event", "ns", r.emit_ns_per_event)
        .push("cpu_per_event", "ns", per_event(r.cpu_ns))
        .push(
            "writes_per_event",
            "count",
            per_event(r.write_syscalls as f64),
        );
    Ok(m)
}

/// Runs `ch10-service COMMAND CONFIG` with its standard output into `sink`; its report, and what
/// reached the sink.
fn run_service<C: Serialize>(
    binary: &Path,
    command: &str,
    config: &C,
    sink: Sink,
    collector_bytes_per_s: u64,
) -> Result<(Report, Option<Arrived>), String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a folder for the log: {e}"))?;
    let (stdout, prepared) = Prepared::new(sink, dir.path(), collector_bytes_per_s)?;
    let config = serde_json::to_string(config).map_err(|e| e.to_string())?;
    // The command holds the pipe's writing end until dropped: dropped here, the collector sees
    // the end of its input when the service exits.
    let mut child = Command::new(binary)
        .args([command, &config])
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start ch10-service: {e}"))?;
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .ok_or("the service has no standard error")?
        .read_to_string(&mut stderr)
        .map_err(|e| format!("reading the service's standard error: {e}"))?;
    let status = child.wait().map_err(|e| format!("the service: {e}"))?;
    let arrived = prepared.arrived()?;
    if !status.success() {
        return Err(format!(
            "ch10-service {command} failed ({status}): {stderr}"
        ));
    }
    let report = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(REPORT_PREFIX))
        .ok_or_else(|| format!("ch10-service printed no report: {stderr}"))?;
    let report = serde_json::from_str(report).map_err(|e| format!("a malformed report: {e}"))?;
    Ok((report, arrived))
}

/// The service's program, in the profile `p` names (`service_release`), found once per run.
fn service_binary(p: &Params) -> Result<&'static PathBuf, String> {
    static PATH: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let profile = p.service_release.then_some("release");
    PATH.get_or_init(|| measure::child::binary_in_profile("ch10-logging", "ch10-service", profile))
        .as_ref()
        .map_err(Clone::clone)
}

/// The service built for tokio-console: `--cfg tokio_unstable` and the `console` feature, in a
/// target folder of its own (`target/ch10-console`), so that the flag rebuilds no other build.
/// Brought up to date when cargo runs this program, else as found; once per run.
fn console_binary() -> Result<&'static PathBuf, String> {
    static PATH: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PATH.get_or_init(build_for_console)
        .as_ref()
        .map_err(Clone::clone)
}

fn build_for_console() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let target = exe
        .parent()
        .and_then(Path::parent)
        .ok_or("cannot find the target folder")?;
    let dir = target.join("ch10-console");
    let path = dir.join("release").join("ch10-service");
    let Ok(cargo) = std::env::var("CARGO") else {
        return Some(path.clone()).filter(|p| p.is_file()).ok_or(format!(
            "{} is missing: build it with `RUSTFLAGS=\"--cfg tokio_unstable\" cargo build -p \
             ch10-logging --bin ch10-service --release --features console --target-dir {}`",
            path.display(),
            dir.display()
        ));
    };
    if !path.is_file() {
        eprintln!("building ch10-service with --cfg tokio_unstable and tokio-console (once)");
    }
    let ok = Command::new(cargo)
        .args(["build", "-q", "-p", "ch10-logging", "--bin", "ch10-service"])
        .args([
            "--profile",
            "release",
            "--features",
            "console",
            "--target-dir",
        ])
        .arg(&dir)
        .env("RUSTFLAGS", "--cfg tokio_unstable")
        .status()
        .is_ok_and(|s| s.success());
    if !ok || !path.is_file() {
        return Err(format!("could not build {}", path.display()));
    }
    Ok(path)
}
