//! The experiments of Chapter 6. Every channel cell runs in a child process of its
//! own, with the system allocator (this program) or mimalloc (`ch06-mimalloc`):
//! `throughput` by topology and capacity, `ping_pong`, `select` over two channels,
//! `cancel` (what a cancelled receive loses), `threads` (1 → 1 on 1 to all CPUs);
//! `queue_depth` watches a pipeline whose producer outruns its consumer. Go's channels run
//! `throughput`, `ping_pong` and `select` beside them, in the listing's Go program (`go/main.go`).
//!
//! `cargo run -p ch06-channels -- --help` lists the flags.

use ch06_channels::child::Report;
use measure::affinity::host_cpus;
use measure::loadgen::{OpenLoop, fixed_rate, spin_until, wait_until};
use measure::{Cell, Chapter, Experiment, Harness, Measurement};
use measure_go::Program;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The setup, chosen for this machine (see `Params::for_machine`).
#[derive(Serialize)]
struct Params {
    /// Tokio workers: every core.
    workers: u32,
    /// Messages per throughput and select cell, and per cancel cell.
    messages: u64,
    cancel_messages: u64,
    /// Channel capacities, as the source's.
    capacities: Vec<usize>,
    /// (senders, receivers), as the source's.
    topologies: Vec<(usize, usize)>,
    /// Ping-pong round trips per pass.
    round_trips: u64,
    /// A throughput, ping-pong or select cell repeats its pass (of `messages` or
    /// `round_trips`) until it has timed at least this long, after a warm-up pass.
    least_timed_ms: u64,
    /// `threads`: 1 → 1 at capacity 1024 on this many CPUs.
    thread_cpus: Vec<usize>,
    /// `queue_depth`: messages a second offered (twice what the consumer takes),
    /// the consumer's work per message, the bounded channel's capacity, and how
    /// long each run offers them.
    offered_per_s: f64,
    consumer_us: u64,
    bounded_capacity: usize,
    depth_after_ms: Vec<u64>,
    /// `cancel_send`: messages per cell.
    cancel_send_messages: u64,
    /// `blocking_recv`: one message to each of `workers` consumers every
    /// `blocking_gap_us`, for `blocking_window_ms`, beside a ticker of `tick_ms`.
    blocking_gap_us: u64,
    blocking_window_ms: u64,
    tick_ms: u64,
}

impl Params {
    fn for_machine(quick: bool, workers: u32) -> Params {
        Params {
            workers,
            messages: if quick { 20_000 } else { 1_000_000 },
            cancel_messages: if quick { 20_000 } else { 200_000 },
            capacities: vec![1024, 1],
            topologies: vec![(1, 1), (4, 1), (4, 4)],
            round_trips: if quick { 5_000 } else { 100_000 },
            least_timed_ms: if quick { 0 } else { 200 },
            thread_cpus: (1..=host_cpus()).collect(),
            offered_per_s: 40_000.0,
            consumer_us: 50,
            bounded_capacity: 64,
            depth_after_ms: if quick {
                vec![50]
            } else {
                vec![50, 100, 150, 200]
            },
            cancel_send_messages: if quick { 20_000 } else { 200_000 },
            blocking_gap_us: 1000,
            blocking_window_ms: if quick { 100 } else { 500 },
            tick_ms: 5,
        }
    }
}

/// The async implementations, and crossbeam on OS threads.
const IMPLS: [&str; 6] = [
    "tokio_mpsc",
    "tokio_batch",
    "kanal",
    "async_channel",
    "flume",
    "crossbeam",
];

/// Implementations with a multi-consumer channel (Tokio's mpsc has one receiver).
fn multi_consumer(imp: &str) -> bool {
    !imp.starts_with("tokio")
}

/// A variant names the implementation, then `_mimalloc` for the mimalloc child.
fn split_allocator(variant: &str) -> (&str, bool) {
    match variant.strip_suffix("_mimalloc") {
        Some(imp) => (imp, true),
        None => (variant, false),
    }
}

/// The child binaries: this program for the system allocator, `ch06-mimalloc` beside
/// it for mimalloc.
fn child_binary(mimalloc: bool) -> Result<PathBuf, String> {
    if mimalloc {
        measure::child::sibling_binary("ch06-channels", "ch06-mimalloc")
    } else {
        std::env::current_exe()
            .map_err(|e| format!("cannot find this program: {e}"))
    }
}

/// Runs one child command and reads its report.
fn in_child(variant: &str, args: &[String]) -> Result<Report, String> {
    let (imp, mimalloc) = split_allocator(variant);
    let mut full = vec!["child".to_string(), args[0].clone(), imp.to_string()];
    full.extend(args[1..].iter().cloned());
    let out = std::process::Command::new(child_binary(mimalloc)?)
        .args(&full)
        .output()
        .map_err(|e| format!("cannot start a child: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{variant}: child {} failed ({}): {}",
            full[1..].join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim())
        .map_err(|e| format!("child printed {text:?}: {e}"))
}

/// The Go variant of `throughput`, `ping_pong` and `select`: Go's built-in channels, in the
/// listing's Go program (`go/main.go`).
const GO_CHAN: &str = "go_chan";

/// The Go program, built before measuring when a selected cell runs it (`main`).
static GO: OnceLock<Program> = OnceLock::new();

/// What the Go program prints for a cell: the Rust child's report, and the checksum.
#[derive(Deserialize)]
struct GoReport {
    seconds: f64,
    messages: u64,
    checksum: u64,
    #[serde(default)]
    rtt_p50_ns: f64,
    #[serde(default)]
    rtt_p99_ns: f64,
    #[serde(default)]
    rtt_over_1us: f64,
}

/// Runs a Go cell on `workers` Go threads (`GOMAXPROCS`). It made whole timed passes of `n`
/// messages (or round trips), so its checksum must be the digest sum of `0..n` once per pass.
fn in_go(workers: u32, n: u64, args: &[&str]) -> Result<Report, String> {
    let go = GO
        .get()
        .ok_or("the Go program was not built before measuring")?;
    let text = go.run(workers, args, &[])?;
    let r: GoReport = serde_json::from_str(text.trim())
        .map_err(|e| format!("the Go program printed {text:?}: {e}"))?;
    let passes = r.messages / n;
    let want = ch06_channels::expected_sum(n).wrapping_mul(passes);
    if passes == 0 || !r.messages.is_multiple_of(n) || r.checksum != want {
        return Err(format!(
            "{GO_CHAN} {}: {} messages summing to {}, expected whole passes of {n} summing to {want}",
            args.join(" "),
            r.messages,
            r.checksum
        ));
    }
    Ok(Report {
        seconds: r.seconds,
        messages: r.messages,
        rtt_p50_ns: r.rtt_p50_ns,
        rtt_p99_ns: r.rtt_p99_ns,
        rtt_over_1us: r.rtt_over_1us,
        ..Report::default()
    })
}

fn per_second(r: &Report) -> f64 {
    r.messages as f64 / r.seconds
}

/// Experiment `throughput` (and `threads`): a case is `SToR_capC`.
fn throughput_cell(
    p: &Params,
    case: &str,
    variant: &str,
    cpus: usize,
) -> Result<Measurement, String> {
    let (topology, cap) = case.split_once("_cap").ok_or("a throughput case")?;
    let (s, r) = topology.split_once("to").ok_or("a topology")?;
    let (n, least) = (p.messages.to_string(), p.least_timed_ms.to_string());
    let r = if variant == GO_CHAN {
        in_go(
            p.workers,
            p.messages,
            &["throughput", s, r, cap, &n, &least],
        )?
    } else {
        in_child(
            variant,
            &[
                "throughput".into(),
                s.into(),
                r.into(),
                cap.into(),
                n,
                p.workers.to_string(),
                cpus.to_string(),
                least,
            ],
        )?
    };
    let mut m = Measurement::new();
    m.push("messages_per_s", "/s", per_second(&r));
    Ok(m)
}

fn ping_pong_cell(
    p: &Params,
    variant: &str,
    workers: u32,
) -> Result<Measurement, String> {
    let (n, least) = (p.round_trips.to_string(), p.least_timed_ms.to_string());
    let r = if variant == GO_CHAN {
        in_go(workers, p.round_trips, &["pingpong", &n, &least])?
    } else {
        in_child(
            variant,
            &["pingpong".into(), n, workers.to_string(), "0".into(), least],
        )?
    };
    let mut m = Measurement::new();
    m.push("round_trips_per_s", "/s", per_second(&r))
        .push("rtt_p50", "ns", r.rtt_p50_ns)
        .push("rtt_p99", "ns", r.rtt_p99_ns)
        .push("rtt_over_1us", "%", r.rtt_over_1us * 100.0);
    Ok(m)
}

fn select_cell(
    p: &Params,
    case: &str,
    variant: &str,
) -> Result<Measurement, String> {
    let cap = case.strip_prefix("cap").ok_or("a select case")?;
    let (n, least) = (p.messages.to_string(), p.least_timed_ms.to_string());
    let r = if variant == GO_CHAN {
        in_go(p.workers, p.messages, &["select", cap, &n, &least])?
    } else {
        in_child(
            variant,
            &[
                "select".into(),
                cap.into(),
                n,
                p.workers.to_string(),
                "0".into(),
                least,
            ],
        )?
    };
    let mut m = Measurement::new();
    m.push("messages_per_s", "/s", per_second(&r));
    Ok(m)
}

fn cancel_cell(p: &Params, variant: &str) -> Result<Measurement, String> {
    let n = p.cancel_messages;
    let r = in_child(
        variant,
        &[
            "cancel".into(),
            n.to_string(),
            p.workers.to_string(),
            "0".into(),
        ],
    )?;
    let mut m = Measurement::new();
    m.push("lost", "count", r.lost as f64)
        .push("cancelled", "count", r.cancelled as f64)
        .push("received", "count", r.received as f64);
    Ok(m)
}

/// Experiment `cancel_send`: sends raced against another branch, `send` or
/// `reserve` first, on a runtime of `workers`.
fn cancel_send_cell(p: &Params, variant: &str) -> Result<Measurement, String> {
    let rt = measure::runtime(p.workers)?;
    let n = p.cancel_send_messages;
    let c = rt.block_on(async move {
        let run = match variant {
            "send_in_select" => tokio::spawn(ch06_channels::sends_in_select(n)),
            _ => tokio::spawn(ch06_channels::reserve_in_select(n)),
        };
        run.await.map_err(|e| e.to_string())?
    })?;
    let mut m = Measurement::new();
    m.push("lost", "count", c.lost as f64)
        .push("cancelled", "count", c.cancelled as f64)
        .push("received", "count", c.received as f64);
    Ok(m)
}

/// Experiment `blocking_recv`: as many consumers as workers, each on a channel of
/// its own fed by one thread, receive with a blocking `recv` or an async one; a
/// ticker on the same runtime records how late it wakes.
fn blocking_recv_cell(p: &Params, blocking: bool) -> Result<Measurement, String> {
    let rt = measure::runtime(p.workers)?;
    let per_consumer = p.blocking_window_ms * 1000 / p.blocking_gap_us;
    let ticking = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let ticker = rt.spawn(tick_lateness(p.tick_ms, ticking.clone()));
    let (mut feeds, mut consumers) = (Vec::new(), Vec::new());
    for _ in 0..p.workers {
        if blocking {
            let (tx, rx) = crossbeam_channel::unbounded();
            feeds.push(Feed::Blocking(tx));
            consumers.push(rt.spawn(ch06_channels::consume_blocking(rx)));
        } else {
            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
            feeds.push(Feed::Async(tx));
            consumers.push(rt.spawn(ch06_channels::consume_async(rx)));
        }
    }
    let gap = Duration::from_micros(p.blocking_gap_us);
    let feeder = std::thread::spawn(move || {
        let start = Instant::now();
        for i in 0..per_consumer {
            wait_until(start + gap * (i as u32 + 1), Duration::from_micros(50));
            for feed in &feeds {
                feed.send(i);
            }
        }
        // The senders go with `feeds`: every consumer's loop ends.
    });
    feeder.join().map_err(|_| "the feeding thread panicked")?;
    let want = (0..per_consumer)
        .map(measure::checksum::mix)
        .fold(0, u64::wrapping_add);
    let (lateness, sums) = rt.block_on(async {
        let mut sums = Vec::new();
        for c in consumers {
            sums.push(c.await.map_err(|e| e.to_string())?);
        }
        ticking.store(false, Ordering::Relaxed);
        let lateness = ticker.await.map_err(|e| e.to_string())?;
        Ok::<_, String>((lateness, sums))
    })?;
    if sums.iter().any(|&s| s != want) {
        return Err(format!(
            "a consumer's sum is wrong: {sums:?}, expected {want} each"
        ));
    }
    let mut m = Measurement::new();
    m.push("tick_max", "ns", lateness.max_ns())
        .push("tick_p50", "ns", lateness.p50_ns())
        .push("ticks", "count", lateness.len() as f64);
    Ok(m)
}

/// The sending half of a consumer's channel.
enum Feed {
    Blocking(crossbeam_channel::Sender<u64>),
    Async(tokio::sync::mpsc::UnboundedSender<u64>),
}

impl Feed {
    fn send(&self, v: u64) {
        // A consumer outlives its feed: a failed send would be a bug, caught by the sum.
        let _ = match self {
            Feed::Blocking(tx) => tx.send(v).map_err(drop),
            Feed::Async(tx) => tx.send(v).map_err(drop),
        };
    }
}

/// Wakes every `period_ms` while `on` is set and records how late each wake was.
async fn tick_lateness(
    period_ms: u64,
    on: Arc<std::sync::atomic::AtomicBool>,
) -> measure::stats::LatencyHistogram {
    let period = Duration::from_millis(period_ms);
    let mut lateness = measure::stats::LatencyHistogram::new();
    let mut due = tokio::time::Instant::now() + period;
    while on.load(Ordering::Relaxed) {
        tokio::time::sleep_until(due).await;
        let now = tokio::time::Instant::now();
        lateness.record(now - due);
        due += period;
        if due < now {
            due = now + period;
        }
    }
    lateness
}

/// Experiment `queue_depth`: a thread offers messages at a fixed rate for
/// `run_ms` (open loop); a task takes `consumer_us` of CPU per message. At the end,
/// how many are queued, and how long the producer took to offer them all.
/// Unbounded, the queue grows; bounded, a full channel turns the extra messages
/// away (`try_send`), and they are counted; `bounded_send` waits for room instead
/// (`blocking_send`), so the producer falls behind its schedule to the consumer's
/// pace.
fn queue_depth_cell(
    p: &Params,
    run_ms: u64,
    how: &str,
) -> Result<Measurement, String> {
    let rt = measure::runtime(p.workers)?;
    let received = Arc::new(AtomicU64::new(0));
    let n = (p.offered_per_s * run_ms as f64 / 1e3) as usize;
    let arrivals = fixed_rate(p.offered_per_s, Duration::ZERO, n, ());
    let work = Duration::from_micros(p.consumer_us);
    let consume = |got: Arc<AtomicU64>| {
        move |_: u64| {
            spin_until(Instant::now() + work);
            got.fetch_add(1, Ordering::Relaxed);
        }
    };
    let started = Instant::now();
    let (sent, refused) = if how != "unbounded" {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<u64>(p.bounded_capacity);
        let each = consume(received.clone());
        rt.spawn(async move {
            while let Some(v) = rx.recv().await {
                each(v);
            }
        });
        if how == "bounded_send" {
            offer(&arrivals, |i| tx.blocking_send(i).is_ok())
        } else {
            offer(&arrivals, |i| tx.try_send(i).is_ok())
        }
    } else {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<u64>();
        let each = consume(received.clone());
        rt.spawn(async move {
            while let Some(v) = rx.recv().await {
                each(v);
            }
        });
        offer(&arrivals, |i| tx.send(i).is_ok())
    };
    let producer_ms = started.elapsed().as_secs_f64() * 1e3;
    let queued = sent.saturating_sub(received.load(Ordering::Relaxed));
    // Every message accepted is received before the runtime goes.
    let deadline = Instant::now() + Duration::from_secs(30);
    while received.load(Ordering::Relaxed) < sent && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    let got = received.load(Ordering::Relaxed);
    if got != sent {
        return Err(format!("queue_depth: {sent} accepted, {got} received"));
    }
    let mut m = Measurement::new();
    m.push("depth", "count", queued as f64)
        .push("refused", "count", refused as f64)
        .push("producer_ms", "ms", producer_ms);
    Ok(m)
}

/// Offers the arrivals on schedule; (accepted, refused).
fn offer(
    arrivals: &[measure::loadgen::Arrival<()>],
    mut send: impl FnMut(u64) -> bool,
) -> (u64, u64) {
    let (mut sent, mut refused, mut i) = (0u64, 0u64, 0u64);
    OpenLoop::default().run(Instant::now(), arrivals, |_, _| {
        if send(i) {
            sent += 1;
        } else {
            refused += 1;
        }
        i += 1;
    });
    (sent, refused)
}

const CHAPTER: Chapter = Chapter {
    name: "ch06-channels",
    title: "Channels",
    about: "Tokio's mpsc (one message per recv, and recv_many), kanal, async-channel \
            and flume on a Tokio runtime, and crossbeam-channel on OS threads, each \
            in a child process with the system allocator and with mimalloc: a \
            million u64s from 1 sender to 1 receiver, 4 to 1 and 4 to 4 at \
            capacities 1024 and 1, with a checksum; ping-pong round trips and their \
            p50/p99; select over two channels; how many messages a receive \
            cancelled by a competing select! branch loses; 1 to 1 on one CPU and on \
            all of them; the queue depth of a pipeline whose producer outruns its \
            consumer, unbounded, bounded with try_send and bounded with a send that \
            waits; what a send cancelled in select! loses, with and without \
            reserve(); and a ticker beside tasks that receive with a blocking recv. Go's \
            channels run the throughput, ping-pong and select workloads beside them (the \
            Go variant needs Go).",
    listing_dir: env!("CARGO_MANIFEST_DIR"),
    crates: &[
        "tokio",
        "kanal",
        "async-channel",
        "flume",
        "crossbeam-channel",
        "mimalloc",
    ],
    headline: &[
        "messages_per_s",
        "round_trips_per_s",
        "rtt_p50",
        "lost",
        "depth",
    ],
    full_reps: 10,
};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("child") {
        std::process::exit(ch06_channels::child::main(&args[2..]));
    }
    let mut h = Harness::start(CHAPTER);
    let p =
        Params::for_machine(h.cli().quick, h.cli().workers.unwrap_or(h.cores()));
    h.params(&p);
    let both_allocators: Vec<String> = IMPLS
        .iter()
        .flat_map(|i| [i.to_string(), format!("{i}_mimalloc")])
        .collect();
    let mut throughput_cells = Vec::new();
    for &(s, r) in &p.topologies {
        for cap in &p.capacities {
            for v in &both_allocators {
                if r > 1 && !multi_consumer(split_allocator(v).0) {
                    continue; // no such channel: the table says so
                }
                throughput_cells.push(Cell::new(format!("{s}to{r}_cap{cap}"), v));
            }
            throughput_cells.push(Cell::new(format!("{s}to{r}_cap{cap}"), GO_CHAN));
        }
    }
    let mut both: Vec<&str> = both_allocators.iter().map(String::as_str).collect();
    both.push(GO_CHAN);
    let caps: Vec<String> =
        p.capacities.iter().map(|c| format!("cap{c}")).collect();
    let p = &p;
    let experiments = vec![
        Experiment::new("throughput", throughput_cells, |cell, _| {
            throughput_cell(p, &cell.case, &cell.variant, 0)
        })
        .shaped_by(measure::fields!(p => workers, messages, least_timed_ms, capacities, topologies)),
        Experiment::new("ping_pong", Cell::grid(["cap1"], &both), |cell, _| {
            ping_pong_cell(p, &cell.variant, p.workers)
        })
        .shaped_by(measure::fields!(p => workers, round_trips, least_timed_ms))
        .repetitions(20),
        // The same on one worker (both CPUs still there): no other worker to take
        // a woken task from the run queue.
        Experiment::new(
            "ping_pong_one_worker",
            Cell::grid(
                ["cap1"],
                ["tokio_mpsc", "kanal", "async_channel", "flume", GO_CHAN],
            ),
            |cell, _| ping_pong_cell(p, &cell.variant, 1),
        )
        .shaped_by(measure::fields!(p => round_trips, least_timed_ms))
        .repetitions(20),
        Experiment::new(
            "select",
            Cell::grid(
                &caps,
                [
                    "tokio_mpsc",
                    "tokio_batch",
                    "async_channel",
                    "flume",
                    "crossbeam",
                    GO_CHAN,
                ],
            ),
            |cell, _| select_cell(p, &cell.case, &cell.variant),
        )
        // Ten repetitions left its recv_many claim undecided on a remeasure, whose report
        // estimated that about twenty would decide it.
        .shaped_by(measure::fields!(p => workers, messages, least_timed_ms, capacities))
        .repetitions(20),
        Experiment::new(
            "cancel",
            Cell::grid(
                ["cap1"],
                ["tokio_mpsc", "kanal", "async_channel", "flume"],
            ),
            |cell, _| cancel_cell(p, &cell.variant),
        )
        .shaped_by(measure::fields!(p => workers, cancel_messages))
        .repetitions(20),
        Experiment::new("threads", Cell::grid(&p.thread_cpus, IMPLS), |cell, _| {
            let n: usize =
                cell.case.parse().map_err(|_| "a CPU count".to_string())?;
            let mut q = Params::for_machine(false, n as u32);
            q.messages = p.messages;
            q.least_timed_ms = p.least_timed_ms;
            throughput_cell(&q, "1to1_cap1024", &cell.variant, n)
        })
        .shaped_by(measure::fields!(p => messages, least_timed_ms, thread_cpus))
        .repetitions(20),
        Experiment::new(
            "queue_depth",
            Cell::grid(
                &p.depth_after_ms,
                ["unbounded", "bounded", "bounded_send"],
            ),
            |cell, _| {
                let ms: u64 =
                    cell.case.parse().map_err(|_| "a duration".to_string())?;
                queue_depth_cell(p, ms, &cell.variant)
            },
        )
        .shaped_by(measure::fields!(p => workers, offered_per_s, consumer_us, bounded_capacity, depth_after_ms)),
        Experiment::new(
            "cancel_send",
            Cell::grid(["cap1"], ["send_in_select", "reserve_in_select"]),
            |cell, _| cancel_send_cell(p, &cell.variant),
        )
        .shaped_by(measure::fields!(p => workers, cancel_send_messages))
        .repetitions(20),
        Experiment::new(
            "blocking_recv",
            Cell::grid([p.workers], ["blocking_recv", "async_recv"]),
            |cell, _| blocking_recv_cell(p, cell.variant == "blocking_recv"),
        )
        .shaped_by(measure::fields!(p => workers, blocking_gap_us, blocking_window_ms, tick_ms)),
    ];
    // Built once, before anything is measured, when a selected cell runs it: without the pinned
    // Go the run stops here, and a run of the Rust variants alone needs no Go.
    let go = h.prepare_for(
        &experiments,
        |c| c.variant == GO_CHAN,
        || Program::build(CHAPTER.listing_dir, CHAPTER.name),
    );
    if let Some(go) = go {
        h.derived("go_version", go.version());
        let _ = GO.set(go);
    }
    h.run(experiments);
}
